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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
      } catch (SQLException e) {
        throw described(conn, e, "deleting", shape, shape.primaryKey(), chunk);
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
      } catch (SQLException e) {
        throw described(conn, e, "writing", shape, columns.stream().map(ColumnDef::name).toList(),
            chunk.stream().map(r -> columns.stream()
                .map(c -> r.values().getOrDefault(c.name(), SqlValue.NULL)).toList()).toList());
      }
    }
  }

  /** PostgreSQL names a value it refused on binding by its place among the parameters. */
  private static final Pattern PARAMETER = Pattern.compile("parameter \\$(\\d+)");

  /**
   * The server's error with the table, and for a value it refused, the row's key and the column.
   * A value refused on binding is named by its parameter (a statement binds {@code columns} per
   * row); one refused by its cast (class 22, data exception) is found by casting the chunk's
   * values again, halves of rows at a time: the batch is failing, so its transaction is rolled
   * back first.
   */
  private static SQLException described(
      Connection conn, SQLException e, String doing, RowAction shape, List<String> columns,
      List<List<SqlValue>> rows) {
    StringBuilder message = new StringBuilder(doing).append(" rows of table ")
        .append(shape.schema()).append('.').append(shape.table());
    int[] at = null;
    Matcher m = PARAMETER.matcher(String.valueOf(e.getMessage()));
    if (m.find()) {
      int index = Integer.parseInt(m.group(1)) - 1;
      at = new int[] {index / columns.size(), index % columns.size()};
    } else if (e.getSQLState() != null && e.getSQLState().startsWith("22")) {
      try {
        conn.rollback();
        List<String> types = columns.stream().map(c -> typeOf(shape, c)).toList();
        at = refused(conn, types, rows, 0, rows.size());
      } catch (SQLException probe) {
        e.addSuppressed(probe);
      }
    } else if ("21000".equals(e.getSQLState())) {
      message.append(" failed: two rows of the batch are one row to PostgreSQL (their primary"
          + " keys compare equal in a form this connector does not key as one, e.g. an array, or"
          + " citext beyond ASCII); declare the row once");
    }
    if (at != null && at[0] < rows.size()) {
      message.append(" failed at the row of key ").append(keyOf(shape, columns, rows.get(at[0])))
          .append(", column '").append(columns.get(at[1])).append('\'');
    }
    return new SQLException(message.append(": ").append(e.getMessage()).toString(),
        e.getSQLState(), e);
  }

  /** The key values of a row of the failing statement (its primary-key columns, in key order). */
  private static List<SqlValue> keyOf(RowAction shape, List<String> columns, List<SqlValue> row) {
    return shape.primaryKey().stream().map(pk -> row.get(columns.indexOf(pk))).toList();
  }

  /** The first (row, column) of rows [from, to) whose value the server cannot cast, or null. */
  private static int[] refused(
      Connection conn, List<String> types, List<List<SqlValue>> rows, int from, int to)
      throws SQLException {
    if (to - from == 0 || casts(conn, types, rows.subList(from, to))) {
      return null;
    }
    if (to - from > 1) {
      int mid = (from + to) >>> 1;
      int[] first = refused(conn, types, rows, from, mid);
      return first != null ? first : refused(conn, types, rows, mid, to);
    }
    for (int c = 0; c < types.size(); c++) {
      if (!casts(conn, List.of(types.get(c)), List.of(List.of(rows.get(from).get(c))))) {
        return new int[] {from, c};
      }
    }
    return null;
  }

  private static boolean casts(Connection conn, List<String> types, List<List<SqlValue>> rows)
      throws SQLException {
    for (List<SqlValue> row : rows) {
      for (int c = 0; c < types.size(); c++) {
        if (tooLong(types.get(c), row.get(c))) {
          return false; // refused by the column's conversion, which a cast does not make
        }
      }
    }
    StringBuilder sql = new StringBuilder("VALUES ");
    String tuple = tuple(types);
    for (int i = 0; i < rows.size(); i++) {
      sql.append(i > 0 ? ", " : "").append(tuple);
    }
    try (PreparedStatement ps = conn.prepareStatement(sql.toString())) {
      int p = 1;
      for (List<SqlValue> row : rows) {
        for (SqlValue v : row) {
          bind(ps, p++, v);
        }
      }
      ps.executeQuery().close();
      return true;
    } catch (SQLException refused) {
      conn.rollback();
      return false;
    }
  }

  /**
   * {@code (CAST(? AS t1), CAST(? AS t2))}: values are bound, then converted by the server. A
   * length-bounded character type is cast to its unbounded form ({@link #unbounded}): an explicit
   * cast to {@code varchar(3)} cuts {@code 'abcdef'} to {@code 'abc'} without a word, where the
   * column's own (assignment) conversion refuses it, and a key cut alike would match another
   * row's.
   */
  private static String tuple(List<String> types) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < types.size(); i++) {
      sb.append(i > 0 ? ", " : "").append("CAST(? AS ").append(unbounded(types.get(i)))
          .append(')');
    }
    return sb.append(')').toString();
  }

  /**
   * Whether a text {@code v} is longer than the bounded character type {@code type} holds, as
   * PostgreSQL's assignment counts: characters, trailing spaces past the bound excepted.
   */
  private static boolean tooLong(String type, SqlValue v) {
    boolean bounded = type.startsWith("varchar(") || type.startsWith("char(");
    if (!bounded || !type.endsWith(")") || v.text() == null) {
      return false;
    }
    int n = Integer.parseInt(type.substring(type.indexOf('(') + 1, type.length() - 1));
    String text = v.text();
    int end = text.length();
    while (end > 0 && text.charAt(end - 1) == ' ') {
      end--;
    }
    return text.codePointCount(0, end) > n;
  }

  /** {@code varchar(n)} as {@code varchar}, {@code char(n)} as {@code bpchar}, arrays alike. */
  static String unbounded(String type) {
    if (type.startsWith("varchar(")) {
      return "varchar" + type.substring(type.indexOf(')') + 1);
    }
    if (type.startsWith("char(")) {
      return "bpchar" + type.substring(type.indexOf(')') + 1);
    }
    return type;
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

  static void bind(PreparedStatement ps, int index, SqlValue v) throws SQLException {
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
