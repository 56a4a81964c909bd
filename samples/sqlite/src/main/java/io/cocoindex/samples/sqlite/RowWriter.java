package io.cocoindex.samples.sqlite;

import io.cocoindex.TargetAction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies a batch of row actions in one transaction: per table, one prepared upsert ({@code
 * INSERT ... ON CONFLICT DO UPDATE}) and one prepared delete, each executed as a JDBC batch.
 */
final class RowWriter {
  private final SqliteDatabase db;

  RowWriter(SqliteDatabase db) {
    this.db = db;
  }

  /**
   * Actions one prepared statement serves: on the same table and columns. Actions arrive
   * deserialized, so their strings are fresh and hashing them costs a pass over every name of
   * every row (a tenth of a cold run, when these were map keys); a batch holds one or two shapes,
   * so they are matched by equality against the few groups, the last one used first.
   */
  private static final class Group {
    final RowAction first;
    final List<RowAction> actions = new ArrayList<>();

    Group(RowAction first) {
      this.first = first;
    }

    boolean serves(RowAction r) {
      return r.delete() == first.delete()
          && r.table().equals(first.table())
          && r.columns().equals(first.columns())
          && r.primaryKey().equals(first.primaryKey());
    }
  }

  void apply(List<TargetAction<RowAction>> actions) throws SQLException {
    List<Group> groups = new ArrayList<>(2);
    Group last = null;
    for (TargetAction<RowAction> a : actions) {
      RowAction r = a.value();
      if (last == null || !last.serves(r)) {
        last = null;
        for (Group g : groups) {
          if (g.serves(r)) {
            last = g;
            break;
          }
        }
        if (last == null) {
          last = new Group(r);
          groups.add(last);
        }
      }
      last.actions.add(r);
    }
    db.inTransaction(c -> {
      // Deletes first, as ever: a row deleted and re-created under another shape ends created.
      for (Group g : groups) {
        if (g.first.delete()) {
          execute(c, deleteSql(g.first), g.actions);
        }
      }
      for (Group g : groups) {
        if (!g.first.delete()) {
          execute(c, upsertSql(g.first), g.actions);
        }
      }
      return null;
    });
  }

  private void execute(Connection c, String sql, List<RowAction> group)
      throws SQLException {
    try (PreparedStatement ps = db.prepare(c, sql)) {
      for (RowAction r : group) {
        for (int i = 0; i < r.values().size(); i++) {
          r.values().get(i).bind(ps, i + 1);
        }
        ps.addBatch();
      }
      ps.executeBatch();
    }
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
