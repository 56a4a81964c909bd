package io.cocoindex.samples.redis;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.List;
import java.util.Map;

/** The hash documents of one index, compared by the fingerprint of their fields. */
final class DocumentHandler implements TargetHandler<Document, DocumentRecord, DocumentAction> {
  private final RedisDatabase db;
  private final IndexAction index;
  /** What was found when this handler was built: see {@link #childInvalidationFound}. */
  private final TargetChildInvalidation found;

  DocumentHandler(RedisDatabase db, IndexAction index, TargetChildInvalidation found) {
    this.db = db;
    this.index = index;
    this.found = found;
  }

  /**
   * {@code LOSSY} when the index's keys were found lost behind the app's back (its maker's record
   * gone: {@link IndexHandler#documents}), so that every document it declares is written again;
   * null otherwise.
   */
  @Override
  public TargetChildInvalidation childInvalidationFound() {
    return found;
  }

  @Override
  public TargetReconcileOutput<DocumentAction, DocumentRecord> reconcile(
      StableKey key, Document desired, List<DocumentRecord> prev, boolean prevMayBeMissing) {
    String id = key.asString();
    String redisKey = index.prefix() + id;
    if (desired == null) {
      if (prev.isEmpty() && !prevMayBeMissing) {
        return null;
      }
      return TargetReconcileOutput.of(
          TargetAction.delete(new DocumentAction(redisKey, Map.of(), false, true)), db.documents,
          null);
    }
    for (String field : desired.fields().keySet()) {
      if (!index.fields().contains(field)) {
        throw new IllegalArgumentException(
            "document " + id + " of index " + index.prefix() + " has field '" + field + "', which"
                + " the index does not declare " + index.fields() + ": add it to the index's"
                + " fields (IndexSpec.of(key, prefix, ..., \"" + field + "\"), which replaces a"
                + " system-managed index) or leave it out of the document");
      }
    }
    DocumentRecord record = new DocumentRecord(Fingerprint.of(desired.fields()));
    DiffAction diff = StateDiff.diff(new TrackingRecordTransition<>(record, prev, prevMayBeMissing));
    if (diff == null) {
      return null;
    }
    // A written hash may hold fields no longer declared: replace it whole, unless it is new.
    DocumentAction write = new DocumentAction(redisKey, desired.fields(), !prev.isEmpty(), false);
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(write) : TargetAction.update(write), db.documents,
        record);
  }
}
