package io.cocoindex.bench;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A tree of components, not the flat shape the other harnesses mount: the shape {@code
 * 1x100000x10} is the root mounting one component that mounts 100,000 children of ten states
 * each, {@code 100x1000x10} a hundred components of a thousand children each, {@code
 * 10x100x100x10} three levels. The last figure is the states each leaf component declares (a
 * 200-character string each, through a handler whose sink does nothing: what is timed is the
 * engine and its state store). {@code --memo 1,2} memoizes the components of those levels (1:
 * those the root mounts), their input the data's generation.
 *
 * <p>In one JVM and one open app, the phases: {@code cold} (every state created), {@code warm}
 * (nothing changed; a memoized level hits), {@code change} (1% of the states get a new value,
 * one in every hundred, so every memo misses), {@code remove} (the root mounts nothing: the
 * orphan sweep removes the whole tree), {@code again} (the tree created once more) and {@code
 * drop} ({@code dropState}). Each prints its time, per state, the components run and memoized,
 * the heap's peak (the sum of the heap pools' peaks over the phase, so an upper bound), the
 * GC's time, on PostgreSQL the most advisory locks seen held at once (polled every 20 ms), and
 * the process's CPU time (every thread's, the GC's included). On the embedded store by default; given a PostgreSQL URL, on the shared store in a schema of
 * its own, dropped at the end.
 *
 * <pre>java -Xmx512m -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.Tree 1x100000x10
 *     [--memo 1] [--pg url] [--phases cold,warm,change,remove,again,drop]</pre>
 */
public final class Tree {
  private Tree() {}

