package io.cocoindex.samples.localfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.testkit.CocoIndexExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Roots relative to a base ({@link LocalFs#register(io.cocoindex.Ctx, Path)}): keyed by their
 * relative path, so a base moved between runs moves the root instead of making it another target.
 */
class LocalFsBaseTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();
  @TempDir Path tmp;

  Path base;
  /** Whether the root is given relative to the base (else by its absolute path, as before). */
  boolean relative = true;

  App app() {
    return coco.app(ctx -> {
      Directory out = relative
          ? LocalFs.register(ctx, base).mountDir(ctx, Path.of("out"))
          : LocalFs.register(ctx).mountDir(ctx, base.resolve("out"));
      out.declareFile(ctx, "a.txt", "alpha");
      out.mountDir(ctx, "sub").declareFile(ctx, "b.txt", "beta");
    });
  }

  Map<String, String> tree(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        if (Files.isRegularFile(p)) {
          out.put(dir.relativize(p).toString().replace('\\', '/'), Files.readString(p));
        }
      }
    }
    return out;
  }

  @Test
  void aRootRelativeToAMovedBaseIsTheSameTargetAndItsRerunWritesNothing() throws IOException {
    base = tmp.resolve("one");
    App app = app();
    assertThat(coco.update(app)).containsExactly(
        "cocoindex/localfs create \"out\"",
        "cocoindex/localfs/out create \"a.txt\"",
        "cocoindex/localfs/out create \"sub\"",
        "cocoindex/localfs/out/sub create \"b.txt\"");
    assertThat(tree(base.resolve("out"))).isEqualTo(Map.of("a.txt", "alpha", "sub/b.txt", "beta"));

    Path moved = tmp.resolve("two");
    Files.move(base, moved);
    base = moved;
    // The containers' refreshes only: no file written, none deleted.
    assertThat(coco.update(app)).containsExactly(
        "cocoindex/localfs update \"out\"", "cocoindex/localfs/out update \"sub\"");
    assertThat(tree(base.resolve("out"))).isEqualTo(Map.of("a.txt", "alpha", "sub/b.txt", "beta"));

    app.dropState();
    assertThat(base.resolve("out")).doesNotExist();
  }

  /**
   * A root keyed by its absolute path, then relative to its base: another key, so its files are
   * written again under the new one; the old key's removal leaves the directory and them.
   */
  @Test
  void aRootOnceKeyedByItsAbsolutePathKeepsItsFilesWhenKeyedRelativeToItsBase()
      throws IOException {
    base = tmp.resolve("ws");
    relative = false;
    App app = app();
    coco.update(app);

    relative = true;
    assertThat(coco.update(app)).containsExactlyInAnyOrder(
        "cocoindex/localfs create \"out\"",
        "cocoindex/localfs/out create \"a.txt\"",
        "cocoindex/localfs/out create \"sub\"",
        "cocoindex/localfs/out/sub create \"b.txt\"",
        "cocoindex/localfs delete \"" + base.resolve("out") + "\"");
    assertThat(tree(base.resolve("out"))).isEqualTo(Map.of("a.txt", "alpha", "sub/b.txt", "beta"));
    assertThat(coco.update(app)).containsExactly(
        "cocoindex/localfs update \"out\"", "cocoindex/localfs/out update \"sub\"");
  }

  @Test
  void theBaseItselfIsNoRoot() {
    base = tmp.resolve("ws");
    App app = coco.app(ctx -> LocalFs.register(ctx, base).mountDir(ctx, Path.of(".")));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("a root directory relative to " + base
            + " must name a folder inside it, not the base itself");
  }
}
