package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;
import static io.cocoindex.processor.Fixtures.source;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.testing.compile.Compilation;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * One diagnostic of a malformed {@code @NestedContainer} per test: its id and message, the file
 * and line, a single error for a single mistake (no "cannot find symbol" of a target class that
 * was not generated), and no file generated for the offending handler and its parents.
 */
class NestedContainerDiagnosticsTest {
  private static final String IMPORTS =
      "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;";

  private static String reconcile(String v, String r, String a) {
    return "  public TargetReconcileOutput<" + a + ", " + r + "> reconcile(StableKey key, " + v
        + " desired, List<" + r + "> prev, boolean mbm) { return null; }";
  }

  /**
   * A root container {@code DriveHandler} (Long actions, String children) whose children's handler is
   * {@code Items}, declared by {@code items}, and a usage of the nested API.
   */
  private static JavaFileObject drive(String... items) {
    List<String> lines = new ArrayList<>(List.of(
        "package test;",
        IMPORTS,
        "@ContainerTarget(provider = \"p\", name = \"Drive\", child = \"Item\","
            + " childValue = String.class)",
        "class DriveHandler implements TargetHandler<String, String, Long> {",
        "  @ChildHandler Items items(Long drive) { return new Items(); }",
        reconcile("String", "String", "Long"),
        "}"));
    lines.addAll(List.of(items));
    return source("DriveHandler", lines.toArray(String[]::new));
  }

  private static Compilation compile(RecordingProcessor processor, JavaFileObject... files) {
    return javac().withProcessors(processor).compile(files);
  }

  private static void assertSingleError(
      Compilation c, JavaFileObject file, String message, String lineContaining) {
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining(message).inFile(file).onLineContaining(lineContaining);
  }

  @Test
  void nestedContainerWithoutChildHandler() {
    JavaFileObject f = drive(
        "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = String.class)",
        "class Items implements TargetHandler<String, String, Integer> {",
        reconcile("String", "String", "Integer"),
        "}");
    RecordingProcessor processor = new RecordingProcessor();
    assertSingleError(
        compile(processor, f),
        f,
        "[COCO-026] @NestedContainer test.Items has no @ChildHandler method: add a method"
            + " annotated @ChildHandler that takes the nested container's action"
            + " (java.lang.Integer) and returns the TargetHandler of its Item children, or remove"
            + " @NestedContainer if none of its target states has children",
        "@NestedContainer");
    // Neither the nested target class nor the drive's, which would name it.
    assertThat(processor.created).isEmpty();
  }

  @Test
  void nestedContainerWithAMethodForgottenAsChildHandlerNamesIt() {
    JavaFileObject f = drive(
        "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = String.class)",
        "class Items implements TargetHandler<String, String, Integer> {",
        "  Items items(Integer folder) { return this; }",
        reconcile("String", "String", "Integer"),
        "}");
    assertSingleError(
        compile(new RecordingProcessor(), f),
        f,
        "[COCO-026] @NestedContainer test.Items has no @ChildHandler method: add a method"
            + " annotated @ChildHandler that takes the nested container's action"
            + " (java.lang.Integer) and returns the TargetHandler of its Item children (items()"
            + " does: annotate it @ChildHandler), or remove @NestedContainer if none of its target"
            + " states has children",
        "@NestedContainer");
  }

  @Test
  void nestedChildHandlerOfAnotherValueType() {
    JavaFileObject f = drive(
        "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = String.class)",
        "class Items implements TargetHandler<String, String, Integer> {",
        "  @ChildHandler Counts counts(Integer folder) { return new Counts(); }",
        reconcile("String", "String", "Integer"),
        "}",
        "class Counts implements TargetHandler<Long, Long, Long> {",
        reconcile("Long", "Long", "Long"),
        "}");
    RecordingProcessor processor = new RecordingProcessor();
    assertSingleError(
        compile(processor, f),
        f,
        "[COCO-027] @ChildHandler Items.counts() returns a handler of java.lang.Long values, but"
            + " @NestedContainer(childValue = String.class) declares java.lang.String children:"
            + " return a TargetHandler<java.lang.String, ?, ?> or change childValue",
        "@ChildHandler Counts counts");
    assertThat(processor.created).isEmpty();
  }

