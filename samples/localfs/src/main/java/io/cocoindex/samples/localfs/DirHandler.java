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
  /** Where the roots keyed by a relative path are in this run, or null. */
  private final Path base;

  /** Roots keyed by their absolute paths, as {@link LocalFs#register(io.cocoindex.Ctx)}. */
  public DirHandler() {
    this(null);
  }

  /** Roots keyed by a path relative to {@code base} are there in this run. */
  DirHandler(Path base) {
    this.base = base;
  }

  @ChildHandler
  EntryHandler entries(DirAction dir) {
    return EntryHandler.of(Path.of(dir.path()), entries);
  }

  @Override
  public TargetReconcileOutput<DirAction, DirSpec> reconcile(
      StableKey key, DirSpec desired, List<DirSpec> prev, boolean prevMayBeMissing) {
    if (desired == null) {
      String path = place(key.asString());
      return TargetReconcileOutput.of(TargetAction.delete(new DirAction(path, true)), sink, null);
    }
    DirAction ensure = new DirAction(place(desired.path()), false);
    return new TargetReconcileOutput<>(
        prev.isEmpty() ? TargetAction.create(ensure) : TargetAction.update(ensure), sink, desired,
        EntryHandler.childInvalidation(prevMayBeMissing, prev));
  }

  /**
   * The absolute path of the root keyed {@code key}: the key itself, or for a key relative to the
   * base, where the base is in this run. A relative key with no base (a run that registered
   * without one) is resolved as {@link LocalFs#register(io.cocoindex.Ctx)} would have made it.
   */
  private String place(String key) {
    Path p = Path.of(key);
    if (p.isAbsolute()) {
      return key;
    }
    return (base != null ? base.resolve(p) : p.toAbsolutePath()).normalize().toString();
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
