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
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;

/**
 * Two workers of one round on the shared PostgreSQL store, each with its own store connection,
 * handlers and sinks, writing one strict {@link Shelf}: the container {@code docs} ("table", or
 * "leaf"), at the root or in the container {@code s}, and the rows component {@code a} declares
 * in it. A test holds one worker's chosen store write ({@link Gate#hold}) or sink apply ({@link
 * #holdApply}) while the other changes the container, then checks the exact sink log and what the
 * target holds, and that the clean run after finds the target as tracked ({@link
 * #assertCleanRunWrites}).
 *
 * <p>Each worker's update returns once its sessions have given its component leases back ({@link
 * Worker#update}): the store gives them back on a thread of its own, after the run has ended,
 * and the other worker's run starting meanwhile would find them held and skip those components
 * as another worker's.
 */
abstract class TwoWorkersTestBase extends EngineTestBase {
  final Shelf shelf = new Shelf();

  @BeforeEach
  void onlyShared() {
    assumeTrue(ON_POSTGRES, "two workers share only the PostgreSQL store");
  }

  /**
   * Whether each worker's main catches the failure of t, the component declaring the leaf (the
   * run reports it all the same), rather than let it fail the root too.
   */
  boolean mainCatchesLeafFailure() {
    return false;
  }

  /** Worker {@code n}, with docs at the root, on a store of its own. */
  Worker worker(int n) {
    return worker(n, false);
  }

  /** Worker {@code n}, with docs in the container s, on a store of its own. */
  Worker nestedWorker(int n) {
    return worker(n, true);
  }

  private Worker worker(int n, boolean nested) {
    String sessions = postgresSchema.name() + "_w" + n; // unique to the test
    return new Worker(anotherWorkersStore(sessions), sessions, nested, true);
  }

  /**
   * Has {@code worker} hold its sink's apply of the row {@code key} (such as {@code docs/r2})
   * until the returned hold is released; its other applies go on.
   */
  static Hold holdApply(Worker worker, String key) {
    Hold applying = new Hold();
    worker.beforeRow = put -> {
      if (put.key().equals(key)) {
        applying.holdHere();
      }
    };
    return applying;
  }

  /**
   * The clean run: {@code worker}'s update, a declaring {@code rows}, writes {@code log} and leaves
   * the target as tracked, the container (s and docs, when nested) a table holding each row as
   * "v1"; a quiet rerun then refreshes the tables only.
   */
  void assertCleanRunWrites(Worker worker, List<String> rows, String... log) {
    worker.rowsOfA = rows;
    worker.update();
    assertThat(shelf.takeLog()).containsExactly(log);
    assertThat(shelf.violations).isEmpty();
    Map<String, String> target = new TreeMap<>();
    String docs = worker.nested ? "s/docs" : "docs";
    if (worker.nested) {
      target.put("s", "table");
    }
    target.put(docs, "table");
    rows.forEach(r -> target.put(docs + "/" + r, "v1"));
    assertThat(shelf.target()).containsExactlyEntriesOf(target);
    if (!worker.nested) {
      assertThat(worker.app.status().providers())
          .containsEntry("tables", List.of(StableKey.of("docs")))
          .containsEntry("tables/docs", rows.stream().map(StableKey::of).toList());
    }
    worker.update();
    if (worker.nested) {
      assertThat(shelf.takeLog()).as("a quiet rerun: the tables' refreshes only")
          .containsExactly("update s=table after [table]", "update s/docs=table after [table]");
    } else {
      assertThat(shelf.takeLog()).as("a quiet rerun: the table's refresh only")
          .containsExactly("update docs=table after [table]");
    }
  }

  /** {@link #assertCleanRunWrites} of a's rows r1 and r2. */
  void assertCleanRunWritesBothRows(Worker worker, String... log) {
    assertCleanRunWrites(worker, List.of("r1", "r2"), log);
  }

