package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.state.ContainerChangedException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two workers of one round on the shared PostgreSQL store disagree about the container {@code
 * docs}: worker 0, on the source as it was, has it a table and component {@code a} declaring
 * rows in it; worker 1, on the source as it is now, declares it without children (a leaf, in
 * component {@code t}), whose action takes every row along. Worker 0 resolved the rows in the
 * table's child generation before worker 1's change; whatever the order of the two workers'
 * writes, the clean run after must find the target as tracked: nothing created where it is,
 * nothing left untracked. The target is strict: an action finding a row in a form its handler
 * was not given (a row present where the engine believes none) is a violation.
 */
class ContainerChangedByAnotherWorkerTest extends TwoWorkersTestBase {
  /** Here t's failure fails t alone: the root goes on, as the failures expected here say. */
  @Override
  boolean mainCatchesLeafFailure() {
    return true;
  }

  /**
   * Worker 0's precommit of {@code a}'s new row r2 is held until worker 1 has committed docs as
   * a leaf (its action has removed r1): the precommit finds docs in a newer child generation and
   * is refused, and {@code a} fails with nothing applied. (Before, r2 was created after the leaf's
   * action and tracked in the generation before, and the clean run created it again where it
   * was.)
   */
  @Test
  void aChildPrecommittedAfterAnotherWorkerDeclaredItsContainerALeafIsRefused() throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.update();
    assertThat(shelf.takeLog())
        .containsExactly("create docs=table after []?", "create docs/r1=v1 after []?");

    w0.rowsOfA = List.of("r1", "r2");
    Hold rows0 = w0.store.hold(w -> precommits(w, "r2"));
    CompletableFuture<Void> first = w0.updateAsync();
    rows0.awaitHeld("worker 0 precommitting r2");
    w1.table = false;
    CountDownLatch leaf = w1.store.signal(w -> settles(w, "docs"));
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(leaf.await(1, TimeUnit.MINUTES)).as("worker 1 committed the leaf").isTrue();
    rows0.release();

