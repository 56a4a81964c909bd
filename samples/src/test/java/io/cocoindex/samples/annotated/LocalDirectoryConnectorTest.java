package io.cocoindex.samples.annotated;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.PlannedAction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sample connector, written only with annotations and generated APIs, on a real folder. */
class LocalDirectoryConnectorTest {
  @TempDir Path tmp;
  Path base;
  App app;
  /** directory -> (file name -> content); what the app declares on the next run. */
  final Map<String, Map<String, String>> declared = new LinkedHashMap<>();
  final Map<String, Map<String, String>> metadata = new LinkedHashMap<>();

  @BeforeEach
  void setUp() {
    base = tmp.resolve("out");
    app =
        App.create(
            "localfs",
            Environment.builder().dbPath(tmp.resolve("state")).build(),
            ctx -> {
              Directories dirs = Directories.register(ctx, new DirectoryHandler(base));
              declared.forEach(
                  (path, files) -> {
                    DirectoryTarget dir = dirs.mountDirectory(ctx, new DirectorySpec(path));
                    files.forEach((name, content) -> dir.declareFile(ctx, new FileEntry(name, content)));
                    Map<String, String> meta = metadata.get(path);
                    if (meta != null) {
                      dir.declareMetadata(ctx, new Metadata("index", meta));
                    }
                  });
            });
  }

  @AfterEach
  void tearDown() {
    app.close();
  }

  @Test
  void writesDeclaredFilesAndMetadata() throws IOException {
    declared.put("docs", Map.of("a.txt", "alpha", "b.txt", "beta"));
    metadata.put("docs", Map.of("files", "2", "owner", "me"));
    app.update();
    assertThat(tree()).containsExactly("docs/", "docs/.index.properties", "docs/a.txt", "docs/b.txt");
    assertThat(Files.readString(base.resolve("docs/a.txt"))).isEqualTo("alpha");
    assertThat(Files.readString(base.resolve("docs/.index.properties")))
        .isEqualTo("files=2\nowner=me\n");
  }

  @Test
  void deletesFilesAndMetadataNoLongerDeclared() throws IOException {
    declared.put("docs", Map.of("a.txt", "alpha", "b.txt", "beta"));
    metadata.put("docs", Map.of("files", "2"));
    app.update();

    declared.put("docs", Map.of("a.txt", "alpha2"));
    metadata.remove("docs");
    app.update();
    assertThat(tree()).containsExactly("docs/", "docs/a.txt");
    assertThat(Files.readString(base.resolve("docs/a.txt"))).isEqualTo("alpha2");
  }

  @Test
  void removesADirectoryNoLongerDeclaredWithItsFiles() throws IOException {
    declared.put("docs", Map.of("a.txt", "alpha"));
    declared.put("notes", Map.of("n.txt", "note"));
    app.update();

    declared.remove("notes");
    app.update();
    assertThat(tree()).containsExactly("docs/", "docs/a.txt");
  }

  @Test
  void unchangedRunPlansOnlyTheContainersEnsureActions() {
    declared.put("docs", Map.of("a.txt", "alpha"));
    app.update();
    List<String> planned =
        app.preview().actions().stream().map(PlannedAction::toString).toList();
    assertThat(planned)
        .containsExactly(
            "cocoindex.io/samples/localfs/directory update \"docs\" DirectoryAction[path=docs,"
                + " remove=false]");
  }

  @Test
  void dropStateRemovesEverythingTheAppWrote() throws IOException {
    declared.put("docs", Map.of("a.txt", "alpha"));
    metadata.put("docs", Map.of("files", "1"));
    app.update();
    app.dropState();
    assertThat(tree()).isEmpty();
  }

  private List<String> tree() throws IOException {
    if (!Files.exists(base)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(base)) {
      return walk.filter(p -> !p.equals(base))
          .map(p -> base.relativize(p).toString().replace('\\', '/') + (Files.isDirectory(p) ? "/" : ""))
          .sorted()
          .toList();
    }
  }
}
