package io.cocoindex.runtime.workers;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * One worker process of the multi-worker tests: runs the app once against the shared PostgreSQL
 * store, writing rows to the table {@code sink_rows} and every applied action to {@code
 * sink_log} (so the test counts how often each was applied).
 *
 * <p>Arguments: jdbcUrl workerName components version [sinkDelayMillis] [layout]
 * [rowsPerRequest]. Layout {@code spread} (default) declares key k{i} in component c{i}; {@code
 * transfer} declares key x in c2 only (after a first run in which c1 declared it).
 *
 * <p>The sink stands for a remote API reached over one connection, one request at a time, each
 * request waiting {@code sinkDelayMillis}. With {@code rowsPerRequest} 0 (the default) a request
 * carries the whole batch the engine hands over, however large; with n &gt; 0 it carries at most n
 * rows, as an API without a bulk endpoint (n = 1) or with a capped one does, so the batch costs
 * one wait per n rows.
 *
 * <p>With {@code -Dcocoindex.worker.barrier=true} it prints {@code ready} once the store is open
 * and waits for a line on stdin before running the update; with {@code
 * -Dcocoindex.worker.bodyMillis=n} each component's body takes n ms (layout {@code spread}).
 */
public final class Worker {
  /** System property: print {@link #READY} once up, then wait for a line on stdin to start. */
  static final String BARRIER = "cocoindex.worker.barrier";

  static final String READY = "ready";

  /** System property: how long each component's body takes (a slow call), in milliseconds. */
  static final String BODY_MILLIS = "cocoindex.worker.bodyMillis";

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A row write; value null deletes. */
  public record Put(String key, String value) {}

  static final class RowHandler implements TargetHandler<String, String, Put> {
    final TargetActionSink<Put> sink;

    RowHandler(TargetActionSink<Put> sink) {
      this.sink = sink;
    }

    @Override
    public TargetReconcileOutput<Put, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      String k = ((StableKey.Str) key).value();
      if (desired == null) {
        return prev.isEmpty() && !mbm ? null
            : TargetReconcileOutput.of(TargetAction.delete(new Put(k, null)), sink, null);
      }
      if (!mbm && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(new Put(k, desired))
              : TargetAction.update(new Put(k, desired)), sink, desired);
    }
  }

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String worker = args[1];
    int components = Integer.parseInt(args[2]);
    String version = args[3];
    long delay = args.length > 4 ? Long.parseLong(args[4]) : 0;
    String layout = args.length > 5 ? args[5] : "spread";
    int rowsPerRequest = args.length > 6 ? Integer.parseInt(args[6]) : 0;
    try (Connection sinkDb = DriverManager.getConnection(url);
        PostgresStateStore store = PostgresStateStore.open(url)) {
      TargetActionSink<Put> sink = TargetActionSink.of(actions -> apply(sinkDb, worker, actions,
          delay, rowsPerRequest));
      RowHandler handler = new RowHandler(sink);
      try (App app = App.create("workers", Environment.builder().stateStore(store).build(),
          ctx -> {
            TargetStateProvider<String> rows = registerRootTargetStatesProvider(ctx, "rows",
                handler);
            if (layout.equals("transfer")) {
              ctx.mount("c1", c -> {});
              ctx.mount("c2", c -> declareTargetState(c, rows.targetState("x", version)));
            } else if (layout.equals("transfer-before")) {
              ctx.mount("c1", c -> declareTargetState(c, rows.targetState("x", version)));
            } else {
              long bodyMillis = Long.getLong(BODY_MILLIS, 0);
              for (int i = 0; i < components; i++) {
                String key = "k" + i;
                ctx.mount("c" + i, c -> {
                  if (bodyMillis > 0) {
                    sleep(bodyMillis); // a slow body: a model call, say
                  }
                  declareTargetState(c, rows.targetState(key, version));
                });
              }
            }
          })) {
        if (Boolean.getBoolean(BARRIER)) {
          // Up (JVM started, store open): wait for the benchmark's go, so that timing excludes
          // JVM start-up for every worker alike.
          System.out.println(READY);
          System.out.flush();
          new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
        }
        app.update();
      }
    }
    System.out.println("done " + worker);
  }

  private static void apply(Connection c, String worker, List<TargetAction<Put>> actions,
      long delay, int rowsPerRequest) throws SQLException, InterruptedException {
    synchronized (c) {
      if (delay > 0) {
        int requests = rowsPerRequest <= 0 ? 1
            : (actions.size() + rowsPerRequest - 1) / rowsPerRequest;
        Thread.sleep(delay * requests);
      }
      c.setAutoCommit(false);
      try (PreparedStatement up = c.prepareStatement("INSERT INTO sink_rows(key, value)"
              + " VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
          PreparedStatement del = c.prepareStatement("DELETE FROM sink_rows WHERE key = ?");
          PreparedStatement log = c.prepareStatement(
              "INSERT INTO sink_log(key, value, verb, worker) VALUES(?, ?, ?, ?)")) {
        for (TargetAction<Put> a : actions) {
          Put p = a.value();
          if (p.value() == null) {
            del.setString(1, p.key());
            del.addBatch();
          } else {
            up.setString(1, p.key());
            up.setString(2, p.value());
            up.addBatch();
          }
          log.setString(1, p.key());
          log.setString(2, p.value());
          log.setString(3, a.verb());
          log.setString(4, worker);
          log.addBatch();
        }
        // A batch holds each key once, so deletes and upserts need no relative order; JDBC
        // batches keep this bookkeeping to a few round trips, next to the modelled wait.
        del.executeBatch();
        up.executeBatch();
        log.executeBatch();
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }
}