  @Test
  void nestedContainerOfAnotherPackage() {
    JavaFileObject items = com.google.testing.compile.JavaFileObjects.forSourceLines(
            "other.Items",
            "package other;",
            IMPORTS,
            "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = String.class)",
            "public class Items implements TargetHandler<String, String, Integer> {",
            "  @ChildHandler public Items items(Integer folder) { return this; }",
            reconcile("String", "String", "Integer"),
            "}");
    JavaFileObject f = source(
        "Drives",
        "package test;",
        IMPORTS,
        "@ContainerTarget(provider = \"p\", name = \"Drive\", child = \"Item\","
            + " childValue = String.class)",
        "class Drives implements TargetHandler<String, String, Long> {",
        "  @ChildHandler other.Items items(Long drive) { return new other.Items(); }",
        reconcile("String", "String", "Long"),
        "}");
    RecordingProcessor processor = new RecordingProcessor();
    assertSingleError(
        compile(processor, f, items),
        f,
        "[COCO-028] @ChildHandler Drives.items() returns the @NestedContainer handler other.Items"
            + " of package other, but the target class generated for test.Drives in package test"
            + " would construct FolderTarget, which only code of its own package can: move Items"
            + " into package test (or the container handler into other)",
        "@ChildHandler other.Items items");
    // The nested handler itself is fine: its own files are generated.
    assertThat(processor.created)
        .containsExactlyInAnyOrder("other.Items_ChildHandlerFactory", "other.FolderTarget");
  }

  @Test
  void rootAndNestedContainerDeclaringDifferentChildren() {
    JavaFileObject f = source(
        "Folders",
        "package test;",
        IMPORTS,
        "@ContainerTarget(provider = \"p\", name = \"Folder\", child = \"Item\","
            + " childValue = String.class)",
        "@NestedContainer(name = \"Subfolder\", child = \"Entry\", childValue = String.class)",
        "class Folders implements TargetHandler<String, String, String> {",
        "  @ChildHandler Folders items(String folder) { return this; }",
        reconcile("String", "String", "String"),
        "}");
    RecordingProcessor processor = new RecordingProcessor();
    assertSingleError(
        compile(processor, f),
        f,
        "[COCO-029] test.Folders is a @ContainerTarget with Item (java.lang.String) children and a"
            + " @NestedContainer with Entry (java.lang.String) children, but its one @ChildHandler"
            + " builds the handler of one kind of children: give both annotations the same child"
            + " and childValue",
        "@NestedContainer");
    assertThat(processor.created).isEmpty();
  }

  @Test
  void nestedContainerNamedLikeTheChildrenItIsAmong() {
    // declareItem would be both the drive's plain child and its nested container.
    JavaFileObject f = drive(
        "@NestedContainer(name = \"Item\", child = \"Leaf\", childValue = String.class)",
        "class Items implements TargetHandler<String, String, Integer> {",
        "  @ChildHandler Leaves leaves(Integer folder) { return new Leaves(); }",
        reconcile("String", "String", "Integer"),
        "}",
        "class Leaves implements TargetHandler<String, String, String> {",
        reconcile("String", "String", "String"),
        "}");
    RecordingProcessor processor = new RecordingProcessor();
    assertSingleError(
        compile(processor, f),
        f,
        "[COCO-020] @ContainerTarget(child = \"Item\") of test.DriveHandler and @NestedContainer(name ="
            + " \"Item\") of test.Items both generate the method test.DriveTarget.declareItem: set"
            + " child = \"...\" to another noun, or set its name = \"...\" to another noun",
        "@ContainerTarget");
    // The nested handler's own files are fine; the drive's are not generated.
    assertThat(processor.created)
        .containsExactlyInAnyOrder("test.Items_ChildHandlerFactory", "test.ItemTarget");
  }

