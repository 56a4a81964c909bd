package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.statediff.ManagedBy;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A table: where it lives, its columns and primary key, and who owns it. Build one from a Java
 * record with {@link TableSchema#table}; the key is (database, schema, table), where {@code
 * database} is the <em>name</em> of the {@code ContextKey} of its {@code DataSource}, never a
 * host or a password.
 *
 * @param database the name of the database's {@code ContextKey}
 * @param schema the PostgreSQL schema
 * @param table the table name
 * @param columns every column, primary-key columns included, in table order
 * @param primaryKey the primary-key column names (at least one)
 * @param managedBy {@code SYSTEM}: created, altered and dropped by the connector; {@code USER}:
 *     the user owns the table, the connector only writes its rows
 */
@TargetValue
public record TableSpec(
    @Key String database,
    @Key String schema,
    @Key String table,
    List<ColumnDef> columns,
    List<String> primaryKey,
    ManagedBy managedBy) {

  /**
   * Checks every name, so a malicious one fails at declaration, before anything runs.
   *
   * @param database the name of the database's {@code ContextKey}, not empty
   * @param schema the PostgreSQL schema, a plain identifier
   * @param table the table name, a plain identifier
   * @param columns every column, primary-key columns included, in table order; copied
   * @param primaryKey the primary-key column names, at least one, each a column's; copied
   * @param managedBy who owns the table; null for {@code SYSTEM}
   * @throws IllegalArgumentException when {@code database} is null or empty, the schema's or
   *     table's name is not a plain identifier, a column is declared twice, or the primary key is
   *     empty or names a column the table does not declare
   * @throws NullPointerException when {@code columns} or {@code primaryKey} is null or holds a
   *     null
   */
  public TableSpec {
    if (database == null || database.isEmpty()) {
      throw new IllegalArgumentException("a table needs the name of its database's ContextKey");
    }
    SqlNames.identifier("schema", schema);
    SqlNames.identifier("table", table);
    columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
    primaryKey = List.copyOf(Objects.requireNonNull(primaryKey, "primaryKey"));
    managedBy = managedBy == null ? ManagedBy.SYSTEM : managedBy;
    Set<String> names = new HashSet<>();
    for (ColumnDef c : columns) {
      if (!names.add(c.name())) {
        throw new IllegalArgumentException(
            "table " + schema + "." + table + " declares column '" + c.name() + "' twice");
      }
    }
    if (primaryKey.isEmpty()) {
      throw new IllegalArgumentException(
          "table " + schema + "." + table + " has no primary key: name at least one column");
    }
    for (String pk : primaryKey) {
      if (!names.contains(pk)) {
        throw new IllegalArgumentException(
            "primary key column '" + pk + "' of table " + schema + "." + table
                + " is not one of its columns " + names);
      }
    }
  }

  /** The column of this name, or null. */
  ColumnDef column(String name) {
    for (ColumnDef c : columns) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
