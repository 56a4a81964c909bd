package io.cocoindex.samples.localfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restructuring what an app writes, checked on disk: one directory reached under two keys in the
 * run that switches (a subdirectory promoted to a root, a root demoted, a root declared through a
 * link to its old path) keeps what the run wrote under the new key while the old one is removed
 * (found by an adversarial review: the old key's removal took the new files along).
 */
class LocalFsRestructureTest {
  @TempDir Path tmp;
  final List<App> apps = new ArrayList<>();

  App app(Consumer<Ctx> main) {
    App app = App.create(
        "restructure", Environment.builder().dbPath(tmp.resolve("state")).build(), main);
    apps.add(app);
    return app;
  }

  @AfterEach
  void close() {
    apps.forEach(App::close);
  }

  /** Every regular file below {@code root}, relative path to content. */
  static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> out = new TreeMap<>();
    if (!Files.exists(root)) {
      return out;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        if (Files.isRegularFile(p)) {
          out.put(root.relativize(p).toString(), Files.readString(p));
        }
      }
    }
    return out;
  }

  /**
   * Run 1 writes out/top.txt and out/sub/inner.txt, out/sub as a subdirectory of root out. Run 2
   * declares out/sub as a root of its own (with the same file) and no longer declares root out.
   * The successful run 2 must leave out/sub/inner.txt on disk.
   */
  @Test
  void aSubdirectoryPromotedToARootKeepsItsFilesAfterTheOldRootIsRemoved() throws IOException {
    Path out = tmp.resolve("out");
    boolean[] promoted = {false};
    App app = app(ctx -> {
      LocalFs fs = LocalFs.register(ctx);
      if (!promoted[0]) {
        Directory root = fs.mountDir(ctx, out);
        root.declareFile(ctx, "top.txt", "t");
        root.mountDir(ctx, "sub").declareFile(ctx, "inner.txt", "i");
      } else {
        fs.mountDir(ctx, out.resolve("sub")).declareFile(ctx, "inner.txt", "i");
      }
    });
    app.update();
    assertThat(tree(out)).isEqualTo(Map.of("top.txt", "t", "sub/inner.txt", "i"));

    promoted[0] = true;
    app.update();
    assertThat(tree(out)).as("after the successful run that promoted out/sub")
        .isEqualTo(Map.of("sub/inner.txt", "i"));
    assertThat(app.preview().changes()).isEmpty();
  }

  /** The reverse: root out/sub becomes a subdirectory of a new root out. */
  @Test
  void aRootDemotedToASubdirectoryOfANewRootKeepsItsFiles() throws IOException {
    Path out = tmp.resolve("out");
    boolean[] demoted = {false};
    App app = app(ctx -> {
      LocalFs fs = LocalFs.register(ctx);
      if (!demoted[0]) {
        fs.mountDir(ctx, out.resolve("sub")).declareFile(ctx, "inner.txt", "i");
      } else {
        Directory root = fs.mountDir(ctx, out);
        root.declareFile(ctx, "top.txt", "t");
        root.mountDir(ctx, "sub").declareFile(ctx, "inner.txt", "i");
      }
    });
    app.update();
    demoted[0] = true;
    List<String> failures = new ArrayList<>();
    try {
      app.update();
    } catch (UpdateFailedException e) {
      failures.add(e.getMessage());
    }
    assertThat(tree(out)).as("failures %s", failures)
        .isEqualTo(Map.of("top.txt", "t", "sub/inner.txt", "i"));
    assertThat(failures).isEmpty();
    assertThat(app.preview().changes()).isEmpty();
  }

  /** Two roots, one inside the other, both declared: the inner one removed leaves the outer's. */
  @Test
  void anInnerRootRemovedLeavesTheOuterRootsFiles() throws IOException {
    Path out = tmp.resolve("out");
    boolean[] inner = {true};
    App app = app(ctx -> {
      LocalFs fs = LocalFs.register(ctx);
      fs.mountDir(ctx, out).declareFile(ctx, "top.txt", "t");
      if (inner[0]) {
        fs.mountDir(ctx, out.resolve("sub")).declareFile(ctx, "inner.txt", "i");
      }
    });
    app.update();
    assertThat(tree(out)).isEqualTo(Map.of("top.txt", "t", "sub/inner.txt", "i"));
    inner[0] = false;
    app.update();
    assertThat(tree(out)).isEqualTo(Map.of("top.txt", "t"));
    assertThat(app.preview().changes()).isEmpty();
  }

  /**
   * A root declared through a symbolic link to the directory it was declared by before (a
   * "current" link, say). The run that switches writes the files through the link, then removes
   * the old root: the directory behind the link. A successful run must leave the declared files.
   */
  @Test
  void aRootDeclaredThroughALinkToItsOldPathKeepsItsFiles() throws IOException {
    Path real = tmp.resolve("real");
    Path link = tmp.resolve("current");
    Files.createDirectories(real);
    Files.createSymbolicLink(link, real);
    boolean[] viaLink = {false};
    App app = app(ctx -> {
      LocalFs fs = LocalFs.register(ctx);
      fs.mountDir(ctx, viaLink[0] ? link : real).declareFile(ctx, "f.txt", "f");
    });
    app.update();
    viaLink[0] = true;
    List<String> failures = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try {
        app.update();
      } catch (UpdateFailedException e) {
        failures.add(e.getMessage());
      }
      seen.add("run " + (run + 1) + ": real dir " + Files.isDirectory(real) + ", file "
          + Files.exists(link.resolve("f.txt")) + ", failures " + failures);
    }
    assertThat(link.resolve("f.txt")).as("%s", seen).exists();
    assertThat(failures).isEmpty();
    assertThat(app.preview().changes()).isEmpty();
  }
}
