package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.ActionValue;
import java.util.List;
import java.util.Map;

/**
 * Upsert or delete one row. It carries its table's columns so that one sink call can write the
 * rows of every table of a database, grouped by table, in one transaction.
 *
 * @param schema the schema
 * @param table the table
 * @param columns the table's columns (their types cast the bound values)
 * @param primaryKey the primary-key column names
 * @param keyValues the row's primary-key values, in key order
 * @param values the column values to write (empty for a delete)
 * @param delete delete the row instead of writing it
 */
@ActionValue
public record RowAction(
    String schema,
    String table,
    List<ColumnDef> columns,
    List<String> primaryKey,
    List<SqlValue> keyValues,
    Map<String, SqlValue> values,
    boolean delete) {

  /**
   * The row as a preview shows it: {@code public.products (sku='SKU1'): name='Widget',
   * price=9.99}, or for a delete its table and key alone. The columns' definitions, which the
   * action carries for the sink, are left out.
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(schema).append('.').append(table).append(" (");
    for (int i = 0; i < primaryKey.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(primaryKey.get(i)).append('=')
          .append(i < keyValues.size() ? keyValues.get(i) : "?");
    }
    sb.append(')');
    String sep = ": ";
    for (Map.Entry<String, SqlValue> v : values.entrySet()) {
      if (!primaryKey.contains(v.getKey())) {
        sb.append(sep).append(v.getKey()).append('=').append(v.getValue());
        sep = ", ";
      }
    }
    return sb.toString();
  }
}
