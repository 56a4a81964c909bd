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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Which entry names are accepted, and that every accepted name can be written. */
class LocalFsNamesTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();
  @TempDir Path tmp;

  final Map<String, String> files = new TreeMap<>();

  Path out() {
    return tmp.resolve("out");
  }

  App filesApp() {
    return coco.app(ctx -> {
      Directory out = LocalFs.register(ctx).mountDir(ctx, out());
      files.forEach((name, text) -> out.declareFile(ctx, name, text));
    });
  }

  @Test
  void aNameOf255AsciiBytesIsWrittenAndRewrittenThroughATemporaryNameThatFits()
      throws IOException {
    String name = "n".repeat(255);
    App app = filesApp();
    files.put(name, "v1");
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(Map.of(name, "v1"));

    files.put(name, "v2");
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(Map.of(name, "v2"));

    files.clear();
    coco.update(app);
    assertThat(DiskTree.of(out())).isEmpty();
  }

  @Test
  void aNameOf250CharactersIsWritten() throws IOException {
    // 250 + 15 bytes: its plain temporary sibling would be too long for the file system.
    String name = "n".repeat(250);
    App app = filesApp();
    files.put(name, "long");
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(Map.of(name, "long"));
  }

  @Test
  void aMultiByteNameOf255BytesIsWritten() throws IOException {
    String name = "日".repeat(85); // 85 characters, 255 bytes in UTF-8
    App app = filesApp();
    files.put(name, "wide");
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(Map.of(name, "wide"));
  }

  @Test
  void aNameOfCharactersBeyondTheBasicPlaneCountsFourBytesEachUpTo255() throws IOException {
    String emoji = "\uD83D\uDCC4"; // U+1F4C4, a surrogate pair: 4 bytes in UTF-8
    String longest = emoji.repeat(63) + "abc"; // 255 bytes
    App app = filesApp();
    files.put(longest, "fits");
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(Map.of(longest, "fits"));

    files.put(emoji.repeat(64), "x"); // 64 characters twice over in UTF-16, 256 bytes
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("is 256 bytes long in UTF-8, and file names are limited to 255");
    assertThat(DiskTree.of(out())).isEqualTo(Map.of(longest, "fits"));
  }

  @Test
  void aNameLongerThan255BytesIsRejectedAtDeclarationWithItsLength() throws IOException {
    String name = "日".repeat(100); // only 100 characters, but 300 bytes in UTF-8
    App app = filesApp();
    files.put(name, "x");
    files.put("ok.txt", "ok"); // declared by the same component: nothing of it is written
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("entry name '" + name + "' is 300 bytes long in UTF-8, and file"
            + " names are limited to 255 bytes: shorten it");
    assertThat(DiskTree.of(out())).isEmpty();
  }

  @Test
  void anAsciiNameOf256BytesIsRejectedAtDeclaration() throws IOException {
    App app = filesApp();
    files.put("n".repeat(256), "x");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("is 256 bytes long in UTF-8, and file names are limited to 255"
            + " bytes: shorten it");
    assertThat(DiskTree.of(out())).isEmpty();
  }

  @Test
  void aNameWithAnUnpairedSurrogateIsRejectedAtDeclaration() throws IOException {
    App app = filesApp();
    files.put("bad\uD800.txt", "x");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("entry name 'bad\\uD800.txt' contains an unpaired surrogate (a"
            + " broken UTF-16 string): it has no file name; fix the string");
    assertThat(DiskTree.of(out())).isEmpty();
  }

  @Test
  void theTemporarySiblingOfALongNameFitsAndIsDeletedWithItsFile() throws IOException {
    String name = "é".repeat(127) + "x"; // 255 bytes
    Path target = out().resolve(name);
    Path temp = AtomicFiles.tempSibling(target);
    String tempName = temp.getFileName().toString();
    assertThat(Names.utf8Length(tempName)).isLessThanOrEqualTo(255);
    assertThat(tempName).startsWith("." + "é".repeat(111) + "~").endsWith(".cocoindex-tmp");
    assertThat(AtomicFiles.tempSibling(target)).isEqualTo(temp); // the same on every write

    // A killed write left its temporary sibling: deleting the file takes it along.
    App app = filesApp();
    files.put(name, "x");
    coco.update(app);
    Files.writeString(temp, "torn");
    files.clear();
    coco.update(app);
    assertThat(DiskTree.of(out())).isEmpty();
  }

  @Test
  void aNameShapedLikeATemporarySiblingIsRejectedAtDeclaration() throws IOException {
    // '.a.cocoindex-tmp' is where a write of 'a' goes through: it would be overwritten by it,
    // renamed onto 'a', and then never rewritten, its record saying it is there.
    App app = coco.app(ctx -> {
      Directory out = LocalFs.register(ctx).mountDir(ctx, out());
      ctx.mount("a", c -> out.declareFile(c, "a", "a"));
      ctx.mount("tmp", c -> out.declareFile(c, ".a.cocoindex-tmp", "the user's own file"));
    });
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("1 component failed")
        .hasMessageContaining("entry name '.a.cocoindex-tmp' is reserved: names that start with"
            + " '.' and end with '.cocoindex-tmp' are the temporary files of the connector's"
            + " atomic writes (a write of 'a' goes through '.a.cocoindex-tmp'); rename it");
    assertThat(DiskTree.of(out())).isEqualTo(Map.of("a", "a"));
  }

  @Test
  void reservedNamesAreRejectedForDirectoriesAndIgnoringCase() throws IOException {
    for (String reserved : new String[] {".A.COCOINDEX-TMP", ".x~0123.Cocoindex-Tmp"}) {
      App file = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out())
          .declareFile(ctx, reserved, "x"));
      assertThatThrownBy(file::update).as(reserved).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("entry name '" + reserved + "' is reserved");
      App dir = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out())
          .declareDir(ctx, reserved));
      assertThatThrownBy(dir::update).as(reserved).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("entry name '" + reserved + "' is reserved");
    }
    assertThat(DiskTree.of(out())).isEmpty();
  }

  @Test
  void namesThatOnlyResembleTemporaryNamesAreWritten() throws IOException {
    App app = filesApp();
    files.put("a.cocoindex-tmp", "no leading dot");
    files.put(".cocoindex-tmp.txt", "another suffix");
    coco.update(app);
    assertThat(DiskTree.of(out())).isEqualTo(
        Map.of("a.cocoindex-tmp", "no leading dot", ".cocoindex-tmp.txt", "another suffix"));
  }
}
