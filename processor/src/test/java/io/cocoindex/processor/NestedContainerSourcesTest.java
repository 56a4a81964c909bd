package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static io.cocoindex.processor.Fixtures.compile;
import static io.cocoindex.processor.Fixtures.source;
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
import java.util.Locale;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The generated API of containers nested in containers: the fixture of {@code
 * src/test/resources/fixtures/nested}, a drive of items among which folders hold items again
 * (nesting that recurs), and shapes beside it. Goldens in {@code src/test/resources/golden/nested}
 * ({@code COCO_UPDATE_GOLDEN=1} rewrites them, as for {@link GeneratedSourcesTest}).
 */
class NestedContainerSourcesTest {
  private static final Path GOLDEN_DIR = Path.of("src/test/resources/golden/nested");

  private static final List<String> FIXTURE =
      List.of(
          "Item",
          "ItemAction",
          "DriveSpec",
          "DriveAction",
          "ShareSpec",
          "ShareHandler",
          "DriveHandler",
          "ItemHandler",
          "NestedUsage");

  private static List<JavaFileObject> fixture() {
    return FIXTURE.stream()
        .map(n -> JavaFileObjects.forResource("fixtures/nested/" + n + ".java"))
        .toList();
  }

  private static final String IMPORTS =
      "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;";

  private static String reconcile(String v, String r, String a) {
    return "  public TargetReconcileOutput<" + a + ", " + r + "> reconcile(StableKey key, " + v
        + " desired, List<" + r + "> prev, boolean mbm) { return null; }";
  }

  @Test
  void recursiveNestingCompilesWithoutWarningsUnderLintAll() {
    // NestedUsage calls declare/mount of folders on the drive's target and on a folder's.
    assertThat(compile(fixture())).succeededWithoutWarnings();
  }

  @Test
  void theNestedHandlerGeneratesItsTargetClassAndFactoryAsItsOnlyOrigin() {
    RecordingProcessor processor = new RecordingProcessor();
    Compilation c =
        com.google.testing.compile.Compiler.javac().withProcessors(processor).compile(fixture());
    assertThat(c).succeeded();
    assertThat(processor.origins)
        .contains(
            entry("nested.FolderTarget", List.of("nested.ItemHandler")),
            entry("nested.ItemHandler_ChildHandlerFactory", List.of("nested.ItemHandler")),
            entry("nested.DriveTarget", List.of("nested.DriveHandler")),
            entry("nested.DriveHandler_ChildHandlerFactory", List.of("nested.DriveHandler")));
    assertThat(processor.created).doesNotHaveDuplicates();
  }

