package io.cocoindex.samples.localfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.testkit.CocoIndexExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The local-files connector against the real file system. */
class LocalFsTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();
  @TempDir Path tmp;

  final Map<String, String> files = new TreeMap<>();
  final Map<String, String> nested = new TreeMap<>();
  boolean declareOut = true;

  Path out() {
    return tmp.resolve("out");
  }

  App filesApp() {
    return coco.app(ctx -> {
      LocalFs fs = LocalFs.register(ctx);
      if (!declareOut) {
        return;
      }
      Directory out = fs.mountDir(ctx, out());
      files.forEach((name, text) -> ctx.mount(name, c -> out.declareFile(c, name, text)));
      if (!nested.isEmpty()) {
        Directory sub = out.mountDir(ctx, "sub");
        nested.forEach((name, text) -> sub.declareFile(ctx, name, text));
      }
    });
  }

  Map<String, String> tree() throws IOException {
    Map<String, String> out = new TreeMap<>();
    if (!Files.exists(out())) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(out())) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        String rel = out().relativize(p).toString();
        if (Files.isRegularFile(p)) {
          out.put(rel, Files.readString(p));
        } else if (!rel.isEmpty()) {
          out.put(rel + "/", "");
        }
      }
    }
    return out;
  }

  @Test
  void createsUpdatesAndDeletesFilesAndAnUnchangedRerunWritesNothing() throws IOException {
    App app = filesApp();
    files.put("a.txt", "alpha");
    files.put("b.txt", "beta");
    assertThat(coco.update(app)).containsExactly(
        "cocoindex/localfs create \"" + out() + "\"",
        "cocoindex/localfs/" + out() + " create \"a.txt\"",
        "cocoindex/localfs/" + out() + " create \"b.txt\"");
    assertThat(tree()).isEqualTo(Map.of("a.txt", "alpha", "b.txt", "beta"));

    // Only the directory's own "ensure" runs: no file is touched.
    long mtime = Files.getLastModifiedTime(out().resolve("a.txt")).toMillis();
    assertThat(coco.update(app)).containsExactly("cocoindex/localfs update \"" + out() + "\"");
    assertThat(Files.getLastModifiedTime(out().resolve("a.txt")).toMillis()).isEqualTo(mtime);

    files.put("a.txt", "ALPHA");
    files.remove("b.txt");
    assertThat(coco.update(app)).contains(
        "cocoindex/localfs/" + out() + " update \"a.txt\"",
        "cocoindex/localfs/" + out() + " delete \"b.txt\"");
    assertThat(tree()).isEqualTo(Map.of("a.txt", "ALPHA"));
  }

  @Test
  void overwriteIsAtomicAndLeavesNoTemporaryFiles() throws IOException {
    App app = filesApp();
    files.put("doc.json", "{\"v\":1}");
    coco.update(app);
    files.put("doc.json", "{\"v\":2}");
    coco.update(app);
    try (Stream<Path> list = Files.list(out())) {
      assertThat(list.map(p -> p.getFileName().toString())).containsExactly("doc.json");
    }
    assertThat(Files.readString(out().resolve("doc.json"))).isEqualTo("{\"v\":2}");
  }

  @Test
  void emptyContentIsAnEmptyFile() throws IOException {
    App app = filesApp();
    files.put("empty", "");
    coco.update(app);
    assertThat(Files.size(out().resolve("empty"))).isZero();
    assertThat(coco.update(app)).hasSize(1); // only the directory's ensure
  }

  @Test
  void nestedDirectoriesAreContainersOfTheirOwnEntries() throws IOException {
    App app = filesApp();
    files.put("top.txt", "t");
    nested.put("inner.txt", "i");
    nested.put("other.txt", "o");
    coco.update(app);
    assertThat(tree()).isEqualTo(Map.of("top.txt", "t", "sub/", "", "sub/inner.txt", "i",
        "sub/other.txt", "o"));

    nested.remove("other.txt");
    coco.update(app);
    assertThat(tree()).isEqualTo(Map.of("top.txt", "t", "sub/", "", "sub/inner.txt", "i"));

    nested.clear();
    coco.update(app);
    assertThat(tree()).isEqualTo(Map.of("top.txt", "t"));
  }

  @Test
  void undeclaredRootDirectoryIsRemovedWithItsContents() throws IOException {
    App app = filesApp();
    files.put("a.txt", "alpha");
    nested.put("inner.txt", "i");
    coco.update(app);
    declareOut = false;
    assertThat(coco.update(app)).containsExactly("cocoindex/localfs delete \"" + out() + "\"");
    assertThat(out()).doesNotExist();
  }

  @Test
  void deletingAFileThatIsAlreadyGoneIsFine() throws IOException {
    App app = filesApp();
    files.put("a.txt", "alpha");
    coco.update(app);
    Files.delete(out().resolve("a.txt"));
    files.clear();
    assertThat(coco.update(app)).contains("cocoindex/localfs/" + out() + " delete \"a.txt\"");
  }

  @Test
  void pathTraversalAndSeparatorsAreRejectedBeforeAnythingIsWritten() {
    for (String bad : new String[] {"..", "../escape.txt", "a/b.txt", "/etc/passwd", "", "."}) {
      App app = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out())
          .declareFile(ctx, bad, "x"));
      assertThatThrownBy(app::update).as(bad).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("entry name");
    }
    assertThat(tmp.getParent().resolve("escape.txt")).doesNotExist();
    assertThat(out().resolve("a")).doesNotExist();
  }

  @Test
  void bytesAreWrittenExactly() throws IOException {
    byte[] binary = {0, 1, 2, (byte) 0xFF, 10, 13};
    App app = coco.app(ctx -> LocalFs.register(ctx).mountDir(ctx, out())
        .declareFile(ctx, "blob.bin", binary));
    coco.update(app);
    assertThat(Files.readAllBytes(out().resolve("blob.bin"))).isEqualTo(binary);
    assertThat(new String(binary, StandardCharsets.ISO_8859_1)).hasSize(6);
  }

  /**
   * A subdirectory declared as a file instead: the file replaces the directory on disk, and the
   * tracking of the directory's entries goes with it (no warning, nothing left in the status).
   * Declared a directory again, it gets its files back. (The README listed the lost tracking as
   * an engine limitation; the engine forgets the children of a state declared again without
   * children once that state is committed.)
   */
  @Test
  void aSubdirectoryDeclaredAsAFileIsReplacedAndItsEntriesTrackingGoes() throws IOException {
    boolean[] asFile = {false};
    App app = coco.app(ctx -> {
      Directory out = LocalFs.register(ctx).mountDir(ctx, out());
      if (asFile[0]) {
        out.declareFile(ctx, "sub", "now a file");
      } else {
        Directory sub = out.mountDir(ctx, "sub");
        sub.declareFile(ctx, "a.txt", "alpha");
        sub.declareFile(ctx, "b.txt", "beta");
      }
    });
    coco.update(app);
    assertThat(tree()).isEqualTo(Map.of("sub/", "", "sub/a.txt", "alpha", "sub/b.txt", "beta"));

    asFile[0] = true;
    coco.update(app);
    assertThat(tree()).isEqualTo(Map.of("sub", "now a file"));
    assertThat(app.status().providers()).isEqualTo(Map.of(
        "cocoindex/localfs", List.of(io.cocoindex.StableKey.of(out().toString())),
        "cocoindex/localfs/" + out(), List.of(io.cocoindex.StableKey.of("sub"))));
    assertThat(coco.update(app)).containsExactly("cocoindex/localfs update \"" + out() + "\"");

    asFile[0] = false;
    coco.update(app);
    assertThat(tree()).isEqualTo(Map.of("sub/", "", "sub/a.txt", "alpha", "sub/b.txt", "beta"));
  }
}
