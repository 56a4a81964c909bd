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
    boolean delete) {}