  /** The error {@code update} failed with, or null; it failing to end fails the test. */
  static Throwable failureOf(CompletableFuture<Void> update) throws Exception {
    try {
      update.get(1, TimeUnit.MINUTES);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException hung) {
      throw new AssertionError(
          "the update did not end in a minute\n" + ThreadDump.ofAllThreads(), hung);
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

  /** One chosen write (or apply) held until released. */
  static final class Hold {
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /** Holds the calling thread until released, the first time only. */
    void holdHere() {
      if (held.getCount() > 0) {
        held.countDown();
        await(release);
      }
    }

    void awaitHeld(String what) throws InterruptedException {
      assertThat(held.await(1, TimeUnit.MINUTES)).as(what).isTrue();
    }

    void release() {
      release.countDown();
    }
  }

  /**
   * A store that holds each chosen write, once, until released, tells when others landed, and
   * keeps the version of its last run.
   */
  static final class Gate extends ForwardingStateStore {
    private final Map<Predicate<List<StateWrite>>, Hold> holds = new ConcurrentHashMap<>();
    private final Map<Predicate<List<StateWrite>>, CountDownLatch> signals =
        new ConcurrentHashMap<>();
    volatile long lastVersion;

    Gate(StateStore delegate) {
      super(delegate);
    }

    @Override
    public long nextVersion(String app) {
      lastVersion = super.nextVersion(app);
      return lastVersion;
    }

    /** Holds the first write {@code when} matches until the hold is released. */
    Hold hold(Predicate<List<StateWrite>> when) {
      Hold h = new Hold();
      holds.put(when, h);
      return h;
    }

    /** Counted down once a write {@code when} matches has landed. */
    CountDownLatch signal(Predicate<List<StateWrite>> when) {
      CountDownLatch landed = new CountDownLatch(1);
      signals.put(when, landed);
      return landed;
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      holds.forEach((when, hold) -> {
        if (when.test(writes)) {
          hold.holdHere();
        }
      });
      List<CountDownLatch> landed = new ArrayList<>();
      signals.forEach((when, latch) -> {
        if (when.test(writes)) {
          landed.add(latch);
        }
      });
      return super.write(app, writes).whenComplete((v, e) -> {
        if (e == null) {
          landed.forEach(CountDownLatch::countDown);
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
    /** The name of its server sessions ({@code application_name}). */
    private final String sessions;
    volatile boolean table = true;
    /**
     * Whether docs is declared at all: if not, the orphan sweep deletes it (when nested, main
     * still declares s, without docs).
     */
    volatile boolean declared = true;
    /** Whether the leaf {@code other}, beside docs, is declared by main. */
    volatile boolean other = false;
    volatile List<String> rowsOfA = List.of("r1");
    volatile Consumer<Put> beforeRow = put -> {};
    volatile Consumer<Put> beforeContainer = put -> {};
    /** Whether a is memoized on its rows, and whether main mounts it at all. */
    volatile boolean memoA = false;
    volatile boolean mountA = true;
    /**
     * If set, main also mounts a component b that waits for it before declaring its rows: the
     * run goes on meanwhile.
     */
    volatile CountDownLatch bWaitsFor;
    /** The rows b declares in docs (b is mounted for them even when it waits for nothing). */
    volatile List<String> rowsOfB = List.of();
    /** Counted down as the leaf is applied, or its component fails. */
    final CountDownLatch leafAppliedOrFailed = new CountDownLatch(1);
    private final TargetHandler<String, String, Put> outer;

    /**
     * A worker on {@code store}, whose server sessions are named {@code sessions}; {@code
     * closedAfterTheTest} false for one whose sessions the test ends, and which it closes itself.
     */
    Worker(StateStore store, String sessions, boolean nested, boolean closedAfterTheTest) {
      this.nested = nested;
      this.sessions = sessions;
      this.outer = nested ? container("", container("s/", rows("s/docs/")))
          : container("", rows("docs/"));
      this.store = new Gate(store);
      Environment env = Environment.builder().stateStore(this.store).build();
      this.app = closedAfterTheTest ? TwoWorkersTestBase.this.app("shelf", env, this::main)
          : App.create("shelf", env, this::main);
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
          beforeContainer.accept(a.value());
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
      if (other) {
        declareTargetState(ctx, tables.targetState("other", "leaf"));
      }
      if (!declared) {
        if (nested) {
          mountTarget(ctx, tables.targetState("s", "table")); // docs no longer in it
        }
        return;
      }
      if (!table) {
        try {
          ctx.useMount("t", c -> {
            declareTargetState(c, tables.targetState(nested ? "s" : "docs", "leaf"));
            return null;
          });
        } catch (RuntimeException e) {
          leafAppliedOrFailed.countDown();
          if (!mainCatchesLeafFailure()) {
            throw e;
          }
        }
        return;
      }
      TargetStateProvider<String> docs = nested
          ? mountTarget(ctx, mountTarget(ctx, tables.targetState("s", "table"))
              .targetState("docs", "table"))
          : mountTarget(ctx, tables.targetState("docs", "table"));
      List<String> own = rowsOfA;
      if (memoA && mountA) {
        ctx.mountMemo("a", String.join(",", own),
            c -> own.forEach(k -> declareTargetState(c, docs.targetState(k, "v1"))));
      } else if (mountA) {
        ctx.mount("a", c -> own.forEach(k -> declareTargetState(c, docs.targetState(k, "v1"))));
      }
      CountDownLatch waitFor = bWaitsFor;
      List<String> ofB = rowsOfB;
      if (waitFor != null || !ofB.isEmpty()) {
        ctx.mount("b", c -> {
          if (waitFor != null) {
            await(waitFor);
          }
          ofB.forEach(k -> declareTargetState(c, docs.targetState(k, "v1")));
        });
      }
    }

    /**
     * Updates, and returns once its sessions hold none of its component leases: the store gives
     * them back on a thread of its own after the run has ended, and the other worker's run
     * starting before that would skip those components as another worker's.
     */
    void update() {
      try {
        app.update();
      } finally {
        TestPostgres.awaitComponentLocksGivenBack(postgresSchema.serverUrl(), sessions);
      }
    }

    CompletableFuture<Void> updateAsync() {
      return CompletableFuture.runAsync(this::update, ThreadPerTask.INSTANCE);
    }
  }
}
