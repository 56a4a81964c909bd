package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import java.util.List;

/**
 * A declared table: keyed by the database's ContextKey name and the table name.
 *
 * @param database the ContextKey name of the database (never a path or a password)
 * @param name the table name
 * @param columns the columns, in order
 * @param primaryKey the primary-key column names
 * @param userManaged the user owns the table: rows are managed, the table is never created,
 *     altered or dropped
 */
@TargetValue
public record TableSpec(
    @Key String database,
    @Key String name,
    List<ColumnSpec> columns,
    List<String> primaryKey,
    boolean userManaged) {}
