package io.cocoindex.samples.postgres;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.ManagedBy;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.ArrayList;
import java.util.List;

/**
 * SQL-command attachments; the tracking record is the full command, so the teardown of what
 * ran last is known when it changes or goes away. A system-managed table also records its
 * commands in its comment ({@link TableComment}), for its own drop or recreate.
 */
final class SqlCommandHandler implements TargetHandler<SqlCommand, SqlCommand, SqlCommandAction> {
  private final Database db;
  private final TableAction table;

  SqlCommandHandler(Database db, TableAction table) {
    this.db = db;
    this.table = table;
  }

  @Override
  public TargetReconcileOutput<SqlCommandAction, SqlCommand> reconcile(
      StableKey key, SqlCommand desired, List<SqlCommand> prev, boolean prevMayBeMissing) {
    DiffAction diff = StateDiff.diff(new TrackingRecordTransition<>(desired, prev, prevMayBeMissing));
    if (diff == null) {
      return null;
    }
    // Every version that may have run is torn down before the new setup (or on removal).
    List<String> teardowns = new ArrayList<>();
    for (SqlCommand p : prev) {
      if (p.teardown() != null && !teardowns.contains(p.teardown())) {
        teardowns.add(p.teardown());
      }
    }
    boolean recorded = table.managedBy() == ManagedBy.SYSTEM;
    if (diff == DiffAction.DELETE) {
      String name = prev.get(0).name();
      return TargetReconcileOutput.of(
          TargetAction.delete(new SqlCommandAction(
              table.schema(), table.table(), recorded, name, teardowns, null, null)),
          db.commands, null);
    }
    SqlCommandAction run = new SqlCommandAction(table.schema(), table.table(), recorded,
        desired.name(), teardowns, desired.setup(), desired.teardown());
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(run) : TargetAction.update(run), db.commands, desired);
  }
}
