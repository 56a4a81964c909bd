package io.cocoindex.samples.localfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.testkit.CocoIndexExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the connector does with what it did not write: symbolic links, and files or directories
 * a user put where it manages an entry. It never deletes them, and it says what is in the way.
 */
class LocalFsUserDataTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();
  @TempDir Path tmp;

  @Test
  void aRootDeclaredThroughASymlinkIsNotRemovedThroughIt() throws IOException {
    Path real = Files.createDirectories(tmp.resolve("real"));
    Files.writeString(real.resolve("mine.txt"), "the user's");
    Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
    boolean[] declared = {true};
    App app = coco.app(ctx -> {
      LocalFs fs = LocalFs.register(ctx);
      if (declared[0]) {
        fs.mountDir(ctx, link).declareFile(ctx, "a.txt", "a");
      }
    });
    coco.update(app);
    assertThat(DiskTree.of(real)).isEqualTo(Map.of("a.txt", "a", "mine.txt", "the user's"));

    declared[0] = false;
    for (int run = 0; run < 2; run++) { // and again: the tracking is kept, not lost
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining(link + ": cannot remove this directory, which the app no longer"
              + " declares: it is a symbolic link (to " + real + "), and cocoindex deletes"
              + " neither through a link nor a link it did not create. Its tracking is kept, and"
              + " its removal fails on every run until you remove the link yourself (and the"
              + " files it leads to, if they should go too)");
      assertThat(DiskTree.of(tmp.resolve("link"))).isEqualTo(Map.of("@", real.toString()));
      assertThat(DiskTree.of(real)).isEqualTo(Map.of("a.txt", "a", "mine.txt", "the user's"));
      assertThat(app.status().providers())
          .containsEntry("cocoindex/localfs", List.of(StableKey.of(link.toString())));
    }

    // The user removes the link: the removal has nothing left to do, and forgets the directory.
    Files.delete(link);
    assertThat(coco.update(app)).containsExactly("cocoindex/localfs delete \"" + link + "\"");
    assertThat(app.status().total()).isZero();
    assertThat(DiskTree.of(real)).isEqualTo(Map.of("a.txt", "a", "mine.txt", "the user's"));
  }

  @Test
  void dropStateRefusesARootThatIsASymlinkAndKeepsItsTracking() throws IOException {
    Path real = Files.createDirectories(tmp.resolve("real"));
    Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
    App app = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, link)
        .declareFile(ctx, "a.txt", "a"));
    coco.update(app);
    assertThatThrownBy(app::dropState)
        .hasMessageContaining(link + ": cannot remove this directory, which the app no longer"
            + " declares: it is a symbolic link (to " + real + ")");
    assertThat(DiskTree.of(real)).isEqualTo(Map.of("a.txt", "a"));
    assertThat(app.status().total()).isEqualTo(2);
  }

  @Test
  void aSubdirectoryReplacedByASymlinkIsNotRemovedThroughIt() throws IOException {
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    Files.writeString(elsewhere.resolve("keep.txt"), "keep");
    Path out = tmp.resolve("out");
    boolean[] declared = {true};
    App app = coco.app(ctx -> {
      Directory d = LocalFs.register(ctx).mountDir(ctx, out);
      if (declared[0]) {
        d.mountDir(ctx, "sub").declareFile(ctx, "f.txt", "f");
      }
    });
    coco.update(app);
    Files.delete(out.resolve("sub/f.txt"));
    Files.delete(out.resolve("sub"));
    Files.createSymbolicLink(out.resolve("sub"), elsewhere);

    declared[0] = false;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining(out.resolve("sub") + ": cannot remove this directory, which the"
            + " app no longer declares: it is a symbolic link (to " + elsewhere + ")");
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("sub@", elsewhere.toString()));
    assertThat(DiskTree.of(elsewhere)).isEqualTo(Map.of("keep.txt", "keep"));
  }

  @Test
  void aRootPathThatIsAFileFailsSayingSoAndTheFileIsKept() throws IOException {
    Path out = tmp.resolve("out");
    Files.writeString(out, "the user's file");
    App app = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out)
        .declareFile(ctx, "a.txt", "a"));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining(out + ": cannot create this directory, which the app declares: a"
            + " file is in its place; cocoindex did not write it and will not delete it: move or"
            + " delete it (or declare another path), then run again");
    assertThat(DiskTree.of(tmp)).isEqualTo(Map.of("out", "the user's file"));
  }

  @Test
  void aRootPathUnderAFileFailsNamingTheFile() throws IOException {
    Path plain = tmp.resolve("plain");
    Files.writeString(plain, "the user's file");
    Path out = plain.resolve("out");
    App app = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out)
        .declareFile(ctx, "a.txt", "a"));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining(out + ": cannot create this directory, which the app declares: "
            + plain + " is a file, not a directory; cocoindex did not write it and will not"
            + " delete it: move or delete it (or declare another path), then run again");
    assertThat(DiskTree.of(tmp)).isEqualTo(Map.of("plain", "the user's file"));
  }

  @Test
  void aDeclaredSubdirectoryReplacedByAUsersFileFailsAndTheFileIsKept() throws IOException {
    Path out = tmp.resolve("out");
    App app = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out).mountDir(ctx, "sub")
        .declareFile(ctx, "inner.txt", "inner"));
    coco.update(app);
    Files.delete(out.resolve("sub/inner.txt"));
    Files.delete(out.resolve("sub"));
    Files.writeString(out.resolve("sub"), "the user's file");

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining(out.resolve("sub") + ": cannot create this directory, which the"
            + " app declares: a file is in its place; cocoindex did not write it and will not"
            + " delete it: move or delete it (or declare another path), then run again");
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("sub", "the user's file"));
  }

  @Test
  void aChangedFileWhosePlaceADirectoryTookFailsAndTheDirectoryIsKept() throws IOException {
    Path out = tmp.resolve("out");
    String[] content = {"v1"};
    App app = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out)
        .declareFile(ctx, "a.txt", content[0]));
    coco.update(app);
    Files.delete(out.resolve("a.txt"));
    Files.createDirectories(out.resolve("a.txt"));
    Files.writeString(out.resolve("a.txt/mine"), "the user's");

    content[0] = "v2";
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining(out.resolve("a.txt") + ": cannot write this file, which the app"
            + " declares: a directory is in its place; cocoindex did not write it and will not"
            + " delete it: move or delete it, then run again");
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("a.txt/", "", "a.txt/mine", "the user's"));

    // Cleared, the next run writes it: its failed write left it "may be missing".
    Files.delete(out.resolve("a.txt/mine"));
    Files.delete(out.resolve("a.txt"));
    coco.update(app);
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("a.txt", "v2"));
  }

  @Test
  void anUndeclaredEntryWhosePlaceSomethingElseTookIsLeftAlone() throws IOException {
    Path out = tmp.resolve("out");
    boolean[] declared = {true};
    App app = coco.app(ctx -> {
      Directory d = LocalFs.register(ctx).mountDir(ctx, out);
      if (declared[0]) {
        d.declareFile(ctx, "was-file", "ours");
        d.mountDir(ctx, "was-dir").declareFile(ctx, "inner.txt", "ours");
      }
    });
    coco.update(app);
    Files.delete(out.resolve("was-file"));
    Files.createDirectories(out.resolve("was-file"));
    Files.writeString(out.resolve("was-file/mine"), "the user's");
    Files.delete(out.resolve("was-dir/inner.txt"));
    Files.delete(out.resolve("was-dir"));
    Files.writeString(out.resolve("was-dir"), "the user's");

    declared[0] = false;
    assertThat(coco.update(app)).containsExactly(
        "cocoindex/localfs update \"" + out + "\"",
        "cocoindex/localfs/" + out + " delete \"was-dir\"",
        "cocoindex/localfs/" + out + " delete \"was-file\"");
    assertThat(DiskTree.of(out)).isEqualTo(
        Map.of("was-file/", "", "was-file/mine", "the user's", "was-dir", "the user's"));
    assertThat(app.status().total()).isEqualTo(1); // the root only
  }

  @Test
  void anEntryChangingKindReplacesWhatTheAppWrote() throws IOException {
    Path out = tmp.resolve("out");
    boolean[] asDir = {false};
    App app = coco.app(ctx -> {
      Directory d = LocalFs.register(ctx).mountDir(ctx, out);
      if (asDir[0]) {
        d.mountDir(ctx, "x").declareFile(ctx, "c.txt", "child");
      } else {
        d.declareFile(ctx, "x", "file x");
      }
    });
    coco.update(app);
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("x", "file x"));
    asDir[0] = true;
    coco.update(app);
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("x/", "", "x/c.txt", "child"));
    asDir[0] = false;
    coco.update(app);
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("x", "file x"));
  }

  /**
   * Two apps writing files into one directory: each owns the directory it declares (the destroy
   * shape, as CocoIndex's {@code rmtree}), so one app's removal takes the other's files along;
   * the other app's next run finds its directory missing and writes its files again.
   */
  @Test
  void twoAppsWritingOneDirectoryConvergeAfterOneRemovesIt() throws IOException {
    Path out = tmp.resolve("out");
    App first = coco.app("first", ctx -> LocalFs.register(ctx).mountDir(ctx, out)
        .declareFile(ctx, "a.txt", "from first"));
    App second = coco.app("second", ctx -> LocalFs.register(ctx).mountDir(ctx, out)
        .declareFile(ctx, "b.txt", "from second"));
    coco.update(first);
    coco.update(second);
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("a.txt", "from first", "b.txt", "from second"));

    first.dropState();
    assertThat(Files.exists(out)).isFalse();
    assertThat(coco.update(second)).containsExactly("cocoindex/localfs update \"" + out + "\"",
        "cocoindex/localfs/" + out + " create \"b.txt\"");
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("b.txt", "from second"));
  }

  /**
   * A link planted where a write's temporary sibling goes ({@code .a.cocoindex-tmp}, in a folder
   * others can write) is removed, not written through: the file it leads to, outside the output,
   * keeps its content, and the declared file is a regular file.
   */
  @Test
  void aLinkPlantedWhereTheTemporarySiblingGoesIsNotWrittenThrough() throws IOException {
    Path out = Files.createDirectories(tmp.resolve("out"));
    Path victim = Files.writeString(tmp.resolve("victim.txt"), "precious");
    Files.createSymbolicLink(out.resolve(".a.cocoindex-tmp"), victim);
    App app = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out)
        .declareFile(ctx, "a", "the app's"));

    coco.update(app);

    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(DiskTree.of(out)).isEqualTo(Map.of("a", "the app's"));
  }
}
