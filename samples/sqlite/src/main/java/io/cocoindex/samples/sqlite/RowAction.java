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
    boolean delete) {}
