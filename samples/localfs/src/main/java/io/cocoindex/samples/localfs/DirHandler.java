package io.cocoindex.samples.localfs;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Root directories whose entries (files and subdirectories) the app manages. A root directory
 * that is no longer declared is removed with everything in it: the "destroy" shape, since the
 * app owns what it writes there; one that is a symbolic link is not removed through the link
 * (see {@link ManagedPaths#removeDirectory}). Use it through {@link LocalFs}.
 */
@ContainerTarget(
    provider = "cocoindex/localfs",
    name = "Dir",
    child = "Entry",
    childValue = Entry.class,
    api = "Dirs")
public final class DirHandler implements TargetHandler<DirSpec, DirSpec, DirAction> {
  private final TargetActionSink<DirAction> sink =
      TargetActionSink.withChildHandler(this::apply, new DirHandler_ChildHandlerFactory(this));
  /** What this run (this handler's) ensured and wrote, which no removal in it may take. */
  private final DeclaredThisRun declared = new DeclaredThisRun();
  private final EntrySink entries = new EntrySink(declared);

  @ChildHandler
  EntryHandler entries(DirAction dir) {
    return EntryHandler.of(Path.of(dir.path()), entries);
  }

  @Override
  public TargetReconcileOutput<DirAction, DirSpec> reconcile(
      StableKey key, DirSpec desired, List<DirSpec> prev, boolean prevMayBeMissing) {
    if (desired == null) {
      String path = key.asString();
      return TargetReconcileOutput.of(TargetAction.delete(new DirAction(path, true)), sink, null);
    }
    DirAction ensure = new DirAction(desired.path(), false);
    return new TargetReconcileOutput<>(
        prev.isEmpty() ? TargetAction.create(ensure) : TargetAction.update(ensure), sink, desired,
        EntryHandler.childInvalidation(prevMayBeMissing, prev));
  }

  private void apply(List<TargetAction<DirAction>> actions) throws IOException {
    for (TargetAction<DirAction> a : actions) {
      Path dir = Path.of(a.value().path());
      if (a.value().remove()) {
        ManagedPaths.removeDirectory(dir, declared);
      } else {
        ManagedPaths.ensureDirectory(dir);
        declared.ensured(dir);
      }
    }
  }
}
