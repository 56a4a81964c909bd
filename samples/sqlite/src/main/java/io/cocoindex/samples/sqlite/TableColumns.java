package io.cocoindex.samples.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Reads a table's actual columns (so an add is idempotent after an interrupted run). */
final class TableColumns {
  private TableColumns() {}

  static List<String> of(SqliteDatabase db, Connection c, String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c, "SELECT name FROM pragma_table_info(?)")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  /** The table's columns' names, case-folded as SQLite compares them. */
  static Set<String> folded(SqliteDatabase db, Connection c, String table) throws SQLException {
    Set<String> out = new HashSet<>();
    for (String name : of(db, c, table)) {
      out.add(SqlIdentifiers.fold(name));
    }
    return out;
  }
}
