package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.Rows.RowAction;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateStoreException;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rule 3 against lost store writes: after any store write of an update is lost, or lands but
 * reports failure, the next clean run converges. Each scenario updates an app from one world (files
 * and a table of rows, declared by memoized and plain components, some nested under a memoized
 * parent) to another (rows moved between components, components gone, the table recreated) while
 * the store fails writes; then a clean run must leave the targets exactly as declared, a quiet
 * rerun must apply nothing, every state must be down to one possible record, and the worlds that
 * follow (going back, a third world, nothing, the first again) must come out exact.
 *
 * <p>The faults: each single write of the update in turn, never written or written then reported
 * failed, on a store that settles state by state and (SQLite only) on one that settles a
 * successful run with one write; random sets of failed writes, with failing sinks and two faulty
 * runs in a row, some sweeping in chunks of one; and the same for a {@code dropState}, which a
 * second drop must finish.
 *
 * <p>By default a fixed subset runs, covering every kind of fault in some twenty seconds on SQLite
 * and fewer scenarios on PostgreSQL (each test's javadoc says which). The full exploration, every
 * pair of worlds, every write index and thirty seeds (some two minutes on SQLite), runs with
 * <pre>
 * mvn -o test -pl runtime -am -Dtest=LostStoreWritesTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dcocoindex.test.lostWrites=all
 * </pre>
 * (on PostgreSQL too when {@code COCOINDEX_TEST_POSTGRES_URL} is set); add {@code
 * -Dorg.slf4j.simpleLogger.log.io.cocoindex.runtime.LostStoreWritesTest=debug} to log each
 * scenario and the counts. Every problem found is listed in the failure.
 */
// The full exploration's tests take minutes each, past the suite's default timeout.
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class LostStoreWritesTest extends EngineTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(LostStoreWritesTest.class);
  private static final boolean ALL = "all".equals(System.getProperty("cocoindex.test.lostWrites"));

  /**
   * What an app declares: component path ({@code "grp/g1"} is {@code g1} under {@code grp}, a
   * trailing {@code *} mounts it plain rather than memoized) to its target states ({@code "f k=v"}
   * a file, {@code "t k=v"} a row of table {@code t}); {@code generation} is the table's spec,
   * changed to recreate it.
   */
  record World(String name, String generation, Map<String, List<String>> components) {
    static World of(String name, String generation, String... entries) {
      Map<String, List<String>> m = new TreeMap<>();
      for (String e : entries) {
        String[] p = e.split(":", 2);
        m.put(p[0], p[1].isEmpty() ? List.of() : List.of(p[1].split(",")));
      }
      return new World(name, generation, m);
    }

    /** The targets as this world declares them. */
    String expected() {
      Targets t = new Targets();
      if (!components.isEmpty()) {
        t.tables.put("t", new ConcurrentHashMap<>());
      }
      components.values().forEach(l -> l.forEach(e -> {
        String[] p = e.split(" ");
        String[] kv = p[1].split("=");
        (p[0].equals("f") ? t.files : t.tables.get("t")).put(kv[0], kv[1]);
      }));
      return t.show();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Memoized and plain ({@code *}) components; grp and hh memoized parents, hh with rows. */
  static final World A = World.of("A", "s1",
      "a:f x1=1,f x2=1,t r1=1", "b:f y1=1,t r2=1", "c:f z1=1", "d*:f w1=1",
      "grp:f gg=1", "grp/g1:f m1=1", "grp/g2*:t r3=1,f q1=1",
      "hh:t h0=1", "hh/h1:f k1=1,t r6=1", "hh/h2*:f k2=1");
  /** From A: rows moved between components, changed, gone; a child gone, one new. */
  static final World B = World.of("B", "s1",
      "a:f x1=2,t r1=1", "b:f y1=1,f x2=1,t r2=1", "d*:f w1=2,f z1=1",
      "grp:f gg=1", "grp/g1:f m1=2", "grp/g3:t r4=1", "e:t r5=1,f q1=1",
      "hh:t h0=1,f k2=2", "hh/h1:f k1=1,t r6=2");
  /** The table recreated (a new generation), every row in it declared again. */
  static final World C = World.of("C", "s2",
      "a:f x1=2,t r1=2", "b:f y1=1", "d*:f w1=2", "grp:f gg=2", "grp/g1:f m1=2,f m2=1",
      "grp/g3:t r4=1", "hh:t h0=1", "hh/h1:f k1=1,t r6=2", "hh/h2*:f k2=1,t r3=1");
  /** Nothing declared, not even the table. */
  static final World EMPTY = World.of("EMPTY", "s1");

  static final List<List<World>> ALL_PAIRS = List.of(List.of(EMPTY, A), List.of(A, B),
      List.of(B, C), List.of(C, A), List.of(B, A), List.of(A, C), List.of(C, B),
      List.of(A, EMPTY), List.of(C, EMPTY));

  /** The external systems: files, and tables of rows; sinks can fail at random. */
  static final class Targets {
    final Map<String, String> files = new ConcurrentHashMap<>();
    final Map<String, Map<String, String>> tables = new ConcurrentHashMap<>();
    /** Sink calls that changed or tried to change something. */
    final AtomicInteger changes = new AtomicInteger();
    volatile Random sinkFailures;

    void maybeFail() {
      Random r = sinkFailures;
      if (r != null) {
        synchronized (this) {
          if (r.nextDouble() < 0.1) {
            throw new IllegalStateException("injected sink failure");
          }
        }
      }
    }

    String show() {
      Map<String, Object> t = new TreeMap<>();
      tables.forEach((k, v) -> t.put(k, new TreeMap<>(v)));
      return "files=" + new TreeMap<>(files) + " tables=" + t;
    }
  }

  /** Rows, of the files (no table) or of one table. */
  static TargetActionSink<RowAction> rowSink(Targets targets, String table) {
    return TargetActionSink.of(actions -> {
      Map<String, String> m = table == null ? targets.files : targets.tables.get(table);
      if (m == null) {
        throw new IllegalStateException("no table " + table);
      }
      targets.changes.incrementAndGet();
      targets.maybeFail();
      for (TargetAction<RowAction> a : actions) {
        if (a instanceof TargetAction.Delete) {
          m.remove(a.value().key());
        } else {
          m.put(a.value().key(), a.value().value());
        }
      }
    });
  }

  /** {@link Rows.Handler}'s reconcile, on a sink of its own. */
  record RowHandler(TargetActionSink<RowAction> sink)
      implements TargetHandler<String, String, RowAction> {
    @Override
    public TargetReconcileOutput<RowAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      return Rows.reconcileRow(key, desired, prev, mayBeMissing, sink);
    }
  }

  record TableAction(String name, boolean drop, boolean recreate) {}

  /**
   * Tables whose spec is their generation: a new one recreates the table empty (its rows
   * invalidated destructively), the same one possibly missing may have lost rows (lossy).
   */
  static final class TableHandler implements TargetHandler<String, String, TableAction> {
    final TargetActionSink<TableAction> sink;

    TableHandler(Targets targets) {
      Map<String, TargetActionSink<RowAction>> rowSinks = new ConcurrentHashMap<>();
      sink = TargetActionSink.withChildHandler(actions -> {
        for (TargetAction<TableAction> a : actions) {
          TableAction t = a.value();
          if (t.drop()) {
            targets.tables.remove(t.name());
          } else if (t.recreate()) {
            targets.tables.put(t.name(), new ConcurrentHashMap<>());
          } else if (targets.tables.putIfAbsent(t.name(), new ConcurrentHashMap<>()) != null) {
            continue;
          }
          targets.changes.incrementAndGet();
        }
      }, action -> ChildTargetDef.of(new RowHandler(
          rowSinks.computeIfAbsent(action.name(), n -> rowSink(targets, n)))));
    }

    @Override
    public TargetReconcileOutput<TableAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      String name = Rows.keyText(key);
      if (desired == null) {
        if (prev.isEmpty() && !mayBeMissing) {
          return null;
        }
        return TargetReconcileOutput.of(
            TargetAction.delete(new TableAction(name, true, false)), sink, null);
      }
      if (prev.isEmpty()) {
        return TargetReconcileOutput.of(
            TargetAction.create(new TableAction(name, false, false)), sink, desired);
      }
      if (prev.size() == 1 && prev.get(0).equals(desired)) {
        return new TargetReconcileOutput<>(
            TargetAction.update(new TableAction(name, false, false)), sink, desired,
            mayBeMissing ? TargetChildInvalidation.LOSSY : null);
      }
      return new TargetReconcileOutput<>(
          TargetAction.update(new TableAction(name, false, true)), sink, desired,
          TargetChildInvalidation.DESTRUCTIVE);
    }
  }

  /**
   * Fails the {@code failAt}-th write from {@link #count} on (0-based), or each write with a
   * chance when {@link #failures} is set; a failed write is lost, or with {@code landed} written
   * and then reported failed.
   */
  static final class LosingStore extends ForwardingStateStore {
    final boolean settlesByRun;
    final AtomicInteger writes = new AtomicInteger();
    volatile int failAt = -1;
    volatile boolean landed;
    volatile Random failures;
    /** The failed writes, as {@code lost[Settle, PutComponent]}, for the report. */
    final List<String> failed = Collections.synchronizedList(new ArrayList<>());

    LosingStore(StateStore delegate, boolean settlesByRun) {
      super(delegate);
      this.settlesByRun = settlesByRun;
    }

    /** Off, a failed run's settlement goes state by state, as on PostgreSQL. */
    @Override
    public boolean recordsSettledRuns() {
      return settlesByRun && super.recordsSettledRuns();
    }

    void count() {
      writes.set(0);
    }

    void heal() {
      failAt = -1;
      failures = null;
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> w) {
      int n = writes.getAndIncrement();
      boolean fail = n == failAt;
      boolean land = landed;
      Random r = failures;
      if (r != null) {
        synchronized (this) {
          if (r.nextDouble() < 0.15) {
            fail = true;
            land = r.nextBoolean();
          }
        }
      }
      if (!fail) {
        return super.write(app, w);
      }
      failed.add((land ? "landed" : "lost")
          + w.stream().map(x -> x.getClass().getSimpleName()).toList());
      if (land) {
        return super.write(app, w).handle((v, e) -> {
          throw new StateStoreException("injected failure after the write landed");
        });
      }
      return CompletableFuture.failedFuture(new StateStoreException("injected write failure"));
    }
  }

  /** One app on its own name in this test's store, its targets, and the world it declares. */
  final class Scenario implements AutoCloseable {
    final String label;
    final String appName = "w" + apps.incrementAndGet();
    final Targets targets = new Targets();
    final LosingStore store;
    final App app;
    volatile World declared;

    Scenario(String label, boolean settlesByRun) {
      this.label = label;
      this.store = new LosingStore(shared, settlesByRun);
      this.app = App.create(appName, Environment.builder().stateStore(store).build(), main());
      LOG.debug("scenario {}: {}", appName, label);
    }

    Consumer<Ctx> main() {
      RowHandler files = new RowHandler(rowSink(targets, null));
      TableHandler tables = new TableHandler(targets);
      return ctx -> {
        World w = declared;
        TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "f", files);
        TargetStateProvider<String> tp = registerRootTargetStatesProvider(ctx, "t", tables);
        if (w.components().isEmpty()) {
          return;
        }
        TargetStateProvider<String> t = mountTarget(ctx, tp.targetState("t", w.generation()));
        Map<String, Map<String, List<String>>> children = new TreeMap<>();
        w.components().forEach((path, decls) -> {
          if (path.contains("/")) {
            String[] p = path.split("/");
            children.computeIfAbsent(p[0], k -> new TreeMap<>()).put(p[1], decls);
          }
        });
        w.components().forEach((path, decls) -> {
          if (!path.contains("/") && !children.containsKey(path)) {
            mount(ctx, path, decls, f, t);
          }
        });
        // A parent is memoized on its children's declarations and its own.
        children.forEach((parent, kids) -> {
          List<String> own = w.components().getOrDefault(parent, List.of());
          ctx.mountMemo(parent, kids.toString() + own, pc -> {
            declareAll(pc, own, f, t);
            kids.forEach((k, decls) -> mount(pc, k, decls, f, t));
          });
        });
      };
    }

    /** Runs {@code w} faultless; the number of store writes it made. */
    int update(World w) {
      declared = w;
      store.count();
      app.update();
      return store.writes.get();
    }

    /** A run expected to fail or not, whatever it throws. */
    void faulty(Runnable run) {
      try {
        run.run();
      } catch (RuntimeException expected) {
        // The faults usually fail the run; the next clean run must converge either way.
      }
    }

    /** The possible records of each of this app's states. */
    List<Integer> recordCounts() {
      List<Integer> out = new ArrayList<>();
      shared.scan(appName, new byte[0], s -> out.add(s.records().size()));
      return out;
    }

    void problem(String what) {
      problems.add(label + " " + store.failed + ": " + what);
    }

    /**
     * After the faulty runs: a clean run gives {@code next} exactly, a quiet rerun applies
     * nothing, one record per state, and then every world of {@code then} comes out exact.
     */
    void convergesTo(World next, List<World> then) {
      store.heal();
      targets.sinkFailures = null;
      try {
        converges(next, then);
      } catch (RuntimeException e) {
        problem("a clean run failed: " + e);
      }
    }

    private void converges(World next, List<World> then) {
      update(next);
      if (!targets.show().equals(next.expected())) {
        problem("after recovery " + targets.show() + ", expected " + next.expected());
        return;
      }
      int changes = targets.changes.get();
      update(next);
      if (targets.changes.get() != changes) {
        problem("a quiet rerun applied something");
      }
      List<Integer> counts = recordCounts();
      if (counts.stream().anyMatch(c -> c != 1)) {
        problem("possible records per state after two clean runs " + counts);
      }
      for (World w : then) {
        update(w);
        if (!targets.show().equals(w.expected())) {
          problem("then " + w + " gives " + targets.show() + ", expected " + w.expected());
          return;
        }
      }
    }

    @Override
    public void close() {
      app.close();
    }
  }

  private final AtomicInteger apps = new AtomicInteger();
  private int scenarios;
  private final List<String> problems = new ArrayList<>();
  private StateStore shared;
  @RegisterExtension final SweepChunks sweepChunks = new SweepChunks();

  @BeforeEach
  void openTheSharedStore() {
    shared = store();
  }

  static void mount(Ctx ctx, String path, List<String> decls,
      TargetStateProvider<String> f, TargetStateProvider<String> t) {
    Consumer<Ctx> body = c -> declareAll(c, decls, f, t);
    if (path.endsWith("*")) {
      ctx.mount(path.substring(0, path.length() - 1), body);
    } else {
      ctx.mountMemo(path, decls, body);
    }
  }

  static void declareAll(Ctx c, List<String> decls,
      TargetStateProvider<String> f, TargetStateProvider<String> t) {
    for (String e : decls) {
      String[] p = e.split(" ");
      String[] kv = p[1].split("=");
      declareTargetState(c, (p[0].equals("f") ? f : t).targetState(kv[0], kv[1]));
    }
  }

  /** Settled-by-run exists only on the embedded store; PostgreSQL settles state by state. */
  static List<Boolean> settlements() {
    return ON_POSTGRES ? List.of(false) : List.of(true, false);
  }

  static String settlement(boolean byRun) {
    return byRun ? "settled by run" : "settled state by state";
  }

  void assertNoProblem(String kind) {
    LOG.debug("{}: {} scenarios, {} problems", kind, scenarios, problems.size());
    assertThat(problems).as("%s: problems in %d scenarios", kind, scenarios).isEmpty();
  }

  /** The {@code k}-th write of {@code prev -> next} fails alone. */
  void oneWriteFails(World prev, World next, boolean byRun, int k, boolean landed) {
    String label = prev + "->" + next + " " + settlement(byRun) + ", write " + k
        + (landed ? " landed and failed" : " lost");
    scenarios++;
    try (Scenario s = new Scenario(label, byRun)) {
      s.update(prev);
      s.declared = next;
      s.store.count();
      s.store.failAt = k;
      s.store.landed = landed;
      s.faulty(s.app::update);
      s.convergesTo(next, List.of(prev, next, C, A, EMPTY, B));
    } catch (RuntimeException e) {
      problems.add(label + ": " + e);
    }
  }

  /** How many writes a clean {@code prev -> next} makes. */
  int writesOf(World prev, World next, boolean byRun) {
    try (Scenario s = new Scenario("counting " + prev + "->" + next, byRun)) {
      s.update(prev);
      return s.update(next);
    }
  }

  /**
   * Every write of an update (and two past its last, which fail nothing) is failed alone, lost
   * and landed. By default, when the run settles with one write: rows moved and a child gone
   * ({@code A -> B}), every write both ways; when it settles state by state: the table recreated
   * ({@code B -> C}), each write once, lost and landed in turn (on PostgreSQL every third write).
   */
  @Test
  void anUpdateConvergesAfterAnyOneOfItsWritesIsLostOrLandsButFails() {
    for (boolean byRun : settlements()) {
      for (List<World> p : ALL ? ALL_PAIRS : List.of(byRun ? List.of(A, B) : List.of(B, C))) {
        int n = writesOf(p.get(0), p.get(1), byRun);
        int step = ON_POSTGRES && !ALL ? 3 : 1;
        for (int k = 0; k < n + 2; k += step) {
          if (ALL || byRun) {
            oneWriteFails(p.get(0), p.get(1), byRun, k, false);
            oneWriteFails(p.get(0), p.get(1), byRun, k, true);
          } else {
            oneWriteFails(p.get(0), p.get(1), byRun, k, (k / step) % 2 == 1);
          }
        }
      }
    }
    assertNoProblem("single writes failed");
  }

  /**
   * Random writes fail (lost or landed), sinks too for even seeds, in a second faulty run too for
   * seeds divisible by three, the sweep going in chunks of one for odd seeds. A seed fixes the
   * draws, not which of the run's concurrent writes gets each, so a seed's faults can vary.
   */
  void randomFaults(World prev, World next, boolean byRun, long seed) {
    String label = prev + "->" + next + " " + settlement(byRun) + ", seed " + seed;
    scenarios++;
    if (seed % 2 == 1) {
      sweepChunks.set(1);
    }
    try (Scenario s = new Scenario(label, byRun)) {
      s.update(prev);
      s.declared = next;
      s.store.failures = new Random(seed);
      s.targets.sinkFailures = seed % 2 == 0 ? new Random(seed + 7) : null;
      s.faulty(s.app::update);
      if (seed % 3 == 0) {
        s.store.failures = new Random(seed + 1000);
        s.faulty(s.app::update);
      }
      s.convergesTo(next, List.of(prev, next, C, A, EMPTY, B));
    } catch (RuntimeException e) {
      problems.add(label + ": " + e);
    } finally {
      sweepChunks.restore();
    }
  }

  /** A pair of worlds and a seed. */
  record Draw(World prev, World next, long seed) {}

  /** The draws that caught the memo unstamped over a child's lost settle (each, sometimes). */
  static final List<Draw> CAUGHT_THE_UNSTAMPED_MEMO = List.of(
      new Draw(EMPTY, A, 18), new Draw(EMPTY, A, 29), new Draw(C, A, 0), new Draw(C, A, 29),
      new Draw(A, C, 7), new Draw(A, C, 18), new Draw(A, C, 29), new Draw(C, B, 4),
      new Draw(C, B, 12), new Draw(C, B, 20));

  /**
   * By default a few seeds on {@code A -> B}, and on the embedded store the seeds that caught a
   * failed run's settlement unstamping a memo over a child's lost settle (fixed in 978a91b): the
   * child's states stayed with two possible records for good.
   */
  @Test
  void anUpdateConvergesAfterRandomWritesAndSinksFailInOneOrTwoRuns() {
    for (boolean byRun : settlements()) {
      if (ALL) {
        for (List<World> p : ALL_PAIRS) {
          for (long seed = 0; seed < 30; seed++) {
            randomFaults(p.get(0), p.get(1), byRun, seed);
          }
        }
        continue;
      }
      for (long seed = 0; seed < (ON_POSTGRES ? 2 : 4); seed++) {
        randomFaults(A, B, byRun, seed);
      }
      if (byRun) {
        CAUGHT_THE_UNSTAMPED_MEMO.forEach(d -> randomFaults(d.prev(), d.next(), true, d.seed()));
      }
    }
    assertNoProblem("random faults");
  }

  /** A drop with failed writes (the {@code k}-th, or random ones); a second drop finishes it. */
  void dropFails(World world, int k, boolean landed, long seed) {
    String label = "drop of " + world + (seed < 0
        ? ", write " + k + (landed ? " landed and failed" : " lost") : ", seed " + seed);
    scenarios++;
    try (Scenario s = new Scenario(label, true)) {
      s.update(world);
      s.store.count();
      s.store.failAt = k;
      s.store.landed = landed;
      s.store.failures = seed < 0 ? null : new Random(seed);
      s.faulty(s.app::dropState);
      s.store.heal();
      try {
        s.app.dropState();
      } catch (RuntimeException e) {
        s.problem("the second drop failed: " + e);
        return;
      }
      List<Integer> counts = s.recordCounts();
      if (!s.targets.show().equals(EMPTY.expected()) || !counts.isEmpty()) {
        s.problem("after the second drop " + s.targets.show() + ", records " + counts);
      }
      s.update(world);
      if (!s.targets.show().equals(world.expected())) {
        s.problem("an update after the drop gives " + s.targets.show());
      }
    } catch (RuntimeException e) {
      problems.add(label + ": " + e);
    }
  }

  /** By default a few writes of a drop of {@code C} and two seeds (one on PostgreSQL). */
  @Test
  void aDropWithLostWritesIsFinishedByTheNextDrop() {
    List<World> worlds = ALL ? List.of(A, B, C) : List.of(C);
    List<Integer> writes = ALL ? IntStream.range(0, 40).boxed().toList()
        : ON_POSTGRES ? List.of(0, 3) : IntStream.range(0, 8).boxed().toList();
    int seeds = ALL ? 30 : ON_POSTGRES ? 1 : 2;
    for (World w : worlds) {
      for (int k : writes) {
        dropFails(w, k, false, -1);
        dropFails(w, k, true, -1);
      }
      for (long seed = 0; seed < seeds; seed++) {
        dropFails(w, -1, false, seed);
      }
    }
    assertNoProblem("drops");
  }
}
