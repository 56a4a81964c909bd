package io.cocoindex.samples.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

/**
 * What holds a name in a database's schema. Tables, views and indexes share one namespace in
 * SQLite, case-insensitively, so a name taken by one kind cannot be created as another: checked
 * here before anything is created or dropped under it, for an error that names both.
 */
final class SchemaObjects {
  private SchemaObjects() {}

  private static final String FIND_SQL = "SELECT type, name, tbl_name, sql FROM sqlite_master"
      + " WHERE type IN ('table', 'view', 'index') AND name = ? COLLATE NOCASE";

  /** The object named {@code name}, or null when the name is free. */
  static SchemaObject find(SqliteDatabase db, Connection c, String name) throws SQLException {
    try (PreparedStatement ps = db.prepare(c, FIND_SQL)) {
      return find(ps, name);
    }
  }

  /**
   * As {@link #find(SqliteDatabase, Connection, String)}, for a look that is not one of the
   * connector's statements ({@link SqliteDatabase#statementsExecuted} does not count it): the
   * check a run makes of the tables it would otherwise trust its tracking about.
   */
  static SchemaObject lookUp(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FIND_SQL)) {
      return find(ps, name);
    }
  }

  private static SchemaObject find(PreparedStatement ps, String name) throws SQLException {
    ps.setString(1, name);
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? new SchemaObject(
          rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)) : null;
    }
  }

  /**
   * A schema object as sqlite_master lists it.
   *
   * @param type {@code table}, {@code view} or {@code index}
   * @param name its name, as created
   * @param table the table an index is on; for a table or view, its own name
   * @param sql the SQL that created it (null for an index SQLite made itself)
   */
  record SchemaObject(String type, String name, String table, String sql) {
    /** Whether it is a virtual table (an FTS5 index is one). */
    boolean isVirtualTable() {
      return type.equals("table") && sql != null
          && sql.regionMatches(true, 0, "CREATE VIRTUAL TABLE", 0, 20);
    }

    /** Whether it is a plain table. */
    boolean isTable() {
      return type.equals("table") && !isVirtualTable();
    }

    /**
     * Whether it is an index of {@code table} that a {@code CREATE INDEX} made (not one SQLite
     * made for a constraint). Names compare case-insensitively, as in SQLite.
     */
    boolean isIndexOf(String table) {
      return type.equals("index") && sql != null && this.table.equalsIgnoreCase(table);
    }

    /**
     * "table docs", "view docs_v", "index docs_by_title of table docs", "virtual table docs_fts".
     */
    String describe() {
      return (isVirtualTable() ? "virtual table" : type.toLowerCase(Locale.ROOT)) + " " + name
          + (type.equals("index") ? " of table " + table : "");
    }
  }
}
