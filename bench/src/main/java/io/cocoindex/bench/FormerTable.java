package io.cocoindex.bench;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A table whose rows the sweep forgets: table {@code docs}, a container, with {@code components}
 * components of {@code rows} rows each below it (a cold run), then {@code docs} declared without
 * children (a directory that became a file): its action took every row along, and the orphan
 * sweep forgets them all, applying nothing. The components are still mounted, declaring nothing
 * (their rows are the committed components' candidates), or with {@code --stale} not mounted (the
 * stale components' candidates). Prints each run's time; on PostgreSQL, each round in a schema of
 * its own, the forgetting run is framed in the server's statement log (if the server logs
 * statements, {@code log_min_duration_statement = 0}) by {@code SELECT 'former-table:begin'} and
 * {@code SELECT 'former-table:end'}, run on a connection of their own.
 *
 * <pre>java -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.FormerTable 20 2000 3
 *     [--pg url] [--stale]</pre>
 */
public final class FormerTable {
  private FormerTable() {}

  /** The container's action, or a row's: nothing is applied anywhere. */
  private static final TargetActionSink<String> ROWS = TargetActionSink.of(actions -> { });

  /** Rows: created, updated and deleted as any row target; the tracking record is the value. */
  private static final class RowHandler implements TargetHandler<String, String, String> {
    @Override
    public TargetReconcileOutput<String, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      if (desired == null) {
        return prev.isEmpty() && !mayBeMissing ? null
            : TargetReconcileOutput.of(TargetAction.delete(key.toString()), ROWS, null);
      }
      if (!mayBeMissing && prev.size() == 1 && prev.get(0).equals(desired)) {
        return null;
      }
      return TargetReconcileOutput.of(prev.isEmpty() ? TargetAction.create(desired)
          : TargetAction.update(desired), ROWS, desired);
    }
  }

  private static final RowHandler ROW_HANDLER = new RowHandler();
  private static final TargetActionSink<String> TABLES = TargetActionSink.withChildHandler(
      actions -> { }, action -> ChildTargetDef.of(ROW_HANDLER));

  /** Tables: an action every run they are declared, as a container's must be. */
  private static final class TableHandler implements TargetHandler<String, String, String> {
    @Override
    public TargetReconcileOutput<String, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(key.toString()), TABLES, null);
      }
      return TargetReconcileOutput.of(prev.isEmpty() ? TargetAction.create(desired)
          : TargetAction.update(desired), TABLES, desired);
    }
  }

  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    String postgres = Tree.option(rest, "--pg");
    boolean stale = rest.remove("--stale");
    if (rest.size() != 3) {
      System.err.println("usage: FormerTable <components> <rows each> <rounds> [--pg url]"
          + " [--stale]");
      System.exit(2);
    }
    int components = Integer.parseInt(rest.get(0));
    int rows = Integer.parseInt(rest.get(1));
    int rounds = Integer.parseInt(rest.get(2));
    System.out.printf(Locale.ROOT, "%,d components of %,d rows, %s, candidates of %s,"
            + " sweep chunk %s%n", components, rows,
        postgres == null ? "embedded store" : "PostgreSQL",
        stale ? "stale components" : "committed components",
        System.getProperty("cocoindex.sweep.chunk", "default"));
    for (int round = 0; round < rounds; round++) {
      round(postgres, round, components, rows, stale);
    }
  }

  private static void round(String postgres, int round, int components, int rows, boolean stale)
      throws Exception {
    Path dir = Files.createTempDirectory("cocoindex-former");
    String schema = postgres == null ? null
        : "former_" + ProcessHandle.current().pid() + "_" + round;
    if (schema != null) {
      Sql.execute(postgres, "CREATE SCHEMA " + schema);
    }
    boolean[] withChildren = {true};
    StateStore store = null;
    try {
      store = schema == null ? null : PostgresStateStore.open(postgres
          + (postgres.contains("?") ? "&" : "?") + "currentSchema=" + schema);
      Timed timed = store == null ? null : new Timed(store);
      store = timed;
      Environment.Builder env = Environment.builder();
      if (store == null) {
        env.dbPath(dir.resolve("state")).durability(EngineBench.STORE_DURABILITY);
      } else {
        env.stateStore(store);
      }
      try (App app = App.create("former", env.build(), ctx -> main(ctx, withChildren[0],
          stale, components, rows))) {
        long start = System.nanoTime();
        UpdateStats cold = app.update();
        long coldNanos = System.nanoTime() - start;
        withChildren[0] = false;
        if (postgres != null) {
          Sql.execute(postgres, "SELECT 'former-table:begin'");
        }
        if (timed != null) {
          timed.totals.clear();
        }
        start = System.nanoTime();
        UpdateStats forget = app.update();
        long forgetNanos = System.nanoTime() - start;
        if (timed != null) {
          System.out.println("  store calls in the forgetting run: " + timed.report());
        }
        if (postgres != null) {
          Sql.execute(postgres, "SELECT 'former-table:end'");
        }
        long tracked = app.status().providers().values().stream().mapToLong(List::size).sum();
        System.out.printf(Locale.ROOT, "round %d: create %,d states %.0f ms, forget them %.0f ms"
                + " (%.1f us/row), %,d changed, %d states left tracked%n", round,
            cold.total().changed(), coldNanos / 1e6, forgetNanos / 1e6,
            forgetNanos / 1e3 / ((long) components * rows), forget.total().changed(), tracked);
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

  /**
   * The shared store with the time spent in each kind of call (a write from its call to its
   * completion, a lease until it is given back excluded), and how many calls and items.
   */
  private static final class Timed extends ForwardingStateStore {
    /** Per kind of call: calls, items, nanoseconds. */
    final Map<String, long[]> totals = new ConcurrentHashMap<>();

    Timed(StateStore delegate) {
      super(delegate);
    }

    void add(String what, long items, long nanos) {
      long[] t = totals.computeIfAbsent(what, k -> new long[3]);
      synchronized (t) {
        t[0]++;
        t[1] += items;
        t[2] += nanos;
      }
    }

    String report() {
      StringBuilder out = new StringBuilder();
      new TreeMap<>(totals).forEach((what, t) -> out.append(String.format(Locale.ROOT,
          "%n    %-22s %6d calls %8d items %8.1f ms", what, t[0], t[1], t[2] / 1e6)));
      return out.toString();
    }

    /** {@code call}'s result, its time added to {@code what}'s with {@code items} items. */
    private <T> T timed(String what, long items, Supplier<T> call) {
      long start = System.nanoTime();
      T result = call.get();
      add(what, items, System.nanoTime() - start);
      return result;
    }

    @Override
    public List<AutoCloseable> leaseStates(String app, List<byte[]> statePaths) {
      List<AutoCloseable> leases = timed("leaseStates", statePaths.size(),
          () -> super.leaseStates(app, statePaths));
      List<AutoCloseable> out = new ArrayList<>(leases.size());
      for (AutoCloseable l : leases) {
        out.add(() -> {
          long s = System.nanoTime();
          l.close();
          add("state lease closes", 1, System.nanoTime() - s);
        });
      }
      return out;
    }

    @Override
    public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
      return timed("getAll", paths.size(), () -> super.getAll(app, paths));
    }

    @Override
    public List<List<TrackedState>> ownedByEach(String app, List<byte[]> componentPaths) {
      return timed("ownedByEach", componentPaths.size(),
          () -> super.ownedByEach(app, componentPaths));
    }

    @Override
    public List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> paths) {
      return timed("leaseComponentsToSweep", paths.size(),
          () -> super.leaseComponentsToSweep(app, paths));
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      long start = System.nanoTime();
      long trees = writes.stream().filter(w -> w instanceof StateWrite.DeleteTree).count();
      String what = trees > 0 ? "write (DeleteTrees)" : "write";
      return super.write(app, writes).whenComplete((v, e) ->
          add(what, trees > 0 ? trees : writes.size(), System.nanoTime() - start));
    }
  }

  private static void main(Ctx ctx, boolean withChildren, boolean stale, int components,
      int rows) {
    TargetStateProvider<String> tables =
        registerRootTargetStatesProvider(ctx, "tables", new TableHandler());
    TargetStateProvider<String> docs = null;
    if (withChildren) {
      docs = mountTarget(ctx, tables.targetState("docs", "table"));
    } else {
      declareTargetState(ctx, tables.targetState("docs", "table"));
      if (stale) {
        return;
      }
    }
    TargetStateProvider<String> into = docs;
    for (int i = 0; i < components; i++) {
      int first = i * rows;
      ctx.mount(i, c -> {
        if (into != null) {
          for (int r = first; r < first + rows; r++) {
            declareTargetState(c, into.targetState("row" + r, "v"));
          }
        }
      });
    }
  }
}
