package io.cocoindex.bench;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.samples.sqlite.SqliteDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Removing states against creating them: each round creates {@code components} components of
 * {@code rows} rows (a cold run), then removes every row, and prints both per state. How the
 * rows go is {@code --how}: {@code components} (the default: a run that mounts none, so the
 * end-of-run sweep deletes every row with its component), {@code rows} (a run that mounts every
 * component, each declaring no row: the rows are candidates of committed components) or {@code
 * drop} ({@code dropState}). On the embedded state store by default; with a PostgreSQL URL, on
 * the shared store, each round in a schema of its own.
 *
 * <pre>java -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.Removal 2000 10 4 [url]
 *     [--how components|rows|drop]</pre>
 */
public final class Removal {
  private Removal() {}

  /** How a round's second run removes the rows. */
  private enum How { COMPONENTS, ROWS, DROP }

  public static void main(String[] args) throws Exception {
    List<String> positional = new ArrayList<>(List.of(args));
    How how = How.COMPONENTS;
    int flag = positional.indexOf("--how");
    if (flag >= 0 && flag + 1 < positional.size()) {
      how = How.valueOf(positional.get(flag + 1).toUpperCase(Locale.ROOT));
      positional.subList(flag, flag + 2).clear();
    }
    if (positional.size() < 3 || positional.contains("--how")) {
      System.err.println("usage: Removal <components> <rows per component> <rounds>"
          + " [postgresql url] [--how components|rows|drop]");
      System.exit(2);
    }
    int components = Integer.parseInt(positional.get(0));
    int perComponent = Integer.parseInt(positional.get(1));
    int rounds = Integer.parseInt(positional.get(2));
    String postgres = positional.size() > 3 ? positional.get(3) : null;
    for (int round = 0; round < rounds; round++) {
      Dataset data = new Dataset(components * perComponent, perComponent);
      Path dir = Files.createTempDirectory("cocoindex-removal");
      String schema = postgres == null ? null
          : "removal_" + ProcessHandle.current().pid() + "_" + round;
      if (schema != null) {
        Sql.execute(postgres, "CREATE SCHEMA " + schema);
      }
      try (StateStore store = schema == null ? null
          : PostgresStateStore.open(postgres + (postgres.contains("?") ? "&" : "?")
              + "currentSchema=" + schema)) {
        EngineBench.Site site = EngineBench.Site.in(dir, "removal");
        long start = System.nanoTime();
        long created = update(site, data, store, false);
        long cold = System.nanoTime() - start;
        if (how == How.ROWS) {
          data.emptyAll();
        } else {
          data.removeAll();
        }
        start = System.nanoTime();
        long removed = update(site, data, store, how == How.DROP);
        long removal = System.nanoTime() - start;
        System.out.printf(Locale.ROOT, "round %d: create %,d states %.0f ms (%.1f us/state),"
                + " remove %,d states %.0f ms (%.1f us/state): %.2fx creating%n", round,
            created, cold / 1e6, cold / 1e3 / created, removed, removal / 1e6,
            removal / 1e3 / removed, (removal / (double) removed) / (cold / (double) created));
      } finally {
        EngineWorkloads.deleteTree(dir);
        if (schema != null) {
          Sql.execute(postgres, "DROP SCHEMA " + schema + " CASCADE");
        }
      }
    }
  }

  /**
   * One update (open, run, close) on the embedded store at {@code site}, or on {@code store}; or,
   * {@code drop}, a {@code dropState}. Returns the states it changed.
   */
  private static long update(EngineBench.Site site, Dataset data, StateStore store, boolean drop)
      throws SQLException, IOException {
    Files.createDirectories(site.db().toAbsolutePath().getParent());
    Environment.Builder env = Environment.builder();
    if (store == null) {
      env.dbPath(site.state()).durability(EngineBench.STORE_DURABILITY);
    } else {
      env.stateStore(store);
    }
    try (SqliteDatabase db = SqliteDatabase.open(site.db());
        App app = App.create("bench", env.provide(EngineBench.DB, db).build(),
            EngineBench.main(data, false))) {
      return (drop ? app.dropState() : app.update()).total().changed();
    }
  }
}
