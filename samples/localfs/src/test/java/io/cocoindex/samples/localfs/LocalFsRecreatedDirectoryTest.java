package io.cocoindex.samples.localfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.testkit.CocoIndexExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A declared directory the connector must create again (removed by a user, or by a removal that
 * failed half-way) gets its declared files back in the same run, not only after a full
 * reprocess.
 */
class LocalFsRecreatedDirectoryTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();
  @TempDir Path tmp;

  static final Map<String, String> DECLARED =
      Map.of("a.txt", "a", "sub/", "", "sub/inner.txt", "inner", "sub/deep/", "",
          "sub/deep/d.txt", "d");

  Path out() {
    return tmp.resolve("out");
  }

  App app() {
    return coco.app(ctx -> {
      Directory out = LocalFs.register(ctx).mountDir(ctx, out());
      out.declareFile(ctx, "a.txt", "a");
      Directory sub = out.mountDir(ctx, "sub");
      ctx.mount("inner", c -> sub.declareFile(c, "inner.txt", "inner"));
      sub.declareDir(ctx, "deep").declareFile(ctx, "d.txt", "d");
    });
  }

  static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted((x, y) -> y.compareTo(x))::iterator) {
        Files.delete(p);
      }
    }
  }

  @Test
  void aRootRemovedBetweenRunsIsRecreatedWithAllItsFiles() throws IOException {
    App app = app();
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(DECLARED);
    deleteTree(out());

    assertThat(coco.update(app)).containsExactly(
        "cocoindex/localfs update \"" + out() + "\"",
        "cocoindex/localfs/" + out() + " create \"a.txt\"",
        "cocoindex/localfs/" + out() + " create \"sub\"",
        "cocoindex/localfs/" + out() + "/sub create \"deep\"",
        "cocoindex/localfs/" + out() + "/sub create \"inner.txt\"",
        "cocoindex/localfs/" + out() + "/sub/deep create \"d.txt\"");
    assertThat(DiskTree.of(out())).isEqualTo(DECLARED);

    // Back to normal: only the directories' ensures.
    assertThat(coco.update(app)).containsExactly(
        "cocoindex/localfs update \"" + out() + "\"",
        "cocoindex/localfs/" + out() + " update \"sub\"",
        "cocoindex/localfs/" + out() + "/sub update \"deep\"");
  }

  @Test
  void aSubdirectoryRemovedBetweenRunsIsRecreatedWithItsFiles() throws IOException {
    App app = app();
    coco.update(app);
    deleteTree(out().resolve("sub"));
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(DECLARED);
  }

  /** Two memoized components, each writing a file into the root and one into {@code sub}. */
  App memoizedApp() {
    return coco.app(ctx -> {
      Directory out = LocalFs.register(ctx).mountDir(ctx, out());
      Directory sub = out.mountDir(ctx, "sub");
      for (String name : List.of("x", "y")) {
        ctx.mountMemo(name, Fingerprint.ofString(name), c -> {
          out.declareFile(c, name + ".txt", name);
          sub.declareFile(c, name + ".txt", name);
        });
      }
    });
  }

  static final Map<String, String> MEMOIZED_DECLARED =
      Map.of("x.txt", "x", "y.txt", "y", "sub/", "", "sub/x.txt", "x", "sub/y.txt", "y");

  @Test
  void aRootRemovedBetweenRunsGetsBackTheFilesOfMemoizedComponents() throws IOException {
    App app = memoizedApp();
    coco.update(app);
    assertThat(coco.updateWithStats(app).componentsMemoized()).isEqualTo(2);
    deleteTree(out());

    // The memos held over files that are gone: they miss, and the files are written again.
    assertThat(coco.update(app)).containsExactlyInAnyOrder(
        "cocoindex/localfs update \"" + out() + "\"",
        "cocoindex/localfs/" + out() + " create \"sub\"",
        "cocoindex/localfs/" + out() + " create \"x.txt\"",
        "cocoindex/localfs/" + out() + " create \"y.txt\"",
        "cocoindex/localfs/" + out() + "/sub create \"x.txt\"",
        "cocoindex/localfs/" + out() + "/sub create \"y.txt\"");
    assertThat(DiskTree.of(out())).isEqualTo(MEMOIZED_DECLARED);

    // Recorded again: the next run is all memo hits, and writes no file.
    UpdateStats rerun = coco.updateWithStats(app);
    assertThat(rerun.componentsMemoized()).isEqualTo(2);
    assertThat(coco.takeApplied()).containsExactly(
        "cocoindex/localfs update \"" + out() + "\"",
        "cocoindex/localfs/" + out() + " update \"sub\"");
    assertThat(DiskTree.of(out())).isEqualTo(MEMOIZED_DECLARED);
  }

  @Test
  void aSubdirectoryRemovedBetweenRunsGetsBackTheFilesOfMemoizedComponents()
      throws IOException {
    App app = memoizedApp();
    coco.update(app);
    deleteTree(out().resolve("sub"));

    assertThat(app.preview().changes()).extracting(Object::toString)
        .anyMatch(s -> s.contains("create \"x.txt\"") && s.contains("/sub"))
        .noneMatch(s -> s.contains("create \"x.txt\"") && !s.contains("/sub"));
    // Only the components' files in sub are written: those in the root are still there.
    assertThat(coco.update(app)).containsExactlyInAnyOrder(
        "cocoindex/localfs update \"" + out() + "\"",
        "cocoindex/localfs/" + out() + " update \"sub\"",
        "cocoindex/localfs/" + out() + "/sub create \"x.txt\"",
        "cocoindex/localfs/" + out() + "/sub create \"y.txt\"");
    assertThat(DiskTree.of(out())).isEqualTo(MEMOIZED_DECLARED);
  }

  @Test
  void aSubdirectoryWhosePlaceAUsersFileTookGetsItsFilesBackOnceTheWayIsClear()
      throws IOException {
    App app = app();
    coco.update(app);
    deleteTree(out().resolve("sub"));
    Files.writeString(out().resolve("sub"), "the user's file");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining(out().resolve("sub") + ": cannot create this directory");
    assertThat(DiskTree.of(out())).isEqualTo(Map.of("a.txt", "a", "sub", "the user's file"));

    Files.delete(out().resolve("sub"));
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(DECLARED);
  }

  @Test
  void aDirectoryWhoseRemovalFailedGetsAllItsFilesBackWhenDeclaredAgain() throws IOException {
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    boolean[] declared = {true};
    App app = coco.app(ctx -> {
      Directory out = LocalFs.register(ctx).mountDir(ctx, out());
      if (declared[0]) {
        out.mountDir(ctx, "sub").declareFile(ctx, "inner.txt", "inner");
      }
    });
    coco.update(app);
    // The removal of sub fails (it became a link), so it may be half done: its record says so.
    deleteTree(out().resolve("sub"));
    Files.createSymbolicLink(out().resolve("sub"), elsewhere);
    declared[0] = false;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("it is a symbolic link");

    // An empty directory where sub was: it exists, yet its file must be written again.
    Files.delete(out().resolve("sub"));
    Files.createDirectories(out().resolve("sub"));
    declared[0] = true;
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(Map.of("sub/", "", "sub/inner.txt", "inner"));
  }

  @Test
  void aPreviewShowsTheFilesARemovedDirectoryWillGetBack() throws IOException {
    App app = app();
    coco.update(app);
    deleteTree(out().resolve("sub"));
    assertThat(app.preview().changes()).extracting(Object::toString)
        .anyMatch(s -> s.contains("create \"inner.txt\""))
        .anyMatch(s -> s.contains("create \"d.txt\""))
        .noneMatch(s -> s.contains("a.txt"));
    assertThat(DiskTree.of(out())).isEqualTo(Map.of("a.txt", "a"));
  }
}
