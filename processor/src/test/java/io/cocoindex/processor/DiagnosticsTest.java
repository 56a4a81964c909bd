package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;
import static io.cocoindex.processor.Fixtures.compile;
import static io.cocoindex.processor.Fixtures.source;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import io.cocoindex.TargetHandler;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One compile-time diagnostic per test: its id and message, the file and line it points at, and
 * that a single mistake gives a single error (no cascade from missing generated classes).
 */
class DiagnosticsTest {

  private static final String HANDLER_IMPORTS =
      "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;";

  /** A handler body returning nothing: the tests are about the class shape only. */
  /**
   * A {@code @ContainerTarget} handler class {@code handler} of Long actions and String children,
   * whose {@code @ChildHandler} method is {@code childHandler}, with the children's handler.
   */
  private static JavaFileObject dirsContainer(String handler, String... childHandler) {
    List<String> lines = new ArrayList<>(List.of(
        "package test;",
        HANDLER_IMPORTS,
        "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\", childValue = String.class)",
        "class " + handler + " implements TargetHandler<String, String, Long> {",
        "  @ChildHandler"));
    lines.addAll(List.of(childHandler));
    lines.addAll(List.of(
        reconcile("String", "String", "Long"),
        "}",
        "class Files implements TargetHandler<String, String, String> {",
        reconcile("String", "String", "String"),
        "}"));
    return source(handler, lines.toArray(String[]::new));
  }

  /** A handler class {@code Rows} whose one attachment method is {@code method}. */
  private static JavaFileObject rowsWithAttachment(String method) {
    return source("Rows", "package test;", HANDLER_IMPORTS,
        "class Rows implements TargetHandler<String, String, String> {",
        "  @Attachment(\"index\") " + method,
        reconcile("String", "String", "String"),
        "}");
  }

  /**
   * An {@code attachments()} override, which a handler with {@code @Attachment} methods needs
   * (COCO-023): for the tests about another mistake of such a handler.
   */
  private static final String ATTACHMENTS_OVERRIDE =
      "  @Override public Map<String, ChildTargetDef<?>> attachments() { return Map.of(); }";

  private static String reconcile(String v, String r, String a) {
    return "  public TargetReconcileOutput<" + a + ", " + r + "> reconcile(StableKey key, " + v
        + " desired, List<" + r + "> prev, boolean mbm) { return null; }";
  }

  private static void assertSingleError(
      Compilation c, JavaFileObject file, String message, String lineContaining) {
    assertThat(c).hadErrorCount(1);
    assertThat(c).hadErrorContaining(message).inFile(file).onLineContaining(lineContaining);
  }

  @Nested
  class WrongElementKind {
    @Test
    void containerTargetOnAnInterface() {
      JavaFileObject f = source("Dirs", "package test;", HANDLER_IMPORTS,
          "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\","
              + " childValue = String.class)",
          "interface Dirs extends TargetHandler<String, String, Long> {}");
      assertSingleError(compile(f), f,
          "[COCO-001] @ContainerTarget applies to handler classes implementing"
              + " TargetHandler<V, R, A>, but test.Dirs is an interface: annotate the class"
              + " implementing it",
          "@ContainerTarget");
    }

    @Test
    void targetValueOnAnInterface() {
      JavaFileObject f =
          source("Spec", "package test;", "@io.cocoindex.annotation.TargetValue", "interface Spec {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-001] @TargetValue applies to records, but test.Spec is an interface: declare it as"
              + " a record",
          "@io.cocoindex.annotation.TargetValue");
    }

    @Test
    void targetValueOnAnEnumSaysEnumsNeedNone() {
      // Not "declare it as a record": an enum component is stored by name, annotated or not.
      JavaFileObject f =
          source(
              "Kind", "package test;", "@io.cocoindex.annotation.TargetValue", "enum Kind { A }");
      assertSingleError(
          compile(f),
          f,
          "[COCO-001] @TargetValue applies to records, but test.Kind is an enum: remove"
              + " @TargetValue, as an enum is stored by its constant's name without one",
          "@io.cocoindex.annotation.TargetValue");
    }

    @Test
    void rootTargetBesideContainerTargetIsNotIgnored() {
      JavaFileObject f =
          source(
              "Tables",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\", name = \"Table\")",
              "@ContainerTarget(provider = \"p\", name = \"Table\", child = \"Row\","
                  + " childValue = String.class)",
              "class TableHandler implements TargetHandler<String, String, Long> {",
              "  @ChildHandler Rows rows(Long table) { return new Rows(); }",
              reconcile("String", "String", "Long"),
              "}",
              "class Rows implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-001] @RootTarget applies to handler classes whose target states hold no"
              + " children, but test.TableHandler is a @ContainerTarget, which registers it as a"
              + " root already: remove @RootTarget",
          "@RootTarget");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void rootTargetOnAClassThatIsNoHandler() {
      JavaFileObject f =
          source(
              "Plain",
              "package test;",
              "@io.cocoindex.annotation.RootTarget(provider = \"p\", name = \"Plain\")",
              "class Plain {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-001] @RootTarget applies to handler classes implementing TargetHandler<V, R, A>,"
              + " but test.Plain does not implement TargetHandler: implement it, or remove"
              + " @RootTarget",
          "@io.cocoindex.annotation.RootTarget");
    }

    @Test
    void keyOnAComponentOfARecordWithoutTargetValue() {
      JavaFileObject f =
          source(
              "Pair",
              "package test;",
              "import io.cocoindex.annotation.*;",
              "record Pair(@Key String id, String text) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-001] @Key applies to components of @TargetValue records, but test.Pair is not"
              + " annotated @TargetValue: annotate it, or remove @Key",
          "record Pair(@Key String id");
    }

    @Test
    void keyOnAnActionValueSaysToRemoveIt() {
      // Not "annotate it [@TargetValue]": an action or a tracking record has no key.
      JavaFileObject f =
          source(
              "Act",
              "package test;",
              "@io.cocoindex.annotation.ActionValue",
              "record Act(@io.cocoindex.annotation.Key String id, String text) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-001] @Key applies to components of @TargetValue records, but test.Act is an"
              + " @ActionValue record, which has no key (reconcile gets the target state's):"
              + " remove @Key",
          "record Act(");
    }

    @Test
    void childHandlerInAClassWithoutContainerTarget() {
      JavaFileObject f =
          source(
              "Flat",
              "package test;",
              HANDLER_IMPORTS,
              "class Flat implements TargetHandler<String, String, String> {",
              "  @ChildHandler",
              "  Flat children(String action) { return this; }",
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-001] @ChildHandler applies to methods of @ContainerTarget handlers, but test.Flat"
              + " is not annotated @ContainerTarget: annotate it, or remove @ChildHandler (a child"
              + " handler whose target states hold children of their own is annotated"
              + " @NestedContainer instead)",
          "@ChildHandler");
    }

    @Test
    void childHandlerOnARootTargetSaysToMakeItAContainer() {
      JavaFileObject f =
          source(
              "Flat",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\", name = \"Flat\")",
              "class Flat implements TargetHandler<String, String, String> {",
              "  @ChildHandler",
              "  Flat children(String action) { return this; }",
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-001] @ChildHandler applies to methods of @ContainerTarget handlers, but test.Flat"
              + " is a @RootTarget, whose target states hold no children: make it a"
              + " @ContainerTarget(provider, name, child, childValue) if they hold some, or remove"
              + " @ChildHandler",
          "@ChildHandler");
    }

