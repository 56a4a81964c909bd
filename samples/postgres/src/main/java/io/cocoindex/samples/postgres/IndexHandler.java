package io.cocoindex.samples.postgres;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.List;

/** The indexes of one table; the tracking record is the full spec, so removal knows the name. */
final class IndexHandler implements TargetHandler<IndexSpec, IndexSpec, IndexAction> {
  private final Database db;
  private final String schema;
  private final String table;

  IndexHandler(Database db, String schema, String table) {
    this.db = db;
    this.schema = schema;
    this.table = table;
  }

  @Override
  public TargetReconcileOutput<IndexAction, IndexSpec> reconcile(
      StableKey key, IndexSpec desired, List<IndexSpec> prev, boolean prevMayBeMissing) {
    DiffAction diff = StateDiff.diff(new TrackingRecordTransition<>(desired, prev, prevMayBeMissing));
    if (diff == null) {
      return null;
    }
    switch (diff) {
      case DELETE:
        return TargetReconcileOutput.of(
            TargetAction.delete(new IndexAction(schema, table, prev.get(0).name(), true, null)),
            db.indexes, null);
      case REPLACE:
        return TargetReconcileOutput.of(
            TargetAction.update(new IndexAction(schema, table, desired.name(), true, desired)),
            db.indexes, desired);
      default: // INSERT, UPSERT: CREATE INDEX IF NOT EXISTS
        IndexAction create = new IndexAction(schema, table, desired.name(), false, desired);
        return TargetReconcileOutput.of(
            prev.isEmpty() ? TargetAction.create(create) : TargetAction.update(create),
            db.indexes, desired);
    }
  }
}