  @Test
  void theGeneratedNestedApiPassesDoclint() {
    Compilation c = com.google.testing.compile.Compiler.javac()
        .withProcessors(new CocoIndexProcessor())
        .withOptions("-Xdoclint:all/protected")
        .compile(fixture());
    assertThat(c).succeeded();
    List<String> generated = c.diagnostics().stream()
        .filter(d -> d.getSource() != null
            && d.getSource().toUri().getPath().startsWith("/SOURCE_OUTPUT/"))
        .map(d -> d.getSource().getName() + ":" + d.getLineNumber() + ": "
            + d.getMessage(Locale.ROOT))
        .toList();
    assertThat(generated).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"DriveTarget", "FolderTarget", "ItemHandler_ChildHandlerFactory"})
  void matchesGolden(String name) throws IOException {
    Compilation c = compile(fixture());
    JavaFileObject generated = c.generatedSourceFile("nested/" + name).orElseThrow();
    Path golden = GOLDEN_DIR.resolve(name + ".java");
    if (System.getenv("COCO_UPDATE_GOLDEN") != null) {
      Files.createDirectories(GOLDEN_DIR);
      Files.writeString(golden, content(generated), StandardCharsets.UTF_8);
    }
    assertThat(content(generated)).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
  }

  @Test
  void recompilingTheDriveAloneAgainstTheEarlierClassesGeneratesTheSameTargetClass(
      @TempDir Path classes) throws IOException {
    // An incremental build recompiles the changed container handler; the nested handler, its
    // @NestedContainer and @ChildHandler come from class files.
    Compilation full = compile(fixture());
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
            JavaFileObjects.forResource("fixtures/nested/DriveHandler.java"),
            JavaFileObjects.forResource("fixtures/nested/NestedUsage.java"));
    assertThat(again).succeededWithoutWarnings();
    assertThat(content(again.generatedSourceFile("nested/DriveTarget").orElseThrow()))
        .isEqualTo(content(full.generatedSourceFile("nested/DriveTarget").orElseThrow()));
  }

  @Test
  void aChainOfContainersReachesTheGrandchildrenThroughEachLevelsTargetClass() {
    // Library -> Shelf (nested, its own children are books) -> Book (a leaf, with an attachment).
    JavaFileObject f =
        source(
            "Library",
            "package test;",
            IMPORTS,
            "@ContainerTarget(provider = \"p/library\", name = \"Library\", child = \"Shelf\","
                + " childValue = String.class, api = \"Libraries\")",
            "final class LibraryHandler implements TargetHandler<Integer, Integer, Integer> {",
            "  @ChildHandler ShelfHandler shelves(Integer library) { return new ShelfHandler(); }",
            reconcile("Integer", "Integer", "Integer"),
            "}",
            "@NestedContainer(name = \"Bay\", child = \"Book\", childValue = Long.class)",
            "final class ShelfHandler implements TargetHandler<String, String, String> {",
            "  @ChildHandler BookHandler books(String shelf) { return new BookHandler(); }",
            reconcile("String", "String", "String"),
            "}",
            "final class BookHandler implements TargetHandler<Long, Long, Long> {",
            "  private final Covers covers = new Covers();",
            "  @Attachment(\"cover\") Covers cover() { return covers; }",
            "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
            "    return BookHandler_Attachments.of(this);",
            "  }",
            reconcile("Long", "Long", "Long"),
            "}",
            "final class Covers implements TargetHandler<Boolean, Boolean, Boolean> {",
            reconcile("Boolean", "Boolean", "Boolean"),
            "}",
            "final class Use {",
            "  static void use(Ctx ctx) {",
            "    LibraryTarget library = Libraries.register(ctx, new LibraryHandler())",
            "        .mountLibrary(ctx, \"main\", 1);",
            "    library.declareShelf(ctx, \"plain\", \"a shelf without books\");",
            "    BayTarget bay = library.mountBay(ctx, \"b1\", \"a bay of books\");",
            "    bay.declareBook(ctx, \"isbn-1\", 1L);",
            "    bay.declareCover(ctx, \"front\", true);",
            "    library.declareBay(ctx, \"b2\", \"another\").declareBook(ctx, \"isbn-2\", 2L);",
            "  }",
            "}");
    Compilation c = strict(new CocoIndexProcessor(), f);
    assertThat(c).succeededWithoutWarnings();
    // The leaf children's target class has no nested methods: their handler is no container.
    String bay = content(c.generatedSourceFile("test/BayTarget").orElseThrow());
    assertThat(bay)
        .contains("public void declareBook(", "public void declareCover(")
        .doesNotContain("Target mount", "Target declare");
    // Shelves hold books, not shelves: no view of a library as a bay. The methods returning a
    // BayTarget are package-private, as it is (ShelfHandler is).
    assertThat(content(c.generatedSourceFile("test/LibraryTarget").orElseThrow()))
        .contains("\n  BayTarget mountBay(", "\n  BayTarget declareBay(")
        .doesNotContain("asBay", "public BayTarget");
    assertThat(c.generatedSourceFile("test/ShelfHandler_ChildHandlerFactory")).isPresent();
  }

  @Test
  void aHandlerThatIsARootContainerAndANestedOneHasOneFactory() {
    // A folder may be declared at the root and inside another folder.
    JavaFileObject f =
        source(
            "Folders",
            "package test;",
            IMPORTS,
            "@ContainerTarget(provider = \"p/folder\", name = \"Folder\", child = \"Item\","
                + " childValue = String.class)",
            "@NestedContainer(name = \"Subfolder\", child = \"Item\", childValue = String.class)",
            "final class FolderHandler implements TargetHandler<String, String, String> {",
            "  @ChildHandler FolderHandler items(String folder) { return this; }",
            reconcile("String", "String", "String"),
            "}",
            "final class Use {",
            "  static void use(Ctx ctx) {",
            "    FolderTarget root = Folders.register(ctx, new FolderHandler()).mountFolder(ctx,"
                + " \"k\", \"root\");",
            "    SubfolderTarget sub = root.mountSubfolder(ctx, \"s\", \"sub\");",
            "    sub.declareSubfolder(ctx, \"t\", \"deeper\").declareItem(ctx, \"i\", \"leaf\");",
            "  }",
            "}");
    RecordingProcessor processor = new RecordingProcessor();
    Compilation c = strict(processor, f);
    assertThat(c).succeededWithoutWarnings();
    assertThat(processor.created)
        .containsExactlyInAnyOrder(
            "test.FolderHandler_ChildHandlerFactory",
            "test.Folders",
            "test.FolderTarget",
            "test.SubfolderTarget");
  }

  /**
   * Compiles under {@code -Xlint:all -Werror} but for the auxiliary-class lint, which every
   * generated file naming a handler declared beside another in one source warns of.
   */
  private static Compilation strict(javax.annotation.processing.Processor processor,
      JavaFileObject f) {
    return com.google.testing.compile.Compiler.javac()
        .withProcessors(processor)
        .withOptions("-Xlint:all,-processing,-auxiliaryclass", "-Werror")
        .compile(f);
  }

  private static String content(JavaFileObject f) {
    try {
      return f.getCharContent(true).toString();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