  @Test
  void nestedContainerWithTwoChildHandlers() {
    JavaFileObject f = drive(
        "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = String.class)",
        "class Items implements TargetHandler<String, String, Integer> {",
        "  @ChildHandler Items first(Integer folder) { return this; }",
        "  @ChildHandler Items second(Integer folder) { return this; }",
        reconcile("String", "String", "Integer"),
        "}");
    RecordingProcessor processor = new RecordingProcessor();
    assertSingleError(
        compile(processor, f),
        f,
        "[COCO-016] @NestedContainer test.Items has more than one @ChildHandler method (first()"
            + " and second()): keep one",
        "second(");
    assertThat(processor.created).isEmpty();
  }

  @Test
  void nestedContainerWithAPrimitiveChildValue() {
    JavaFileObject f = drive(
        "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = int.class)",
        "class Items implements TargetHandler<String, String, Integer> {",
        "  @ChildHandler Items items(Integer folder) { return this; }",
        reconcile("String", "String", "Integer"),
        "}");
    RecordingProcessor processor = new RecordingProcessor();
    assertSingleError(
        compile(processor, f),
        f,
        "[COCO-022] @NestedContainer(childValue = int.class) of test.Items is a primitive type,"
            + " which no TargetHandler takes as its value type V: use Integer.class, with a"
            + " @ChildHandler returning a TargetHandler<Integer, ?, ?>",
        "childValue = int.class");
    assertThat(processor.created).isEmpty();
  }

  @Test
  void nestedContainerOnAClassThatIsNoHandler() {
    JavaFileObject f = source(
        "Items",
        "package test;",
        IMPORTS,
        "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = String.class)",
        "class Items {}");
    assertSingleError(
        compile(new RecordingProcessor(), f),
        f,
        "[COCO-001] @NestedContainer applies to handler classes implementing TargetHandler<V, R,"
            + " A>, but test.Items does not implement TargetHandler: implement it, or remove"
            + " @NestedContainer",
        "@NestedContainer");
  }

  @Test
  void nestedTargetClassNamedLikeTheRootsTargetClass() {
    JavaFileObject f = drive(
        "@NestedContainer(name = \"Drive\", child = \"Item\", childValue = String.class)",
        "class Items implements TargetHandler<String, String, Integer> {",
        "  @ChildHandler Items items(Integer folder) { return this; }",
        reconcile("String", "String", "Integer"),
        "}");
    Compilation c = compile(new RecordingProcessor(), f);
    assertThat(c).hadErrorCount(1);
    assertThat(c)
        .hadErrorContaining("[COCO-017] the API class test.DriveTarget generated for test.Items is"
            + " already generated for test.DriveHandler: set name = \"...\" of @NestedContainer"
            + " to another noun")
        .inFile(f)
        .onLineContaining("@NestedContainer");
  }

  @Test
  void anErrorInARecurringNestingIsReportedOnceAndTheCycleEnds() {
    // Folders hold shelves, shelves hold folders; the shelf's child noun is no identifier.
    JavaFileObject f = drive(
        "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = String.class)",
        "class Items implements TargetHandler<String, String, Integer> {",
        "  @ChildHandler Shelves shelves(Integer folder) { return new Shelves(); }",
        reconcile("String", "String", "Integer"),
        "}",
        "@NestedContainer(name = \"Shelf\", child = \"not-a-noun\", childValue = String.class)",
        "class Shelves implements TargetHandler<String, String, Short> {",
        "  @ChildHandler Items items(Short shelf) { return new Items(); }",
        reconcile("String", "String", "Short"),
        "}");
    RecordingProcessor processor = new RecordingProcessor();
    assertSingleError(
        compile(processor, f),
        f,
        "[COCO-013] @NestedContainer(child = \"not-a-noun\") of test.Shelves is not a Java"
            + " identifier",
        "child = \"not-a-noun\"");
    assertThat(processor.created).isEmpty();
  }
}
