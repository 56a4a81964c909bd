package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import java.util.ArrayList;
import java.util.List;

/**
 * User SQL with its teardown, per table. Because setup SQL need not be idempotent, a change (or
 * a possibly-missing state) runs every possibly-applied previous teardown before the new setup;
 * a removal runs the teardowns. The database records which commands are set up ({@link
 * SqlCommandRecords}): the sink also runs the recorded teardown when these records do not hold
 * it, and the table's drop runs them all.
 */
final class SqlCommandHandler
    implements TargetHandler<SqlCommand, SqlCommand, AttachmentAction> {
  private final TableSpec table;
  private final TargetActionSink<AttachmentAction> sink;

  SqlCommandHandler(TableSpec table, TargetActionSink<AttachmentAction> sink) {
    this.table = table;
    this.sink = sink;
  }

  @Override
  public TargetReconcileOutput<AttachmentAction, SqlCommand> reconcile(
      StableKey key, SqlCommand desired, List<SqlCommand> prev, boolean prevMayBeMissing) {
    List<String> teardowns = new ArrayList<>();
    for (SqlCommand p : prev) {
      if (!teardowns.contains(p.teardown())) {
        teardowns.add(p.teardown());
      }
    }
    if (desired == null) {
      if (prev.isEmpty()) {
        return null;
      }
      String name = ((StableKey.Str) key).value();
      return TargetReconcileOutput.of(TargetAction.delete(AttachmentAction.of(
          table.name(), teardowns, List.of()).withSqlCommand(name, null)), sink, null);
    }
    SqlIdentifiers.check("SQL command", desired.name());
    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    AttachmentAction action = AttachmentAction.of(table.name(), teardowns,
        List.of(desired.setup())).withSqlCommand(desired.name(), desired.teardown());
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, desired);
  }
}
