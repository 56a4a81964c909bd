package io.cocoindex.testkit.example;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.List;

/** The notes of one folder; the tracking record is the fingerprint of a note. */
final class NoteHandler implements TargetHandler<Note, Fingerprint, NoteAction> {
  private final String folder;
  private final TargetActionSink<NoteAction> sink;

  NoteHandler(String folder, TargetActionSink<NoteAction> sink) {
    this.folder = folder;
    this.sink = sink;
  }

  @Override
  public TargetReconcileOutput<NoteAction, Fingerprint> reconcile(
      StableKey key, Note desired, List<Fingerprint> prev, boolean prevMayBeMissing) {
    String title = ((StableKey.Str) key).value(); // the @Key component, also for a delete
    Fingerprint want = desired == null ? null : Fingerprint.of(desired);
    DiffAction diff = StateDiff.diff(new TrackingRecordTransition<>(want, prev, prevMayBeMissing));
    if (diff == null) {
      return null;
    }
    return switch (diff) {
      case DELETE -> TargetReconcileOutput.of(
          TargetAction.delete(new NoteAction(folder, title, null)), sink, null);
      case INSERT -> TargetReconcileOutput.of(
          TargetAction.create(new NoteAction(folder, title, desired.text())), sink, want);
      case UPSERT, REPLACE -> TargetReconcileOutput.of(
          TargetAction.update(new NoteAction(folder, title, desired.text())), sink, want);
    };
  }
}
