package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated files of the fixture connector. Goldens live in {@code
 * src/test/resources/golden}; run with {@code COCO_UPDATE_GOLDEN=1} to rewrite them from the
 * current generator, then review the diff.
 */
class GeneratedSourcesTest {
  private static final Path GOLDEN_DIR = Path.of("src/test/resources/golden");

  @Test
  void connectorCompilesWithoutWarningsUnderLintAll() {
    Compilation c = Fixtures.compile(Fixtures.connector());
    assertThat(c).succeededWithoutWarnings();
  }

  @Test
  void theGeneratedApiPassesDoclintAsAConnectorsJavadocBuildRunsIt() {
    // A connector whose build runs doclint on its public API (maven-javadoc-plugin does, and
    // generated sources are among its sources) must not be told that the declare methods miss
    // their @param or @return. The fixture's own sources carry no Javadoc: only the generated
    // files' diagnostics are asked about.
    Compilation c = com.google.testing.compile.Compiler.javac()
        .withProcessors(new CocoIndexProcessor())
        .withOptions("-Xdoclint:all/protected")
        .compile(Fixtures.connector());
    assertThat(c).succeeded();
    List<String> generated = c.diagnostics().stream()
        .filter(d -> d.getSource() != null
            && d.getSource().toUri().getPath().startsWith("/SOURCE_OUTPUT/"))
        .map(d -> d.getSource().getName() + ":" + d.getLineNumber() + ": "
            + d.getMessage(java.util.Locale.ROOT))
        .toList();
    assertThat(generated).isEmpty();
  }

  @Test
  void everyGeneratedFileCarriesGeneratedWithoutADate() {
    Compilation c = Fixtures.compile(Fixtures.connector());
    List<String> names =
        c.generatedSourceFiles().stream().map(f -> f.getName()).sorted().toList();
    assertThat(names)
        .containsExactly(
            "/SOURCE_OUTPUT/test/Documents.java",
            "/SOURCE_OUTPUT/test/IndexSpec_Codec.java",
            "/SOURCE_OUTPUT/test/RowAction_Codec.java",
            "/SOURCE_OUTPUT/test/RowHandler_Attachments.java",
            "/SOURCE_OUTPUT/test/Row_Codec.java",
            "/SOURCE_OUTPUT/test/TableAction_Codec.java",
            "/SOURCE_OUTPUT/test/TableHandler_ChildHandlerFactory.java",
            "/SOURCE_OUTPUT/test/TableRecord_Codec.java",
            "/SOURCE_OUTPUT/test/TableSpec_Codec.java",
            "/SOURCE_OUTPUT/test/TableTarget.java",
            "/SOURCE_OUTPUT/test/Tables.java");
    for (JavaFileObject f : c.generatedSourceFiles()) {
      assertThat(content(f))
          .contains("@Generated(\"io.cocoindex.processor.CocoIndexProcessor\")")
          .doesNotContain("date =");
    }
  }

  @Test
  void everyGeneratedFileHasItsAnnotatedTypeAsItsOneOriginatingElement() {
    // What Gradle's isolating mode (META-INF/gradle/incremental.annotation.processors) needs.
    RecordingProcessor processor = new RecordingProcessor();
    Compilation c = com.google.testing.compile.Compiler.javac()
        .withProcessors(processor)
        .compile(Fixtures.connector());
    assertThat(c).succeeded();
    assertThat(processor.origins)
        .containsOnly(
            entry("test.Documents", List.of("test.DocumentHandler")),
            entry("test.IndexSpec_Codec", List.of("test.IndexSpec")),
            entry("test.RowAction_Codec", List.of("test.RowAction")),
            entry("test.RowHandler_Attachments", List.of("test.RowHandler")),
            entry("test.Row_Codec", List.of("test.Row")),
            entry("test.TableAction_Codec", List.of("test.TableAction")),
            entry("test.TableHandler_ChildHandlerFactory", List.of("test.TableHandler")),
            entry("test.TableRecord_Codec", List.of("test.TableRecord")),
            entry("test.TableSpec_Codec", List.of("test.TableSpec")),
            entry("test.TableTarget", List.of("test.TableHandler")),
            entry("test.Tables", List.of("test.TableHandler")));
  }

  @Test
  void recompilingTheContainerAloneAgainstTheEarlierClassesGeneratesTheSameFiles(
      @TempDir Path classes) throws IOException {
    // An incremental build (Gradle's isolating mode) recompiles the changed handler and what
    // uses it; the child handler, its attachments and the records' @Key come from class files.
    Compilation full = Fixtures.compile(Fixtures.connector());
    assertThat(full).succeeded();
    for (JavaFileObject f : full.generatedFiles()) {
      if (f.getKind() == JavaFileObject.Kind.CLASS) {
        Path out = classes.resolve(f.toUri().getPath().replaceFirst("^/CLASS_OUTPUT/", ""));
        Files.createDirectories(out.getParent());
        try (var in = f.openInputStream()) {
          Files.write(out, in.readAllBytes());
        }
      }
    }
    List<File> classpath = new ArrayList<>(List.of(classes.toFile()));
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      classpath.add(new File(entry));
    }
    Compilation again = com.google.testing.compile.Compiler.javac()
        .withProcessors(new CocoIndexProcessor())
        .withOptions("-Xlint:all,-processing", "-Werror")
        .withClasspath(classpath)
        .compile(
            JavaFileObjects.forResource("fixtures/test/TableHandler.java"),
            JavaFileObjects.forResource("fixtures/test/Usage.java"));
    assertThat(again).succeededWithoutWarnings();
    for (String name : List.of("Tables", "TableTarget", "TableHandler_ChildHandlerFactory")) {
      assertThat(content(again.generatedSourceFile("test/" + name).orElseThrow()))
          .isEqualTo(content(full.generatedSourceFile("test/" + name).orElseThrow()));
    }
  }

  @Test
  void generatedSourcesAreIdenticalAcrossCompilations() {
    Compilation first = Fixtures.compile(Fixtures.connector());
    Compilation second = Fixtures.compile(Fixtures.connector());
    for (JavaFileObject f : first.generatedSourceFiles()) {
      String name = f.getName().replace("/SOURCE_OUTPUT/", "").replace(".java", "");
      assertThat(content(second.generatedSourceFile(name).orElseThrow())).isEqualTo(content(f));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Row_Codec",
        "TableHandler_ChildHandlerFactory",
        "RowHandler_Attachments",
        "Tables",
        "TableTarget",
        "Documents"
      })
  void matchesGolden(String name) throws IOException {
    Compilation c = Fixtures.compile(Fixtures.connector());
    JavaFileObject generated = c.generatedSourceFile("test/" + name).orElseThrow();
    Path golden = GOLDEN_DIR.resolve(name + ".java");
    if (System.getenv("COCO_UPDATE_GOLDEN") != null) {
      Files.createDirectories(GOLDEN_DIR);
      Files.writeString(golden, content(generated), StandardCharsets.UTF_8);
    }
    assertThat(c)
        .generatedSourceFile("test/" + name)
        .hasSourceEquivalentTo(JavaFileObjects.forResource("golden/" + name + ".java"));
    assertThat(content(generated)).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
  }

  private static String content(JavaFileObject f) {
    try {
      return f.getCharContent(true).toString();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
