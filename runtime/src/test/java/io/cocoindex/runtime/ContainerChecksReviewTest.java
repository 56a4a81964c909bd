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
 * A review of {@code ContainerChecks} (the fifty-sixth session): interleavings of two workers of
 * one round on the shared store that {@link ContainerChangedByAnotherWorkerTest} does not force,
 * on the same strict shelf.
 */
class ContainerChecksReviewTest extends TwoWorkersTestBase {
  /**
   * Both workers no longer declare docs, and both sweeps delete it; worker 1's is held after its
   * action, before its settle. Worker 0's sweep finds docs's lease held by worker 1 and leaves it
   * to that worker: worker 0's update ends while worker 1 is still held, and docs is deleted
   * once. (Two deletions' precommits would each move the child epoch; the lease keeps the second
   * from reading the row before the first settles.)
   */
  @Test
  void twoSweepsDeletingOneContainerDeleteItOnce() throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.update();
    shelf.takeLog();

    w1.declared = false;
    Hold settle1 = w1.store.hold(w -> settles(w, "docs"));
    CompletableFuture<Void> second = w1.updateAsync();
    settle1.awaitHeld("worker 1 settling docs's deletion");
    w0.declared = false;
    assertThat(failureOf(w0.updateAsync())).as("worker 0, while worker 1 is held").isNull();
    assertThat(shelf.takeLog()).as("worker 1's deletion; none of worker 0")
        .containsExactly("delete docs after [table]");
    settle1.release();
    assertThat(failureOf(second)).as("worker 1").isNull();

