package io.cocoindex.testkit.example;

import io.cocoindex.ActionApplier;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.List;

/**
 * Folders of notes: a container whose children are notes. Deleting a folder deletes its notes
 * with it (the service does), so no note is deleted one by one.
 *
 * <p>The handler builds its own sinks, the folders' around the generated {@link
 * FolderHandler_ChildHandlerFactory}; it takes only the I/O, as two {@link ActionApplier}s: the
 * note service's client in production, {@code RecordingSink.applier()} in tests.
 */
@ContainerTarget(provider = "example.com/notes/folder", name = "Folder", child = "Note",
    childValue = Note.class)
public final class FolderHandler implements TargetHandler<Folder, FolderRecord, FolderAction> {
  private final TargetActionSink<FolderAction> sink;
  /** One sink for the notes of every folder: one identity, so their actions batch together. */
  private final TargetActionSink<NoteAction> notes;

  public FolderHandler(ActionApplier<FolderAction> folders, ActionApplier<NoteAction> notes) {
    this.sink = TargetActionSink.withChildHandler(
        folders, new FolderHandler_ChildHandlerFactory(this));
    this.notes = TargetActionSink.of(notes);
  }

  @ChildHandler
  NoteHandler notes(FolderAction folder) { // from the action alone, no side effects
    return new NoteHandler(folder.name(), notes);
  }

  @Override
  public TargetReconcileOutput<FolderAction, FolderRecord> reconcile(
      StableKey key, Folder desired, List<FolderRecord> prev, boolean prevMayBeMissing) {
    String name = ((StableKey.Str) key).value();
    FolderRecord want = desired == null ? null : new FolderRecord(desired.color());
    DiffAction diff = StateDiff.diff(new TrackingRecordTransition<>(want, prev, prevMayBeMissing));
    if (desired == null) {
      return diff == null ? null : TargetReconcileOutput.of(
          TargetAction.delete(new FolderAction(name, null, true, false)), sink, null);
    }
    // Create or Update on every run it is declared, even unchanged: that action resolves the
    // notes' handler. Unchanged, it says so, and the sink skips it.
    FolderAction action = new FolderAction(name, desired.color(), false, diff == null);
    return TargetReconcileOutput.of(
        diff == DiffAction.INSERT ? TargetAction.create(action) : TargetAction.update(action),
        sink, want);
  }
}
