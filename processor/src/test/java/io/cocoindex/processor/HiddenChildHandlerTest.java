package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;
import static io.cocoindex.processor.Fixtures.source;

import com.google.testing.compile.Compilation;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * COCO-030: a {@code @ChildHandler} method declared to return an interface or abstract class
 * hides the target methods (attachments, nested containers) of the handler classes it may
 * return. A warning naming the method, its declared type, the hidden methods and the fix; none
 * for a leaf child handler returned as an interface, which is a legal shape.
 */
class HiddenChildHandlerTest {
  private static final String IMPORTS =
      "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;";

  private static String reconcile(String v, String r, String a) {
    return "  public TargetReconcileOutput<" + a + ", " + r + "> reconcile(StableKey key, " + v
        + " desired, List<" + r + "> prev, boolean mbm) { return null; }";
  }

  /**
   * A root container {@code DriveHandler} (Long actions, String children) whose {@code
   * @ChildHandler} is {@code childHandler}, followed by {@code more}.
   */
  private static JavaFileObject drive(String childHandler, String... more) {
    List<String> lines = new ArrayList<>(List.of(
        "package test;",
        IMPORTS,
        "@ContainerTarget(provider = \"p\", name = \"Drive\", child = \"Item\","
            + " childValue = String.class)",
        "class DriveHandler implements TargetHandler<String, String, Long> {",
        childHandler,
        reconcile("String", "String", "Long"),
        "}"));
    lines.addAll(List.of(more));
    return source("DriveHandler", lines.toArray(String[]::new));
  }

  /** A nested container handler {@code name} of String items, with Integer actions. */
  private static String[] folders(String name) {
    return new String[] {
        "@NestedContainer(name = \"Folder\", child = \"Item\", childValue = String.class)",
        "class " + name + " implements TargetHandler<String, String, Integer> {",
        "  @ChildHandler " + name + " items(Integer folder) { return this; }",
        reconcile("String", "String", "Integer"),
        "}"};
  }

  /** A handler {@code name} of String items with the attachment {@code vector_index}. */
  private static String[] indexedItems(String name, String supertype) {
    return new String[] {
        "class " + name + " implements " + supertype + " {",
        "  @Attachment(\"vector_index\") Indexes index() { return new Indexes(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return " + name + "_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "Integer"),
        "}",
        "class Indexes implements TargetHandler<Long, Long, Long> {",
        reconcile("Long", "Long", "Long"),
        "}"};
  }

  private static Compilation compile(JavaFileObject... files) {
    return javac().withProcessors(new CocoIndexProcessor()).compile(files);
  }

  @Test
  void nestedContainerReturnedAsTargetHandlerIsAWarningNamingItsMethods() {
    JavaFileObject f = drive(
        "  @ChildHandler TargetHandler<String, ?, ?> items(Long drive) { return new Items(); }",
        folders("Items"));
    Compilation c = compile(f);
    assertThat(c).succeeded();
    assertThat(c).hadWarningCount(1);
    assertThat(c)
        .hadWarningContaining(
            "[COCO-030] @ChildHandler DriveHandler.items() is declared to return"
                + " io.cocoindex.TargetHandler<java.lang.String,?,?>, which gives DriveTarget"
                + " none of the methods of test.Items (declareFolder, mountFolder): the processor"
                + " reads no method body, so it finds a child handler's attachments and nested"
                + " containers through the declared return type alone; declare items() to return"
                + " Items if it returns one, or add @SuppressWarnings(\"COCO-030\") to items() if"
                + " it returns another handler")
        .inFile(f)
        .onLineContaining("TargetHandler<String, ?, ?> items");
  }

