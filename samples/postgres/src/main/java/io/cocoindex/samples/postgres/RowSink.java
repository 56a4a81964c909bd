package io.cocoindex.samples.postgres;

import io.cocoindex.TargetAction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Writes a batch of row actions of one database in one transaction: per table, chunked deletes
 * then chunked {@code INSERT ... ON CONFLICT DO UPDATE}, each statement under PostgreSQL's limit
 * of 32767 bind parameters.
 */
final class RowSink {
  /** The most bind parameters one statement may carry (the wire protocol's Int16 count). */
  static final int MAX_PARAMETERS = 32767;

  private final DataSource dataSource;

  RowSink(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** The rows of one table shape in a batch; the last action for a key wins. */
  private static final class TableBatch {
    final RowAction first;
    final Map<List<SqlValue>, RowAction> deletes = new LinkedHashMap<>();
    final Map<List<SqlValue>, RowAction> upserts = new LinkedHashMap<>();

    TableBatch(RowAction first) {
      this.first = first;
    }
  }

  void apply(List<TargetAction<RowAction>> actions) throws SQLException {
    Map<List<Object>, TableBatch> tables = new LinkedHashMap<>();
    for (TargetAction<RowAction> a : actions) {
      RowAction r = a.value();
      TableBatch batch =
          tables.computeIfAbsent(
              List.of(r.schema(), r.table(), r.columns(), r.primaryKey()),
              unused -> new TableBatch(r));
      batch.deletes.remove(r.keyValues());
      batch.upserts.remove(r.keyValues());
      (r.delete() ? batch.deletes : batch.upserts).put(r.keyValues(), r);
    }
    // Every name is checked before the first statement runs.
    for (TableBatch t : tables.values()) {
      SqlNames.qualified(t.first.schema(), t.first.table());
      t.first.columns().forEach(c -> SqlNames.identifier("column", c.name()));
    }
    Transactions.run(dataSource, conn -> {
      for (TableBatch t : tables.values()) {
        delete(conn, t);
        upsert(conn, t);
      }
    });
  }

  private static void delete(Connection conn, TableBatch t) throws SQLException {
    if (t.deletes.isEmpty()) {
      return;
    }
    RowAction shape = t.first;
    List<String> keyTypes = new ArrayList<>();
    StringBuilder keyColumns = new StringBuilder("(");
    for (int i = 0; i < shape.primaryKey().size(); i++) {
      String pk = shape.primaryKey().get(i);
      keyColumns.append(i > 0 ? ", " : "").append(SqlNames.quote("column", pk));
      keyTypes.add(typeOf(shape, pk));
    }
    keyColumns.append(')');
    String tuple = tuple(keyTypes);
    int perStatement = MAX_PARAMETERS / keyTypes.size();
    List<List<SqlValue>> keys = new ArrayList<>(t.deletes.keySet());
    for (int from = 0; from < keys.size(); from += perStatement) {
      List<List<SqlValue>> chunk = keys.subList(from, Math.min(keys.size(), from + perStatement));
      StringBuilder sql = new StringBuilder("DELETE FROM ")
          .append(SqlNames.qualified(shape.schema(), shape.table()))
          .append(" WHERE ").append(keyColumns).append(" IN (");
      for (int i = 0; i < chunk.size(); i++) {
        sql.append(i > 0 ? ", " : "").append(tuple);
      }
      sql.append(')');
      try (PreparedStatement ps = conn.prepareStatement(sql.toString())) {
        int p = 1;
        for (List<SqlValue> key : chunk) {
          for (SqlValue v : key) {
            bind(ps, p++, v);
          }
        }
        ps.executeUpdate();
      }
    }
  }

  private static void upsert(Connection conn, TableBatch t) throws SQLException {
    if (t.upserts.isEmpty()) {
      return;
    }
    RowAction shape = t.first;
    List<ColumnDef> columns = shape.columns();
    StringBuilder head = new StringBuilder("INSERT INTO ")
        .append(SqlNames.qualified(shape.schema(), shape.table())).append(" (");
    List<String> types = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      head.append(i > 0 ? ", " : "").append(SqlNames.quote("column", columns.get(i).name()));
      types.add(SqlNames.type("column '" + columns.get(i).name() + "'", columns.get(i).type()));
    }
    head.append(") VALUES ");
    StringBuilder tail = new StringBuilder(" ON CONFLICT (");
    for (int i = 0; i < shape.primaryKey().size(); i++) {
      tail.append(i > 0 ? ", " : "").append(SqlNames.quote("column", shape.primaryKey().get(i)));
    }
    tail.append(") DO ");
    List<String> updated = new ArrayList<>();
    for (ColumnDef c : columns) {
      if (!shape.primaryKey().contains(c.name())) {
        String q = SqlNames.quote("column", c.name());
        updated.add(q + " = EXCLUDED." + q);
      }
    }
    tail.append(updated.isEmpty() ? "NOTHING" : "UPDATE SET " + String.join(", ", updated));
    String tuple = tuple(types);
    int perStatement = MAX_PARAMETERS / columns.size();
    List<RowAction> rows = new ArrayList<>(t.upserts.values());
    for (int from = 0; from < rows.size(); from += perStatement) {
      List<RowAction> chunk = rows.subList(from, Math.min(rows.size(), from + perStatement));
      StringBuilder sql = new StringBuilder(head);
      for (int i = 0; i < chunk.size(); i++) {
        sql.append(i > 0 ? ", " : "").append(tuple);
      }
      sql.append(tail);
      try (PreparedStatement ps = conn.prepareStatement(sql.toString())) {
        int p = 1;
        for (RowAction row : chunk) {
          for (ColumnDef c : columns) {
            bind(ps, p++, row.values().getOrDefault(c.name(), SqlValue.NULL));
          }
        }
        ps.executeUpdate();
      }
    }
  }

  /** {@code (CAST(? AS t1), CAST(? AS t2))}: values are bound, then converted by the server. */
  private static String tuple(List<String> types) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < types.size(); i++) {
      sb.append(i > 0 ? ", " : "").append("CAST(? AS ").append(types.get(i)).append(')');
    }
    return sb.append(')').toString();
  }

  private static String typeOf(RowAction shape, String column) {
    for (ColumnDef c : shape.columns()) {
      if (c.name().equals(column)) {
        return SqlNames.type("column '" + column + "'", c.type());
      }
    }
    throw new IllegalArgumentException(
        "primary key column '" + column + "' is not a column of " + shape.schema() + "."
            + shape.table());
  }

  private static void bind(PreparedStatement ps, int index, SqlValue v) throws SQLException {
    if (v.integer() != null) {
      ps.setLong(index, v.integer());
    } else if (v.real() != null) {
      ps.setDouble(index, v.real());
    } else if (v.bool() != null) {
      ps.setBoolean(index, v.bool());
    } else if (v.bytes() != null) {
      ps.setBytes(index, v.bytes());
    } else if (v.text() != null) {
      ps.setString(index, v.text());
    } else {
      ps.setNull(index, Types.NULL);
    }
  }
}
