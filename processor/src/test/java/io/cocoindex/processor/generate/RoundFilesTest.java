package io.cocoindex.processor.generate;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.TypeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import org.junit.jupiter.api.Test;

/** A round's files, built and rendered on the worker, written in javac's Filer in order. */
class RoundFilesTest {

  /** Queues three files for each root type, the second of which fails to build. */
  static final class ThreeFiles extends AbstractProcessor {
    final List<String> failures = new ArrayList<>();
    private boolean done;

    @Override
    public Set<String> getSupportedAnnotationTypes() {
      return Set.of("*");
    }

    @Override
    public SourceVersion getSupportedSourceVersion() {
      return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
      if (done) {
        return false;
      }
      done = true;
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
      return false;
    }

    private static JavaFile file(String simpleName) {
      return GeneratedFiles.file("test", TypeSpec.classBuilder(simpleName).build());
    }
  }

  @Test
  void aFileThatFailsToBuildIsReportedOnItsElementAndTheOthersAreWritten() {
    ThreeFiles processor = new ThreeFiles();
    Compilation c =
        javac()
            .withProcessors(processor)
            .compile(JavaFileObjects.forSourceLines("test.Item", "package test;", "class Item {}"));
    assertThat(c).succeeded();
    assertThat(c).generatedSourceFile("test.Item_First");
    assertThat(c).generatedSourceFile("test.Item_Third");
    assertThat(processor.failures).containsExactly("test.Item / null / no Item_Second");
  }

  @Test
  void aFileTheFilerRefusesIsReportedWithItsName() {
    ThreeFiles processor = new ThreeFiles();
    Compilation c =
        javac()
            .withProcessors(processor)
            .compile(
                JavaFileObjects.forSourceLines("test.Item", "package test;", "class Item {}"),
                JavaFileObjects.forSourceLines(
                    "test.Item_Third", "package test;", "class Item_Third {}"));
    assertThat(c).generatedSourceFile("test.Item_First");
    assertThat(processor.failures).hasSize(3);
    assertThat(processor.failures.get(0)).isEqualTo("test.Item / null / no Item_Second");
    assertThat(processor.failures.get(1))
        .startsWith("test.Item / test.Item_Third / Attempt to recreate");
  }
}
