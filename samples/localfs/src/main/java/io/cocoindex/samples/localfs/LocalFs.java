package io.cocoindex.samples.localfs;

import io.cocoindex.Ctx;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Local files as target states: directories whose files (and subdirectories) the app declares,
 * written atomically when their content changes and deleted when no longer declared.
 *
 * <pre>{@code
 * App app = App.create("export", env, ctx -> {
 *   LocalFs fs = LocalFs.register(ctx);                  // once per run, in main
 *   Directory out = fs.mountDir(ctx, Path.of("out"));    // created now, ready at once
 *   out.declareFile(ctx, "index.json", bytes);
 *   Directory nested = out.mountDir(ctx, "by-author");
 *   nested.declareFile(ctx, "jane.json", janeBytes);
 * });
 * }</pre>
 *
 * <p>Tracking: per file the fingerprint of its content; per directory its presence. A root
 * directory or subdirectory no longer declared is removed with its contents (the connector owns
 * what it writes: the "destroy" shape), except through a symbolic link: a directory that is a
 * link fails to be removed, with an error naming it, and stays tracked until the user removes
 * the link.
 */
public final class LocalFs {
  private final Dirs dirs;

  private LocalFs(Dirs dirs) {
    this.dirs = dirs;
  }

  /** Registers the local-files provider for this run; call it once, from the app's main. */
  public static LocalFs register(Ctx ctx) {
    return new LocalFs(Dirs.register(ctx, new DirHandler()));
  }

  /**
   * Declares the root directory {@code path} in the calling component; declare its entries from
   * the same component (they resolve when it commits).
   */
  public Directory declareDir(Ctx ctx, Path path) {
    return new Directory(dirs.declareDir(ctx, spec(path)).asSubdir());
  }

  /** Creates the root directory {@code path} now; entries may be declared from any component. */
  public Directory mountDir(Ctx ctx, Path path) {
    return new Directory(dirs.mountDir(ctx, spec(path)).asSubdir());
  }

  private static DirSpec spec(Path path) {
    return new DirSpec(Objects.requireNonNull(path, "path").toAbsolutePath().normalize()
        .toString());
  }
}
