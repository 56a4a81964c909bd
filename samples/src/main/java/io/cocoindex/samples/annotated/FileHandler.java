package io.cocoindex.samples.annotated;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.Attachment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The text files of one directory, compared by content fingerprint; its {@code metadata}
 * attachment writes properties files beside them.
 */
final class FileHandler implements TargetHandler<FileEntry, FileRecord, FileAction> {
  private final Path directory;
  private final TargetActionSink<FileAction> sink = TargetActionSink.of(this::apply);
  private final MetadataHandler metadata;

  FileHandler(Path directory) {
    this.directory = directory;
    this.metadata = new MetadataHandler(directory);
  }

  @Attachment("metadata")
  MetadataHandler metadata() {
    return metadata;
  }

  @Override
  public Map<String, ChildTargetDef<?>> attachments() {
    return FileHandler_Attachments.of(this);
  }

  @Override
  public TargetReconcileOutput<FileAction, FileRecord> reconcile(
      StableKey key, FileEntry desired, List<FileRecord> prev, boolean prevMayBeMissing) {
    String name = key.asString();
    if (desired == null) {
      return prev.isEmpty() && !prevMayBeMissing
          ? null
          : TargetReconcileOutput.of(TargetAction.delete(new FileAction(name, null)), sink, null);
    }
    FileRecord record = new FileRecord(Fingerprint.ofString(desired.content()));
    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(record::equals)) {
      return null;
    }
    FileAction write = new FileAction(name, desired.content());
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(write) : TargetAction.update(write), sink, record);
  }

  private void apply(List<TargetAction<FileAction>> actions) throws IOException {
    for (TargetAction<FileAction> action : actions) {
      Path file = directory.resolve(action.value().name());
      if (action.value().content() == null) {
        Files.deleteIfExists(file);
      } else {
        AtomicFiles.writeAtomically(file, action.value().content());
      }
    }
  }
}
