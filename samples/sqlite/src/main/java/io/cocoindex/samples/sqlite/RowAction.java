package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.ActionValue;
import java.util.List;

/**
 * An upsert or delete of one row.
 *
 * @param table the table name
 * @param columns the column names, in table order
 * @param primaryKey the primary-key column names
 * @param values the column values (upsert), or the primary-key values (delete)
 * @param delete whether to delete the row
 */
@ActionValue
public record RowAction(
    String table, List<String> columns, List<String> primaryKey, List<SqlValue> values,
    boolean delete) {

  /**
   * The row as a preview shows it: {@code docs (id=1): title='alpha', views=10}, or for a delete
   * its table and key alone.
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(table).append(" (");
    StringBuilder rest = new StringBuilder();
    if (delete) {
      for (int i = 0; i < primaryKey.size(); i++) {
        sb.append(i == 0 ? "" : ", ").append(primaryKey.get(i)).append('=')
            .append(i < values.size() ? values.get(i) : "?");
      }
    } else {
      String keySep = "";
      String sep = ": ";
      for (int i = 0; i < columns.size(); i++) {
        String value = i < values.size() ? String.valueOf(values.get(i)) : "?";
        if (primaryKey.contains(columns.get(i))) {
          sb.append(keySep).append(columns.get(i)).append('=').append(value);
          keySep = ", ";
        } else {
          rest.append(sep).append(columns.get(i)).append('=').append(value);
          sep = ", ";
        }
      }
    }
    return sb.append(')').append(rest).toString();
  }
}
