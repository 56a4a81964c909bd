package io.cocoindex.bench;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.samples.sqlite.Sqlite;
import io.cocoindex.samples.sqlite.SqliteDatabase;
import io.cocoindex.samples.sqlite.SqliteTable;
import io.cocoindex.samples.sqlite.TableSchema;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Whole runs timed end to end (open, run, close): the SQLite connector through the engine
 * against raw JDBC and a naive hand-written sync, on the same rows and the same SQLite settings
 * (WAL, the driver's default synchronous on the target for both sides; the state store at
 * synchronous=NORMAL).
 */
final class EngineBench {
  static final ContextKey<SqliteDatabase> DB = ContextKey.of("bench_db", SqliteDatabase.class);
  static final SqliteStateStore.Durability STORE_DURABILITY = SqliteStateStore.Durability.NORMAL;

  private EngineBench() {}

  /** One timed run and what it did. */
  record Timed(long nanos, long changed) {}

  /** A framework setup: a state directory and its target database. */
  record Site(Path state, Path db) {
    static Site in(Path dir, String name) {
      return new Site(dir.resolve(name + "-state"), dir.resolve(name + ".sqlite"));
    }
  }

  // ---- cocoindex ----

  /** How the app mounts each component of the dataset. */
  enum Mounting {
    /** Every component runs on every update. */
    EVERY_RUN,
    /**
     * Memoized on the component's rows: each update reads every row from the source and
     * fingerprints them, and a component runs when they changed.
     */
    MEMO_ON_ROWS,
    /**
     * Memoized on the source's revision of the component's part (as CocoIndex memoizes a file
     * on its path and modification time): an update reads a part's rows only when it runs.
     */
    MEMO_ON_REVISION
  }

  static Consumer<Ctx> main(Dataset data, boolean memo) {
    return main(data, memo ? Mounting.MEMO_ON_ROWS : Mounting.EVERY_RUN);
  }

