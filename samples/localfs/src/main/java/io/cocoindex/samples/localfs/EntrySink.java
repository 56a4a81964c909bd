package io.cocoindex.samples.localfs;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * The one sink of every entry of a {@link DirHandler}, so writes of all directories and
 * components are applied in shared batches. Subdirectories resolve to entry handlers of their
 * own path.
 */
final class EntrySink {
  final TargetActionSink<EntryAction> sink = TargetActionSink.withChildHandler(
      this::apply, action -> ChildTargetDef.of(new EntryHandler(Path.of(action.path()), this)));

  private void apply(List<TargetAction<EntryAction>> actions) throws IOException {
    for (TargetAction<EntryAction> a : actions) {
      EntryAction e = a.value();
      Path path = Path.of(e.path());
      if (e.remove()) {
        if (e.directory()) {
          ManagedPaths.removeDirectory(path);
        } else {
          AtomicFiles.deleteRecursively(path);
        }
        continue;
      }
      if (e.replaceKind()) {
        AtomicFiles.deleteRecursively(path);
      }
      if (e.directory()) {
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)
            && !Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
          Files.delete(path); // a stray file where the directory must be
        }
        Files.createDirectories(path);
      } else {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
          AtomicFiles.deleteRecursively(path); // a stray directory where the file must be
        }
        AtomicFiles.write(path, e.content());
      }
    }
  }
}
