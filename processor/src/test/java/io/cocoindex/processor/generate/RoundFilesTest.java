package io.cocoindex.processor.generate;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.TypeSpec;
import io.cocoindex.processor.FirstRoundProcessor;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.element.Element;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** A round's files, built and rendered on the worker, written in javac's Filer in order. */
class RoundFilesTest {

  /** Queues three files for each root type, the second of which fails to build. */
  static final class ThreeFiles extends FirstRoundProcessor {
    final List<String> failures = new ArrayList<>();

    @Override
    protected void firstRound(RoundEnvironment round) {
      RoundFiles files = new RoundFiles();
      for (Element root : round.getRootElements()) {
        String name = root.getSimpleName().toString();
        files.add(root, () -> file(name + "_First"));
        files.add(root, () -> {
          throw new IllegalStateException("no " + name + "_Second");
        });
        files.add(root, () -> file(name + "_Third"));
      }
      files.writeAll(processingEnv.getFiler(), (origin, generated, cause) ->
          failures.add(origin + " / " + generated + " / " + cause.getMessage()));
    }

    private static JavaFile file(String simpleName) {
      return GeneratedFiles.file("test", TypeSpec.classBuilder(simpleName).build());
    }
  }

  /** Compiles {@code test.Item}, and {@code others}, with {@code processor}. */
  private static Compilation compileItem(ThreeFiles processor, JavaFileObject... others) {
    List<JavaFileObject> sources = new ArrayList<>(List.of(
        JavaFileObjects.forSourceLines("test.Item", "package test;", "class Item {}")));
    sources.addAll(List.of(others));
    return javac().withProcessors(processor).compile(sources);
  }

  @Test
  void aFileThatFailsToBuildIsReportedOnItsElementAndTheOthersAreWritten() {
    ThreeFiles processor = new ThreeFiles();
    Compilation c = compileItem(processor);
    assertThat(c).succeeded();
    assertThat(c).generatedSourceFile("test.Item_First");
    assertThat(c).generatedSourceFile("test.Item_Third");
    assertThat(processor.failures).containsExactly("test.Item / null / no Item_Second");
  }

  @Test
  void aFileTheFilerRefusesIsReportedWithItsName() {
    ThreeFiles processor = new ThreeFiles();
    Compilation c = compileItem(processor,
        JavaFileObjects.forSourceLines("test.Item_Third", "package test;", "class Item_Third {}"));
    assertThat(c).generatedSourceFile("test.Item_First");
    assertThat(processor.failures).hasSize(3);
    assertThat(processor.failures.get(0)).isEqualTo("test.Item / null / no Item_Second");
    assertThat(processor.failures.get(1))
        .startsWith("test.Item / test.Item_Third / Attempt to recreate");
  }

  /** Queues three files whose building waits, and writes them from an interrupted thread. */
  static final class Interrupted extends FirstRoundProcessor {
    final List<String> failures = new ArrayList<>();

    @Override
    protected void firstRound(RoundEnvironment round) {
      java.util.concurrent.CountDownLatch built = new java.util.concurrent.CountDownLatch(1);
      RoundFiles files = new RoundFiles();
      for (Element root : round.getRootElements()) {
        for (String suffix : List.of("_First", "_Second", "_Third")) {
          files.add(root, () -> {
            try {
              built.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return ThreeFiles.file(root.getSimpleName() + suffix);
          });
        }
      }
      Thread.currentThread().interrupt();
      try {
        files.writeAll(processingEnv.getFiler(), (origin, generated, cause) ->
            failures.add(origin + " / " + generated + " / " + cause.getClass().getSimpleName()));
      } finally {
        Thread.interrupted(); // javac's thread goes on as it was
        built.countDown();
      }
    }
  }

  @Test
  void anInterruptedWriteReportsEveryFileItDidNotWrite() {
    Interrupted processor = new Interrupted();
    javac().withProcessors(processor).compile(
        JavaFileObjects.forSourceLines("test.Item", "package test;", "class Item {}"));
    assertThat(processor.failures).containsExactly(
        "test.Item / null / InterruptedException", "test.Item / null / InterruptedException",
        "test.Item / null / InterruptedException");
  }
}