  static Consumer<Ctx> main(Dataset data, Mounting mounting) {
    return ctx -> {
      SqliteTable<BenchRow> table = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.of("t", BenchRow.class, "id"));
      for (int c = 0; c < data.live(); c++) {
        int component = c;
        Consumer<Ctx> readAndDeclare =
            cc -> data.rows(component).forEach(r -> table.declareRow(cc, r));
        switch (mounting) {
          case EVERY_RUN -> ctx.mount(component, readAndDeclare);
          case MEMO_ON_ROWS -> {
            List<BenchRow> rows = data.rows(component);
            ctx.mountMemo(component, rows, cc -> rows.forEach(r -> table.declareRow(cc, r)));
          }
          case MEMO_ON_REVISION -> ctx.mountMemo(component, data.part(component), readAndDeclare);
        }
      }
    };
  }

  /** Opens the app on {@code site}, updates once, closes; the time covers all three. */
  static Timed update(Site site, Dataset data, boolean memo) {
    return update(site, data, memo ? Mounting.MEMO_ON_ROWS : Mounting.EVERY_RUN);
  }

  static Timed update(Site site, Dataset data, Mounting mounting) {
    try {
      java.nio.file.Files.createDirectories(site.db().toAbsolutePath().getParent());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    long start = System.nanoTime();
    UpdateStats stats;
    try (SqliteDatabase db = SqliteDatabase.open(site.db());
        App app = App.create("bench", Environment.builder()
            .dbPath(site.state())
            .durability(STORE_DURABILITY)
            .provide(DB, db)
            .build(), main(data, mounting))) {
      stats = app.update();
    } catch (SQLException e) {
      throw new IllegalStateException("closing " + site.db() + " failed", e);
    }
    long nanos = System.nanoTime() - start;
    return new Timed(nanos, stats.total().changed());
  }

  // ---- raw JDBC ----

  static Connection open(Path file) throws SQLException {
    try {
      java.nio.file.Files.createDirectories(file.toAbsolutePath().getParent());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    // The same connection settings as the connector's SqliteDatabase.
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA busy_timeout=10000");
    }
    return c;
  }

  /** Writes every row with prepared-statement batches, one transaction per 1,000 rows. */
  static Timed rawCold(Path file, Dataset data) {
    long start = System.nanoTime();
    long written = 0;
    try (Connection c = open(file)) {
      try (Statement s = c.createStatement()) {
        s.execute(BenchRow.DDL);
      }
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(BenchRow.INSERT)) {
        int inTx = 0;
        for (int comp = 0; comp < data.live(); comp++) {
          for (BenchRow r : data.rows(comp)) {
            bind(ps, r);
            ps.addBatch();
            written++;
            if (++inTx == 1_000) {
              ps.executeBatch();
              c.commit();
              inTx = 0;
            }
          }
        }
        if (inTx > 0) {
          ps.executeBatch();
          c.commit();
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("raw JDBC write failed", e);
    }
    return new Timed(System.nanoTime() - start, written);
  }

  /**
   * What a user would write by hand: read the whole table, diff it against the desired rows in
   * memory, upsert what differs and delete what is no longer desired, in one transaction.
   */
  static Timed naiveSync(Path file, Dataset data) {
    long start = System.nanoTime();
    long changed = 0;
    try (Connection c = open(file)) {
      try (Statement s = c.createStatement()) {
        s.execute(BenchRow.DDL);
      }
      Map<Long, BenchRow> existing = new HashMap<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT \"id\", \"name\", \"amount\", \"body\" FROM \"t\"")) {
        while (rs.next()) {
          BenchRow r = new BenchRow(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4));
          existing.put(r.id(), r);
        }
      }
      List<BenchRow> upserts = new ArrayList<>();
      for (int comp = 0; comp < data.live(); comp++) {
        for (BenchRow r : data.rows(comp)) {
          BenchRow old = existing.remove(r.id());
          if (!r.equals(old)) {
            upserts.add(r);
          }
        }
      }
      if (!upserts.isEmpty() || !existing.isEmpty()) {
        c.setAutoCommit(false);
        try (PreparedStatement up = c.prepareStatement(BenchRow.UPSERT);
            PreparedStatement del = c.prepareStatement("DELETE FROM \"t\" WHERE \"id\" = ?")) {
          for (BenchRow r : upserts) {
            bind(up, r);
            up.addBatch();
          }
          up.executeBatch();
          for (Long id : existing.keySet()) {
            del.setLong(1, id);
            del.addBatch();
          }
          del.executeBatch();
        }
        c.commit();
      }
      changed = upserts.size() + existing.size();
    } catch (SQLException e) {
      throw new IllegalStateException("naive sync failed", e);
    }
    return new Timed(System.nanoTime() - start, changed);
  }

  private static void bind(PreparedStatement ps, BenchRow r) throws SQLException {
    ps.setLong(1, r.id());
    ps.setString(2, r.name());
    ps.setLong(3, r.amount());
    ps.setString(4, r.body());
  }

  /** Rows in {@code file}'s table, to check both sides wrote the same. */
  static long count(Path file) {
    try (Connection c = open(file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM \"t\"")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot count the rows of " + file, e);
    }
  }

  /** A fingerprint of a table's content, to check two tables hold the same rows. */
  static String content(Path file) {
    try (Connection c = open(file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(
            "SELECT count(*), total(\"amount\"), total(length(\"body\")), max(\"name\") FROM \"t\"")) {
      rs.next();
      return rs.getLong(1) + "/" + rs.getDouble(2) + "/" + rs.getDouble(3) + "/" + rs.getString(4);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  /** The target connection's synchronous setting (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA). */
  static String synchronous(Path file) {
    try (Connection c = open(file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA synchronous")) {
      rs.next();
      String[] names = {"OFF", "NORMAL", "FULL", "EXTRA"};
      int v = rs.getInt(1);
      return v >= 0 && v < names.length ? names[v] : String.valueOf(v);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }
}