    Throwable failed0 = failureOf(first);
    Throwable failed1 = failureOf(second);
    assertThat(shelf.takeLog()).as("the table refreshed by worker 0, then the leaf; no r2")
        .containsExactly("update docs=table after [table]", "update docs=leaf after [table]");
    assertThat(failed0).as("worker 0's component a").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).containsExactly(Map.entry("docs", "leaf"));

    w1.table = true;
    assertCleanRunWritesBothRows(w1, "update docs=table after [leaf]",
        "create docs/r1=v1 after []?", "create docs/r2=v1 after []?");
  }

  /**
   * Worker 0's row r2 is precommitted, and its apply held, when worker 1 declares docs a leaf:
   * worker 1's change finds r2's write in flight (precommitted by a run still going, not
   * settled) and fails before its action, so the leaf's action never runs after r2's create's
   * back. (Before, the leaf's action removed r1, r2 was created after it, tracked in the
   * generation before, and the clean run created it again where it was.) The clean run finds
   * both forms of docs possible and its rows "may be missing".
   */
  @Test
  void aContainerDeclaredALeafWhileAnotherWorkerAppliesItsChildrenFailsBeforeItsAction()
      throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1", "r2");
    Hold applying = holdApply(w0, "docs/r2");
    CompletableFuture<Void> first = w0.updateAsync();
    applying.awaitHeld("worker 0 applying r2");
    w1.table = false;
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(w1.leafAppliedOrFailed.await(1, TimeUnit.MINUTES)).isTrue();
    applying.release();

    Throwable failed0 = failureOf(first);
    Throwable failed1 = failureOf(second);
    assertThat(shelf.takeLog()).as("no leaf: its component failed before its action")
        .containsExactly("update docs=table after [table]", "create docs/r2=v1 after []?");
    assertThat(failed0).as("worker 0").isNull();
    assertThat(failed1).as("worker 1's component t").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class)
        .hasStackTraceContaining("are being written by another worker's run");

    w1.table = true;
    assertCleanRunWritesBothRows(w1, "update docs=table after [table, leaf]",
        "update docs/r1=v1 after [v1]?", "update docs/r2=v1 after [v1]?");
  }

  /**
   * As {@link #aChildPrecommittedAfterAnotherWorkerDeclaredItsContainerALeafIsRefused}, with
   * docs in a container s that worker 1 declares a leaf: docs stays as it was in the store, so
   * the row's precommit is refused on s, the container above its own.
   */
  @Test
  void aGrandchildPrecommittedAfterAnotherWorkerDeclaredTheOuterContainerALeafIsRefused()
      throws Exception {
    Worker w0 = nestedWorker(0);
    Worker w1 = nestedWorker(1);
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("create s=table after []?",
        "create s/docs=table after []?", "create s/docs/r1=v1 after []?");

    w0.rowsOfA = List.of("r1", "r2");
    Hold rows0 = w0.store.hold(w -> precommits(w, "r2"));
    CompletableFuture<Void> first = w0.updateAsync();
    rows0.awaitHeld("worker 0 precommitting r2");
    w1.table = false;
    CountDownLatch leaf = w1.store.signal(w -> settles(w, "s"));
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(leaf.await(1, TimeUnit.MINUTES)).as("worker 1 committed the leaf").isTrue();
    rows0.release();

    Throwable failed0 = failureOf(first);
    Throwable failed1 = failureOf(second);
    assertThat(shelf.takeLog()).as("s and docs refreshed by worker 0, then the leaf; no r2")
        .containsExactly("update s=table after [table]", "update s/docs=table after [table]",
            "update s=leaf after [table]");
    assertThat(failed0).as("worker 0's component a").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).containsExactly(Map.entry("s", "leaf"));

    w1.table = true;
    assertCleanRunWritesBothRows(w1, "update s=table after [leaf]",
        "create s/docs=table after []?", "create s/docs/r1=v1 after []?",
        "create s/docs/r2=v1 after []?");
  }

  /**
   * Worker 1 no longer declares docs, and its orphan sweep deletes it; worker 0's precommit of
   * {@code a}'s new row r2 is held until the deletion's action has removed docs and r1, and the
   * deletion's settle until worker 0 is done. The deletion's precommit moved docs's child epoch,
   * so r2's precommit is refused and {@code a} fails with nothing applied. (Before, the deletion
   * kept docs's generation and epoch until its settle: r2 passed its condition, was created after
   * the deletion's action, and the settle forgot it with docs: a row left in the target,
   * untracked, which the clean run created again where it was.)
   */
  @Test
  void aChildPrecommittedBetweenAnotherWorkersDeletionOfItsContainerAndItsSettleIsRefused()
      throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1", "r2");
    Hold rows0 = w0.store.hold(w -> precommits(w, "r2"));
    CompletableFuture<Void> first = w0.updateAsync();
    rows0.awaitHeld("worker 0 precommitting r2");
    w1.declared = false;
    Hold settle1 = w1.store.hold(w -> settles(w, "docs"));
    CompletableFuture<Void> second = w1.updateAsync();
    settle1.awaitHeld("worker 1 settling docs's deletion");
    assertThat(shelf.takeLog()).as("the table refreshed by worker 0, then deleted by worker 1")
        .containsExactly("update docs=table after [table]", "delete docs after [table]");
    rows0.release();
    Throwable failed0 = failureOf(first);
    settle1.release();
    Throwable failed1 = failureOf(second);

    assertThat(shelf.takeLog()).as("no r2").isEmpty();
    assertThat(failed0).as("worker 0's component a").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).isEmpty();
    assertThat(w1.app.status().providers()).as("nothing tracked in the target")
        .doesNotContainKey("tables").doesNotContainKey("tables/docs");

    w1.declared = true;
    assertCleanRunWritesBothRows(w1, "create docs=table after []?",
        "create docs/r1=v1 after []?", "create docs/r2=v1 after []?");
  }

  /**
   * Worker 0's row r2 is precommitted, and its apply held, when worker 1's orphan sweep deletes
   * docs, which it no longer declares: the deletion finds r2's write in flight (precommitted by a
   * run still going, not settled) and fails before its action, so it never runs before r2's
   * create. (Before, the deletion removed docs and r1, its settle forgot r2 with docs, and r2 was
   * created after it: a row left in the target, untracked.) The clean run finds docs possibly
   * deleted and its rows "may be missing".
   */
  @Test
  void aContainerDeletedWhileAnotherWorkerAppliesItsChildrenFailsBeforeItsAction()
      throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1", "r2");
    Hold applying = holdApply(w0, "docs/r2");
    CompletableFuture<Void> first = w0.updateAsync();
    applying.awaitHeld("worker 0 applying r2");
    w1.declared = false;
    Throwable failed1 = failureOf(w1.updateAsync());
    applying.release();
    Throwable failed0 = failureOf(first);

    assertThat(shelf.takeLog()).as("no deletion: it failed before its action")
        .containsExactly("update docs=table after [table]", "create docs/r2=v1 after []?");
    assertThat(failed0).as("worker 0").isNull();
    assertThat(failed1).as("worker 1's deletion of docs").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class)
        .hasStackTraceContaining("are being written by another worker's run");
    assertThat(shelf.target()).containsExactly(
        Map.entry("docs", "table"), Map.entry("docs/r1", "v1"), Map.entry("docs/r2", "v1"));
    assertThat(w1.app.status().providers())
        .containsEntry("tables", List.of(StableKey.of("docs")))
        .containsEntry("tables/docs", List.of(StableKey.of("r1"), StableKey.of("r2")));

    w1.declared = true;
    assertCleanRunWritesBothRows(w1, "update docs=table after [table]?",
        "update docs/r1=v1 after [v1]?", "update docs/r2=v1 after [v1]?");
  }

  /**
   * Worker 0's component {@code a} no longer declares r3, and its orphan sweep's precommit of
   * r3's deletion is held until worker 1 has committed docs as a leaf (its action has removed
   * every row): the deletion carries the condition a component's write of a child does, is
   * refused, and nothing is applied. (Before, it deleted r3 where the leaf's action had removed
   * it: a delete of a row the target no longer held.) The clean run forgets r3, of the generation
   * before.
   */
  @Test
  void theSweepsDeletionOfAChildAfterAnotherWorkerDeclaredItsContainerALeafIsRefused()
      throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.rowsOfA = List.of("r1", "r3");
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1");
    Hold sweep0 = w0.store.hold(w -> precommits(w, "r3"));
    CompletableFuture<Void> first = w0.updateAsync();
    sweep0.awaitHeld("worker 0 deleting r3");
    w1.table = false;
    CountDownLatch leaf = w1.store.signal(w -> settles(w, "docs"));
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(leaf.await(1, TimeUnit.MINUTES)).as("worker 1 committed the leaf").isTrue();
    sweep0.release();

    Throwable failed0 = failureOf(first);
    Throwable failed1 = failureOf(second);
    assertThat(shelf.takeLog()).as("the table refreshed by worker 0, then the leaf; no deletion")
        .containsExactly("update docs=table after [table]", "update docs=leaf after [table]");
    assertThat(failed0).as("worker 0's deletion of r3").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).containsExactly(Map.entry("docs", "leaf"));

    w1.table = true;
    assertCleanRunWrites(w1, List.of("r1"), "update docs=table after [leaf]",
        "create docs/r1=v1 after []?");
  }
}
