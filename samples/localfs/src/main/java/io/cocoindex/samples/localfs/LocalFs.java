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
  /** Where roots given by a relative path are, or null: such roots are made absolute. */
  private final Path base;

  private LocalFs(Dirs dirs, Path base) {
    this.dirs = dirs;
    this.base = base;
  }

  /** Registers the local-files provider for this run; call it once, from the app's main. */
  public static LocalFs register(Ctx ctx) {
    return new LocalFs(Dirs.register(ctx, new DirHandler(null)), null);
  }

  /**
   * Registers the local-files provider for this run, a root given by a relative path being kept
   * relative to {@code base}: its key is that relative path, so moving {@code base} (with the
   * state store) moves the root rather than making it another target, whose files would be
   * written again and the old ones deleted. Roots given by an absolute path are as with {@link
   * #register(Ctx)}. Call it once, from the app's main.
   *
   * @param base the folder relative roots lie in, this run (its path is not tracked)
   */
  public static LocalFs register(Ctx ctx, Path base) {
    Path b = Objects.requireNonNull(base, "base").toAbsolutePath().normalize();
    return new LocalFs(Dirs.register(ctx, new DirHandler(b)), b);
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

  private DirSpec spec(Path path) {
    Objects.requireNonNull(path, "path");
    if (base != null && !path.isAbsolute()) {
      // The same key on every platform and under every base: '/'-separated.
      String relative = path.normalize().toString().replace('\\', '/');
      if (relative.isEmpty()) {
        throw new IllegalArgumentException("a root directory relative to " + base
            + " must name a folder inside it, not the base itself");
      }
      return new DirSpec(relative);
    }
    return new DirSpec(path.toAbsolutePath().normalize().toString());
  }
}
