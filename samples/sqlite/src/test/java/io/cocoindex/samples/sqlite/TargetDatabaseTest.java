package io.cocoindex.samples.sqlite;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apps on a fresh state store and two fresh target databases per test ({@link #DB} and {@link
 * #OTHER}), whose external state is read with plain JDBC connections of their own, never
 * through the connector.
 */
abstract class TargetDatabaseTest {
  static final ContextKey<SqliteDatabase> DB = ContextKey.of("main_db", SqliteDatabase.class);
  static final ContextKey<SqliteDatabase> OTHER = ContextKey.of("other_db", SqliteDatabase.class);

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();
  private SqliteDatabase db;
  private SqliteDatabase other;

  Path dbFile() {
    return dir.resolve("main.sqlite");
  }

  Path otherFile() {
    return dir.resolve("other.sqlite");
  }

  SqliteDatabase db() {
    if (db == null) {
      db = SqliteDatabase.open(dbFile());
      open.add(db);
    }
    return db;
  }

  SqliteDatabase other() {
    if (other == null) {
      other = SqliteDatabase.open(otherFile());
      open.add(other);
    }
    return other;
  }

  /** An environment on this test's state store providing {@link #DB} and {@link #OTHER}. */
  Environment.Builder environment() {
    return Environment.builder().dbPath(dir.resolve("state"))
        .provide(DB, db()).provide(OTHER, other());
  }

  App app(Consumer<Ctx> main) {
    return app(environment().build(), main);
  }

  App app(Environment env, Consumer<Ctx> main) {
    return app("test", env, main);
  }

  /** App {@code name} on {@code env}, closed after the test. */
  App app(String name, Environment env, Consumer<Ctx> main) {
    App app = App.create(name, env, main);
    open.add(0, app); // closed before the databases
    return app;
  }

  /** The rows {@code sql} returns from {@link #DB}, one {@code |}-separated line each. */
  List<String> q(String sql) throws SQLException {
    return q(dbFile(), sql);
  }

  static List<String> q(Path file, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          row.append(i == 1 ? "" : "|").append(rs.getString(i));
        }
        out.add(row.toString());
      }
      return out;
    }
  }

  /** Runs {@code sql} on {@link #DB} outside the connector. */
  void exec(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dbFile().toAbsolutePath());
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** Every schema object of {@code file} but SQLite's own, as "type name", sorted. */
  static List<String> schema(Path file) throws SQLException {
    return q(file, "SELECT type || ' ' || name FROM sqlite_master"
        + " WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name");
  }

  List<String> schema() throws SQLException {
    return schema(dbFile());
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }
}