  @Test
  void attachmentsBehindAnInterfaceOfTheConnectorAreAWarning() {
    List<String> more = new ArrayList<>(List.of(
        "interface ItemHandlers extends TargetHandler<String, String, Integer> {}"));
    more.addAll(List.of(indexedItems("Items", "ItemHandlers")));
    JavaFileObject f = drive(
        "  @ChildHandler ItemHandlers items(Long drive) { return new Items(); }",
        more.toArray(String[]::new));
    Compilation c = compile(f);
    assertThat(c).succeeded();
    assertThat(c).hadWarningCount(1);
    assertThat(c)
        .hadWarningContaining(
            "[COCO-030] @ChildHandler DriveHandler.items() is declared to return"
                + " test.ItemHandlers, which gives DriveTarget none of the methods of test.Items"
                + " (declareVectorIndex): the processor")
        .inFile(f)
        .onLineContaining("ItemHandlers items");
  }

  @Test
  void everyHandlerTheReturnTypeMayHideIsNamed() {
    List<String> more = new ArrayList<>(List.of(folders("Folders")));
    more.addAll(List.of(indexedItems("Indexed", "TargetHandler<String, String, Integer>")));
    JavaFileObject f = drive(
        "  @ChildHandler TargetHandler<String, ?, ?> items(Long drive) { return null; }",
        more.toArray(String[]::new));
    Compilation c = compile(f);
    assertThat(c).hadWarningCount(1);
    assertThat(c)
        .hadWarningContaining(
            "which gives DriveTarget none of the methods of test.Folders (declareFolder,"
                + " mountFolder) or test.Indexed (declareVectorIndex): the processor reads no"
                + " method body, so it finds a child handler's attachments and nested containers"
                + " through the declared return type alone; declare items() to return the one of"
                + " them it returns, or add @SuppressWarnings(\"COCO-030\") to items() if it"
                + " returns another handler")
        .inFile(f)
        .onLineContaining("TargetHandler<String, ?, ?> items");
  }

  @Test
  void anAbstractBaseHidesOnlyTheMethodsItLacks() {
    JavaFileObject f = drive(
        "  @ChildHandler Base items(Long drive) { return new Items(); }",
        "abstract class Base implements TargetHandler<String, String, Integer> {",
        "  @Attachment(\"tag\") Indexes tag() { return new Indexes(); }",
        "}",
        "class Items extends Base {",
        "  @Attachment(\"vector_index\") Indexes index() { return new Indexes(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return Items_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "Integer"),
        "}",
        "class Indexes implements TargetHandler<Long, Long, Long> {",
        reconcile("Long", "Long", "Long"),
        "}");
    Compilation c = compile(f);
    assertThat(c).succeeded();
    assertThat(c).hadWarningCount(1);
    assertThat(c)
        .hadWarningContaining(
            "[COCO-030] @ChildHandler DriveHandler.items() is declared to return test.Base,"
                + " which gives DriveTarget none of the methods of test.Items"
                + " (declareVectorIndex): the processor");
  }

  @Test
  void suppressedOnTheMethodItIsNoWarning() {
    JavaFileObject f = drive(
        "  @SuppressWarnings(\"COCO-030\") @ChildHandler"
            + " TargetHandler<String, ?, ?> items(Long drive) { return null; }",
        folders("Items"));
    Compilation c = compile(f);
    assertThat(c).succeeded();
    assertThat(c).hadWarningCount(0);
  }

  @Test
  void aLeafChildHandlerReturnedAsTargetHandlerIsNoWarning() {
    // Handlers with target methods, but of other children (Integer) or returned as themselves.
    List<String> more = new ArrayList<>(List.of(
        "@NestedContainer(name = \"Box\", child = \"Part\", childValue = Integer.class)",
        "class Boxes implements TargetHandler<Integer, Integer, Integer> {",
        "  @ChildHandler Boxes parts(Integer box) { return this; }",
        reconcile("Integer", "Integer", "Integer"),
        "}",
        "class Leaves implements TargetHandler<String, String, Integer> {",
        reconcile("String", "String", "Integer"),
        "}"));
    JavaFileObject f = drive(
        "  @ChildHandler TargetHandler<String, ?, ?> items(Long drive) { return new Leaves(); }",
        more.toArray(String[]::new));
    Compilation c = compile(f);
    assertThat(c).succeeded();
    assertThat(c).hadWarningCount(0);
  }
}
