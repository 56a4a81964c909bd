package io.cocoindex.samples.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL commands set up in a database, with their teardowns, in the table {@value #TABLE} of
 * that database, written in the transaction that runs the setup or teardown.
 *
 * <p>Why in the database: a table's Delete is all that runs when the table goes (its attachments
 * are not reconciled one by one, DESIGN rule 8), and when its primary key changes its commands'
 * tracking is reset; the table's own tracking record cannot hold them (they are declared after
 * it), and the engine keeps none for it to read. What the database holds is exact: a command is
 * recorded here if and only if its setup is in effect. The table exists only while it has rows.
 */
final class SqlCommandRecords {
  static final String TABLE = SqlIdentifiers.RESERVED_PREFIX + "sql_commands";
  private static final String QUOTED = SqlIdentifiers.quote("table", TABLE);

  private SqlCommandRecords() {}

  /** The teardown of command {@code name} of {@code table} if its setup is in effect, or null. */
  static String teardownOf(SqliteDatabase db, Connection c, String table, String name)
      throws SQLException {
    if (!exists(db, c)) {
      return null;
    }
    try (PreparedStatement ps = db.prepare(c,
        "SELECT teardown FROM " + QUOTED + " WHERE table_name = ? AND name = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** Records that command {@code name} of {@code table} is set up, undone by {@code teardown}. */
  static void recordSetUp(SqliteDatabase db, Connection c, String table, String name,
      String teardown) throws SQLException {
    db.execute(c, "CREATE TABLE IF NOT EXISTS " + QUOTED + " (table_name TEXT NOT NULL,"
        + " name TEXT NOT NULL, teardown TEXT NOT NULL, PRIMARY KEY (table_name, name))");
    try (PreparedStatement ps = db.prepare(c, "INSERT INTO " + QUOTED
        + " (table_name, name, teardown) VALUES (?, ?, ?) ON CONFLICT (table_name, name)"
        + " DO UPDATE SET teardown = excluded.teardown")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      ps.setString(3, teardown);
      ps.executeUpdate();
    }
  }

  /** Records that command {@code name} of {@code table} is torn down. */
  static void recordTornDown(SqliteDatabase db, Connection c, String table, String name)
      throws SQLException {
    if (!exists(db, c)) {
      return;
    }
    try (PreparedStatement ps = db.prepare(c,
        "DELETE FROM " + QUOTED + " WHERE table_name = ? AND name = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      ps.executeUpdate();
    }
    dropIfEmpty(db, c);
  }

  /**
   * Runs the teardowns of every command of {@code table} set up, the last set up first, and
   * records them torn down: before the table is dropped.
   */
  static void tearDownAll(SqliteDatabase db, Connection c, String table) throws SQLException {
    if (!exists(db, c)) {
      return;
    }
    List<String> teardowns = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c,
        "SELECT teardown FROM " + QUOTED + " WHERE table_name = ? ORDER BY rowid DESC")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          teardowns.add(rs.getString(1));
        }
      }
    }
    if (teardowns.isEmpty()) {
      return;
    }
    for (String teardown : teardowns) {
      db.execute(c, teardown);
    }
    try (PreparedStatement ps = db.prepare(c,
        "DELETE FROM " + QUOTED + " WHERE table_name = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.executeUpdate();
    }
    dropIfEmpty(db, c);
  }

  private static boolean exists(SqliteDatabase db, Connection c) throws SQLException {
    try (PreparedStatement ps = db.prepare(c,
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")) {
      ps.setString(1, TABLE);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static void dropIfEmpty(SqliteDatabase db, Connection c) throws SQLException {
    try (PreparedStatement ps = db.prepare(c, "SELECT 1 FROM " + QUOTED + " LIMIT 1");
        ResultSet rs = ps.executeQuery()) {
      if (rs.next()) {
        return;
      }
    }
    db.execute(c, "DROP TABLE " + QUOTED);
  }
}
