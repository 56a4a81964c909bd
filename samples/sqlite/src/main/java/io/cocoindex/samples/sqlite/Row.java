package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import java.util.List;

/**
 * One row of a table: its primary-key values as the key, and every column's value in the
 * table's column order.
 *
 * @param key the primary key (one value, or an array for a composite key)
 * @param values the column values, in the order of the table's columns
 */
@TargetValue
public record Row(@Key StableKey key, List<SqlValue> values) {}
