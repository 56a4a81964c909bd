package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.ActionValue;
import io.cocoindex.statediff.ManagedBy;
import java.util.List;

/**
 * What the table sink does to one table, and what its rows' handler is built from.
 *
 * @param database the name of the database's {@code ContextKey}
 * @param schema the schema
 * @param table the table name
 * @param columns the declared columns (empty for a drop or a release)
 * @param primaryKey the primary-key column names (empty for a drop or a release)
 * @param changes the DDL steps, in order; empty when the table is as declared
 * @param managedBy who owns the table (null in actions of earlier versions: the system)
 * @param declaredUnder for a drop: the other database keys under which a table of this schema
 *     and name is declared in the run; under one reaching this database, it is the same table,
 *     handed over rather than dropped (empty otherwise)
 */
@ActionValue
public record TableAction(
    String database,
    String schema,
    String table,
    List<ColumnDef> columns,
    List<String> primaryKey,
    List<SchemaChange> changes,
    ManagedBy managedBy,
    List<String> declaredUnder) {
  /**
   * Fills in what an action may lack: the owner (actions of earlier versions have none) and the
   * other keys.
   *
   * @param database the name of the database's {@code ContextKey}
   * @param schema the schema
   * @param table the table name
   * @param columns the declared columns (empty for a drop or a release)
   * @param primaryKey the primary-key column names (empty for a drop or a release)
   * @param changes the DDL steps, in order; empty when the table is as declared
   * @param managedBy who owns the table; null for the system
   * @param declaredUnder for a drop or a release: the other database keys the table is declared
   *     under in the run; null for none; copied
   */
  public TableAction {
    managedBy = managedBy == null ? ManagedBy.SYSTEM : managedBy;
    declaredUnder = declaredUnder == null ? List.of() : List.copyOf(declaredUnder);
  }

  /**
   * An action declared under no other key.
   *
   * @param database the name of the database's {@code ContextKey}
   * @param schema the schema
   * @param table the table name
   * @param columns the declared columns (empty for a drop or a release)
   * @param primaryKey the primary-key column names (empty for a drop or a release)
   * @param changes the DDL steps, in order; empty when the table is as declared
   * @param managedBy who owns the table; null for the system
   */
  public TableAction(String database, String schema, String table, List<ColumnDef> columns,
      List<String> primaryKey, List<SchemaChange> changes, ManagedBy managedBy) {
    this(database, schema, table, columns, primaryKey, changes, managedBy, List.of());
  }

  String qualifiedName() {
    return schema + "." + table;
  }
}