    assertThat(shelf.takeLog()).isEmpty();
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).isEmpty();
    assertThat(w1.app.status().providers()).as("nothing tracked in the target")
        .doesNotContainKey("tables").doesNotContainKey("tables/docs");

    w1.declared = true;
    w1.update();
    assertThat(shelf.takeLog())
        .containsExactly("create docs=table after []?", "create docs/r1=v1 after []?");
    assertThat(shelf.violations).isEmpty();
  }

  /**
   * Worker 1's sweep deletes docs, which it no longer declares; its precommit is held (docs's
   * lease taken, its row read) while worker 0, on a newer view, declares docs a leaf in
   * component t. Worker 0's component takes docs over from the root under docs's lease, so it
   * waits for the sweep, then reads docs deleted and creates the leaf: no write of one worker
   * resolved on a row the other changed since (its generation and epoch are the run's read).
   */
  @Test
  void aContainerDeclaredALeafWhileAnotherWorkersSweepDeletesItWaitsForTheSweep()
      throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.update();
    shelf.takeLog();

    w1.declared = false;
    Hold deletion1 = w1.store.hold(w -> precommits(w, "docs"));
    CompletableFuture<Void> second = w1.updateAsync();
    deletion1.awaitHeld("worker 1 precommitting docs's deletion");
    w0.table = false;
    CompletableFuture<Void> first = w0.updateAsync();
    Thread.sleep(2000);
    assertThat(shelf.takeLog()).as("worker 0 waiting for docs's lease").isEmpty();
    deletion1.release();
    assertThat(failureOf(second)).as("worker 1").isNull();
    assertThat(failureOf(first)).as("worker 0").isNull();

    assertThat(shelf.takeLog())
        .containsExactly("delete docs after [table]", "create docs=leaf after []?");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).containsExactly(Map.entry("docs", "leaf"));
    assertThat(w1.app.status().providers()).containsEntry("tables", List.of(StableKey.of("docs")))
        .doesNotContainKey("tables/docs");

    w1.table = true;
    w1.declared = true;
    assertCleanRunWritesBothRows(w1, "update docs=table after [leaf]",
        "create docs/r1=v1 after []?", "create docs/r2=v1 after []?");
  }

  /**
   * Worker 0's sweep deletes, in one chunk, {@code a}'s row r3 and the root's leaf {@code other},
   * neither declared any more; its precommit is held until worker 1 has committed docs as a
   * leaf (and no longer declares other either). r3's condition refuses the chunk's precommit;
   * only r3's deletion, below the changed docs, is left out ({@code a} fails), and the rest is
   * precommitted again: {@code other} is deleted and the root commits. Before, the refusal
   * failed the whole chunk: every owner of up to 2,048 deletions, for one child of a changed
   * container.
   */
  @Test
  void aSweepChunkLeavesOutOnlyTheDeletionsBelowAContainerChangedByAnotherWorker()
      throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.rowsOfA = List.of("r1", "r3");
    w1.other = true;
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("create docs=table after []?",
        "create docs/r1=v1 after []?", "create docs/r3=v1 after []?",
        "create other=leaf after []?");

    w0.rowsOfA = List.of("r1");
    Hold sweep0 = w0.store.hold(w -> precommits(w, "r3") && precommits(w, "other"));
    CompletableFuture<Void> first = w0.updateAsync();
    sweep0.awaitHeld("worker 0 deleting r3 and other in one chunk");
    w1.table = false;
    w1.other = false; // its sweep waits for worker 0's lease on other, then finds it gone
    CountDownLatch leaf = w1.store.signal(w -> settles(w, "docs"));
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(leaf.await(1, TimeUnit.MINUTES)).as("worker 1 committed the leaf").isTrue();
    sweep0.release();
    Throwable failed0 = failureOf(first);
    Throwable failed1 = failureOf(second);

    assertThat(shelf.takeLog()).as("worker 0's sweep: other deleted, r3 left out")
        .containsExactly("update docs=table after [table]", "update docs=leaf after [table]",
            "delete other after [leaf]");
    assertThat(failed0).as("worker 0: a alone").isNotNull()
        .hasMessageContaining("1 component failed").hasMessageContaining("/\"a\"")
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).containsExactly(Map.entry("docs", "leaf"));
    assertThat(w1.app.status().providers())
        .containsEntry("tables", List.of(StableKey.of("docs")))
        .doesNotContainKey("tables/docs");

    w1.table = true;
    assertCleanRunWrites(w1, List.of("r1"), "update docs=table after [leaf]",
        "create docs/r1=v1 after []?");
  }

  /**
   * Worker 1's sweep deletes docs, and its action fails after the precommit has moved docs's
   * child epoch (as a worker killed between the two leaves it). Worker 0, on the older view,
   * then writes docs's rows: docs may be deleted, its rows may be missing, so each is written
   * again; worker 1's next sweep then deletes docs with both its forms given.
   */
  @Test
  void aDeletionStoppedBetweenItsPrecommitAndItsActionLeavesTheRowsMayBeMissing()
      throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.update();
    shelf.takeLog();

    w1.declared = false;
    w1.beforeContainer = put -> {
      throw new IllegalStateException("the worker stops before docs's deletion");
    };
    assertThat(failureOf(w1.updateAsync())).as("worker 1's deletion").isNotNull()
        .hasStackTraceContaining("the worker stops before docs's deletion");
    w1.beforeContainer = put -> {};
    assertThat(shelf.takeLog()).isEmpty();

    w0.rowsOfA = List.of("r1", "r2");
    w0.update();
    assertThat(shelf.takeLog()).containsExactly("update docs=table after [table]?",
        "update docs/r1=v1 after [v1]?", "create docs/r2=v1 after []?");
    assertThat(shelf.violations).isEmpty();
    w0.update();
    assertThat(shelf.takeLog()).as("a quiet rerun: the table's refresh only")
        .containsExactly("update docs=table after [table]");

    w1.update();
    assertThat(shelf.takeLog()).containsExactly("delete docs after [table]");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).isEmpty();
    assertThat(w1.app.status().providers()).doesNotContainKey("tables")
        .doesNotContainKey("tables/docs");
  }

  /**
   * As {@code ContainerChangedByAnotherWorkerTest}'s deletion between precommit and settle, one
   * level down: worker 1 no longer declares docs in s, and its sweep deletes s/docs; worker 0's
   * precommit of the grandchild r2 is held until that deletion's action has run, and the
   * deletion's settle until worker 0 is done. The deletion's precommit moved s/docs's child
   * epoch: r2's precommit, conditioned on s/docs and s, is refused, nothing of {@code a} is
   * applied, and the clean run creates the rows once.
   */
  @Test
  void aGrandchildPrecommittedDuringAnotherWorkersDeletionOfItsContainerIsRefused()
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
    w1.declared = false;
    Hold settle1 = w1.store.hold(w -> settles(w, "docs"));
    CompletableFuture<Void> second = w1.updateAsync();
    settle1.awaitHeld("worker 1 settling s/docs's deletion");
    assertThat(shelf.takeLog()).as("worker 0's refreshes, then worker 1's, and its deletion")
        .containsExactly("update s=table after [table]", "update s/docs=table after [table]",
            "update s=table after [table]", "delete s/docs after [table]");
    rows0.release();
    Throwable failed0 = failureOf(first);
    settle1.release();
    Throwable failed1 = failureOf(second);

    assertThat(shelf.takeLog()).as("no r2").isEmpty();
    assertThat(failed0).as("worker 0's component a").isNotNull()
        .hasMessageContaining("1 component failed")
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).containsExactly(Map.entry("s", "table"));
    assertThat(w1.app.status().providers()).containsEntry("tables", List.of(StableKey.of("s")))
        .doesNotContainKey("tables/s").doesNotContainKey("tables/s/docs");

    w1.declared = true;
    assertCleanRunWritesBothRows(w1, "update s=table after [table]",
        "create s/docs=table after []?", "create s/docs/r1=v1 after []?",
        "create s/docs/r2=v1 after []?");
  }

  /**
   * Worker 0's grandchild r2 is precommitted and its create under way when worker 1 declares s,
   * the container two levels above it, a leaf: the in-flight scan reads everything below s,
   * finds r2's write, and t fails before its action (the root's sweep of s/docs below it with
   * it). The clean run finds s in both forms, s/docs and its rows "may be missing", and writes
   * each again.
   */
  @Test
  void anOuterContainerDeclaredALeafWhileAnotherWorkerAppliesAGrandchildFailsBeforeItsAction()
      throws Exception {
    Worker w0 = nestedWorker(0);
    Worker w1 = nestedWorker(1);
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1", "r2");
    Hold applying = holdApply(w0, "s/docs/r2");
    CompletableFuture<Void> first = w0.updateAsync();
    applying.awaitHeld("worker 0 applying r2");
    w1.table = false;
    Throwable failed1 = failureOf(w1.updateAsync());
    applying.release();
    Throwable failed0 = failureOf(first);

    assertThat(shelf.takeLog()).as("no leaf: its component failed before its action")
        .containsExactly("update s=table after [table]", "update s/docs=table after [table]",
            "create s/docs/r2=v1 after []?");
    assertThat(failed0).as("worker 0").isNull();
    assertThat(failed1).as("worker 1's t and root").isNotNull()
        .hasMessageContaining("2 components failed")
        .hasRootCauseInstanceOf(ContainerChangedException.class)
        .hasStackTraceContaining("are being written by another worker's run");
    assertThat(shelf.target()).containsExactly(Map.entry("s", "table"),
        Map.entry("s/docs", "table"), Map.entry("s/docs/r1", "v1"),
        Map.entry("s/docs/r2", "v1"));

    w1.table = true;
    assertCleanRunWritesBothRows(w1, "update s=table after [table, leaf]",
        "update s/docs=table after [table]?", "update s/docs/r1=v1 after [v1]?",
        "update s/docs/r2=v1 after [v1]?");
  }

  /**
   * Worker 0's create of r2 fails in its sink (component a fails; r2's precommit stands), while
   * its run goes on (component b waits). Worker 1's change of docs to a leaf finds r2's write
   * "in flight" (precommitted by a run still going, not settled), though nothing of it is under
   * way, and fails before its action; once worker 0's run has ended, it goes through. A run
   * that goes on for hours with one failed child below a container refuses every other
   * worker's change of that container for as long: no record lost, a change delayed.
   */
  @Test
  void aFailedChildsWriteOfARunStillGoingRefusesTheChangeUntilThatRunEnds() throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1", "r2");
    CountDownLatch r2Fails = new CountDownLatch(1);
    w0.beforeRow = put -> {
      if (put.key().equals("docs/r2")) {
        r2Fails.countDown();
        throw new IllegalStateException("r2's create fails");
      }
    };
    CountDownLatch endB = new CountDownLatch(1);
    w0.bWaitsFor = endB;
    CompletableFuture<Void> first = w0.updateAsync();
    Throwable failed1;
    try {
      assertThat(r2Fails.await(1, TimeUnit.MINUTES))
          .as(() -> "worker 0's r2 failing; the threads:\n" + ThreadDump.ofAllThreads())
          .isTrue();
      w1.table = false;
      failed1 = failureOf(w1.updateAsync());
    } finally {
      endB.countDown();
    }
    Throwable failed0 = failureOf(first);

    assertThat(shelf.takeLog()).as("worker 0's refresh; no r2, no leaf")
        .containsExactly("update docs=table after [table]");
    assertThat(failed0).as("worker 0's a").isNotNull().hasMessageContaining("1 component failed")
        .hasStackTraceContaining("r2's create fails");
    assertThat(failed1).as("worker 1's t, and the root's sweep below docs").isNotNull()
        .hasMessageContaining("2 components failed")
        .hasRootCauseInstanceOf(ContainerChangedException.class)
        .hasStackTraceContaining("are being written by another worker's run");
    assertThat(shelf.target())
        .containsExactly(Map.entry("docs", "table"), Map.entry("docs/r1", "v1"));

    w1.update();
    assertThat(shelf.takeLog()).as("worker 0's run ended: the change goes through")
        .containsExactly("update docs=leaf after [table, leaf]");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).containsExactly(Map.entry("docs", "leaf"));
    assertThat(w1.app.status().providers()).containsEntry("tables", List.of(StableKey.of("docs")))
        .doesNotContainKey("tables/docs");
  }

  /**
   * Worker 0 (a memoized on its rows, now r1 and r2) resolves docs's rows in docs's first
   * generation, reading r1 written; its precommit of r2 is held. Worker 1 deletes docs (its
   * sweep: the row and r1 go, settled), then declares docs again without a: a new row. Counted
   * from 1 again, its first generation and epoch were those worker 0 resolved in: r2's
   * precommit passed its condition on docs, r1 was left as read (unchanged), a's memo was
   * recorded, and every rerun on that view hit it: r1, declared, never written again. A
   * container's first generation is now its run's version, above any its path had: r2's
   * precommit is refused, a records no memo, and its next run writes both rows.
   */
  @Test
  void aChildResolvedInAContainerDeletedAndDeclaredAgainSinceIsNotLost() throws Exception {
    Worker w0 = worker(0);
    Worker w1 = worker(1);
    w0.memoA = true;
    w1.memoA = true;
    w1.update();
    assertThat(shelf.takeLog())
        .containsExactly("create docs=table after []?", "create docs/r1=v1 after []?");

    w0.rowsOfA = List.of("r1", "r2");
    Hold rows0 = w0.store.hold(w -> precommits(w, "r2"));
    CompletableFuture<Void> first = w0.updateAsync();
    rows0.awaitHeld("worker 0 precommitting r2");
    w1.declared = false;
    assertThat(failureOf(w1.updateAsync())).as("worker 1's deletion").isNull();
    assertThat(shelf.takeLog()).as("worker 0's refresh, worker 1's deletion")
        .containsExactly("update docs=table after [table]", "delete docs after [table]");
    w1.declared = true;
    w1.mountA = false;
    assertThat(failureOf(w1.updateAsync())).as("worker 1 declaring docs again").isNull();
    assertThat(shelf.takeLog()).containsExactly("create docs=table after []?");
    rows0.release();
    assertThat(failureOf(first)).as("worker 0's component a, resolved in the deleted docs")
        .isNotNull().hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(shelf.takeLog()).isEmpty();

    w0.update();
    assertThat(shelf.takeLog()).as("a runs again: no memo was recorded")
        .containsExactly("update docs=table after [table]", "create docs/r1=v1 after []?",
            "create docs/r2=v1 after []?");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).as("worker 0's view, after its rerun").containsExactly(
        Map.entry("docs", "table"), Map.entry("docs/r1", "v1"), Map.entry("docs/r2", "v1"));
    w0.update();
    assertThat(shelf.takeLog()).containsExactly("update docs=table after [table]");
  }
}
