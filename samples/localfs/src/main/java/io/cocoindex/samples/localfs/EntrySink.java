package io.cocoindex.samples.localfs;

import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The one sink of every entry of a {@link DirHandler}, so writes of all directories and
 * components are applied in shared batches. Subdirectories resolve to entry handlers of their
 * own path.
 */
final class EntrySink {
  final TargetActionSink<EntryAction> sink;
  private final DeclaredThisRun declared;

  EntrySink(DeclaredThisRun declared) {
    this.declared = declared;
    // The generated factory calls EntryHandler.entries, which reads the subdirectory's action
    // alone: any entry handler over this sink serves, such as one of the file system's root.
    this.sink = TargetActionSink.withChildHandler(this::apply,
        new EntryHandler_ChildHandlerFactory(new EntryHandler(Path.of("/"), this, false)));
  }

  private void apply(List<TargetAction<EntryAction>> actions) throws IOException {
    for (TargetAction<EntryAction> a : actions) {
      EntryAction e = a.value();
      Path path = Path.of(e.path());
      if (e.replaceKind()) {
        ManagedPaths.removeEither(path); // the connector wrote the old kind, maybe the new one
        if (e.remove()) {
          continue;
        }
      }
      if (e.remove()) {
        if (e.directory()) {
          ManagedPaths.removeDirectory(path, declared);
        } else {
          ManagedPaths.removeFile(path, declared);
        }
      } else if (e.directory()) {
        ManagedPaths.ensureDirectory(path);
        declared.ensured(path);
      } else {
        ManagedPaths.writeFile(path, e.content());
        declared.wrote(path);
      }
    }
  }
}
