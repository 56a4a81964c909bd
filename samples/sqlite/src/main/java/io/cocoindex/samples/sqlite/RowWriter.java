package io.cocoindex.samples.sqlite;

import io.cocoindex.TargetAction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies a batch of row actions in one transaction: per table and shape, upserts ({@code INSERT
 * ... ON CONFLICT DO UPDATE}) and deletes, each as a JDBC batch of multi-row statements.
 *
 * <p>A statement writes up to {@value #MAX_ROWS_PER_STATEMENT} rows ({@code VALUES (..), (..)},
 * or {@code IN (..)} for deletes): SQLite steps and resets a statement once for all of them, and
 * a batch of 100k single-row upserts took about a third longer than the same rows 50 to 100 to a
 * statement. Rows are still applied in order, one after the other, so the outcome is the same as
 * one statement per row.
 */
final class RowWriter {
  /** Rows written by one statement at most: the gain flattens out past 50. */
  static final int MAX_ROWS_PER_STATEMENT = 100;
  /**
   * Parameters one statement binds at most: SQLite's default limit before 3.32, so that any build
   * of it accepts the statements.
   */
  static final int MAX_PARAMETERS = 999;

  private final SqliteDatabase db;

  RowWriter(SqliteDatabase db) {
    this.db = db;
  }

  /**
   * Actions one prepared statement serves: on the same table and columns. Hashing an action's
   * names costs a pass over every name of every row (a tenth of a cold run, when these were map
   * keys); a batch holds one or two shapes, so they are matched by equality against the few
   * groups, the last one used first. An action copied at the serialization boundary keeps the
   * handler's immutable lists, so equality mostly stops at identity; actions built with fresh
   * lists pay the comparison.
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
          execute(c, g);
        }
      }
      for (Group g : groups) {
        if (!g.first.delete()) {
          execute(c, g);
        }
      }
      return null;
    });
  }

  /** Writes a group's rows: full statements first, then one for the rows left over. */
  private void execute(Connection c, Group g) throws SQLException {
    List<String> named = g.first.delete() ? g.first.primaryKey() : g.first.columns();
    int perRow = named.size();
    for (RowAction r : g.actions) {
      if (r.values().size() != perRow || perRow == 0) {
        // Rows share a statement's parameters: one row short would shift every row after it.
        throw new IllegalArgumentException("a row action on table " + r.table() + " has "
            + r.values().size() + " values for the columns " + named);
      }
    }
    int perStatement = Math.max(1, Math.min(MAX_ROWS_PER_STATEMENT, MAX_PARAMETERS / perRow));
    int n = g.actions.size();
    int full = n - n % perStatement;
    if (full > 0) {
      execute(c, g, 0, full, perStatement);
    }
    if (full < n) {
      execute(c, g, full, n, n - full);
    }
  }

  /** Writes rows {@code from..to} of a group, {@code perStatement} rows to each statement. */
  private void execute(Connection c, Group g, int from, int to, int perStatement)
      throws SQLException {
    String sql = g.first.delete() ? deleteSql(g.first, perStatement)
        : upsertSql(g.first, perStatement);
    try (PreparedStatement ps = db.prepare(c, sql)) {
      int parameter = 1;
      int inStatement = 0;
      for (int row = from; row < to; row++) {
        List<SqlValue> values = g.actions.get(row).values();
        for (int i = 0; i < values.size(); i++) {
          values.get(i).bind(ps, parameter++);
        }
        if (++inStatement == perStatement) {
          ps.addBatch();
          parameter = 1;
          inStatement = 0;
        }
      }
      ps.executeBatch();
    }
  }

  /** {@code count} comma-separated copies of {@code item}. */
  private static String repeated(String item, int count) {
    StringBuilder out = new StringBuilder(count * (item.length() + 2));
    for (int i = 0; i < count; i++) {
      out.append(i == 0 ? "" : ", ").append(item);
    }
    return out.toString();
  }

  private static String upsertSql(RowAction r, int rows) {
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
    return "INSERT INTO " + table + " (" + cols + ") VALUES "
        + repeated("(" + marks + ")", rows) + " ON CONFLICT (" + pk
        + ") DO " + (set.length() == 0 ? "NOTHING" : "UPDATE SET " + set);
  }

  private static String deleteSql(RowAction r, int rows) {
    String table = SqlIdentifiers.quote("table", r.table());
    List<String> key = r.primaryKey();
    if (rows == 1) {
      StringBuilder where = new StringBuilder();
      for (String col : key) {
        where.append(where.length() == 0 ? "" : " AND ")
            .append(SqlIdentifiers.quote("column", col)).append(" = ?");
      }
      return "DELETE FROM " + table + " WHERE " + where;
    }
    if (key.size() == 1) {
      return "DELETE FROM " + table + " WHERE " + SqlIdentifiers.quote("column", key.get(0))
          + " IN (" + repeated("?", rows) + ")";
    }
    StringBuilder cols = new StringBuilder();
    for (String col : key) {
      cols.append(cols.length() == 0 ? "" : ", ").append(SqlIdentifiers.quote("column", col));
    }
    return "DELETE FROM " + table + " WHERE (" + cols + ") IN (VALUES "
        + repeated("(" + repeated("?", key.size()) + ")", rows) + ")";
  }
}
