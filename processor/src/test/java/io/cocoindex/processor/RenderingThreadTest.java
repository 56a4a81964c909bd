package io.cocoindex.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import io.cocoindex.processor.generate.RoundFiles;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The processor renders a round's files on a thread of its own; javac may run in a JVM that
 * lives on (a build daemon, an IDE), so that thread must not outlive the round.
 */
class RenderingThreadTest {

  private static long renderingThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("cocoindex-processor-render") && t.isAlive())
        .count();
  }

  @Test
  void noRenderingThreadOutlivesTheCompilation() throws InterruptedException {
    Compilation c =
        javac()
            .withProcessors(new CocoIndexProcessor())
            .compile(
                JavaFileObjects.forSourceLines(
                    "test.Item",
                    "package test;",
                    "@io.cocoindex.annotation.TargetValue",
                    "public record Item(String id, long size) {}"));
    assertThat(c).succeededWithoutWarnings();
    // Rendered on the worker and written: the worker ran.
    assertThat(c).generatedSourceFile("test.Item_Codec");
    // Stopped at the round's end, it ends within moments; idle, it would end after
    // IDLE_SECONDS, so half of that tells the two apart however slow the machine.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RoundFiles.IDLE_SECONDS) / 2;
    while (renderingThreads() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(renderingThreads()).isEqualTo(0);
  }
}
