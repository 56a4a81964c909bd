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
}
