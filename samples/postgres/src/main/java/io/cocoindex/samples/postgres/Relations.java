package io.cocoindex.samples.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What holds a relation name in a schema. Tables, indexes, views and sequences share one
 * namespace per schema, so a name the connector is about to create may be taken by a relation of
 * another kind, which {@code IF NOT EXISTS} would silently keep.
 */
final class Relations {
  private Relations() {}

  /**
   * A relation found under a name.
   *
   * @param schema its schema
   * @param name its name
   * @param kind its {@code pg_class.relkind}
   * @param indexedTable for an index, its table's name
   * @param constraint for an index backing a constraint (primary key, unique, exclusion), its name
   */
  record Relation(String schema, String name, String kind, String indexedTable,
      String constraint) {
    boolean isTable() {
      return kind.equals("r") || kind.equals("p");
    }

    boolean isIndex() {
      return kind.equals("i") || kind.equals("I");
    }

    /** The relation in words, for an error: "an index of table s.t", "the view s.v", ... */
    String describe() {
      if (isIndex()) {
        return constraint != null
            ? "the index of constraint " + constraint + " of table " + schema + "." + indexedTable
            : "an index of table " + schema + "." + indexedTable;
      }
      return switch (kind) {
        case "r", "p" -> "the table " + schema + "." + name;
        case "v" -> "the view " + schema + "." + name;
        case "m" -> "the materialized view " + schema + "." + name;
        case "S" -> "the sequence " + schema + "." + name;
        default -> "a relation of kind '" + kind + "' named " + schema + "." + name;
      };
    }
  }

  /** Whether a plain or partitioned table named {@code name} is in {@code schema}. */
  static final String TABLE_THERE_SQL = "SELECT EXISTS (SELECT 1 FROM pg_class c"
      + " JOIN pg_namespace n ON n.oid = c.relnamespace"
      + " WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p'))";

  /** Whether a relation of any kind is named {@code name} in {@code schema}. */
  static boolean exist(Connection conn, String schema, String name) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, SqlNames.qualified(schema, name));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** Whether table {@code name} is in {@code schema} (a view or an index of that name is not). */
  static boolean isTable(Connection conn, String schema, String name) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(TABLE_THERE_SQL)) {
      ps.setString(1, schema);
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** The relation named {@code name} in {@code schema}, or null. */
  static Relation find(Connection conn, String schema, String name) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT c.relkind::text, t.relname, con.conname FROM pg_class c"
            + " JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " LEFT JOIN pg_index x ON x.indexrelid = c.oid"
            + " LEFT JOIN pg_class t ON t.oid = x.indrelid"
            + " LEFT JOIN pg_constraint con ON con.conindid = c.oid"
            + " AND con.conrelid = x.indrelid AND con.contype IN ('p', 'u', 'x')"
            + " WHERE n.nspname = ? AND c.relname = ?")) {
      ps.setString(1, schema);
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? new Relation(schema, name, rs.getString(1), rs.getString(2), rs.getString(3))
            : null;
      }
    }
  }
}
