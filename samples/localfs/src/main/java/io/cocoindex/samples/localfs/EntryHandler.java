package io.cocoindex.samples.localfs;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.NestedContainer;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/**
 * The entries of one directory. A file is rewritten (atomically) only when its content
 * fingerprint changed, or when its directory may have lost it; a subdirectory is a container
 * whose entries are handled by the entry handler of its path, and is removed with its contents
 * when no longer declared. As a {@link NestedContainer}, it has the processor generate {@code
 * SubdirTarget} (which {@link Directory} wraps), {@code declareSubdir}/{@code mountSubdir} on it
 * and on {@code DirTarget}, and the factory of {@link EntrySink}'s sink.
 */
@NestedContainer(name = "Subdir", child = "Entry", childValue = Entry.class)
final class EntryHandler implements TargetHandler<Entry, EntryRecord, EntryAction> {
  private final Path dir;
  private final EntrySink entries;
  private final boolean dirMissing;

  /**
   * @param dirMissing the directory was not there when its handler was built (before its
   *     ensure ran): removed since the last run, its entries with it
   */
  EntryHandler(Path dir, EntrySink entries, boolean dirMissing) {
    this.dir = dir;
    this.entries = entries;
    this.dirMissing = dirMissing;
  }

  /**
   * The handler of the entries of {@code dir}, which looks whether the directory is there: a
   * read, the only one the connector makes outside its sinks. It is made when the directory's
   * Create or Update resolves its children, before that action is applied (and in a preview
   * instead of it), so a directory removed since the last run is seen missing, and its files
   * are written again in the run that recreates it rather than only by a full reprocess.
   */
  static EntryHandler of(Path dir, EntrySink entries) {
    return new EntryHandler(dir, entries, !Files.isDirectory(dir));
  }

  /** The handler of a subdirectory's entries, from its Create or Update alone. */
  @ChildHandler
  EntryHandler entries(EntryAction subdir) {
    return of(Path.of(subdir.path()), entries);
  }

  /**
   * A directory found missing lost every entry: the engine reconciles each declared one as new
   * (so it is written), sends no removal for the others, and lets no memo of a component that
   * declared into it hold (its files would otherwise stay tracked, and missing, for good).
   */
  @Override
  public TargetChildInvalidation childInvalidationFound() {
    return dirMissing ? TargetChildInvalidation.DESTRUCTIVE : null;
  }

  /**
   * The invalidation of a directory's children: a directory that may be missing (an earlier
   * removal of it failed or was interrupted half-way, or an earlier create failed) may have lost
   * some of its files while it is still there, so its children are reconciled as maybe missing
   * too (LOSSY), and rewritten. A brand-new directory needs nothing: its children are new too.
   */
  static TargetChildInvalidation childInvalidation(boolean prevMayBeMissing, List<?> prev) {
    return prevMayBeMissing && !prev.isEmpty() ? TargetChildInvalidation.LOSSY : null;
  }

  @Override
  public TargetReconcileOutput<EntryAction, EntryRecord> reconcile(
      StableKey key, Entry desired, List<EntryRecord> prev, boolean prevMayBeMissing) {
    // Declared names were checked in full at declaration; a tracked one, declared under older
    // rules, need only stay in its directory to be deleted.
    String name = Names.checkSegment(key.asString());
    String path;
    try {
      path = dir.resolve(name).toString();
    } catch (InvalidPathException e) {
      if (desired == null) {
        return null; // no file can exist under a name the platform cannot encode
      }
      throw e;
    }
    if (desired == null) {
      if (prev.isEmpty() && !prevMayBeMissing) {
        return null;
      }
      boolean wasDir = prev.stream().anyMatch(EntryRecord::directory);
      boolean wasFile = prev.stream().anyMatch(r -> !r.directory());
      // With no record (a "may be missing" alone), either kind may be there.
      boolean eitherKind = wasDir == wasFile;
      return TargetReconcileOutput.of(
          TargetAction.delete(new EntryAction(path, wasDir, null, true, eitherKind)),
          entries.sink, null);
    }
    boolean kindChanged = prev.stream().anyMatch(r -> r.directory() != desired.directory());
    if (desired.directory()) {
      // A container: an action on every run, so its entries get their handler.
      EntryAction ensure = new EntryAction(path, true, null, false, kindChanged);
      return new TargetReconcileOutput<>(
          prev.isEmpty() ? TargetAction.create(ensure) : TargetAction.update(ensure),
          entries.sink, new EntryRecord(true, null),
          kindChanged ? TargetChildInvalidation.DESTRUCTIVE
              : childInvalidation(prevMayBeMissing, prev));
    }
    EntryRecord record = new EntryRecord(false, Fingerprint.ofBytes(desired.content()));
    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(record::equals)) {
      return null;
    }
    EntryAction write = new EntryAction(path, false, desired.content(), false, kindChanged);
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(write) : TargetAction.update(write),
        entries.sink, record);
  }
}
