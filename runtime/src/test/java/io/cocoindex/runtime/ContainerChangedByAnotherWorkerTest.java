package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.codec.KeyEncoding;
import io.cocoindex.runtime.state.ContainerChangedException;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
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
class ContainerChangedByAnotherWorkerTest extends EngineTestBase {
  final Shelf shelf = new Shelf();

  @BeforeEach
  void onlyShared() {
    assumeTrue(ON_POSTGRES, "two workers share only the PostgreSQL store");
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
    Worker w0 = new Worker(store());
    Worker w1 = new Worker(anotherWorkersStore());
    w1.update();
    assertThat(shelf.takeLog())
        .containsExactly("create docs=table after []?", "create docs/r1=v1 after []?");

    w0.rowsOfA = List.of("r1", "r2");
    w0.store.holdWhen = w -> precommits(w, "r2");
    CompletableFuture<Void> first = w0.updateAsync();
    assertThat(w0.store.held.await(1, TimeUnit.MINUTES)).as("worker 0 precommitting r2").isTrue();
    w1.table = false;
    w1.store.signalWhen = w -> settles(w, "docs");
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(w1.store.signalled.await(1, TimeUnit.MINUTES)).as("worker 1 committed the leaf")
        .isTrue();
    w0.store.release.countDown();

    Throwable failed0 = failureOf(first);
    Throwable failed1 = failureOf(second);
    assertThat(shelf.takeLog()).as("the table refreshed by worker 0, then the leaf; no r2")
        .containsExactly("update docs=table after [table]", "update docs=leaf after [table]");
    assertThat(failed0).as("worker 0's component a").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).containsExactly(Map.entry("docs", "leaf"));

