package io.cocoindex.reliability;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.ActionApplier;
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
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.state.ContainerChangedException;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One worker JVM of {@link PostgresCrashTest}: runs one update (or {@code dropState}) of an app
 * on the shared PostgreSQL state store, whose target is the PostgreSQL table {@code
 * target_rows(key, value)}. A fifth of the keys are rows of the container {@code t} (a table,
 * the row {@code t} holding "table", its rows keyed {@code t:k<i>}), which in about a third of
 * the generations is declared without children (the row holds "leaf"): its action takes the
 * rows along, and the engine forgets them (rule 8), those of components no longer mounted too.
 * In half of those generations {@code t} is not declared at all: the orphan sweep deletes it,
 * its rows with it (in a mixed round, while the other view's components may write them).
 * The leaf is declared by the root itself for odd seeds, in a component {@code t} of its own for
 * even ones; the root also declares a row of its own, {@code root0} or {@code root1} by the
 * generation's parity: the states the root owns are created, updated and swept by every worker
 * of a round (each runs the root), one reading them after the other's commit.
 *
 * <p>The sink is strict where the engine's information allows it: every action carries the
 * possible records and the "may be missing" flag its handler was given, and the sink checks,
 * under the row's lock, that the row really is in one of those forms. A row the engine believes
 * absent but which is there (a create applied twice, a lost possible record) or a row in a form
 * no possible record names (a lost update) is written to {@code violations}. Each action is a
 * transaction of its own (a batch is not atomic), and each is logged in {@code sink_log} with the
 * round and the worker, so a kill leaves a batch half applied.
 *
 * <p>Args: jdbcUrl worker round seed generation mode(update|drop) sinkDelayMillis. Prints {@code
 * START} once the store is open and {@code DONE} after the run.
 */
public final class PgCrashWorker {
  static final String APP = "pgcrash";
  /** System property: whether half the components and the groups are memoized (true by default). */
  static final String MEMO = "reliability.pgMemo";
  /**
   * System property: whether {@code t} is left undeclared in about half its leaf generations
   * (true by default; false draws the worlds as before the fifty-sixth session, to replay a
   * trial recorded then).
   */
  static final String ABSENT = "reliability.pgAbsent";

  private PgCrashWorker() {}

  /**
   * A row write: {@code value} null deletes. {@code expected} are the row's possible values the
   * handler was given, {@code mayBeMissing} whether the row may be absent. {@code clear}: the
   * container's action that takes its rows along (deletes every {@code t:} row with it).
   */
  public record Put(String key, String value, List<String> expected, boolean mayBeMissing,
      boolean clear) {
    Put(String key, String value, List<String> expected, boolean mayBeMissing) {
      this(key, value, expected, mayBeMissing, false);
    }

    /**
     * The container's action of a run that finds it as it was (rule 6: one on every run it is
     * declared with children), which changes nothing: every worker that processes its
     * component in a round applies one, so the sink checks it but does not log it.
     */
    boolean refresh() {
      return key.equals(TABLE) && "table".equals(value) && expected.equals(List.of("table"))
          && !mayBeMissing;
    }
  }

  /** The container's key, and the prefix of its rows' keys. */
  static final String TABLE = "t";
  static final String TABLE_ROW = "t:";

  /**
   * The declared world: components, each declaring some keys with values. A third of them are
   * mounted by the root, the others by groups ({@link #groupOf}), memoized when components may
   * be, which declare nothing themselves.
   */
  record PgWorld(Map<String, Map<String, String>> components, Map<String, Boolean> memoized,
      boolean memoizedGroups, boolean table, boolean tDeclared, boolean leafByRoot,
      Map<String, String> rootRows) {
    /** key to value over every component, the root's rows, and the container's row. */
    Map<String, String> rows() {
      Map<String, String> out = new TreeMap<>();
      components.values().forEach(out::putAll);
      out.putAll(rootRows);
      if (tDeclared) {
        out.put(TABLE, table ? "table" : "leaf");
      }
      return out;
    }

    /** What the world declares {@code t}: "table", "leaf", or "absent" (not declared). */
    String tForm() {
      return !tDeclared ? "absent" : table ? "table" : "leaf";
    }

    /**
     * The group component {@code c} is mounted in, or null for the root: {@code c0}, {@code
     * c3}, ... at the root, the others in four groups. A function of the name alone, so that a
     * component stays where it is while its keys move.
     */
    static String groupOf(String c) {
      int i = Integer.parseInt(c.substring(1));
      return i % 3 == 0 ? null : "g" + (i / 3) % 4;
    }

    /** The groups with members, each with its members' declarations. */
    Map<String, Map<String, Map<String, String>>> groups() {
      Map<String, Map<String, Map<String, String>>> out = new TreeMap<>();
      components.forEach((c, declared) -> {
        String g = groupOf(c);
        if (g != null) {
          out.computeIfAbsent(g, x -> new TreeMap<>()).put(c, declared);
        }
      });
      return out;
    }

    /**
     * How many component records a converged store holds: one per component and memoized group,
     * the root's (it declares its row), and the owner of {@code t}: the component {@code
     * mountTarget} mounts for it while it has children, while a leaf the component {@code t}, or
     * the root (none while {@code t} is not declared).
     */
    int componentRecords() {
      return components.size() + (memoizedGroups ? groups().size() : 0) + 1
          + (tDeclared && (table || !leafByRoot) ? 1 : 0);
    }

    /**
     * A pure function of (seed, generation): about 600 keys over 30-40 components; from one
     * generation to the next about 10% of the keys disappear or come back, a third of the values
     * change, and a key moves to another component every fourth generation or so (an ownership
     * transfer), and components come and go.
     */
    static PgWorld of(long seed, int generation, int keys) {
      int componentCount = 30 + Math.floorMod(mix(seed, generation, -1), 11);
      Map<String, Map<String, String>> components = new TreeMap<>();
      Map<String, Boolean> memoized = new TreeMap<>();
      // The container has children in about two generations of three.
      boolean table = Math.floorMod(mix(seed, generation, -2), 3) != 0;
      // Without children, it is not declared at all in about half those generations.
      boolean tDeclared = table || !Boolean.parseBoolean(System.getProperty(ABSENT, "true"))
          || Math.floorMod(mix(seed, generation, -4), 2) != 0;
      for (int i = 0; i < keys; i++) {
        long h = mix(seed, generation, i);
        if (Math.floorMod(h, 10) == 0) {
          continue; // absent in this generation
        }
        boolean inTable = i % 5 == 0;
        if (inTable && !table) {
          continue; // the container is a leaf: a component declaring only these is not mounted
        }
        // The owner changes with the generation's quarter and the key: keys move.
        int owner = Math.floorMod(mix(seed, (generation + i % 4) / 4, i + 1_000_000),
            componentCount);
        String value = "v" + Math.floorMod(mix(seed, generation / 2 + i % 2, i + 2_000_000), 3)
            + "-" + i;
        String c = "c" + owner;
        components.computeIfAbsent(c, x -> new TreeMap<>())
            .put((inTable ? TABLE_ROW : "") + "k" + i, value);
      }
      boolean memo = Boolean.parseBoolean(System.getProperty(MEMO, "true"));
      for (String c : components.keySet()) {
        memoized.put(c, memo && Math.floorMod(c.hashCode() + seed, 2) == 0);
      }
      Map<String, String> rootRows = Map.of("root" + Math.floorMod(generation, 2),
          "v" + Math.floorMod(mix(seed, generation, -3), 3));
      return new PgWorld(components, memoized, memo, table, tDeclared,
          Math.floorMod(seed, 2) == 1, rootRows);
    }

    static long mix(long seed, long a, long b) {
      return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + a * 0xC2B2AE3D27D4EB4FL + b)
          .nextLong();
    }
  }

  /** The rows' handler: tracking record = the row's value. */
  static final class RowHandler implements TargetHandler<String, String, Put> {
    final ActionApplier<Put> apply;
    final TargetActionSink<Put> sink;

    RowHandler(ActionApplier<Put> apply) {
      this.apply = apply;
      this.sink = TargetActionSink.of(apply);
    }

    @Override
    public TargetReconcileOutput<Put, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      String k = ((StableKey.Str) key).value();
      if (desired == null) {
        return prev.isEmpty() && !mbm ? null
            : TargetReconcileOutput.of(TargetAction.delete(new Put(k, null, prev, mbm)), sink,
                null);
      }
      if (!mbm && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      Put put = new Put(k, desired, prev, mbm);
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(put) : TargetAction.update(put), sink, desired);
    }
  }

  /**
   * The container {@code t}: "table" with children (an action every run, rule 6), "leaf"
   * without, whose action, where it was a table or may have been, deletes the rows.
   */
  static final class TableHandler implements TargetHandler<String, String, Put> {
    final TargetActionSink<Put> sink;

    TableHandler(RowHandler rows) {
      this.sink = TargetActionSink.withChildHandler(rows.apply, a -> ChildTargetDef.of(rows));
    }

    @Override
    public TargetReconcileOutput<Put, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      String k = ((StableKey.Str) key).value();
      if (desired == null) { // a dropped table takes its rows along
        return prev.isEmpty() && !mbm ? null
            : TargetReconcileOutput.of(TargetAction.delete(new Put(k, null, prev, mbm, true)),
                sink, null);
      }
      boolean leaf = desired.equals("leaf");
      if (leaf && !mbm && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      Put put = new Put(k, desired, prev, mbm, leaf);
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(put) : TargetAction.update(put), sink, desired);
    }
  }

  /** Whether {@code e} is, or was caused by, two workers' disagreement about a container. */
  static boolean disagreedAboutAContainer(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ContainerChangedException) {
        return true;
      }
    }
    return false;
  }

  static Consumer<Ctx> main(PgWorld world, RowHandler handler) {
    return ctx -> {
      TargetStateProvider<String> rows = registerRootTargetStatesProvider(ctx, "rows", handler);
      TargetStateProvider<String> tables =
          registerRootTargetStatesProvider(ctx, "tables", new TableHandler(handler));
      world.rootRows().forEach((k, v) -> declareTargetState(ctx, rows.targetState(k, v)));
      TargetStateProvider<String> table;
      if (world.table()) {
        table = mountTarget(ctx, tables.targetState(TABLE, "table"));
      } else if (!world.tDeclared()) {
        table = null; // the orphan sweep deletes it, and its rows with it
      } else if (world.leafByRoot()) {
        // Reconciled by every worker of a round, one at a time under the root's lease (both
        // workers had created it after a drop: JOURNAL, fifty-fourth and fifty-fifth sessions).
        declareTargetState(ctx, tables.targetState(TABLE, "leaf"));
        table = null;
      } else {
        // In a component of its own, as the table's mount is.
        try {
          ctx.useMount("t", c -> {
            declareTargetState(c, tables.targetState(TABLE, "leaf"));
            return null;
          });
        } catch (RuntimeException e) {
          // The run reports t's failure (a change held back while another worker writes its
          // rows, say); the root goes on with the components, as an app skipping a table would.
        }
        table = null;
      }
      world.components().forEach((name, declared) -> {
        if (PgWorld.groupOf(name) == null) {
          mountComponent(ctx, world, rows, table, name, declared);
        }
      });
      // A group's memo input is everything its subtree declares; its memo stands for its
      // members' commits, which a worker killed before the group's commit leaves behind it.
      world.groups().forEach((group, members) -> {
        Consumer<Ctx> body = g -> members.forEach(
            (name, declared) -> mountComponent(g, world, rows, table, name, declared));
        if (world.memoizedGroups()) {
          ctx.mountMemo(group, new TreeMap<>(members), body);
        } else {
          ctx.mount(group, body);
        }
      });
    };
  }

  private static void mountComponent(Ctx parent, PgWorld world, TargetStateProvider<String> rows,
      TargetStateProvider<String> table, String name, Map<String, String> declared) {
    Consumer<Ctx> body = c -> declared.forEach((k, v) -> declareTargetState(c,
        (k.startsWith(TABLE_ROW) ? table : rows).targetState(k, v)));
    if (world.memoized().get(name)) {
      parent.mountMemo(name, new TreeMap<>(declared), body);
    } else {
      parent.mount(name, body);
    }
  }

  public static void main(String[] args) throws Exception {
    String worker = args[1];
    // Its sessions carry its name: a hung round's report tells whose sessions hold what.
    String url = args[0] + (args[0].contains("?") ? "&" : "?") + "ApplicationName=" + worker;
    int round = Integer.parseInt(args[2]);
    long seed = Long.parseLong(args[3]);
    int generation = Integer.parseInt(args[4]);
    String mode = args[5];
    long delay = Long.parseLong(args[6]);
    int keys = args.length > 7 ? Integer.parseInt(args[7]) : 600;
    PgWorld world = PgWorld.of(seed, generation, keys);
    int code = 0;
    try (Connection sinkDb = DriverManager.getConnection(url);
        PostgresStateStore store = PostgresStateStore.open(url)) {
      try (App app = App.create(APP, Environment.builder().stateStore(store).build(),
          main(world, new RowHandler(actions -> apply(sinkDb, worker, round, actions, delay))))) {
        System.out.println("START");
        System.out.flush();
        try {
          if (mode.equals("drop")) {
            app.dropState();
          } else {
            app.update();
          }
        } catch (UpdateFailedException e) {
          // Two views of the source disagreeing about t: the engine refuses the writes that
          // would lose track of a row, failing their components (REFUSED, exit 4).
          boolean refused = e.failures().stream()
              .allMatch(f -> disagreedAboutAContainer(f.error()));
          System.out.println((refused ? "REFUSED " : "FAILED ")
              + e.getMessage().replace('\n', ' '));
          code = refused ? 4 : 3;
        }
      }
    }
    System.out.println("DONE");
    System.out.flush();
    System.exit(code);
  }

  /** Applies each action in a transaction of its own, checking the row against the handler's view. */
  static void apply(Connection c, String worker, int round, List<TargetAction<Put>> actions,
      long delay) throws SQLException, InterruptedException {
    synchronized (c) {
      if (delay > 0) {
        Thread.sleep(delay);
      }
      c.setAutoCommit(false);
      try (PreparedStatement read = c.prepareStatement(
              "SELECT value FROM target_rows WHERE key = ? FOR UPDATE");
          PreparedStatement lockKey = c.prepareStatement(
              "SELECT pg_advisory_xact_lock(hashtext(?))");
          PreparedStatement up = c.prepareStatement("INSERT INTO target_rows(key, value)"
              + " VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
          PreparedStatement del = c.prepareStatement("DELETE FROM target_rows WHERE key = ?");
          PreparedStatement clear = c.prepareStatement(
              "DELETE FROM target_rows WHERE key LIKE '" + TABLE_ROW + "%'");
          PreparedStatement violation = c.prepareStatement("INSERT INTO violations(round, worker,"
              + " key, verb, value, expected, may_be_missing, actual) VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
          PreparedStatement log = c.prepareStatement("INSERT INTO sink_log(round, worker, key,"
              + " verb, value, expected, may_be_missing) VALUES(?, ?, ?, ?, ?, ?, ?)")) {
        for (TargetAction<Put> a : actions) {
          Put p = a.value();
          try {
            // A row that does not exist has no row lock: serialize on the key too.
            lockKey.setString(1, p.key());
            lockKey.execute();
            read.setString(1, p.key());
            String actual;
            try (ResultSet rs = read.executeQuery()) {
              actual = rs.next() ? rs.getString(1) : null;
            }
            boolean ok = actual == null ? p.mayBeMissing() : p.expected().contains(actual);
            if (!ok) {
              violation.setInt(1, round);
              violation.setString(2, worker);
              violation.setString(3, p.key());
              violation.setString(4, a.verb());
              violation.setString(5, p.value());
              violation.setString(6, String.join(",", p.expected()));
              violation.setBoolean(7, p.mayBeMissing());
              violation.setString(8, actual);
              violation.executeUpdate();
            }
            if (p.clear()) {
              clear.executeUpdate();
            }
            if (p.value() == null) {
              del.setString(1, p.key());
              del.executeUpdate();
            } else {
              up.setString(1, p.key());
              up.setString(2, p.value());
              up.executeUpdate();
            }
            if (p.refresh()) {
              c.commit();
              continue;
            }
            log.setInt(1, round);
            log.setString(2, worker);
            log.setString(3, p.key());
            log.setString(4, a.verb());
            log.setString(5, p.value());
            log.setString(6, String.join(",", p.expected()));
            log.setBoolean(7, p.mayBeMissing());
            log.executeUpdate();
            c.commit();
          } catch (SQLException e) {
            c.rollback();
            throw e;
          }
        }
      } finally {
        c.setAutoCommit(true);
      }
    }
  }

  static List<String> args(String url, String worker, int round, long seed, int generation,
      String mode, long delay, int keys) {
    List<String> out = new ArrayList<>();
    out.add(url);
    out.add(worker);
    out.add(Integer.toString(round));
    out.add(Long.toString(seed));
    out.add(Integer.toString(generation));
    out.add(mode);
    out.add(Long.toString(delay));
    out.add(Integer.toString(keys));
    return out;
  }
}
