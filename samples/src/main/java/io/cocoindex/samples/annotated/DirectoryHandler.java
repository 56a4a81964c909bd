package io.cocoindex.samples.annotated;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Directories under a base folder, each holding text files and metadata attachments. A
 * directory no longer declared is removed with its contents (the "destroy" shape: the connector
 * owns these directories).
 *
 * <pre>{@code
 * Directories dirs = Directories.register(ctx, new DirectoryHandler(base));
 * DirectoryTarget docs = dirs.mountDirectory(ctx, new DirectorySpec("docs"));
 * docs.declareFile(ctx, new FileEntry("a.txt", "hello"));
 * docs.declareMetadata(ctx, new Metadata("index", Map.of("files", "1")));
 * }</pre>
 */
@ContainerTarget(
    provider = "cocoindex.io/samples/localfs/directory",
    name = "Directory",
    child = "File",
    childValue = FileEntry.class,
    api = "Directories")
public final class DirectoryHandler
    implements TargetHandler<DirectorySpec, DirectorySpec, DirectoryAction> {
  private final Path base;
  private final TargetActionSink<DirectoryAction> sink =
      TargetActionSink.withChildHandler(this::apply, new DirectoryHandler_ChildHandlerFactory(this));

  public DirectoryHandler(Path base) {
    this.base = Objects.requireNonNull(base, "base");
  }

  @ChildHandler
  FileHandler files(DirectoryAction directory) {
    return new FileHandler(resolve(directory.path()));
  }

  @Override
  public TargetReconcileOutput<DirectoryAction, DirectorySpec> reconcile(
      StableKey key, DirectorySpec desired, List<DirectorySpec> prev, boolean prevMayBeMissing) {
    if (desired == null) {
      if (prev.isEmpty() && !prevMayBeMissing) {
        return null;
      }
      String path = prev.isEmpty() ? key.asString() : prev.get(0).path();
      return TargetReconcileOutput.of(
          TargetAction.delete(new DirectoryAction(path, true)), sink, null);
    }
    // A container returns an action on every run it is declared: its child handler is built
    // from it.
    DirectoryAction ensure = new DirectoryAction(desired.path(), false);
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(ensure) : TargetAction.update(ensure), sink, desired);
  }

  private void apply(List<TargetAction<DirectoryAction>> actions) throws IOException {
    for (TargetAction<DirectoryAction> action : actions) {
      Path dir = resolve(action.value().path());
      if (action.value().remove()) {
        AtomicFiles.deleteRecursively(dir);
      } else {
        Files.createDirectories(dir);
      }
    }
  }

  private Path resolve(String relative) {
    Path dir = base.resolve(relative).normalize();
    if (!dir.startsWith(base.normalize())) {
      throw new IllegalArgumentException("directory " + relative + " escapes the base folder");
    }
    return dir;
  }
}
