package io.cocoindex.samples.localfs;

import io.cocoindex.Ctx;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The declared tree of one generation of {@link LocalFsKillTest}: files at the root and in
 * subdirectories (a component each), some large enough that a kill lands inside a write.
 * Consecutive generations add, change and remove files and whole subdirectories.
 */
record KillWorld(Map<String, String> rootFiles, Map<String, Map<String, String>> dirs) {
  static KillWorld of(long seed, int generation) {
    Map<String, String> root = new TreeMap<>();
    Map<String, Map<String, String>> dirs = new TreeMap<>();
    for (int d = 0; d < 12; d++) {
      // Each subdirectory exists in about two generations of three, and changes with them.
      Random r = new Random(seed * 31 + d * 1_000_003L + generation);
      if (new Random(seed + d * 7919L + generation).nextInt(3) == 0) {
        continue;
      }
      Map<String, String> files = new TreeMap<>();
      for (int f = 0; f < 25; f++) {
        if (r.nextInt(4) == 0) {
          continue; // removed in this generation
        }
        int size = r.nextInt(10) == 0 ? 200_000 : 1 + r.nextInt(2_000);
        String text = ("g" + (r.nextInt(3) == 0 ? generation : 0) + "-d" + d + "-f" + f + ";")
            .repeat(Math.max(1, size / 12));
        files.put("f" + f + ".txt", text);
      }
      dirs.put("d" + d, files);
    }
    Random r = new Random(seed ^ generation);
    for (int f = 0; f < 10; f++) {
      if (r.nextInt(3) != 0) {
        root.put("r" + f + ".txt", "root-" + f + "-" + (r.nextBoolean() ? generation : 0));
      }
    }
    return new KillWorld(root, dirs);
  }

  /** The tree {@link DiskTree} must find: exactly this, nothing else. */
  Map<String, String> expected() {
    Map<String, String> out = new TreeMap<>(rootFiles);
    dirs.forEach((d, files) -> {
      out.put(d + "/", "");
      files.forEach((n, t) -> out.put(d + "/" + n, t));
    });
    return out;
  }

  Consumer<Ctx> main(Path out) {
    return ctx -> {
      Directory root = LocalFs.register(ctx).mountDir(ctx, out);
      rootFiles.forEach((n, t) -> root.declareFile(ctx, n, t));
      dirs.forEach((d, files) -> ctx.mount(d, c -> {
        Directory sub = root.mountDir(c, d);
        files.forEach((n, t) -> sub.declareFile(c, n, t));
      }));
    };
  }
}
