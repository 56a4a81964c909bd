package io.cocoindex.samples.postgres;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.List;

/**
 * The indexes of one table, named {@code <table>__<name>} in the database ({@link IndexNames});
 * the tracking record is the full spec with that name, so removal knows what to drop.
 */
final class IndexHandler implements TargetHandler<IndexSpec, IndexRecord, IndexAction> {
  private final Database db;
  private final String schema;
  private final String table;

  IndexHandler(Database db, String schema, String table) {
    this.db = db;
    this.schema = schema;
    this.table = table;
  }

  @Override
  public TargetReconcileOutput<IndexAction, IndexRecord> reconcile(
      StableKey key, IndexSpec desired, List<IndexRecord> prevPossible, boolean prevMayBeMissing) {
    List<IndexRecord> prev = prevPossible.stream().map(IndexRecord::withPhysicalName).toList();
    IndexRecord record = desired == null ? null : IndexRecord.of(desired, table);
    DiffAction diff =
        StateDiff.diff(new TrackingRecordTransition<>(record, prev, prevMayBeMissing));
    if (diff == null) {
      return null;
    }
    List<String> dropped = prev.stream().map(IndexRecord::physicalName).distinct().toList();
    switch (diff) {
      case DELETE:
        return TargetReconcileOutput.of(
            TargetAction.delete(new IndexAction(schema, table, dropped, null, null, prev)),
            db.indexes, null);
      case REPLACE:
        return TargetReconcileOutput.of(
            TargetAction.update(
                new IndexAction(schema, table, dropped, record.physicalName(), desired, prev)),
            db.indexes, record);
      default: // INSERT, UPSERT: CREATE INDEX IF NOT EXISTS
        IndexAction create =
            new IndexAction(schema, table, List.of(), record.physicalName(), desired, List.of());
        return TargetReconcileOutput.of(
            prev.isEmpty() ? TargetAction.create(create) : TargetAction.update(create),
            db.indexes, record);
    }
  }
}