  private static final String PAD = "x".repeat(200);

  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    Set<Integer> memoLevels = new HashSet<>();
    String memo = option(rest, "--memo");
    if (memo != null) {
      for (String level : memo.split(",")) {
        memoLevels.add(Integer.parseInt(level));
      }
    }
    String postgres = option(rest, "--pg");
    String phaseList = option(rest, "--phases");
    List<String> phases = List.of(
        (phaseList == null ? "cold,warm,change,remove,again,drop" : phaseList).split(","));
    if (rest.size() != 1 || !rest.get(0).matches("[1-9][0-9]*(x[1-9][0-9]*)+")) {
      System.err.println("usage: Tree <fan-out>x...x<states per leaf> [--memo levels]"
          + " [--pg url] [--phases cold,warm,change,remove,again,drop]"
          + (rest.isEmpty() ? "" : " (given: " + String.join(" ", rest) + ")"));
      System.exit(2);
    }
    int[] shape = Arrays.stream(rest.get(0).split("x")).mapToInt(Integer::parseInt).toArray();
    long states = 1;
    for (int f : shape) {
      states *= f;
    }
    Shape tree = new Shape(shape, memoLevels);
    Path dir = Files.createTempDirectory("cocoindex-tree");
    String schema = postgres == null ? null : "tree_" + ProcessHandle.current().pid();
    if (schema != null) {
      Sql.execute(postgres, "CREATE SCHEMA " + schema);
    }
    System.out.printf(Locale.ROOT, "shape %s (%,d states), memo levels %s, %s, -Xmx%dm%n",
        rest.get(0), states, memoLevels, postgres == null ? "embedded store" : "PostgreSQL",
        Runtime.getRuntime().maxMemory() >> 20);
    System.out.printf(Locale.ROOT, "%-7s %10s %8s %10s %10s %10s %9s %8s %6s %8s%n", "phase",
        "ms", "us/state", "changed", "run", "memoized", "old MiB", "GC ms", "locks", "CPU ms");
    StateStore store = null;
    try (LockWatch locks = postgres == null ? null : new LockWatch(postgres)) {
      store = postgres == null ? null : PostgresStateStore.open(postgres
          + (postgres.contains("?") ? "&" : "?") + "currentSchema=" + schema);
      Environment.Builder env = Environment.builder();
      if (store == null) {
        env.dbPath(dir.resolve("state")).durability(EngineBench.STORE_DURABILITY);
      } else {
        env.stateStore(store);
      }
      try (App app = App.create("tree", env.build(), tree::main)) {
        for (String phase : phases) {
          switch (phase) {
            case "cold", "again" -> tree.mounted = true;
            case "warm", "drop" -> { }
            case "change" -> tree.generation++;
            case "remove" -> tree.mounted = false;
            default -> throw new IllegalArgumentException("unknown phase " + phase);
          }
          resetPeaks();
          if (locks != null) {
            locks.reset();
          }
          long gc = gcMillis();
          long cpu = processCpuNanos();
          long start = System.nanoTime();
          UpdateStats stats = phase.equals("drop") ? app.dropState() : app.update();
          long nanos = System.nanoTime() - start;
          System.out.printf(Locale.ROOT, "%-7s %10.0f %8.2f %,10d %,10d %,10d %9d %8d %6s %8d%n",
              phase, nanos / 1e6, nanos / 1e3 / states, stats.total().changed(),
              stats.componentsRun(), stats.componentsMemoized(), peakHeap() >> 20,
              gcMillis() - gc, locks == null ? "-" : Integer.toString(locks.reset()),
              (processCpuNanos() - cpu) / 1_000_000);
        }
      }
    } finally {
      if (store != null) {
        store.close();
      }
      EngineWorkloads.deleteTree(dir);
      if (schema != null) {
        Sql.execute(postgres, "DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  /** The tree to declare: its shape, which levels are memoized, the data's generation. */
  private static final class Shape {
    final int[] shape;
    final Set<Integer> memoLevels;
    volatile boolean mounted = true;
    volatile int generation;

    Shape(int[] shape, Set<Integer> memoLevels) {
      this.shape = shape;
      this.memoLevels = memoLevels;
    }

    void main(Ctx ctx) {
      TargetStateProvider<String> rows =
          registerRootTargetStatesProvider(ctx, "rows", new DeepChain.Handler());
      if (mounted) {
        children(ctx, rows, 0, 0, generation);
      }
    }

    /** Mounts the children of a component at {@code level}; {@code first}: its first leaf. */
    private void children(Ctx ctx, TargetStateProvider<String> rows, int level, long first,
        int gen) {
      int fanOut = shape[level];
      long leavesEach = 1;
      for (int i = level + 1; i < shape.length - 1; i++) {
        leavesEach *= shape[i];
      }
      for (int i = 0; i < fanOut; i++) {
        long leaf = first + i * leavesEach;
        Consumer<Ctx> body = level + 1 == shape.length - 1
            ? c -> leaf(c, rows, leaf, gen)
            : c -> children(c, rows, level + 1, leaf, gen);
        if (memoLevels.contains(level + 1)) {
          ctx.mountMemo(i, gen, body);
        } else {
          ctx.mount(i, body);
        }
      }
    }

    /** One in every hundred states changes value with each generation. */
    private void leaf(Ctx ctx, TargetStateProvider<String> rows, long leaf, int gen) {
      int perLeaf = shape[shape.length - 1];
      for (int r = 0; r < perLeaf; r++) {
        long state = leaf * perLeaf + r;
        String value = state % 100 == 0 ? PAD + gen : PAD;
        declareTargetState(ctx, rows.targetState(leaf + "/" + r, value));
      }
    }
  }

  /** Polls the server's advisory locks held, keeping the most seen since the last reset. */
  private static final class LockWatch implements AutoCloseable {
    private final Connection connection;
    private final AtomicInteger most = new AtomicInteger();
    private final Thread poller;
    private volatile boolean stop;

    LockWatch(String url) throws SQLException {
      connection = DriverManager.getConnection(url);
      poller = new Thread(this::poll, "tree-lock-watch");
      poller.setDaemon(true);
      poller.start();
    }

    private void poll() {
      try (Statement s = connection.createStatement()) {
        while (!stop) {
          try (ResultSet r = s.executeQuery(
              "select count(*) from pg_locks where locktype = 'advisory'")) {
            r.next();
            most.accumulateAndGet(r.getInt(1), Math::max);
          }
          Thread.sleep(20);
        }
      } catch (SQLException | InterruptedException e) {
        if (!stop) {
          System.err.println("lock watch stopped: " + e);
        }
      }
    }

    /** The most locks seen since the last call. */
    int reset() {
      return most.getAndSet(0);
    }

    @Override
    public void close() throws Exception {
      stop = true;
      poller.join();
      connection.close();
    }
  }

  static String option(List<String> args, String name) {
    int i = args.indexOf(name);
    if (i < 0 || i + 1 >= args.size()) {
      return null;
    }
    String value = args.get(i + 1);
    args.subList(i, i + 2).clear();
    return value;
  }

  private static void resetPeaks() {
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP
          && (pool.getName().contains("Old") || pool.getName().contains("Tenured"))) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /**
   * The CPU time of this process so far, every thread's and the GC's: on a loaded machine a
   * phase's wall-clock time mostly tells how long it waited for a core, its CPU time less so.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static long gcMillis() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }
}
