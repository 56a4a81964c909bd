package io.cocoindex.samples.postgres;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.Attachment;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rows of one table, compared by the fingerprint of their values; its attachments are the
 * table's indexes ({@code declareIndex}) and SQL commands ({@code declareSqlCommand}).
 */
final class RowHandler implements TargetHandler<Row, RowRecord, RowAction> {
  private final Database db;
  private final TableAction table;
  private final IndexHandler indexes;
  private final SqlCommandHandler commands;
  /** What was found when this handler was built: see {@link #childInvalidationFound}. */
  private final TargetChildInvalidation found;

  /**
   * @param found DESTRUCTIVE: the table was looked up and not found (dropped by hand since the
   *     last run, its rows, indexes and views with it); LOSSY: its own app changed it in a way
   *     that lost this app's rows ({@link TableGuests}); null: nothing
   */
  RowHandler(Database db, TableAction table, TargetChildInvalidation found) {
    this.db = db;
    this.table = table;
    this.found = found;
    this.indexes = new IndexHandler(db, table.schema(), table.table());
    this.commands = new SqlCommandHandler(db, table);
  }

  @Attachment("index")
  IndexHandler index() {
    return indexes;
  }

  @Attachment("sql_command")
  SqlCommandHandler sqlCommand() {
    return commands;
  }

  @Override
  public Map<String, ChildTargetDef<?>> attachments() {
    return RowHandler_Attachments.of(this);
  }

  /**
   * A table found missing lost every row, index and command: the engine reconciles each declared
   * one as new (so it is written), sends no removal for the others, and lets no memo of a
   * component that declared into the table hold. Another app's table whose changes lost this
   * app's rows: each is reconciled once as possibly missing, so written again.
   */
  @Override
  public TargetChildInvalidation childInvalidationFound() {
    return found;
  }

  @Override
  public TargetReconcileOutput<RowAction, RowRecord> reconcile(
      StableKey key, Row desired, List<RowRecord> prev, boolean prevMayBeMissing) {
    if (desired == null) {
      if (prev.isEmpty() && !prevMayBeMissing) {
        return null;
      }
      RowAction delete =
          new RowAction(table.schema(), table.table(), table.columns(), table.primaryKey(),
              Row.keyValues(key, table.primaryKey().size()), Map.of(), true);
      return TargetReconcileOutput.of(TargetAction.delete(delete), db.rows, null);
    }
    Map<String, SqlValue> values = checked(key, desired);
    RowRecord record = new RowRecord(Fingerprint.of(values));
    DiffAction diff =
        StateDiff.diff(new TrackingRecordTransition<>(record, prev, prevMayBeMissing));
    if (diff == null) {
      return null;
    }
    RowAction write =
        new RowAction(table.schema(), table.table(), table.columns(), table.primaryKey(),
            Row.keyValues(key, table.primaryKey().size()), values, false);
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(write) : TargetAction.update(write), db.rows, record);
  }

  /** Rejects a row that does not fit the table, naming the column, before anything is written. */
  private Map<String, SqlValue> checked(StableKey key, Row row) {
    String where = "table " + table.qualifiedName();
    for (String column : row.values().keySet()) {
      if (table.columns().stream().noneMatch(c -> c.name().equals(column))) {
        throw new IllegalArgumentException(
            "row " + key + " of " + where + " has column '" + column + "', which the table does"
                + " not declare");
      }
    }
    // One row has one key: a key in another form than the column types compare it would be a
    // second target state of the same row, whose delete (once undeclared) removes the row.
    StableKey derived =
        CanonicalKeys.key(where, table.columns(), table.primaryKey(), row.values());
    if (!derived.equals(key)) {
      throw new IllegalArgumentException(
          "row of " + where + " is declared under key " + key + " but PostgreSQL compares its"
              + " primary key " + table.primaryKey() + " " + keyTypes() + " as " + derived
              + ": build the row with TableSchema.row or Row.of(tableSpec, values), which key it"
              + " so");
    }
    return new TreeMap<>(row.values());
  }

  private List<String> keyTypes() {
    return table.primaryKey().stream()
        .map(pk -> table.columns().stream().filter(c -> c.name().equals(pk)).findFirst()
            .map(ColumnDef::type).orElse("?"))
        .toList();
  }
}
