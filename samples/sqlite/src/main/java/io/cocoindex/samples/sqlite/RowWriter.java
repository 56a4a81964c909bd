package io.cocoindex.samples.sqlite;

import io.cocoindex.TargetAction;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies a batch of row actions in one transaction: per table, one prepared upsert ({@code
 * INSERT ... ON CONFLICT DO UPDATE}) and one prepared delete, each executed as a JDBC batch.
 */
final class RowWriter {
  private final SqliteDatabase db;

  RowWriter(SqliteDatabase db) {
    this.db = db;
  }

  /** What one prepared statement serves: actions on the same table and columns. */
  private record Shape(String table, List<String> columns, List<String> primaryKey) {}

  void apply(List<TargetAction<RowAction>> actions) throws SQLException {
    // Keyed by the lists themselves: a string key built from them was a sixth of the sink.
    Map<Shape, List<RowAction>> upserts = new LinkedHashMap<>();
    Map<Shape, List<RowAction>> deletes = new LinkedHashMap<>();
    for (TargetAction<RowAction> a : actions) {
      RowAction r = a.value();
      Shape shape = new Shape(r.table(), r.columns(), r.primaryKey());
      (r.delete() ? deletes : upserts).computeIfAbsent(shape, k -> new ArrayList<>()).add(r);
    }
    db.inTransaction(c -> {
      for (List<RowAction> group : deletes.values()) {
        RowAction first = group.get(0);
        try (PreparedStatement ps = db.prepare(c, deleteSql(first))) {
          for (RowAction r : group) {
            for (int i = 0; i < r.values().size(); i++) {
              r.values().get(i).bind(ps, i + 1);
            }
            ps.addBatch();
          }
          ps.executeBatch();
        }
      }
      for (List<RowAction> group : upserts.values()) {
        RowAction first = group.get(0);
        try (PreparedStatement ps = db.prepare(c, upsertSql(first))) {
          for (RowAction r : group) {
            for (int i = 0; i < r.values().size(); i++) {
              r.values().get(i).bind(ps, i + 1);
            }
            ps.addBatch();
          }
          ps.executeBatch();
        }
      }
      return null;
    });
  }

  private static String upsertSql(RowAction r) {
    String table = SqlIdentifiers.quote("table", r.table());
    StringBuilder cols = new StringBuilder();
    StringBuilder marks = new StringBuilder();
    StringBuilder set = new StringBuilder();
    for (String col : r.columns()) {
      String q = SqlIdentifiers.quote("column", col);
      cols.append(cols.length() == 0 ? "" : ", ").append(q);
      marks.append(marks.length() == 0 ? "?" : ", ?");
      if (!r.primaryKey().contains(col)) {
        set.append(set.length() == 0 ? "" : ", ").append(q).append(" = excluded.").append(q);
      }
    }
    StringBuilder pk = new StringBuilder();
    for (String col : r.primaryKey()) {
      pk.append(pk.length() == 0 ? "" : ", ").append(SqlIdentifiers.quote("column", col));
    }
    return "INSERT INTO " + table + " (" + cols + ") VALUES (" + marks + ") ON CONFLICT (" + pk
        + ") DO " + (set.length() == 0 ? "NOTHING" : "UPDATE SET " + set);
  }

  private static String deleteSql(RowAction r) {
    StringBuilder where = new StringBuilder();
    for (String col : r.primaryKey()) {
      where.append(where.length() == 0 ? "" : " AND ")
          .append(SqlIdentifiers.quote("column", col)).append(" = ?");
    }
    return "DELETE FROM " + SqlIdentifiers.quote("table", r.table()) + " WHERE " + where;
  }
}