    w1.table = true;
    w1.rowsOfA = List.of("r1", "r2");
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("update docs=table after [leaf]",
        "create docs/r1=v1 after []?", "create docs/r2=v1 after []?");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).containsExactly(
        Map.entry("docs", "table"), Map.entry("docs/r1", "v1"), Map.entry("docs/r2", "v1"));
    assertThat(w1.app.status().providers())
        .containsEntry("tables", List.of(StableKey.of("docs")))
        .containsEntry("tables/docs", List.of(StableKey.of("r1"), StableKey.of("r2")));
    w1.update();
    assertThat(shelf.takeLog()).as("a quiet rerun: the table's refresh only")
        .containsExactly("update docs=table after [table]");
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
    Worker w0 = new Worker(store());
    Worker w1 = new Worker(anotherWorkersStore());
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1", "r2");
    CountDownLatch applying = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    w0.beforeRow = put -> {
      if (put.key().equals("docs/r2")) {
        applying.countDown();
        await(release);
      }
    };
    CompletableFuture<Void> first = w0.updateAsync();
    assertThat(applying.await(1, TimeUnit.MINUTES)).as("worker 0 applying r2").isTrue();
    w1.table = false;
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(w1.leafAppliedOrFailed.await(1, TimeUnit.MINUTES)).isTrue();
    release.countDown();

    Throwable failed0 = failureOf(first);
    Throwable failed1 = failureOf(second);
    assertThat(shelf.takeLog()).as("no leaf: its component failed before its action")
        .containsExactly("update docs=table after [table]", "create docs/r2=v1 after []?");
    assertThat(failed0).as("worker 0").isNull();
    assertThat(failed1).as("worker 1's component t").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class)
        .hasStackTraceContaining("are being written by another worker's run");

    w1.table = true;
    w1.rowsOfA = List.of("r1", "r2");
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("update docs=table after [table, leaf]",
        "update docs/r1=v1 after [v1]?", "update docs/r2=v1 after [v1]?");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).containsExactly(
        Map.entry("docs", "table"), Map.entry("docs/r1", "v1"), Map.entry("docs/r2", "v1"));
    assertThat(w1.app.status().providers())
        .containsEntry("tables", List.of(StableKey.of("docs")))
        .containsEntry("tables/docs", List.of(StableKey.of("r1"), StableKey.of("r2")));
    w1.update();
    assertThat(shelf.takeLog()).as("a quiet rerun: the table's refresh only")
        .containsExactly("update docs=table after [table]");
  }

  /**
   * As {@link #aChildPrecommittedAfterAnotherWorkerDeclaredItsContainerALeafIsRefused}, with
   * docs in a container s that worker 1 declares a leaf: docs stays as it was in the store, so
   * the row's precommit is refused on s, the container above its own.
   */
  @Test
  void aGrandchildPrecommittedAfterAnotherWorkerDeclaredTheOuterContainerALeafIsRefused()
      throws Exception {
    Worker w0 = new Worker(store(), true);
    Worker w1 = new Worker(anotherWorkersStore(), true);
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("create s=table after []?",
        "create s/docs=table after []?", "create s/docs/r1=v1 after []?");

    w0.rowsOfA = List.of("r1", "r2");
    w0.store.holdWhen = w -> precommits(w, "r2");
    CompletableFuture<Void> first = w0.updateAsync();
    assertThat(w0.store.held.await(1, TimeUnit.MINUTES)).as("worker 0 precommitting r2").isTrue();
    w1.table = false;
    w1.store.signalWhen = w -> settles(w, "s");
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(w1.store.signalled.await(1, TimeUnit.MINUTES)).as("worker 1 committed the leaf")
        .isTrue();
    w0.store.release.countDown();

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
    w1.rowsOfA = List.of("r1", "r2");
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("update s=table after [leaf]",
        "create s/docs=table after []?", "create s/docs/r1=v1 after []?",
        "create s/docs/r2=v1 after []?");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).containsExactly(Map.entry("s", "table"),
        Map.entry("s/docs", "table"), Map.entry("s/docs/r1", "v1"),
        Map.entry("s/docs/r2", "v1"));
    w1.update();
    assertThat(shelf.takeLog()).as("a quiet rerun: the tables' refreshes only")
        .containsExactly("update s=table after [table]", "update s/docs=table after [table]");
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
    Worker w0 = new Worker(store());
    Worker w1 = new Worker(anotherWorkersStore());
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1", "r2");
    w0.store.holdWhen = w -> precommits(w, "r2");
    CompletableFuture<Void> first = w0.updateAsync();
    assertThat(w0.store.held.await(1, TimeUnit.MINUTES)).as("worker 0 precommitting r2").isTrue();
    w1.declared = false;
    w1.store.holdWhen = w -> settles(w, "docs");
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(w1.store.held.await(1, TimeUnit.MINUTES)).as("worker 1 settling docs's deletion")
        .isTrue();
    assertThat(shelf.takeLog()).as("the table refreshed by worker 0, then deleted by worker 1")
        .containsExactly("update docs=table after [table]", "delete docs after [table]");
    w0.store.release.countDown();
    Throwable failed0 = failureOf(first);
    w1.store.release.countDown();
    Throwable failed1 = failureOf(second);

    assertThat(shelf.takeLog()).as("no r2").isEmpty();
    assertThat(failed0).as("worker 0's component a").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).isEmpty();
    assertThat(w1.app.status().providers()).as("nothing tracked in the target")
        .doesNotContainKey("tables").doesNotContainKey("tables/docs");

    w1.declared = true;
    w1.rowsOfA = List.of("r1", "r2");
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("create docs=table after []?",
        "create docs/r1=v1 after []?", "create docs/r2=v1 after []?");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).containsExactly(
        Map.entry("docs", "table"), Map.entry("docs/r1", "v1"), Map.entry("docs/r2", "v1"));
    assertThat(w1.app.status().providers())
        .containsEntry("tables", List.of(StableKey.of("docs")))
        .containsEntry("tables/docs", List.of(StableKey.of("r1"), StableKey.of("r2")));
    w1.update();
    assertThat(shelf.takeLog()).as("a quiet rerun: the table's refresh only")
        .containsExactly("update docs=table after [table]");
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
    Worker w0 = new Worker(store());
    Worker w1 = new Worker(anotherWorkersStore());
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1", "r2");
    CountDownLatch applying = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    w0.beforeRow = put -> {
      if (put.key().equals("docs/r2")) {
        applying.countDown();
        await(release);
      }
    };
    CompletableFuture<Void> first = w0.updateAsync();
    assertThat(applying.await(1, TimeUnit.MINUTES)).as("worker 0 applying r2").isTrue();
    w1.declared = false;
    Throwable failed1 = failureOf(w1.updateAsync());
    release.countDown();
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
    w1.rowsOfA = List.of("r1", "r2");
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("update docs=table after [table]?",
        "update docs/r1=v1 after [v1]?", "update docs/r2=v1 after [v1]?");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).containsExactly(
        Map.entry("docs", "table"), Map.entry("docs/r1", "v1"), Map.entry("docs/r2", "v1"));
    assertThat(w1.app.status().providers())
        .containsEntry("tables", List.of(StableKey.of("docs")))
        .containsEntry("tables/docs", List.of(StableKey.of("r1"), StableKey.of("r2")));
    w1.update();
    assertThat(shelf.takeLog()).as("a quiet rerun: the table's refresh only")
        .containsExactly("update docs=table after [table]");
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
    Worker w0 = new Worker(store());
    Worker w1 = new Worker(anotherWorkersStore());
    w1.rowsOfA = List.of("r1", "r3");
    w1.update();
    shelf.takeLog();

    w0.rowsOfA = List.of("r1");
    w0.store.holdWhen = w -> precommits(w, "r3");
    CompletableFuture<Void> first = w0.updateAsync();
    assertThat(w0.store.held.await(1, TimeUnit.MINUTES)).as("worker 0 deleting r3").isTrue();
    w1.table = false;
    w1.store.signalWhen = w -> settles(w, "docs");
    CompletableFuture<Void> second = w1.updateAsync();
    assertThat(w1.store.signalled.await(1, TimeUnit.MINUTES)).as("worker 1 committed the leaf")
        .isTrue();
    w0.store.release.countDown();

    Throwable failed0 = failureOf(first);
    Throwable failed1 = failureOf(second);
    assertThat(shelf.takeLog()).as("the table refreshed by worker 0, then the leaf; no deletion")
        .containsExactly("update docs=table after [table]", "update docs=leaf after [table]");
    assertThat(failed0).as("worker 0's deletion of r3").isNotNull()
        .hasRootCauseInstanceOf(ContainerChangedException.class);
    assertThat(failed1).as("worker 1").isNull();
    assertThat(shelf.target()).containsExactly(Map.entry("docs", "leaf"));

    w1.table = true;
    w1.rowsOfA = List.of("r1");
    w1.update();
    assertThat(shelf.takeLog()).containsExactly("update docs=table after [leaf]",
        "create docs/r1=v1 after []?");
    assertThat(shelf.violations).isEmpty();
    assertThat(shelf.target()).containsExactly(
        Map.entry("docs", "table"), Map.entry("docs/r1", "v1"));
    assertThat(w1.app.status().providers())
        .containsEntry("tables", List.of(StableKey.of("docs")))
        .containsEntry("tables/docs", List.of(StableKey.of("r1")));
    w1.update();
    assertThat(shelf.takeLog()).as("a quiet rerun: the table's refresh only")
        .containsExactly("update docs=table after [table]");
  }

  static Throwable failureOf(CompletableFuture<Void> update) throws Exception {
    try {
      update.get(1, TimeUnit.MINUTES);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  static void await(CountDownLatch latch) {
    try {
      latch.await(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String lastKey(byte[] path) {
    List<StableKey> keys = KeyEncoding.decodePath(path);
    return Rows.keyText(keys.get(keys.size() - 1));
  }

  static boolean precommits(List<StateWrite> writes, String key) {
    return writes.stream().anyMatch(
        w -> w instanceof StateWrite.Precommit p && lastKey(p.state().path()).equals(key));
  }

  static boolean settles(List<StateWrite> writes, String key) {
    return writes.stream().anyMatch(
        w -> w instanceof StateWrite.Settle s && lastKey(s.state().path()).equals(key));
  }

  /**
   * One write as the handler decided it: {@code value} null deletes; a container's other than
   * "table" takes what is below it along.
   */
  record Put(String key, String value, List<String> prev, boolean mayBeMissing,
      boolean container) {}

  /**
   * The target both workers write: containers ("table", or "leaf", whose write removes every
   * key below it) such as {@code docs}, and rows such as {@code docs/r1}. Each action checks
   * that the target holds one of the forms its handler was given, or nothing where the state may
   * be missing.
   */
  static final class Shelf {
    private final Map<String, String> target = new TreeMap<>();
    private final List<String> log = new ArrayList<>();
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());

    synchronized void apply(TargetAction<Put> action) {
      Put put = action.value();
      String found = target.get(put.key());
      boolean expected = found == null ? put.mayBeMissing() || put.prev().isEmpty()
          : put.prev().contains(found);
      if (!expected) {
        violations.add(action.verb() + " " + put.key() + " found " + found + ", given "
            + put.prev() + (put.mayBeMissing() ? " (may be missing)" : ""));
      }
      if (put.value() == null) {
        target.remove(put.key());
      } else {
        target.put(put.key(), put.value());
      }
      if (put.container() && !"table".equals(put.value())) {
        target.keySet().removeIf(k -> k.startsWith(put.key() + "/"));
      }
      log.add(action.verb() + " " + put.key() + (put.value() == null ? "" : "=" + put.value())
          + " after " + put.prev() + (put.mayBeMissing() ? "?" : ""));
    }

    synchronized List<String> takeLog() {
      List<String> out = new ArrayList<>(log);
      log.clear();
      return out;
    }

    synchronized Map<String, String> target() {
      return new TreeMap<>(target);
    }
  }

  /**
   * A row's or a container's reconcile: a container has an action on every run it is declared a
   * table (rule 6), none when a leaf as it was.
   */
  static TargetReconcileOutput<Put, String> reconcile(String key, String desired,
      List<String> prev, boolean mayBeMissing, TargetActionSink<Put> sink, boolean container) {
    if (desired == null) {
      return prev.isEmpty() && !mayBeMissing ? null : TargetReconcileOutput.of(
          TargetAction.delete(new Put(key, null, prev, mayBeMissing, container)), sink, null);
    }
    boolean refresh = container && desired.equals("table");
    if (!refresh && !mayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    Put put = new Put(key, desired, prev, mayBeMissing, container);
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(put) : TargetAction.update(put), sink, desired);
  }

  /** A store that holds one chosen write until released, and tells when another landed. */
  static final class Gate extends ForwardingStateStore {
    volatile Predicate<List<StateWrite>> holdWhen = w -> false;
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile Predicate<List<StateWrite>> signalWhen = w -> false;
    final CountDownLatch signalled = new CountDownLatch(1);

    Gate(StateStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      if (held.getCount() > 0 && holdWhen.test(writes)) {
        held.countDown();
        await(release);
      }
      boolean signal = signalWhen.test(writes);
      return super.write(app, writes).whenComplete((v, e) -> {
        if (signal && e == null) {
          signalled.countDown();
        }
      });
    }
  }

  /** One worker: its own store connection, handlers and sinks, writing the shared shelf. */
  final class Worker {
    final Gate store;
    final App app;
    /** Whether docs lies in the container s (the leaf then), not at the root. */
    final boolean nested;
    volatile boolean table = true;
    /** Whether docs is declared at all: if not, the orphan sweep deletes it. */
    volatile boolean declared = true;
    volatile List<String> rowsOfA = List.of("r1");
    volatile Consumer<Put> beforeRow = put -> {};
    /** Counted down as the leaf is applied, or its component fails. */
    final CountDownLatch leafAppliedOrFailed = new CountDownLatch(1);
    final TargetHandler<String, String, Put> outer;

    Worker(StateStore store, boolean nested) {
      this.nested = nested;
      this.outer = nested ? container("", container("s/", rows("s/docs/"))) : container("",
          rows("docs/"));
      this.store = new Gate(store);
      this.app = ContainerChangedByAnotherWorkerTest.this.app(
          "shelf", Environment.builder().stateStore(this.store).build(), this::main);
    }

    Worker(StateStore store) {
      this(store, false);
    }

    /** The rows' handler: target keys {@code prefix<key>}. */
    TargetHandler<String, String, Put> rows(String prefix) {
      TargetActionSink<Put> sink = TargetActionSink.of(actions -> {
        for (TargetAction<Put> a : actions) {
          beforeRow.accept(a.value());
          shelf.apply(a);
        }
      });
      return (key, desired, prev, mbm) ->
          reconcile(prefix + Rows.keyText(key), desired, prev, mbm, sink, false);
    }

    /** A container's handler ("table" or "leaf"): target keys {@code prefix<key>}. */
    TargetHandler<String, String, Put> container(
        String prefix, TargetHandler<String, String, Put> children) {
      TargetActionSink<Put> sink = TargetActionSink.withChildHandler(actions -> {
        for (TargetAction<Put> a : actions) {
          shelf.apply(a);
          if ("leaf".equals(a.value().value())) {
            leafAppliedOrFailed.countDown();
          }
        }
      }, action -> ChildTargetDef.of(children));
      return (key, desired, prev, mbm) -> reconcile(prefix + Rows.keyText(key), desired, prev,
          mbm, sink, true);
    }

    void main(Ctx ctx) {
      TargetStateProvider<String> tables = registerRootTargetStatesProvider(ctx, "tables", outer);
      if (!declared) {
        return;
      }
      if (!table) {
        try {
          ctx.useMount("t", c -> {
            declareTargetState(c, tables.targetState(nested ? "s" : "docs", "leaf"));
            return null;
          });
        } catch (RuntimeException e) {
          leafAppliedOrFailed.countDown(); // the run reports it all the same
        }
        return;
      }
      TargetStateProvider<String> docs = nested
          ? mountTarget(ctx, mountTarget(ctx, tables.targetState("s", "table"))
              .targetState("docs", "table"))
          : mountTarget(ctx, tables.targetState("docs", "table"));
      List<String> own = rowsOfA;
      ctx.mount("a", c -> own.forEach(k -> declareTargetState(c, docs.targetState(k, "v1"))));
    }

    void update() {
      app.update();
    }

    CompletableFuture<Void> updateAsync() {
      return CompletableFuture.runAsync(app::update, ThreadPerTask.INSTANCE);
    }
  }
}
