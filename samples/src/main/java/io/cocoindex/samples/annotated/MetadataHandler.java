package io.cocoindex.samples.annotated;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Metadata attachments of a directory, as {@code .<name>.properties} files. The tracking record
 * is the full metadata, so a change is detected by equality.
 */
final class MetadataHandler implements TargetHandler<Metadata, Metadata, MetadataAction> {
  private final Path directory;
  private final TargetActionSink<MetadataAction> sink = TargetActionSink.of(this::apply);

  MetadataHandler(Path directory) {
    this.directory = directory;
  }

  @Override
  public TargetReconcileOutput<MetadataAction, Metadata> reconcile(
      StableKey key, Metadata desired, List<Metadata> prev, boolean prevMayBeMissing) {
    String name = key.asString();
    if (desired == null) {
      return prev.isEmpty() && !prevMayBeMissing
          ? null
          : TargetReconcileOutput.of(
              TargetAction.delete(new MetadataAction(name, null)), sink, null);
    }
    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    MetadataAction write = new MetadataAction(name, desired.properties());
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(write) : TargetAction.update(write), sink, desired);
  }

  /** The file a metadata attachment is written to. */
  static Path fileOf(Path directory, String name) {
    return directory.resolve("." + name + ".properties");
  }

  private void apply(List<TargetAction<MetadataAction>> actions) throws IOException {
    for (TargetAction<MetadataAction> action : actions) {
      Path file = fileOf(directory, action.value().name());
      Map<String, String> properties = action.value().properties();
      if (properties == null) {
        Files.deleteIfExists(file);
      } else {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(properties).forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        AtomicFiles.writeAtomically(file, text.toString());
      }
    }
  }
}
