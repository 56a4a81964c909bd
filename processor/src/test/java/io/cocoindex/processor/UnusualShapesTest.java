package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static io.cocoindex.processor.Fixtures.compile;
import static io.cocoindex.processor.Fixtures.source;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connectors written in unusual but legal Java: each compiles, the generated code included, with
 * every lint warning an error.
 */
class UnusualShapesTest {
  private static final String IMPORTS =
      "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;";

  private static String reconcile(String v, String r, String a) {
    return "  public TargetReconcileOutput<" + a + ", " + r + "> reconcile(StableKey key, " + v
        + " desired, List<" + r + "> prev, boolean mbm) { return null; }";
  }

  @Test
  void typesOfThePackageNamedLikeJavaLangTypes() {
    // The package's own String, Integer, Class and Override are what those simple names mean in
    // the files generated beside them.
    JavaFileObject row = source("Row", "package test;",
        "@io.cocoindex.annotation.TargetValue",
        "public record Row(@io.cocoindex.annotation.Key java.lang.String id, java.lang.Integer n,",
        "    java.lang.Character c, java.util.List<java.lang.String> tags) {}");
    JavaFileObject handler = source("RowHandler", "package test;", IMPORTS,
        "@RootTarget(provider = \"p\", name = \"Row\")",
        "public class RowHandler implements TargetHandler<Row, Row, Row> {",
        "  @Attachment(\"self\") RowHandler self() { return this; }",
        "  @java.lang.Override",
        "  public Map<java.lang.String, ChildTargetDef<?>> attachments() {",
        "    return RowHandler_Attachments.of(this);",
        "  }",
        reconcile("Row", "Row", "Row"),
        "}");
    assertThat(compile(row, handler,
            source("String", "package test;", "public final class String {}"),
            source("Integer", "package test;", "public final class Integer {}"),
            source("Class", "package test;", "public final class Class {}"),
            source("Override", "package test;",
                "@java.lang.annotation.Target(java.lang.annotation.ElementType.TYPE)",
                "public @interface Override {}")))
        .succeededWithoutWarnings();
  }

