package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import javax.annotation.processing.RoundEnvironment;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** Types that resolve only in a later round are waited for, not reported. */
class RoundsTest {

  /** Generates {@code test.Later}, a @TargetValue record, in the first round. */
  static final class LaterGenerator extends FirstRoundProcessor {
    @Override
    protected void firstRound(RoundEnvironment round) {
      try (Writer w = processingEnv.getFiler().createSourceFile("test.Later").openWriter()) {
        w.write(
            "package test; @io.cocoindex.annotation.TargetValue public record Later(String id) {}");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Generates {@code test.Later}, a plain class (no serializable type), in the first round. */
  static final class LaterClassGenerator extends FirstRoundProcessor {
    @Override
    protected void firstRound(RoundEnvironment round) {
      try (Writer w = processingEnv.getFiler().createSourceFile("test.Later").openWriter()) {
        w.write("package test; public class Later {}");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Generates {@code test.Names}, constants, and {@code test.Later}, in the first round. */
  static final class NamesGenerator extends FirstRoundProcessor {
    @Override
    protected void firstRound(RoundEnvironment round) {
      try (Writer w = processingEnv.getFiler().createSourceFile("test.Names").openWriter()) {
        w.write("package test; public final class Names { public static final String DIR = \"Dir\";"
            + " public static final String INDEX = \"index\"; }");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      try (Writer w = processingEnv.getFiler().createSourceFile("test.Later").openWriter()) {
        w.write(
            "package test; @io.cocoindex.annotation.TargetValue public record Later(String id) {}");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * A container whose annotation values name a constant and a class of a later round: javac gives
   * each as {@code "<error>"} until then.
   */
  private static final JavaFileObject DIRS =
      JavaFileObjects.forSourceLines(
          "test.DirHandler",
          "package test;",
          "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;",
          "@ContainerTarget(provider = \"dirs\", name = Names.DIR, child = \"File\","
              + " childValue = Later.class)",
          "public class DirHandler implements TargetHandler<String, String, String> {",
          "  @ChildHandler FileHandler files(String action) { return new FileHandler(); }",
          "  @Attachment(Names.INDEX) FileHandler index() { return new FileHandler(); }",
          "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
          "    return DirHandler_Attachments.of(this);",
          "  }",
          "  public TargetReconcileOutput<String, String> reconcile(StableKey key, String desired,"
              + " List<String> prev, boolean mbm) { return null; }",
          "}",
          "class FileHandler implements TargetHandler<Later, String, String> {",
          "  public TargetReconcileOutput<String, String> reconcile(StableKey key, Later desired,"
              + " List<String> prev, boolean mbm) { return null; }",
          "}");

  @Test
  void annotationValuesNamingWhatALaterRoundGeneratesAreWaitedFor() {
    Compilation c =
        javac().withProcessors(new CocoIndexProcessor(), new NamesGenerator()).compile(DIRS);
    assertThat(c).succeeded();
    assertThat(c).generatedSourceFile("test/Dirs").contentsAsUtf8String()
        .contains("public DirTarget mountDir(Ctx ctx, Object key, String dir)");
    assertThat(c).generatedSourceFile("test/Dirs").contentsAsUtf8String()
        .contains("public void declareIndex(");
  }

  @Test
  void inheritedAttachmentValuesNamingWhatALaterRoundGeneratesAreWaitedFor() {
    JavaFileObject handlers =
        JavaFileObjects.forSourceLines(
            "test.DirHandler",
            "package test;",
            "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;",
            "@ContainerTarget(provider = \"dirs\", name = \"Dir\", child = \"File\","
                + " childValue = String.class)",
            "public class DirHandler extends IndexedHandler {",
            "  @ChildHandler FileHandler files(String action) { return new FileHandler(); }",
            "}",
            "abstract class IndexedHandler implements TargetHandler<String, String, String> {",
            "  @Attachment(Names.INDEX) FileHandler index() { return new FileHandler(); }",
            "  @Override public Map<String, ChildTargetDef<?>> attachments() {",
            "    return IndexedHandler_Attachments.of(this);",
            "  }",
            "  public TargetReconcileOutput<String, String> reconcile(StableKey key, String desired,"
                + " List<String> prev, boolean mbm) { return null; }",
            "}",
            "class FileHandler implements TargetHandler<String, String, String> {",
            "  public TargetReconcileOutput<String, String> reconcile(StableKey key, String desired,"
                + " List<String> prev, boolean mbm) { return null; }",
            "}");
    Compilation c =
        javac().withProcessors(new CocoIndexProcessor(), new NamesGenerator()).compile(handlers);
    assertThat(c).succeeded();
    assertThat(c).generatedSourceFile("test/IndexedHandler_Attachments").contentsAsUtf8String()
        .contains("INDEX = \"index\"");
    assertThat(c).generatedSourceFile("test/Dirs").contentsAsUtf8String()
        .contains("public void declareIndex(");
  }

  @Test
  void annotationValuesThatNeverResolveLeaveOnlyJavacsErrors() {
    // Not COCO-099 (the class literal read as a type), nor COCO-007 ("<error>" as a name).
    for (String annotations : java.util.List.of(
        "@ContainerTarget(provider = \"dirs\", name = \"Dir\", child = \"File\","
            + " childValue = Missing.class)",
        "@ContainerTarget(provider = \"dirs\", name = Missing.DIR, child = \"File\","
            + " childValue = String.class)")) {
      for (String attachment : java.util.List.of("\"index\"", "Missing.INDEX")) {
        JavaFileObject f =
            JavaFileObjects.forSourceLines(
                "test.DirHandler",
                "package test;",
                "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;",
                annotations,
                "public class DirHandler implements TargetHandler<String, String, String> {",
                "  @ChildHandler FileHandler files(String action) { return new FileHandler(); }",
                "  @Attachment(" + attachment + ") FileHandler index() { return new FileHandler(); }",
                "  @Override public Map<String, ChildTargetDef<?>> attachments() { return Map.of(); }",
                "  public TargetReconcileOutput<String, String> reconcile(StableKey key,"
                    + " String desired, List<String> prev, boolean mbm) { return null; }",
                "}",
                "class FileHandler implements TargetHandler<String, String, String> {",
                "  public TargetReconcileOutput<String, String> reconcile(StableKey key,"
                    + " String desired, List<String> prev, boolean mbm) { return null; }",
                "}");
        Compilation c = javac().withProcessors(new CocoIndexProcessor()).compile(f);
        assertThat(c).failed();
        for (javax.tools.Diagnostic<? extends JavaFileObject> d : c.errors()) {
          org.assertj.core.api.Assertions.assertThat(d.getMessage(null))
              .as(annotations + " " + attachment)
              .doesNotContain("COCO-");
        }
      }
    }
  }

  private static final JavaFileObject HOLDER =
      JavaFileObjects.forSourceLines(
          "test.Holder",
          "package test;",
          "@io.cocoindex.annotation.TargetValue",
          "public record Holder(Later later, java.util.List<Later> more) {}");

  @Test
  void recordReferencingATypeGeneratedInARoundIsProcessedWhenItExists() {
    Compilation c =
        javac().withProcessors(new CocoIndexProcessor(), new LaterGenerator()).compile(HOLDER);
    assertThat(c).succeededWithoutWarnings();
    assertThat(c).generatedSourceFile("test/Holder_Codec").contentsAsUtf8String()
        .contains("Later_Codec.INSTANCE.read(in)");
    assertThat(c).generatedSourceFile("test/Later_Codec");
  }

  @Test
  void handlerTypeArgumentReachingATypeOfALaterRoundIsCheckedWhenItExists() {
    JavaFileObject handler =
        JavaFileObjects.forSourceLines(
            "test.ThingHandler",
            "package test;",
            "import io.cocoindex.*; import java.util.List;",
            "@io.cocoindex.annotation.RootTarget(provider = \"p\", name = \"Thing\")",
            "public class ThingHandler implements TargetHandler<Plain, String, String> {",
            "  public TargetReconcileOutput<String, String> reconcile(StableKey key, Plain desired,"
                + " List<String> prev, boolean mbm) { return null; }",
            "}",
            "record Plain(String name, Later later) {}");
    Compilation c =
        javac().withProcessors(new CocoIndexProcessor(), new LaterClassGenerator()).compile(handler);
    assertThat(c).hadErrorCount(1);
    assertThat(c)
        .hadErrorContaining(
            "[COCO-021] @RootTarget handler test.ThingHandler has test.Plain as its value type V,"
                + " which cannot be serialized")
        .inFile(handler)
        .onLineContaining("@io.cocoindex.annotation.RootTarget");
    assertThat(c)
        .hadErrorContaining(
            "its component 'later' has type test.Later: test.Later is not a supported type");
  }

  @Test
  void typeThatNeverResolvesLeavesOnlyJavacsError() {
    Compilation c = javac().withProcessors(new CocoIndexProcessor()).compile(HOLDER);
    assertThat(c).hadErrorCount(2);
    assertThat(c).hadErrorContaining("cannot find symbol").inFile(HOLDER).onLineContaining("record Holder");
    assertThat(c).hadErrorContaining("symbol:   class Later");
  }
}