    @Test
    void attachmentInAClassThatIsNoHandler() {
      JavaFileObject f =
          source(
              "Holder",
              "package test;",
              HANDLER_IMPORTS,
              "class Holder {",
              "  @Attachment(\"index\")",
              "  Object index() { return null; }",
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-001] @Attachment applies to methods of TargetHandler classes, but test.Holder"
              + " does not implement TargetHandler: move index() into the handler whose"
              + " attachments it builds",
          "@Attachment(\"index\")");
    }
  }

  @Test
  void mutableTrackingRecord() {
    JavaFileObject f =
        source(
            "Counter",
            "package test;",
            "@io.cocoindex.annotation.TrackingRecord",
            "final class Counter {",
            "  int count;",
            "}");
    RecordingProcessor processor = new RecordingProcessor();
    Compilation c = javac().withProcessors(processor).compile(f);
    assertSingleError(
        c,
        f,
        "[COCO-002] @TrackingRecord test.Counter is a class with the non-final field 'count':"
            + " tracking records of earlier runs are compared with the desired state, so they must"
            + " be immutable; declare Counter as a record",
        "@io.cocoindex.annotation.TrackingRecord");
    assertThat(processor.created).isEmpty();
  }

  /**
   * A handler whose tracking record is a class annotated @TrackingRecord, and a record holding
   * one: the class's COCO-002 is the only error, not also a COCO-021 on the handler or a COCO-003
   * on the record (one mistake, one error, where the fix is).
   */
  @Test
  void aTrackingRecordThatIsAClassIsReportedOnceOnItself() {
    JavaFileObject f =
        source(
            "FileHandler",
            "package test;",
            HANDLER_IMPORTS,
            "@TrackingRecord // on a class",
            "final class FileRecord {",
            "  final String path = \"\";",
            "}",
            "@TrackingRecord",
            "record Listing(List<FileRecord> files) {}",
            "@RootTarget(provider = \"p\", name = \"File\")",
            "class FileHandler implements TargetHandler<String, FileRecord, String> {",
            reconcile("String", "FileRecord", "String"),
            "}");
    RecordingProcessor processor = new RecordingProcessor();
    Compilation c = javac().withProcessors(processor).compile(f);
    assertSingleError(
        c,
        f,
        "[COCO-002] @TrackingRecord test.FileRecord is a class, not a record:",
        "@TrackingRecord // on a class");
  }

  @Nested
  class UnserializableComponent {
    @Test
    void rawListAndRawMap() {
      JavaFileObject f = source("Bag", "package test;", "import java.util.*;",
          "@io.cocoindex.annotation.TargetValue",
          "@SuppressWarnings(\"rawtypes\") record Bag(",
          "    List items) {}",
          "@io.cocoindex.annotation.TargetValue",
          "@SuppressWarnings(\"rawtypes\") record Index(",
          "    Map entries) {}");
      Compilation c = compile(f);
      assertThat(c).hadErrorCount(2);
      assertThat(c).hadErrorContaining("[COCO-003] component 'items' of test.Bag has type"
          + " java.util.List, which cannot be serialized: the raw java.util.List has no element"
          + " type; write its type argument").inFile(f).onLineContaining("List items");
      assertThat(c).hadErrorContaining("[COCO-003] component 'entries' of test.Index has type"
          + " java.util.Map, which cannot be serialized: the raw java.util.Map has no key and"
          + " value types; write them").inFile(f).onLineContaining("Map entries");
    }

    @Test
    void objectInsideAList() {
      JavaFileObject f =
          source(
              "Bag",
              "package test;",
              "import java.util.List;",
              "@io.cocoindex.annotation.TargetValue",
              "record Bag(String name,",
              "    List<Object> items) {}",
              "@io.cocoindex.annotation.TargetValue",
              "record Fine(String name) {}");
      RecordingProcessor processor = new RecordingProcessor();
      Compilation c = javac().withProcessors(processor).compile(f);
      assertSingleError(
          c,
          f,
          "[COCO-003] component 'items' of test.Bag has type java.util.List<java.lang.Object>,"
              + " which cannot be serialized: java.lang.Object is not a supported type; use a"
              + " primitive or its box, String, byte[], UUID, Fingerprint, StableKey, an enum, a"
              + " record annotated @TargetValue",
          "List<Object> items");
      assertThat(processor.created).containsExactly("test.Fine_Codec");
    }

    @Test
    void recordWithoutCodecAnnotation() {
      JavaFileObject f =
          source(
              "Table",
              "package test;",
              "import java.util.List;",
              "record Column(String name) {}",
              "@io.cocoindex.annotation.TargetValue",
              "record Table(String name,",
              "    List<Column> columns) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'columns' of test.Table has type java.util.List<test.Column>, which"
              + " cannot be serialized: the record test.Column has no generated codec; annotate it"
              + " with @TargetValue (or @ActionValue, @TrackingRecord)",
          "List<Column> columns");
    }

    @Test
    void setOfUnorderedElements() {
      JavaFileObject f =
          source(
              "Tags",
              "package test;",
              "import java.util.Set;",
              "@io.cocoindex.annotation.TargetValue",
              "record Tag(String name) {}",
              "@io.cocoindex.annotation.TargetValue",
              "record Tags(Set<Tag> tags) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'tags' of test.Tags has type java.util.Set<test.Tag>, which cannot"
              + " be serialized: the elements of a Set are stored sorted so equal sets store equal"
              + " bytes, and test.Tag has no natural order",
          "record Tags(Set<Tag> tags)");
    }

    @Test
    void arrayOtherThanBytes() {
      JavaFileObject f =
          source(
              "Vec", "package test;", "@io.cocoindex.annotation.TargetValue", "record Vec(float[] v) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'v' of test.Vec has type float[], which cannot be serialized:"
              + " arrays other than byte[] are not supported; use List<Float>",
          "record Vec(float[] v)");
    }

    /** A JDK value type without a codec: the message says how to store it and read it back. */
    @Test
    void jdkValueTypeSaysWhatToStoreItAs() {
      JavaFileObject f =
          source(
              "Seen",
              "package test;",
              "@io.cocoindex.annotation.TrackingRecord",
              "record Seen(String etag, java.time.Instant modified) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'modified' of test.Seen has type java.time.Instant, which cannot be"
              + " serialized: java.time.Instant is not a supported type; store it as a String"
              + " (toString(), read back by Instant.parse) or a long (toEpochMilli(), read back by"
              + " Instant.ofEpochMilli), or use a primitive or its box, String, byte[], UUID,"
              + " Fingerprint, StableKey, an enum, a record annotated @TargetValue (or"
              + " @ActionValue, @TrackingRecord), or a List, Set, Map<String, ?> or Optional of"
              + " those",
          "java.time.Instant modified");
    }

    @Test
    void arrayOfArrays() {
      JavaFileObject f =
          source(
              "Grid", "package test;", "@io.cocoindex.annotation.TargetValue", "record Grid(int[][] cells) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'cells' of test.Grid has type int[][], which cannot be serialized:"
              + " arrays other than byte[] are not supported; use List<List<Integer>>",
          "record Grid(int[][] cells)");
    }

    @Test
    void arrayOfElementsThatCannotBeSerializedEither() {
      // "use List<Object>" would only lead to the next error.
      JavaFileObject f =
          source(
              "Bag", "package test;", "@io.cocoindex.annotation.TargetValue", "record Bag(Object[] items) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'items' of test.Bag has type java.lang.Object[], which cannot be"
              + " serialized: arrays other than byte[] are not supported, and neither are their"
              + " elements: java.lang.Object is not a supported type; use a primitive or its box,"
              + " String, byte[], UUID, Fingerprint, StableKey, an enum, a record annotated"
              + " @TargetValue (or @ActionValue, @TrackingRecord), or a List, Set, Map<String, ?> or"
              + " Optional of those",
          "record Bag(Object[] items)");
    }

    @Test
    void mapWithNonStringKeys() {
      JavaFileObject f =
          source(
              "Counts",
              "package test;",
              "import java.util.Map;",
              "@io.cocoindex.annotation.TrackingRecord",
              "record Counts(Map<Integer, Long> byId) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'byId' of test.Counts has type"
              + " java.util.Map<java.lang.Integer,java.lang.Long>, which cannot be serialized: Map"
              + " keys are stored as field names, so they must be String, not java.lang.Integer",
          "record Counts(");
    }

    @Test
    void optionalOfAnOptional() {
      // Both empties are stored as null (as the reflective codec stores them): one would read
      // back as the other.
      JavaFileObject f =
          source(
              "Note",
              "package test;",
              "import java.util.Optional;",
              "@io.cocoindex.annotation.TargetValue",
              "record Note(Optional<Optional<String>> text) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'text' of test.Note has type"
              + " java.util.Optional<java.util.Optional<java.lang.String>>, which cannot be"
              + " serialized: an Optional of an Optional is stored as null when either is empty, so"
              + " Optional.of(Optional.empty()) would read back as Optional.empty(); use one"
              + " Optional",
          "record Note(");
    }
  }

  @Test
  void containerWithoutChildHandler() {
    JavaFileObject f =
        source(
            "Dirs",
            "package test;",
            HANDLER_IMPORTS,
            "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\", childValue = String.class)",
            "class Dirs implements TargetHandler<String, String, Long> {",
            reconcile("String", "String", "Long"),
            "}");
    RecordingProcessor processor = new RecordingProcessor();
    Compilation c = javac().withProcessors(processor).compile(f);
    assertSingleError(
        c,
        f,
        "[COCO-004] @ContainerTarget test.Dirs has no @ChildHandler method: add a method annotated"
            + " @ChildHandler that takes the container's action (java.lang.Long) and returns the"
            + " TargetHandler of its File children",
        "@ContainerTarget");
    assertThat(processor.created).isEmpty();
  }

  @Test
  void containerWithAMethodForgottenAsChildHandlerNamesIt() {
    JavaFileObject f =
        source(
            "Dirs",
            "package test;",
            HANDLER_IMPORTS,
            "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\","
                + " childValue = String.class)",
            "class Dirs implements TargetHandler<String, String, Long> {",
            "  static Files shared(Long dir) { return new Files(); }",
            "  String name(Long dir) { return \"\"; }",
            "  Files files(Number dir) { return new Files(); }",
            reconcile("String", "String", "Long"),
            "}",
            "class Files implements TargetHandler<String, String, String> {",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-004] @ContainerTarget test.Dirs has no @ChildHandler method: add a method annotated"
            + " @ChildHandler that takes the container's action (java.lang.Long) and returns the"
            + " TargetHandler of its File children (files() does: annotate it @ChildHandler)",
        "@ContainerTarget");
  }

  @Test
  void childHandlerWithAnotherValueType() {
    JavaFileObject f =
        source(
            "Dirs",
            "package test;",
            HANDLER_IMPORTS,
            "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\", childValue = byte[].class)",
            "class Dirs implements TargetHandler<String, String, String> {",
            "  @ChildHandler",
            "  Files files(String dir) { return new Files(); }",
            reconcile("String", "String", "String"),
            "}",
            "class Files implements TargetHandler<String, String, String> {",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-005] @ChildHandler Dirs.files() returns a handler of java.lang.String values, but"
            + " @ContainerTarget(childValue = byte[].class) declares byte[] children: return a"
            + " TargetHandler<byte[], ?, ?> or change childValue",
        "@ChildHandler");
  }

  @Nested
  class PrimitiveChildValue {
    private JavaFileObject container(String childValue, String childHandler) {
      return source(
          "Dirs",
          "package test;",
          HANDLER_IMPORTS,
          "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\",",
          "    childValue = " + childValue + ".class)",
          "class DirHandler implements TargetHandler<String, String, String> {",
          "  @ChildHandler",
          "  " + childHandler + " files(String dir) { return new " + childHandler + "(); }",
          reconcile("String", "String", "String"),
          "}",
          "class Files implements TargetHandler<String, String, String> {",
          reconcile("String", "String", "String"),
          "}",
          "class Counts implements TargetHandler<Integer, String, String> {",
          reconcile("Integer", "String", "String"),
          "}");
    }

    @Test
    void primitiveChildValueNamesItsBox() {
      // Not "return a TargetHandler<int, ?, ?>", which is no Java type.
      JavaFileObject f = container("int", "Files");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-022] @ContainerTarget(childValue = int.class) of test.DirHandler is a primitive"
              + " type, which no TargetHandler takes as its value type V: use Integer.class, with a"
              + " @ChildHandler returning a TargetHandler<Integer, ?, ?>",
          "childValue = int.class");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void primitiveChildValueIsReportedEvenWithAChildHandlerOfItsBox() {
      JavaFileObject f = container("long", "Counts");
      assertSingleError(
          compile(f),
          f,
          "[COCO-022] @ContainerTarget(childValue = long.class) of test.DirHandler is a primitive"
              + " type, which no TargetHandler takes as its value type V: use Long.class",
          "childValue = long.class");
    }

    @Test
    void childValueNamingTheChildrensHandlerClassNamesItsValueType() {
      // Not COCO-005's "return a TargetHandler<test.Files, ?, ?>".
      JavaFileObject f = container("Files", "Files");
      assertSingleError(
          compile(f),
          f,
          "[COCO-022] @ContainerTarget(childValue = test.Files.class) of test.DirHandler is a"
              + " TargetHandler class (the children's handler, not their value), which no"
              + " TargetHandler takes as its value type V: set it to the class of the children's"
              + " values, String.class, the V of test.Files",
          "childValue = Files.class");
    }

    @Test
    void voidChildValue() {
      JavaFileObject f = container("void", "Files");
      assertSingleError(
          compile(f),
          f,
          "[COCO-022] @ContainerTarget(childValue = void.class) of test.DirHandler is void, which no"
              + " TargetHandler takes as its value type V: set it to the class of the children's"
              + " values",
          "childValue = void.class");
    }

    @Test
    void genericChildValue() {
      // Not COCO-005's "return a TargetHandler<java.util.List, ?, ?>", a raw type COCO-010 rejects.
      JavaFileObject f = container("java.util.List", "Files");
      assertSingleError(
          compile(f),
          f,
          "[COCO-022] @ContainerTarget(childValue = java.util.List.class) of test.DirHandler is a"
              + " generic class, named raw by its class literal, which no TargetHandler takes as its"
              + " value type V: give the children a value type without type parameters, e.g. a"
              + " record holding the java.util.List<...>",
          "childValue = java.util.List.class");
    }
  }

  @Test
  void duplicateAttachmentName() {
    JavaFileObject f =
        source(
            "Rows",
            "package test;",
            HANDLER_IMPORTS,
            "class Rows implements TargetHandler<String, String, String> {",
            "  @Attachment(\"index\") Rows first() { return this; }",
            "  @Attachment(\"index\") Rows second() { return this; }",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-006] attachment 'index' of test.Rows is declared twice (also by first()): give each"
            + " @Attachment method a distinct name",
        "second()");
  }

  @Test
  void attachmentsNotReturnedFromAttachments() {
    JavaFileObject f =
        source(
            "Rows",
            "package test;",
            HANDLER_IMPORTS,
            "class Rows implements TargetHandler<String, String, String> {",
            "  @Attachment(\"index\") Rows index() { return this; }",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-023] test.Rows has @Attachment methods (index()) but does not override"
            + " attachments(), so the engine never registers them and declaring one fails at run"
            + " time: add @Override public Map<String, ChildTargetDef<?>> attachments() { return"
            + " Rows_Attachments.of(this); }",
        "class Rows");
  }

  @Test
  void attachmentsReturnedByASuperclassMissTheSubclasssOwn() {
    // Base_Attachments.of knows Base's attachments only: Rows's own would never be registered.
    JavaFileObject base =
        source(
            "Base",
            "package test;",
            HANDLER_IMPORTS,
            "abstract class Base implements TargetHandler<String, String, String> {",
            "  @Attachment(\"index\") Base index() { return this; }",
            "  @Override public Map<String, ChildTargetDef<?>> attachments() {"
                + " return Base_Attachments.of(this); }",
            "}");
    JavaFileObject rows =
        source(
            "Rows",
            "package test;",
            HANDLER_IMPORTS,
            "class Rows extends Base {",
            "  @Attachment(\"other\") Rows other() { return this; }",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(base, rows),
        rows,
        "[COCO-023] test.Rows has @Attachment methods (other()) but does not override"
            + " attachments(), so the engine never registers them and declaring one fails at run"
            + " time: add @Override public Map<String, ChildTargetDef<?>> attachments() { return"
            + " Rows_Attachments.of(this); }",
        "class Rows");
  }

  @Test
  void attachmentsInheritedFromAnAbstractClassThatNeverReturnsThem() {
    JavaFileObject base =
        source(
            "Base",
            "package test;",
            HANDLER_IMPORTS,
            "abstract class Base implements TargetHandler<String, String, String> {",
            "  @Attachment(\"index\") Base index() { return this; }",
            "}");
    JavaFileObject rows =
        source(
            "Rows",
            "package test;",
            HANDLER_IMPORTS,
            "@RootTarget(provider = \"rows\", name = \"Row\")",
            "class Rows extends Base {",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(base, rows),
        rows,
        "[COCO-023] test.Rows has @Attachment methods (index()) but does not override"
            + " attachments(), so the engine never registers them and declaring one fails at run"
            + " time: add @Override public Map<String, ChildTargetDef<?>> attachments() { return"
            + " Base_Attachments.of(this); }",
        "class Rows");
  }

  @Test
  void attachmentNameThatIsNoIdentifier() {
    JavaFileObject f =
        source(
            "Rows",
            "package test;",
            HANDLER_IMPORTS,
            "class Rows implements TargetHandler<String, String, String> {",
            "  @Attachment(\"vector-index\") Rows vectors() { return this; }",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-007] attachment name 'vector-index' of test.Rows.vectors() is not a Java"
            + " identifier: use letters, digits and '_' ('vector_index' would become the method"
            + " declareVectorIndex)",
        "@Attachment(\"vector-index\")");
  }

  /** The fix named is the author's own name made an identifier, or an example when it cannot be. */
  @Test
  void attachmentNameThatIsNoIdentifierIsShownMadeOne() {
    for (String[] name : new String[][] {
        {"by title", "'by_title' would become the method declareByTitle"},
        {"2d", "'vector_index' would become the method declareVectorIndex"}}) {
      JavaFileObject f =
          source(
              "Rows",
              "package test;",
              HANDLER_IMPORTS,
              "class Rows implements TargetHandler<String, String, String> {",
              "  @Attachment(\"" + name[0] + "\") Rows vectors() { return this; }",
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-007] attachment name '" + name[0] + "' of test.Rows.vectors() is not a Java"
              + " identifier: use letters, digits and '_' (" + name[1] + ")",
          "@Attachment(\"" + name[0] + "\")");
    }
  }

  @Test
  void twoHandlersWithOneProviderName() {
    JavaFileObject first =
        source(
            "First",
            "package test;",
            HANDLER_IMPORTS,
            "@RootTarget(provider = \"shared\", name = \"First\")",
            "class First implements TargetHandler<String, String, String> {",
            reconcile("String", "String", "String"),
            "}");
    JavaFileObject second =
        source(
            "Second",
            "package test;",
            HANDLER_IMPORTS,
            "@RootTarget(provider = \"shared\", name = \"Second\")",
            "class Second implements TargetHandler<String, String, String> {",
            reconcile("String", "String", "String"),
            "}");
    RecordingProcessor processor = new RecordingProcessor();
    Compilation c = javac().withProcessors(processor).compile(first, second);
    assertSingleError(
        c,
        second,
        "[COCO-008] provider name 'shared' of test.Second is already used by test.First in this"
            + " compilation: provider names must be unique in an app; choose another name",
        "@RootTarget(provider = \"shared\", name = \"Second\")");
    assertThat(processor.created).containsExactly("test.Firsts");
  }

  @Nested
  class GeneratedNameClash {
    /** A handler of String values named {@code name} with {@code members} inside. */
    private JavaFileObject handler(String name, String annotation, String... members) {
      List<String> lines = new ArrayList<>(List.of("package test;", HANDLER_IMPORTS));
      if (!annotation.isEmpty()) {
        lines.add(annotation);
      }
      lines.add("class " + name + " implements TargetHandler<String, String, String> {");
      lines.addAll(List.of(members));
      if (String.join("", members).contains("@Attachment")) {
        lines.add(ATTACHMENTS_OVERRIDE);
      }
      lines.add(reconcile("String", "String", "String"));
      lines.add("}");
      return source(name, lines.toArray(String[]::new));
    }

    @Test
    void attachmentsWhoseNamesDifferOnlyInUnderscore() {
      JavaFileObject f =
          handler(
              "Rows",
              "",
              "  @Attachment(\"vector_index\") Rows a() { return this; }",
              "  @Attachment(\"vectorIndex\") Rows b() { return this; }");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-020] @Attachment(\"vectorIndex\") on test.Rows.b() and"
              + " @Attachment(\"vector_index\") on test.Rows.a() both generate the method"
              + " declareVectorIndex and the constant test.Rows_Attachments.VECTOR_INDEX: attachment"
              + " names that differ only in case or '_' give the same Java names; rename one of the"
              + " attachments",
          "@Attachment(\"vectorIndex\")");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void attachmentsOfARootWhoseNamesDifferOnlyInCase() {
      JavaFileObject f =
          handler(
              "Docs",
              "@RootTarget(provider = \"p\", name = \"Page\")",
              "  @Attachment(\"vector_index\") Docs a() { return this; }",
              "  @Attachment(\"VectorIndex\") Docs b() { return this; }");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-020] @Attachment(\"VectorIndex\") on test.Docs.b() and"
              + " @Attachment(\"vector_index\") on test.Docs.a() both generate the method"
              + " declareVectorIndex and the constant test.Docs_Attachments.VECTOR_INDEX",
          "@Attachment(\"VectorIndex\")");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void attachmentsWhoseConstantsAloneClash() {
      JavaFileObject f =
          handler(
              "Rows",
              "",
              "  @Attachment(\"HTTPServer\") Rows a() { return this; }",
              "  @Attachment(\"httpserver\") Rows b() { return this; }");
      assertSingleError(
          compile(f),
          f,
          "[COCO-020] @Attachment(\"httpserver\") on test.Rows.b() and"
              + " @Attachment(\"HTTPServer\") on test.Rows.a() both generate the constant"
              + " test.Rows_Attachments.HTTPSERVER: attachment names",
          "@Attachment(\"httpserver\")");
    }

    @Test
    void attachmentsWhoseDeclareMethodsAloneClash() {
      JavaFileObject f =
          handler(
              "Rows",
              "",
              "  @Attachment(\"by__text\") Rows a() { return this; }",
              "  @Attachment(\"byText\") Rows b() { return this; }");
      assertSingleError(
          compile(f),
          f,
          "[COCO-020] @Attachment(\"byText\") on test.Rows.b() and @Attachment(\"by__text\") on"
              + " test.Rows.a() both generate the method declareByText: attachment names",
          "@Attachment(\"byText\")");
    }

    @Test
    void rootAttachmentNamedLikeTheTarget() {
      JavaFileObject f =
          handler(
              "Handler",
              "@RootTarget(provider = \"p\", name = \"Row\")",
              "  @Attachment(\"row\") Handler self() { return this; }");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-020] @Attachment(\"row\") on test.Handler.self() and @RootTarget(name = \"Row\")"
              + " of test.Handler both generate the method test.Rows.declareRow: rename the"
              + " attachment, or set name = \"...\" to another noun",
          "@Attachment(\"row\")");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void rootAttachmentNamedLikeTheTargetClashesWhateverItsValueType() {
      // declareRow(ctx, String) and declareRow(ctx, Object key, Long) would be overloads, one
      // declaring a row and the other an attachment: every generated name is kept distinct.
      JavaFileObject f =
          source(
              "Handler",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\", name = \"Row\")",
              "class Handler implements TargetHandler<String, String, String> {",
              "  @Attachment(\"row\") Longs longs() { return new Longs(); }",
              ATTACHMENTS_OVERRIDE,
              reconcile("String", "String", "String"),
              "}",
              "class Longs implements TargetHandler<Long, String, String> {",
              reconcile("Long", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-020] @Attachment(\"row\") on test.Handler.longs() and @RootTarget(name ="
              + " \"Row\") of test.Handler both generate the method test.Rows.declareRow",
          "@Attachment(\"row\")");
    }

    @Test
    void containerAttachmentNamedLikeTheContainer() {
      JavaFileObject f =
          source(
              "Dirs",
              "package test;",
              HANDLER_IMPORTS,
              "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\","
                  + " childValue = String.class)",
              "class DirHandler implements TargetHandler<String, String, Long> {",
              "  @ChildHandler Files files(Long dir) { return new Files(); }",
              "  @Attachment(\"dir\") Files dirs() { return new Files(); }",
              ATTACHMENTS_OVERRIDE,
              reconcile("String", "String", "Long"),
              "}",
              "class Files implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-020] @Attachment(\"dir\") on test.DirHandler.dirs() and @ContainerTarget(name ="
              + " \"Dir\") of test.DirHandler both generate the method test.Dirs.declareDir: rename"
              + " the attachment, or set name = \"...\" to another noun",
          "@Attachment(\"dir\")");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void childAttachmentNamedLikeTheChild() {
      JavaFileObject container =
          source(
              "DirHandler",
              "package test;",
              HANDLER_IMPORTS,
              "@ContainerTarget(provider = \"p\", name = \"Dir\",",
              "    child = \"File\", childValue = String.class)",
              "class DirHandler implements TargetHandler<String, String, Long> {",
              "  @ChildHandler FileHandler files(Long dir) { return new FileHandler(); }",
              reconcile("String", "String", "Long"),
              "}");
      JavaFileObject child =
          handler("FileHandler", "", "  @Attachment(\"file\") FileHandler self() { return this; }");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(container, child),
          container,
          "[COCO-020] @ContainerTarget(child = \"File\") of test.DirHandler and"
              + " @Attachment(\"file\") on test.FileHandler.self() both generate the method"
              + " test.DirTarget.declareFile: set child = \"...\" to another noun, or rename the"
              + " attachment",
          "child = \"File\"");
      // The child handler is valid on its own: only the container's files are missing.
      assertThat(processor.created).containsExactly("test.FileHandler_Attachments");
    }

    @Test
    void apiClassNamedLikeTheTargetClass() {
      JavaFileObject f =
          source(
              "DirHandler",
              "package test;",
              HANDLER_IMPORTS,
              "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\",",
              "    childValue = String.class, api = \"DirTarget\")",
              "class DirHandler implements TargetHandler<String, String, Long> {",
              "  @ChildHandler Files files(Long dir) { return new Files(); }",
              reconcile("String", "String", "Long"),
              "}",
              "class Files implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-020] @ContainerTarget(name = \"Dir\") of test.DirHandler and"
              + " @ContainerTarget(api = \"DirTarget\") of test.DirHandler both generate the class"
              + " test.DirTarget: set name = \"...\" to another noun, or set api = \"...\" to another"
              + " class name",
          "@ContainerTarget(provider = \"p\"");
    }

    @Test
    void apiClassNamedLikeTheAttachmentsClass() {
      JavaFileObject f =
          handler(
              "Store",
              "@RootTarget(provider = \"p\", name = \"Item\", api = \"Store_Attachments\")",
              "  @Attachment(\"index\") Store index() { return this; }");
      assertSingleError(
          compile(f),
          f,
          "[COCO-020] @RootTarget(api = \"Store_Attachments\") of test.Store and the @Attachment"
              + " methods of test.Store both generate the class test.Store_Attachments: set api ="
              + " \"...\" to another class name",
          "api = \"Store_Attachments\"");
    }
  }

  /** A container whose child handler has an invalid attachment: its target class would lack it. */
  @Nested
  class ChildHandlerWithInvalidAttachments {
    private final JavaFileObject container =
        source(
            "DirHandler",
            "package test;",
            HANDLER_IMPORTS,
            "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\","
                + " childValue = String.class)",
            "class DirHandler implements TargetHandler<String, String, Long> {",
            "  @ChildHandler lib.FileHandler files(Long dir) { return new lib.FileHandler(); }",
            reconcile("String", "String", "Long"),
            "}");
    private final JavaFileObject child =
        JavaFileObjects.forSourceLines(
            "lib.FileHandler",
            "package lib;",
            HANDLER_IMPORTS,
            "public class FileHandler implements TargetHandler<String, String, String> {",
            "  @Attachment(\"index\") static FileHandler index() { return null; }",
            "  @Attachment(\"other\") public FileHandler other() { return this; }",
            "  public TargetReconcileOutput<String, String> reconcile(StableKey key, String desired,"
                + " List<String> prev, boolean mbm) { return null; }",
            "}");

    @Test
    void inTheCompilationAreReportedOnTheChildHandlerAlone() {
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(container, child),
          child,
          "[COCO-012] @Attachment lib.FileHandler.index() is static",
          "@Attachment(\"index\")");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void fromALibraryAreReportedOnTheChildHandlerMethod(@TempDir Path classes) throws IOException {
      Compilation library = javac().compile(child);
      assertThat(library).succeeded();
      for (JavaFileObject f : library.generatedFiles()) {
        if (f.getKind() == JavaFileObject.Kind.CLASS) {
          Path out = classes.resolve(f.toUri().getPath().replaceFirst("^/CLASS_OUTPUT/", ""));
          Files.createDirectories(out.getParent());
          try (InputStream in = f.openInputStream()) {
            Files.copy(in, out);
          }
        }
      }
      File api;
      try {
        api = new File(TargetHandler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      } catch (URISyntaxException e) {
        throw new IllegalStateException(e);
      }
      RecordingProcessor processor = new RecordingProcessor();
      Compilation c =
          javac()
              .withProcessors(processor)
              .withClasspath(List.of(classes.toFile(), api))
              .compile(container);
      assertSingleError(
          c,
          container,
          "[COCO-012] @Attachment lib.FileHandler.index() is static: it must be an instance method"
              + " with no parameters returning a TargetHandler with concrete type arguments",
          "@ChildHandler");
      assertThat(processor.created).isEmpty();
    }
  }

  @Test
  void keyComponentOfUnsupportedType() {
    JavaFileObject f =
        source(
            "Point",
            "package test;",
            "import io.cocoindex.annotation.*;",
            "@TargetValue",
            "record Point(@Key double x, String label) {}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-009] @Key component 'x' of test.Point has type double, which cannot be part of a"
            + " StableKey: use String, long, int, short, byte, boolean (or their boxes), UUID,"
            + " byte[], Fingerprint or StableKey",
        "record Point(@Key double x");
  }

  @Test
  void keyComponentOfATypeThatCannotBeSerializedEitherIsOneError() {
    // Not COCO-003 too: any type COCO-009 suggests is serializable.
    JavaFileObject f =
        source(
            "Entry",
            "package test;",
            "import io.cocoindex.annotation.*;",
            "@TargetValue",
            "record Entry(@Key java.nio.file.Path path, String text) {}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-009] @Key component 'path' of test.Entry has type java.nio.file.Path, which cannot"
            + " be part of a StableKey: store it as a String (toString(), read back by Path.of),"
            + " or use String, long, int, short, byte, boolean (or their boxes), UUID, byte[],"
            + " Fingerprint or StableKey",
        "record Entry(@Key java.nio.file.Path path");
  }

  @Nested
  class UnresolvedHandlerTypes {
    @Test
    void typeVariableAsValueType() {
      JavaFileObject f =
          source(
              "Generic",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\", name = \"Item\")",
              "class Generic<T> implements TargetHandler<T, String, String> {",
              reconcile("T", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-010] test.Generic has T as its value type V: the engine serializes values,"
              + " tracking records and actions by the handler's type arguments; implement"
              + " TargetHandler<V, R, A> with concrete types (no type variables or wildcards)",
          "@RootTarget");
    }

    @Test
    void rawHandler() {
      JavaFileObject f =
          source(
              "Raw",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\", name = \"Item\")",
              "@SuppressWarnings(\"rawtypes\")",
              "class Raw implements TargetHandler {",
              "  public TargetReconcileOutput reconcile(StableKey key, Object desired, List prev,"
                  + " boolean mbm) { return null; }",
              "}");
      Compilation c = javac().withProcessors(new CocoIndexProcessor()).compile(f);
      assertSingleError(
          c,
          f,
          "[COCO-010] test.Raw implements the raw type TargetHandler: the engine serializes",
          "@RootTarget");
    }

    @Test
    void handlerExtendingARawBaseClass() {
      // The raw TargetHandler comes from the base: its type arguments are what to write.
      JavaFileObject f =
          source(
              "Items",
              "package test;",
              HANDLER_IMPORTS,
              "abstract class Base<T> implements TargetHandler<String, String, String> {}",
              "@RootTarget(provider = \"p\", name = \"Item\")",
              "@SuppressWarnings(\"rawtypes\")",
              "class Items extends Base {",
              "  public TargetReconcileOutput reconcile(StableKey key, Object desired, List prev,"
                  + " boolean mbm) { return null; }",
              "}");
      Compilation c = javac().withProcessors(new CocoIndexProcessor()).compile(f);
      assertSingleError(
          c,
          f,
          "[COCO-010] test.Items extends the raw type test.Base, which erases the type arguments"
              + " of its TargetHandler (write them: Base<...>): the engine serializes",
          "@RootTarget");
    }
  }

  @Nested
  class UnserializableHandlerType {
    private static final String SUPPORTED =
        "use String, a boxed primitive, byte[], UUID, Fingerprint, StableKey, an enum, a record"
            + " (annotated @TargetValue, @ActionValue or @TrackingRecord for a generated codec), or"
            + " a List, Set, Map<String, ?> or Optional of those";

    /** A root handler {@code ThingHandler} of {@code TargetHandler<v, r, a>}, then {@code more} lines. */
    private JavaFileObject root(String v, String r, String a, String... more) {
      List<String> lines = new ArrayList<>(List.of(
          "package test;",
          HANDLER_IMPORTS,
          "@RootTarget(provider = \"p\", name = \"Thing\")",
          "class ThingHandler implements TargetHandler<" + v + ", " + r + ", " + a + "> {",
          reconcile(v, r, a),
          "}"));
      lines.addAll(List.of(more));
      return source("ThingHandler", lines.toArray(String[]::new));
    }

    @Test
    void objectAsValueType() {
      JavaFileObject f = root("Object", "String", "String");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-021] @RootTarget handler test.ThingHandler has java.lang.Object as its value type V,"
              + " which cannot be serialized (the engine stores and copies values, tracking records"
              + " and actions through the codecs of the handler's type arguments):"
              + " java.lang.Object is not a supported type; "
              + SUPPORTED,
          "@RootTarget");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void jdkValueTypeAsTrackingRecordSaysWhatToStoreItAs() {
      JavaFileObject f = root("String", "java.math.BigDecimal", "String");
      assertSingleError(
          compile(f),
          f,
          "[COCO-021] @RootTarget handler test.ThingHandler has java.math.BigDecimal as its"
              + " tracking record type R, which cannot be serialized (the engine stores and copies"
              + " values, tracking records and actions through the codecs of the handler's type"
              + " arguments): java.math.BigDecimal is not a supported type; store it as a String"
              + " (toString(), read back by new BigDecimal; a double would round it), or "
              + SUPPORTED,
          "@RootTarget");
    }

    @Test
    void eachUnserializableTypeArgumentIsReported() {
      JavaFileObject f = root("Thread", "java.io.File", "Runnable");
      Compilation c = compile(f);
      assertThat(c).hadErrorCount(3);
      assertThat(c)
          .hadErrorContaining(
              "[COCO-021] @RootTarget handler test.ThingHandler has java.lang.Thread as its value type V,"
                  + " which cannot be serialized")
          .inFile(f)
          .onLineContaining("@RootTarget");
      assertThat(c)
          .hadErrorContaining(
              "has java.io.File as its tracking record type R, which cannot be serialized")
          .inFile(f)
          .onLineContaining("@RootTarget");
      assertThat(c)
          .hadErrorContaining(
              "has java.lang.Runnable as its action type A, which cannot be serialized")
          .inFile(f)
          .onLineContaining("@RootTarget");
    }

    @Test
    void unannotatedRecordWithAnUnserializableComponent() {
      JavaFileObject f =
          root("Plain", "Plain", "Plain", "record Plain(String a, Object b) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-021] @RootTarget handler test.ThingHandler has test.Plain as its value type V, tracking"
              + " record type R and action type A, which cannot be serialized (the engine stores"
              + " and copies values, tracking records and actions through the codecs of the"
              + " handler's type arguments): the record test.Plain, without @TargetValue,"
              + " @ActionValue or @TrackingRecord, is serialized reflectively, and its component"
              + " 'b' has type java.lang.Object: java.lang.Object is not a supported type; "
              + SUPPORTED,
          "@RootTarget");
    }

    @Test
    void genericUnannotatedRecordIsCheckedWithItsTypeArguments() {
      JavaFileObject f =
          root(
              "Pair<String, Object>",
              "String",
              "String",
              "record Pair<L, R>(L left, List<R> right) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-021] @RootTarget handler test.ThingHandler has test.Pair<java.lang.String,"
              + "java.lang.Object> as its value type V, which cannot be serialized (the engine"
              + " stores and copies values, tracking records and actions through the codecs of the"
              + " handler's type arguments): the record test.Pair, without @TargetValue,"
              + " @ActionValue or @TrackingRecord, is serialized reflectively, and its component"
              + " 'right' has type java.util.List<java.lang.Object>: java.lang.Object is not a"
              + " supported type",
          "@RootTarget");
    }

    @Test
    void unannotatedRecordsOfSerializableComponentsAreSerializedReflectively() {
      // What the runtime's reflective codec writes today keeps compiling: records without
      // annotation, generic or recursive, and collections of them.
      JavaFileObject handler =
          root("Pair<String, Node>", "List<Node>", "Map<String, Optional<Pair<Long, String>>>");
      Compilation c =
          compile(
              handler,
              source("Pair", "package test;", "record Pair<L, R>(L left, java.util.List<R> right) {}"),
              source(
                  "Node",
                  "package test;",
                  "record Node(String name, java.util.List<Node> children, Level level,"
                      + " byte[] data) {}"),
              source("Level", "package test;", "enum Level { LOW, HIGH }"));
      assertThat(c).succeededWithoutWarnings();
      assertThat(c).generatedSourceFile("test/Things");
    }

    @Test
    void annotatedRecordWithAnUnserializableComponentIsReportedOnTheRecordAlone() {
      JavaFileObject f =
          root(
              "Row",
              "String",
              "String",
              "@TargetValue record Row(String id,",
              "    Object payload) {}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-003] component 'payload' of test.Row has type java.lang.Object",
          "Object payload");
    }

    @Test
    void childHandlerWithAnUnserializableActionType() {
      JavaFileObject f =
          source(
              "Dirs",
              "package test;",
              HANDLER_IMPORTS,
              "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\","
                  + " childValue = String.class)",
              "class DirHandler implements TargetHandler<String, String, Long> {",
              "  @ChildHandler",
              "  Files files(Long dir) { return new Files(); }",
              reconcile("String", "String", "Long"),
              "}",
              "class Files implements TargetHandler<String, String, Thread> {",
              reconcile("String", "String", "Thread"),
              "}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-021] the handler test.Files returned by @ChildHandler test.DirHandler.files() has"
              + " java.lang.Thread as its action type A, which cannot be serialized",
          "@ChildHandler");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void typeArgumentsAChildHandlerMethodLeavesOpenAreLeftToTheRuntime() {
      // The runtime reads V, R and A from the returned handler's class, here Files's.
      JavaFileObject f =
          dirsContainer("DirHandler", "  TargetHandler<String, ?, ?> files(Long dir) { return new Files(); }");
      assertThat(compile(f)).succeededWithoutWarnings();
    }

    @Test
    void attachmentHandlerWithAnUnserializableTrackingRecordType() {
      JavaFileObject f =
          root(
              "String",
              "String",
              "String",
              "class Indexes implements TargetHandler<String, Object, String> {",
              reconcile("String", "Object", "String"),
              "  @Attachment(\"index\") Indexes self() { return this; }",
              "}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-021] the handler test.Indexes returned by @Attachment test.Indexes.self() has"
              + " java.lang.Object as its tracking record type R, which cannot be serialized",
          "@Attachment(\"index\")");
      assertThat(processor.created).containsExactly("test.Things");
    }
  }

  @Nested
  class JacksonAnnotationsIgnored {
    private final JavaFileObject doc =
        source(
            "Doc",
            "package test;",
            "import com.fasterxml.jackson.annotation.*;",
            "@JsonIgnoreProperties(ignoreUnknown = true)",
            "@io.cocoindex.annotation.TargetValue",
            "public record Doc(@JsonProperty(\"doc_title\") String title,"
                + " @JsonIgnore String draft, int views) {}");

    @Test
    void aStoredRecordCarryingThemCompilesWithOneWarningNamingEach() {
      Compilation c = javac().withProcessors(new CocoIndexProcessor()).compile(doc);
      assertThat(c).succeeded();
      assertThat(c).hadWarningCount(1);
      assertThat(c)
          .hadWarningContaining(
              "[COCO-025] @TargetValue record test.Doc carries Jackson annotations"
                  + " (@JsonIgnoreProperties on the record, @JsonProperty on 'title',"
                  + " @JsonIgnore on 'draft'), which its generated codec ignores")
          .inFile(doc)
          .onLineContaining("@io.cocoindex.annotation.TargetValue");
      // Still generated, storing every component under its own name.
      assertThat(c).generatedSourceFile("test/Doc_Codec").contentsAsUtf8String()
          .contains("\"draft\"");
    }

    @Test
    void suppressedOnTheRecordByItsId() {
      JavaFileObject suppressed =
          source(
              "Doc",
              "package test;",
              "@SuppressWarnings(\"COCO-025\")",
              "@io.cocoindex.annotation.TrackingRecord",
              "public record Doc(@com.fasterxml.jackson.annotation.JsonProperty(\"t\") String title)"
                  + " {}");
      assertThat(compile(suppressed)).succeededWithoutWarnings();
    }
  }

  @Test
  void childHandlerDeclaringACheckedException() {
    JavaFileObject f =
        dirsContainer("Dirs", "  Files files(Long dir) throws java.io.IOException { return new Files(); }");
    assertSingleError(
        compile(f),
        f,
        "[COCO-011] @ChildHandler test.Dirs.files() declares the checked exception"
            + " java.io.IOException (a child handler is built without I/O; throw an unchecked"
            + " one): it must be an instance method taking the container's action"
            + " (java.lang.Long) and returning a TargetHandler of the children",
        "@ChildHandler");
  }

  /** Each way a {@code @ChildHandler} or {@code @Attachment} method can have the wrong shape. */
  @Nested
  class MethodShapes {
    private static final String CHILD_HANDLER_RULE = ": it must be an instance method taking the"
        + " container's action (java.lang.Long) and returning a TargetHandler of the children";

    @Test
    void staticChildHandler() {
      JavaFileObject f = dirsContainer("Dirs", "  static Files files(Long dir) { return null; }");
      assertSingleError(compile(f), f,
          "[COCO-011] @ChildHandler test.Dirs.files() is static" + CHILD_HANDLER_RULE,
          "@ChildHandler");
    }

    @Test
    void childHandlerOfTwoParameters() {
      JavaFileObject f =
          dirsContainer("Dirs", "  Files files(Long dir, Long other) { return new Files(); }");
      assertSingleError(compile(f), f,
          "[COCO-011] @ChildHandler test.Dirs.files() takes 2 parameters" + CHILD_HANDLER_RULE,
          "@ChildHandler");
    }

    @Test
    void childHandlerReturningNoHandler() {
      JavaFileObject f = dirsContainer("Dirs", "  String files(Long dir) { return \"\"; }");
      assertSingleError(compile(f), f,
          "[COCO-011] @ChildHandler test.Dirs.files() returns java.lang.String, which is not a"
              + " TargetHandler" + CHILD_HANDLER_RULE,
          "@ChildHandler");
    }

    @Test
    void childHandlerReturningAHandlerOfAWildcardValueType() {
      JavaFileObject f = dirsContainer("Dirs",
          "  TargetHandler<?, String, String> files(Long dir) { return new Files(); }");
      assertSingleError(compile(f), f,
          "[COCO-011] @ChildHandler test.Dirs.files() returns"
              + " io.cocoindex.TargetHandler<?,java.lang.String,java.lang.String>, whose value type"
              + " V is not concrete" + CHILD_HANDLER_RULE,
          "@ChildHandler");
    }

    @Test
    void childHandlerReturningARawGenericHandler() {
      JavaFileObject f = source("Dirs", "package test;", HANDLER_IMPORTS,
          "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\","
              + " childValue = String.class)",
          "class Dirs implements TargetHandler<String, String, Long> {",
          "  @SuppressWarnings(\"rawtypes\") @ChildHandler Files files(Long dir) {"
              + " return new Files<Long>(); }",
          reconcile("String", "String", "Long"),
          "}",
          "class Files<T> implements TargetHandler<String, String, String> {",
          reconcile("String", "String", "String"),
          "}");
      assertSingleError(compile(f), f,
          "[COCO-011] @ChildHandler test.Dirs.files() returns the raw type test.Files, whose V, R"
              + " and A are unknown (write its type arguments: test.Files<...>)"
              + CHILD_HANDLER_RULE,
          "@ChildHandler");
    }

    @Test
    void attachmentReturningARawGenericHandler() {
      JavaFileObject f = source("Rows", "package test;", HANDLER_IMPORTS,
          "class Rows implements TargetHandler<String, String, String> {",
          "  @SuppressWarnings(\"rawtypes\") @Attachment(\"index\") Indexes index() {"
              + " return new Indexes<Long>(); }",
          ATTACHMENTS_OVERRIDE,
          reconcile("String", "String", "String"),
          "}",
          "class Indexes<T> implements TargetHandler<String, String, String> {",
          reconcile("String", "String", "String"),
          "}");
      assertSingleError(compile(f), f,
          "[COCO-012] @Attachment test.Rows.index() returns the raw type test.Indexes, whose V, R"
              + " and A are unknown (write its type arguments: test.Indexes<...>)",
          "@Attachment(\"index\")");
    }

    @Test
    void privateChildHandler() {
      JavaFileObject f = dirsContainer("Dirs", "  private Files files(Long dir) { return null; }");
      assertSingleError(compile(f), f,
          "[COCO-014] test.Dirs.files() is private or inside a private class: the code generated"
              + " beside it cannot reach it; make it package-private or public",
          "private Files files");
    }

    @Test
    void privateAttachment() {
      JavaFileObject f = rowsWithAttachment("private Rows index() { return this; }");
      assertSingleError(compile(f), f,
          "[COCO-014] test.Rows.index() is private or inside a private class: the code generated"
              + " beside it cannot reach it; make it package-private or public",
          "@Attachment(\"index\")");
    }

    @Test
    void attachmentReturningNoHandler() {
      JavaFileObject f = rowsWithAttachment("String index() { return \"\"; }");
      assertSingleError(compile(f), f,
          "[COCO-012] @Attachment test.Rows.index() returns java.lang.String, which is not a"
              + " TargetHandler: it must be an instance method with no parameters returning a"
              + " TargetHandler with concrete type arguments",
          "@Attachment(\"index\")");
    }

  }

  @Test
  void childHandlerMayThrowUncheckedExceptions() {
    JavaFileObject f = dirsContainer("DirHandler",
        "  Files files(Long dir) throws IllegalStateException, AssertionError {",
        "    return new Files();",
        "  }");
    assertThat(compile(f)).succeeded();
  }

  @Test
  void generatedClassNamedLikeATypeOfTheCompilation() {
    // name = "Dir" makes the API class test.Dirs: the handler's own name.
    JavaFileObject f = dirsContainer("Dirs", "  Files files(Long dir) { return new Files(); }");
    assertSingleError(
        compile(f),
        f,
        "[COCO-018] the class test.Dirs that @ContainerTarget generates for test.Dirs is a type of"
            + " this compilation already: set api = \"...\" (the API class) or name = \"...\" (the"
            + " target class) to a free name, or rename that type",
        "@ContainerTarget");
  }

  @Test
  void childHandlerTakingAnotherType() {
    JavaFileObject f = dirsContainer("Dirs", "  Files files(String dir) { return new Files(); }");
    assertSingleError(
        compile(f),
        f,
        "[COCO-011] @ChildHandler test.Dirs.files() takes java.lang.String, not the action type:"
            + " it must be an instance method taking the container's action (java.lang.Long) and"
            + " returning a TargetHandler of the children",
        "@ChildHandler");
  }

  @Test
  void attachmentMethodWithParameters() {
    JavaFileObject f = rowsWithAttachment("Rows index(String name) { return this; }");
    assertSingleError(
        compile(f),
        f,
        "[COCO-012] @Attachment test.Rows.index() takes parameters: it must be an instance method"
            + " with no parameters returning a TargetHandler with concrete type arguments",
        "@Attachment(\"index\")");
  }

  @Nested
  class InvalidTargetName {
    @Test
    void nameThatIsNoIdentifier() {
      JavaFileObject f =
          source(
              "Tables",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\",",
              "    name = \"my-table\")",
              "class TableHandler implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-013] @RootTarget(name = \"my-table\") of test.TableHandler is not a Java"
              + " identifier: it becomes the method name declaremy-table; use an UpperCamelCase"
              + " noun such as Table",
          "name = \"my-table\"");
    }

    @Test
    void nameNotInUpperCamelCase() {
      JavaFileObject f =
          source(
              "ThingHandler",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\",",
              "    name = \"thing\")",
              "class ThingHandler implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-013] @RootTarget(name = \"thing\") of test.ThingHandler is not in UpperCamelCase:"
              + " it would generate the method declarething and the class things; write \"Thing\"",
          "name = \"thing\"");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void containerNameNotInUpperCamelCase() {
      JavaFileObject f =
          source(
              "Dirs",
              "package test;",
              HANDLER_IMPORTS,
              "@ContainerTarget(provider = \"p\", name = \"dir_entry\", child = \"File\",",
              "    childValue = String.class, api = \"Dirs\")",
              "class DirHandler implements TargetHandler<String, String, Long> {",
              "  @ChildHandler Files files(Long dir) { return new Files(); }",
              reconcile("String", "String", "Long"),
              "}",
              "class Files implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-013] @ContainerTarget(name = \"dir_entry\") of test.DirHandler is not in"
              + " UpperCamelCase: it would generate the method declaredir_entry, the method"
              + " mountdir_entry and the class dir_entryTarget; write \"DirEntry\"",
          "name = \"dir_entry\"");
    }

    @Test
    void childNotInUpperCamelCase() {
      JavaFileObject f =
          source(
              "Dirs",
              "package test;",
              HANDLER_IMPORTS,
              "@ContainerTarget(provider = \"p\", name = \"Dir\",",
              "    child = \"file\", childValue = String.class)",
              "class DirHandler implements TargetHandler<String, String, Long> {",
              "  @ChildHandler Files files(Long dir) { return new Files(); }",
              reconcile("String", "String", "Long"),
              "}",
              "class Files implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-013] @ContainerTarget(child = \"file\") of test.DirHandler is not in"
              + " UpperCamelCase: it would generate the method declarefile; write \"File\"",
          "child = \"file\"");
    }

    @Test
    void emptyProvider() {
      JavaFileObject f =
          source(
              "Tables",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"\", name = \"Table\")",
              "class TableHandler implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-013] @RootTarget(provider = \"\") of test.TableHandler is empty: give a provider"
              + " name unique in the app, e.g. \"example.com/db/table\"",
          "@RootTarget(provider = \"\"");
    }
  }

  @Test
  void privateRecord() {
    JavaFileObject f =
        source(
            "Outer",
            "package test;",
            "class Outer {",
            "  @io.cocoindex.annotation.TargetValue",
            "  private record Hidden(String name) {}",
            "}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-014] test.Outer.Hidden is private or inside a private class: the code generated"
            + " beside it cannot reach it; make it package-private or public",
        "@io.cocoindex.annotation.TargetValue");
  }

  @Test
  void genericRecord() {
    JavaFileObject f =
        source(
            "Box",
            "package test;",
            "@io.cocoindex.annotation.TargetValue",
            "record Box<T extends CharSequence>(String name) {}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-015] @TargetValue record test.Box declares type parameters: a generated codec needs"
            + " concrete component types; remove the type parameters",
        "@io.cocoindex.annotation.TargetValue");
  }

  @Nested
  class InaccessibleType {
    @Test
    void privateEnumOfAComponent() {
      // The record itself is reachable; the codec beside it must name the enum too. One error
      // for the enum, however many components use it.
      JavaFileObject f =
          source(
              "Outer",
              "package test;",
              "public class Outer {",
              "  private enum Status { ON, OFF }",
              "  @io.cocoindex.annotation.TargetValue",
              "  record Row(String id, Status status, java.util.List<Status> history) {}",
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-024] component 'status' of test.Outer.Row has type test.Outer.Status, which the"
              + " code generated in package test names but cannot reach: test.Outer.Status is"
              + " private; make it package-private or public",
          "record Row(");
    }

    @Test
    void protectedTypeInheritedFromAnotherPackage() {
      JavaFileObject base =
          JavaFileObjects.forSourceLines(
              "other.Base",
              "package other;",
              "public class Base {",
              "  protected enum Status { ON, OFF }",
              "}");
      JavaFileObject f =
          source(
              "Rows",
              "package test;",
              "public class Rows extends other.Base {",
              "  @io.cocoindex.annotation.TargetValue",
              "  record Row(String id, Status status) {}",
              "}");
      assertSingleError(
          compile(base, f),
          f,
          "[COCO-024] component 'status' of test.Rows.Row has type other.Base.Status, which the"
              + " code generated in package test names but cannot reach: other.Base.Status is"
              + " protected, in package other; make it public",
          "record Row(");
    }

    @Test
    void attachmentInheritedFromAnotherPackageThatTheSubclasssAttachmentsCannotCall() {
      // Rows_Attachments.of, in package test, calls the inherited other.Base.index() too.
      JavaFileObject base =
          JavaFileObjects.forSourceLines(
              "other.Base",
              "package other;",
              HANDLER_IMPORTS,
              "public abstract class Base implements TargetHandler<String, String, String> {",
              "  @Attachment(\"index\") protected Base index() { return this; }",
              "}");
      JavaFileObject f =
          source(
              "Rows",
              "package test;",
              HANDLER_IMPORTS,
              "class Rows extends other.Base {",
              "  @Attachment(\"other\") Rows other() { return this; }",
              ATTACHMENTS_OVERRIDE,
              reconcile("String", "String", "String"),
              "}");
      assertSingleError(
          compile(base, f),
          f,
          "[COCO-024] test.Rows inherits @Attachment other.Base.index(), which the code generated in"
              + " package test names but cannot reach: other.Base.index() is protected, in package"
              + " other; make it public",
          "class Rows");
    }

    @Test
    void childHandlerInheritedFromAnotherPackageThatTheFactoryCannotCall() {
      JavaFileObject base =
          JavaFileObjects.forSourceLines(
              "other.BaseDirs",
              "package other;",
              HANDLER_IMPORTS,
              "public abstract class BaseDirs implements TargetHandler<String, String, Long> {",
              "  @ChildHandler protected Files files(Long action) { return new Files(); }",
              "}");
      JavaFileObject files =
          JavaFileObjects.forSourceLines(
              "other.Files",
              "package other;",
              HANDLER_IMPORTS,
              "public class Files implements TargetHandler<String, String, String> {",
              reconcile("String", "String", "String"),
              "}");
      JavaFileObject f =
          source(
              "Dirs",
              "package test;",
              HANDLER_IMPORTS,
              "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\","
                  + " childValue = String.class)",
              "class Dirs extends other.BaseDirs {",
              reconcile("String", "String", "Long"),
              "}");
      assertSingleError(
          compile(base, files, f),
          f,
          "[COCO-024] test.Dirs inherits @ChildHandler other.BaseDirs.files(), which the code"
              + " generated in package test names but cannot reach: other.BaseDirs.files() is"
              + " protected, in package other; make it public",
          "@ContainerTarget");
    }

    @Test
    void privateValueTypeOfAHandler() {
      // A record without annotation is serialized reflectively, but the API class names it.
      JavaFileObject f =
          source(
              "Outer",
              "package test;",
              HANDLER_IMPORTS,
              "public class Outer {",
              "  private record Doc(String id) {}",
              "  @RootTarget(provider = \"docs\", name = \"Doc\")",
              "  static class Docs implements TargetHandler<Doc, String, String> {",
              reconcile("Doc", "String", "String"),
              "  }",
              "}");
      assertSingleError(
          compile(f),
          f,
          "[COCO-024] the value type V of @RootTarget handler test.Outer.Docs is test.Outer.Doc,"
              + " which the code generated in package test names but cannot reach:"
              + " test.Outer.Doc is private; make it package-private or public",
          "@RootTarget");
    }
  }

  @Test
  void genericRecordWhoseComponentsHaveItsTypeVariables() {
    // One mistake: not also a COCO-003 on each component of type T.
    JavaFileObject f =
        source(
            "Box",
            "package test;",
            "@io.cocoindex.annotation.TargetValue",
            "record Box<T>(T value, java.util.List<T> more, String name) {}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-015] @TargetValue record test.Box declares type parameters: a generated codec needs"
            + " concrete component types; remove the type parameters",
        "@io.cocoindex.annotation.TargetValue");
  }

  @Test
  void recordUsingAGenericRecord() {
    // The generic record's COCO-015 is the one error, not also a COCO-003 on each record using it.
    JavaFileObject box =
        source(
            "Box",
            "package test;",
            "@io.cocoindex.annotation.TargetValue",
            "record Box<T>(String name) {}");
    JavaFileObject shelf =
        source(
            "Shelf",
            "package test;",
            "@io.cocoindex.annotation.TargetValue",
            "record Shelf(Box<String> box, java.util.List<Box<Long>> boxes) {}");
    assertSingleError(
        compile(box, shelf),
        box,
        "[COCO-015] @TargetValue record test.Box declares type parameters: a generated codec needs"
            + " concrete component types; remove the type parameters",
        "@io.cocoindex.annotation.TargetValue");
  }

  @Test
  void twoChildHandlers() {
    JavaFileObject f =
        source(
            "Dirs",
            "package test;",
            HANDLER_IMPORTS,
            "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\", childValue = String.class)",
            "class Dirs implements TargetHandler<String, String, String> {",
            "  @ChildHandler Dirs files(String dir) { return this; }",
            "  @ChildHandler Dirs others(String dir) { return this; }",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-016] @ContainerTarget test.Dirs has more than one @ChildHandler method (files() and"
            + " others()): keep one",
        "others(String dir)");
  }

  @Test
  void twoHandlersGeneratingOneApiClass() {
    JavaFileObject f =
        source(
            "Items",
            "package test;",
            HANDLER_IMPORTS,
            "@RootTarget(provider = \"a\", name = \"Item\")",
            "class A implements TargetHandler<String, String, String> {",
            reconcile("String", "String", "String"),
            "}",
            "@RootTarget(provider = \"b\", name = \"Item\")",
            "class B implements TargetHandler<String, String, String> {",
            reconcile("String", "String", "String"),
            "}");
    assertSingleError(
        compile(f),
        f,
        "[COCO-017] the API class test.Items generated for test.B is already generated for test.A:"
            + " set api = \"...\" on one of them to a distinct class name",
        "@RootTarget(provider = \"b\"");
  }

  @Test
  void nestedAndTopLevelRecordsWithOneCodecName() {
    // Outer.Inner's codec is Outer_Inner_Codec, as is the top-level Outer_Inner's: not COCO-019,
    // which would blame a type "written by hand or by another processor".
    JavaFileObject outer =
        source(
            "Outer",
            "package test;",
            "public class Outer {",
            "  @io.cocoindex.annotation.TargetValue",
            "  public record Inner(String a) {}",
            "}");
    JavaFileObject flat =
        source(
            "Outer_Inner",
            "package test;",
            "@io.cocoindex.annotation.TargetValue",
            "record Outer_Inner(String b) {}");
    assertSingleError(
        compile(outer, flat),
        flat,
        "[COCO-020] @TargetValue record test.Outer_Inner and the record test.Outer.Inner both"
            + " generate the codec test.Outer_Inner_Codec: rename one of the records",
        "@io.cocoindex.annotation.TargetValue");
  }

  @Test
  void generatedCodecNamedLikeATypeOfTheCompilationIsAnErrorOnTheRecord() {
    JavaFileObject record =
        source(
            "Boom",
            "package test;",
            "@io.cocoindex.annotation.TargetValue",
            "record Boom(String name) {}");
    JavaFileObject taken = source("Boom_Codec", "package test;", "class Boom_Codec {}");
    Compilation c = compile(record, taken);
    // Between the two parts, javac's own reason, whose wording is javac's.
    assertSingleError(
        c, record, "[COCO-019] cannot generate test.Boom_Codec for test.Boom: ", "record Boom");
    assertThat(c)
        .hadErrorContaining(
            "; a type of that name is already part of this compilation (written by hand or"
                + " generated by another processor): rename that type");
  }

  @Test
  void processorCrashIsAnInternalErrorOnTheElement() {
    JavaFileObject f =
        source(
            "Boom",
            "package test;",
            "@io.cocoindex.annotation.TargetValue",
            "record Boom(String name) {}");
    Compilation c =
        javac()
            .withProcessors(
                new CocoIndexProcessor(
                    e -> {
                      if (e.getSimpleName().contentEquals("Boom")) {
                        throw new IllegalStateException("simulated bug");
                      }
                    }))
            .compile(f);
    assertSingleError(
        c,
        f,
        "[COCO-099] internal error in cocoindex-processor while processing test.Boom; please"
            + " report it with this trace:",
        "record Boom");
    assertThat(c).hadErrorContaining("java.lang.IllegalStateException: simulated bug");
  }

  /** DESIGN: no output for an element with errors, whichever of its annotations has them. */
  @Nested
  class NoOutputForAnElementWithErrors {
    @Test
    void handlerWhoseApiClassIsTakenGeneratesNoAttachmentsClass() {
      // name = "Doc" makes the API class test.Docs: the handler's own name.
      JavaFileObject f =
          source(
              "Docs",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\", name = \"Doc\")",
              "class Docs implements TargetHandler<String, String, String> {",
              "  @Attachment(\"index\") Docs index() { return this; }",
              "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
              "    return Docs_Attachments.of(this);",
              "  }",
              reconcile("String", "String", "String"),
              "}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-018] the class test.Docs that @RootTarget generates for test.Docs is a type of"
              + " this compilation already",
          "@RootTarget");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void handlerWithABadAttachmentGeneratesNoApiClass() {
      // Generating Things would silently leave out declareOther, the valid attachment.
      JavaFileObject f =
          source(
              "ThingHandler",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\", name = \"Thing\")",
              "class ThingHandler implements TargetHandler<String, String, String> {",
              "  @Attachment(\"index\") static ThingHandler index() { return null; }",
              "  @Attachment(\"other\") ThingHandler other() { return this; }",
              reconcile("String", "String", "String"),
              "}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-012] @Attachment test.ThingHandler.index() is static: it must be an instance"
              + " method with no parameters returning a TargetHandler with concrete type arguments",
          "@Attachment(\"index\")");
      assertThat(processor.created).isEmpty();
    }

    @Test
    void recordWithAMisplacedKeyGeneratesNoCodec() {
      JavaFileObject f =
          source(
              "Pair",
              "package test;",
              "import io.cocoindex.annotation.*;",
              "@ActionValue",
              "record Pair(@Key String id, String text) {}",
              "@ActionValue",
              "record Fine(String id) {}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-001] @Key applies to components of @TargetValue records, but test.Pair is an"
              + " @ActionValue record, which has no key (reconcile gets the target state's):"
              + " remove @Key",
          "record Pair(@Key String id");
      assertThat(processor.created).containsExactly("test.Fine_Codec");
    }

    @Test
    void rootWithAMisplacedChildHandlerGeneratesNoApiClass() {
      JavaFileObject f =
          source(
              "Flat",
              "package test;",
              HANDLER_IMPORTS,
              "@RootTarget(provider = \"p\", name = \"Item\")",
              "class Flat implements TargetHandler<String, String, String> {",
              "  @ChildHandler",
              "  Flat children(String action) { return this; }",
              reconcile("String", "String", "String"),
              "}");
      RecordingProcessor processor = new RecordingProcessor();
      assertSingleError(
          javac().withProcessors(processor).compile(f),
          f,
          "[COCO-001] @ChildHandler applies to methods of @ContainerTarget handlers, but test.Flat"
              + " is a @RootTarget",
          "@ChildHandler");
      assertThat(processor.created).isEmpty();
    }
  }

  @Test
  void errorInAHandlerHidesMissingGeneratedClassesItsUsersReference() {
    JavaFileObject handler =
        source(
            "Dirs",
            "package test;",
            HANDLER_IMPORTS,
            "@ContainerTarget(provider = \"p\", name = \"Dir\", child = \"File\", childValue = String.class)",
            "class Dirs implements TargetHandler<String, String, String> {",
            "  final TargetActionSink<String> sink =",
            "      TargetActionSink.withChildHandler(a -> {}, new Dirs_ChildHandlerFactory(this));",
            reconcile("String", "String", "String"),
            "}");
    JavaFileObject user =
        source(
            "App",
            "package test;",
            "class App {",
            "  static void main(io.cocoindex.Ctx ctx) { Dirs.register(ctx, new Dirs()).mountDir(ctx, \"k\", \"v\"); }",
            "}");
    assertSingleError(
        compile(handler, user),
        handler,
        "[COCO-004] @ContainerTarget test.Dirs has no @ChildHandler method",
        "@ContainerTarget");
  }
}
