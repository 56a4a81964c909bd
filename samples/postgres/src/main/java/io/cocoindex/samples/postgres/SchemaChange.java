package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.ActionValue;

/**
 * One DDL step of a table action, applied in order in the database's transaction.
 *
 * @param kind what to do
 * @param column the column concerned (column steps only), else null
 * @param type the column's new type (ADD_COLUMN, ALTER_COLUMN_TYPE), else null
 */
@ActionValue
public record SchemaChange(Kind kind, String column, String type) {
  /** The DDL steps. */
  public enum Kind {
    /** {@code CREATE SCHEMA/TABLE IF NOT EXISTS} with the action's columns. */
    CREATE_TABLE,
    /** {@code DROP TABLE IF EXISTS} then create: the primary key changed. */
    RECREATE_TABLE,
    /** {@code DROP TABLE IF EXISTS}. */
    DROP_TABLE,
    /**
     * A user-managed table no longer declared: left with its rows, the indexes and SQL commands
     * the app made on it removed (found by the app their records name).
     */
    RELEASE_TABLE,
    /** {@code ADD COLUMN IF NOT EXISTS}. */
    ADD_COLUMN,
    /** {@code DROP COLUMN IF EXISTS}. */
    DROP_COLUMN,
    /** {@code ALTER COLUMN TYPE} in a savepoint; on failure drop and re-add the column. */
    ALTER_COLUMN_TYPE,
    /**
     * The table changed hands (user-managed to system-managed, or back): the app's SQL commands
     * on it are recorded where a table of its new kind records them, and no longer where its old
     * kind did ({@link TableComment}, {@link UserTableCommands}).
     */
    MOVE_COMMAND_RECORDS
  }

  static SchemaChange table(Kind kind) {
    return new SchemaChange(kind, null, null);
  }

  static SchemaChange column(Kind kind, ColumnDef column) {
    return new SchemaChange(kind, column.name(), column.type());
  }

  static SchemaChange dropColumn(String column) {
    return new SchemaChange(Kind.DROP_COLUMN, column, null);
  }
}