  @Test
  void targetsAndAttachmentsNamedLikeTheFieldsOfGeneratedClasses() {
    // The API class reads its field provider, the target class its field children: a declare
    // method's parameter of that name would hide them.
    JavaFileObject stores = source("Stores", "package test;", IMPORTS,
        "@ContainerTarget(provider = \"stores\", name = \"Provider\", child = \"Children\",",
        "    childValue = String.class)",
        "public class Stores implements TargetHandler<String, String, String> {",
        "  @ChildHandler Stores child(String action) { return this; }",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject shelves = source("ShelfHandler", "package test;", IMPORTS,
        "@ContainerTarget(provider = \"shelves\", name = \"Shelf\", child = \"Book\",",
        "    childValue = String.class, api = \"Shelves\")",
        "public class ShelfHandler implements TargetHandler<String, String, String> {",
        "  @ChildHandler Items items(String action) { return new Items(); }",
        "  @Attachment(\"provider\") Items provider() { return new Items(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return ShelfHandler_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject items = source("Items", "package test;", IMPORTS,
        "public class Items implements TargetHandler<String, String, String> {",
        "  @Attachment(\"children\") Items children() { return this; }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return Items_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject use = source("Use", "package test;",
        "class Use {",
        "  static void run(io.cocoindex.Ctx ctx) {",
        "    Providers.register(ctx, new Stores()).mountProvider(ctx, \"k\", \"s\")",
        "        .declareChildren(ctx, \"c\", \"child\");",
        "    Shelves shelves = Shelves.register(ctx, new ShelfHandler());",
        "    shelves.declareProvider(ctx, \"a\", \"attached\");",
        "    shelves.declareShelf(ctx, \"s\", \"shelf\").declareChildren(ctx, \"c\", \"child\");",
        "  }",
        "}");
    assertThat(compile(stores, shelves, items, use)).succeededWithoutWarnings();
  }

  @Test
  void genericHandlersAndAnInnerHandlerOfAGenericClass() {
    // A generic handler's methods, called on the raw type, would return raw handlers.
    JavaFileObject dirs = source("DirHandler", "package test;", IMPORTS,
        "@ContainerTarget(provider = \"dirs\", name = \"Dir\", child = \"File\",",
        "    childValue = String.class)",
        "public class DirHandler<T extends Number> implements TargetHandler<String, String, Long> {",
        "  @ChildHandler FileHandler<T> files(Long action) { return new FileHandler<>(); }",
        "  @Attachment(\"meta\") FileHandler<T> meta() { return new FileHandler<>(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return DirHandler_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "Long"),
        "}");
    JavaFileObject files = source("FileHandler", "package test;", IMPORTS,
        "public class FileHandler<U> implements TargetHandler<String, String, String> {",
        "  @Attachment(\"index\") FileHandler<List<U>> index() { return new FileHandler<>(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return FileHandler_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject outer = source("Outer", "package test;", IMPORTS,
        "public class Outer<K> {",
        "  @RootTarget(provider = \"inner\", name = \"Note\")",
        "  public class Notes implements TargetHandler<String, String, String> {",
        "    @Attachment(\"tag\") FileHandler<K> tag() { return new FileHandler<>(); }",
        "    @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "      return Outer_Notes_Attachments.of(this);",
        "    }",
        reconcile("String", "String", "String"),
        "  }",
        "}");
    JavaFileObject use = source("Use", "package test;",
        "class Use {",
        "  static void run(io.cocoindex.Ctx ctx) {",
        "    Dirs.register(ctx, new DirHandler<Integer>()).mountDir(ctx, \"k\", \"d\")",
        "        .declareFile(ctx, \"f\", \"file\");",
        "    Notes.register(ctx, new Outer<String>().new Notes()).declareTag(ctx, \"t\", \"x\");",
        "  }",
        "}");
    assertThat(compile(dirs, files, outer, use)).succeededWithoutWarnings();
  }

  @Test
  void typeAnnotationsOnComponentsAndTypeArguments() {
    // A nullness annotation is part of the type javac gives; Map<@N String, ?> is still a map
    // with String keys.
    JavaFileObject n = source("N", "package test;",
        "@java.lang.annotation.Target(java.lang.annotation.ElementType.TYPE_USE)",
        "public @interface N {}");
    JavaFileObject row = source("Row", "package test;", IMPORTS,
        "@TargetValue",
        "public record Row(@Key @N String id, Map<@N String, @N List<@N Integer>> counts,",
        "    Optional<@N String> note, @N byte @N [] blob, java.util.@N UUID uuid) {}");
    JavaFileObject handler = source("RowHandler", "package test;", IMPORTS,
        "@RootTarget(provider = \"rows\", name = \"Row\")",
        "public class RowHandler implements TargetHandler<@N Row, Map<@N String, @N Long>, Row> {",
        reconcile("Row", "Map<String, Long>", "Row"),
        "}");
    assertThat(compile(n, row, handler)).succeededWithoutWarnings();
  }

  @Test
  void deprecatedRecordsHandlersAndMethods() {
    // A connector deprecating a record it still reads, or a handler it phases out: the code
    // generated for them names them, and must not fail a -Werror build with javac's warnings.
    JavaFileObject old = source("OldStatus", "package test;",
        "@Deprecated(forRemoval = true)",
        "public enum OldStatus { ON }");
    JavaFileObject row = source("Row", "package test;", IMPORTS,
        "@Deprecated",
        "@TargetValue",
        "public record Row(@Key String id, String text) {",
        "  @Deprecated @Override public String text() { return text; }",
        "}");
    JavaFileObject handler = source("RowHandler", "package test;", IMPORTS,
        "@Deprecated",
        "@ContainerTarget(provider = \"rows\", name = \"Table\", child = \"Row\",",
        "    childValue = Row.class)",
        "@SuppressWarnings(\"deprecation\")",
        "public class RowHandler implements TargetHandler<String, String, String> {",
        "  @Deprecated @ChildHandler Rows rows(String action) { return new Rows(); }",
        "  @Deprecated @Attachment(\"index\") Rows index() { return new Rows(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return RowHandler_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject rows = source("Rows", "package test;", IMPORTS,
        "@SuppressWarnings(\"deprecation\")",
        "public class Rows implements TargetHandler<Row, String, String> {",
        reconcile("Row", "String", "String"),
        "}");
    JavaFileObject status = source("Status", "package test;", IMPORTS,
        "@SuppressWarnings(\"removal\")",
        "@TrackingRecord",
        "public record Status(OldStatus status) {}");
    assertThat(compile(old, row, handler, rows, status)).succeededWithoutWarnings();
  }

  @Test
  void singletonEnumHandlers() {
    JavaFileObject dirs = source("DirHandler", "package test;", IMPORTS,
        "@ContainerTarget(provider = \"dirs\", name = \"Dir\", child = \"File\",",
        "    childValue = String.class)",
        "public enum DirHandler implements TargetHandler<String, String, Long> {",
        "  INSTANCE;",
        "  @ChildHandler FileHandler files(Long action) { return FileHandler.INSTANCE; }",
        "  @Attachment(\"meta\") FileHandler meta() { return FileHandler.INSTANCE; }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return DirHandler_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "Long"),
        "}");
    JavaFileObject files = source("FileHandler", "package test;", IMPORTS,
        "public enum FileHandler implements TargetHandler<String, String, String> {",
        "  INSTANCE;",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject use = source("Use", "package test;",
        "class Use {",
        "  static void run(io.cocoindex.Ctx ctx) {",
        "    Dirs dirs = Dirs.register(ctx, DirHandler.INSTANCE);",
        "    dirs.declareMeta(ctx, \"m\", \"meta\");",
        "    dirs.mountDir(ctx, \"k\", \"d\").declareFile(ctx, \"f\", \"file\");",
        "  }",
        "}");
    assertThat(compile(dirs, files, use)).succeededWithoutWarnings();
  }

  @Test
  void attachmentsInheritedFromAnAbstractHandler() {
    // The engine registers what attachments() returns, whichever class declares the methods: the
    // API and target classes declare them all, and a subclass's _Attachments.of includes them.
    JavaFileObject base = source("BaseDirs", "package test;", IMPORTS,
        "public abstract class BaseDirs implements TargetHandler<String, String, Long> {",
        "  @Attachment(\"meta\") Files meta() { return new Files(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return BaseDirs_Attachments.of(this);",
        "  }",
        "}");
    JavaFileObject dirs = source("DirHandler", "package test;", IMPORTS,
        "@ContainerTarget(provider = \"dirs\", name = \"Dir\", child = \"File\",",
        "    childValue = String.class)",
        "public class DirHandler extends BaseDirs {",
        "  @ChildHandler Files files(Long action) { return new Files(); }",
        "  @Attachment(\"owner\") Files owner() { return new Files(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return DirHandler_Attachments.of(this);",
        "  }",
        reconcile("String", "String", "Long"),
        "}");
    JavaFileObject baseFiles = source("BaseFiles", "package test;", IMPORTS,
        "public abstract class BaseFiles implements TargetHandler<String, String, String> {",
        "  @Attachment(\"index\") Files index() { return new Files(); }",
        "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
        "    return BaseFiles_Attachments.of(this);",
        "  }",
        "}");
    JavaFileObject files = source("Files", "package test;", IMPORTS,
        "public class Files extends BaseFiles {",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject use = source("Use", "package test;",
        "class Use {",
        "  static void run(io.cocoindex.Ctx ctx) {",
        "    Dirs dirs = Dirs.register(ctx, new DirHandler());",
        "    dirs.declareMeta(ctx, \"m\", \"meta\");",
        "    dirs.declareOwner(ctx, \"o\", \"owner\");",
        "    dirs.mountDir(ctx, \"k\", \"d\").declareIndex(ctx, \"i\", \"index\");",
        "    String both = DirHandler_Attachments.META + DirHandler_Attachments.OWNER;",
        "  }",
        "}");
    assertThat(compile(base, dirs, baseFiles, files, use)).succeededWithoutWarnings();
  }

  @Test
  void childHandlerInheritedFromAnAbstractGenericBase() {
    // Two containers share their base's @ChildHandler, its action type a type variable there.
    JavaFileObject base = source("BaseDirs", "package test;", IMPORTS,
        "public abstract class BaseDirs<A> implements TargetHandler<String, String, A> {",
        "  @ChildHandler Files files(A action) { return new Files(); }",
        "}");
    JavaFileObject local = source("LocalDirs", "package test;", IMPORTS,
        "@ContainerTarget(provider = \"local\", name = \"Dir\", child = \"File\",",
        "    childValue = String.class)",
        "public class LocalDirs extends BaseDirs<Long> {",
        reconcile("String", "String", "Long"),
        "}");
    JavaFileObject remote = source("RemoteDirs", "package test;", IMPORTS,
        "@ContainerTarget(provider = \"remote\", name = \"Share\", child = \"Entry\",",
        "    childValue = String.class)",
        "public class RemoteDirs extends BaseDirs<String> {",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject files = source("Files", "package test;", IMPORTS,
        "public class Files implements TargetHandler<String, String, String> {",
        reconcile("String", "String", "String"),
        "}");
    JavaFileObject use = source("Use", "package test;",
        "class Use {",
        "  static void run(io.cocoindex.Ctx ctx) {",
        "    Dirs.register(ctx, new LocalDirs()).mountDir(ctx, \"k\", \"d\")",
        "        .declareFile(ctx, \"f\", \"file\");",
        "    Shares.register(ctx, new RemoteDirs()).mountShare(ctx, \"k\", \"s\")",
        "        .declareEntry(ctx, \"e\", \"entry\");",
        "    new LocalDirs_ChildHandlerFactory(new LocalDirs()).childHandler(1L);",
        "  }",
        "}");
    assertThat(compile(base, local, remote, files, use)).succeededWithoutWarnings();
  }

  @Test
  void aConnectorInANamedModuleThatDoesNotReadJavaCompiler(@TempDir Path dir) throws Exception {
    // @javax.annotation.processing.Generated is java.compiler's: a module that does not read it
    // gets generated classes without it, rather than code that does not compile.
    Path src = dir.resolve("src/com/example");
    Files.createDirectories(src);
    Files.writeString(dir.resolve("src/module-info.java"),
        "module com.example.conn { requires io.cocoindex.api; }");
    Files.writeString(src.resolve("Row.java"), String.join("\n",
        "package com.example;",
        "@io.cocoindex.annotation.TargetValue",
        "public record Row(@io.cocoindex.annotation.Key String id, String text) {}"));
    Files.writeString(src.resolve("RowHandler.java"), String.join("\n",
        "package com.example;",
        IMPORTS,
        "@RootTarget(provider = \"rows\", name = \"Row\")",
        "public final class RowHandler implements TargetHandler<Row, Row, Row> {",
        reconcile("Row", "Row", "Row"),
        "}"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter out = new StringWriter();
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
      List<String> options = List.of(
          "-Xlint:all,-processing,-requires-automatic", "-Werror",
          "--module-path", apiJar(dir).toString(),
          "-d", Files.createDirectories(dir.resolve("out")).toString(),
          "-s", Files.createDirectories(dir.resolve("gen")).toString());
      JavaCompiler.CompilationTask task = javac.getTask(out, files, null, options, null,
          files.getJavaFileObjects(dir.resolve("src/module-info.java"),
              src.resolve("Row.java"), src.resolve("RowHandler.java")));
      task.setProcessors(List.of(new CocoIndexProcessor()));
      org.assertj.core.api.Assertions.assertThat(task.call()).as(out.toString()).isTrue();
    }
    org.assertj.core.api.Assertions.assertThat(out.toString()).isEmpty();
    org.assertj.core.api.Assertions.assertThat(
            Files.readString(dir.resolve("gen/com/example/Row_Codec.java")))
        .doesNotContain("Generated(")
        .contains("@SuppressWarnings");
  }

  /** cocoindex-api as a jar, the automatic module {@code io.cocoindex.api}. */
  private static Path apiJar(Path dir) throws Exception {
    Path classes = Path.of(io.cocoindex.annotation.TargetValue.class.getProtectionDomain()
        .getCodeSource().getLocation().toURI());
    if (Files.isRegularFile(classes)) {
      return classes;
    }
    Path jar = dir.resolve("cocoindex-api.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue("Automatic-Module-Name", "io.cocoindex.api");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
        Stream<Path> all = Files.walk(classes)) {
      for (Path f : all.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(f));
        out.closeEntry();
      }
    }
    return jar;
  }
}
