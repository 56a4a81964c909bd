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
  void typeThatNeverResolvesLeavesOnlyJavacsError() {
    Compilation c = javac().withProcessors(new CocoIndexProcessor()).compile(HOLDER);
    assertThat(c).hadErrorCount(2);
    assertThat(c).hadErrorContaining("cannot find symbol").inFile(HOLDER).onLineContaining("record Holder");
    assertThat(c).hadErrorContaining("symbol:   class Later");
  }
}
