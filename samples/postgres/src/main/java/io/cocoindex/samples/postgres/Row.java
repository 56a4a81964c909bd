package io.cocoindex.samples.postgres;

import io.cocoindex.StableKey;
import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One row: its column values by column name, and its key, the primary-key values (one value,
 * or an array of them for a composite key) in the form PostgreSQL compares them ({@code 1.0}
 * and {@code 1.00} in a {@code numeric} key are one key). Build rows with {@link
 * TableSchema#row} or {@link #of(TableSpec, Map)}, which know the column types; a column the row
 * leaves out is written as {@code NULL}.
 *
 * @param key the primary-key values as a key
 * @param values the column values by name
 */
@TargetValue
public record Row(@Key StableKey key, Map<String, SqlValue> values) {
  /**
   * Copies the values into a map sorted by column name. The key is not checked against them:
   * build rows with {@link #of(TableSpec, Map)} or {@link TableSchema#row}.
   *
   * @param key the primary-key values as a key
   * @param values the column values by name; copied
   * @throws NullPointerException when {@code key} or {@code values} is null
   */
  public Row {
    Objects.requireNonNull(key, "key");
    values = new TreeMap<>(Objects.requireNonNull(values, "values"));
  }

  /**
   * A row of this table, keyed by its primary-key values in the form the column types compare
   * them; fails naming the column when a key value is missing or null.
   *
   * @param table the table the row belongs to, whose column types give the key's form
   * @param values the column values by name; a column left out is written as {@code NULL}
   * @return the row, keyed by its primary-key values in canonical form
   * @throws IllegalArgumentException naming the column when a primary-key value is missing or
   *     null
   */
  public static Row of(TableSpec table, Map<String, SqlValue> values) {
    return new Row(
        CanonicalKeys.key("table " + table.schema() + "." + table.table(), table.columns(),
            table.primaryKey(), values),
        values);
  }

  /**
   * A row with these primary-key columns ({@code what} names the table in errors), keyed by the
   * key values as given: the table rejects the row when its column types compare them in another
   * form (a text {@code '1'} in a {@code bigint} key, {@code 1.0} in a {@code numeric} one); {@link
   * #of(TableSpec, Map)} keys it right. Fails naming the column when a key value is missing or
   * null.
   *
   * @param what the table, as errors name it ({@code "table public.docs"})
   * @param primaryKey the primary-key column names, in key order
   * @param values the column values by name; a column left out is written as {@code NULL}
   * @return the row, keyed by its primary-key values as given
   * @throws IllegalArgumentException naming the column when a primary-key value is missing or
   *     null
   */
  public static Row of(String what, List<String> primaryKey, Map<String, SqlValue> values) {
    return new Row(keyOf(what, primaryKey, values), values);
  }

  /** The key of a row: its primary-key values. */
  static StableKey keyOf(String what, List<String> primaryKey, Map<String, SqlValue> values) {
    StableKey[] parts = new StableKey[primaryKey.size()];
    for (int i = 0; i < parts.length; i++) {
      SqlValue v = values.get(primaryKey.get(i));
      if (v == null || v.isNull()) {
        throw new IllegalArgumentException(
            "row of " + what + " has " + (v == null ? "no value" : "a null value")
                + " for primary key column '" + primaryKey.get(i) + "'");
      }
      parts[i] = v.toKey();
    }
    return parts.length == 1 ? parts[0] : new StableKey.Array(List.of(parts));
  }

  /** The primary-key values a key stands for, in primary-key order. */
  static List<SqlValue> keyValues(StableKey key, int columns) {
    if (columns == 1) {
      return List.of(SqlValue.fromKey(key));
    }
    if (!(key instanceof StableKey.Array a) || a.items().size() != columns) {
      throw new IllegalArgumentException(
          "key " + key + " does not hold the " + columns + " values of the primary key");
    }
    return a.items().stream().map(SqlValue::fromKey).toList();
  }
}
