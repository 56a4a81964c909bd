package io.cocoindex.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fresh javac's processor path, taken out of a jar of every module, as the harness's is. */
class FreshJavacTest {

  @Test
  void onlyTheProcessorTheApiAndTheStandInAreCopiedOutOfTheHarnessJar(@TempDir Path tmp)
      throws IOException {
    Path jar = tmp.resolve("harness.jar");
    try (OutputStream file = Files.newOutputStream(jar);
        ZipOutputStream zip = new ZipOutputStream(file)) {
      for (String name : List.of(
          "io/cocoindex/TargetHandler.class",
          "io/cocoindex/annotation/RootTarget.class",
          "io/cocoindex/processor/CocoIndexProcessor.class",
          "io/cocoindex/processor/shaded/javapoet/JavaFile.class",
          "io/cocoindex/bench/ReplayProcessor.class",
          "io/cocoindex/bench/Main.class",
          "io/cocoindex/runtime/App.class",
          "io/cocoindex/samples/sqlite/Sqlite.class",
          "io/cocoindex/processor/messages.properties",
          "org/sqlite/JDBC.class")) {
        zip.putNextEntry(new ZipEntry(name));
        zip.write(new byte[] {(byte) 0xCA, (byte) 0xFE});
        zip.closeEntry();
      }
    }
    Path dir = tmp.resolve("processor-path");
    FreshJavac.copyProcessorClasses(jar, dir);
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/")))
          .containsExactlyInAnyOrder(
              "io/cocoindex/TargetHandler.class",
              "io/cocoindex/annotation/RootTarget.class",
              "io/cocoindex/processor/CocoIndexProcessor.class",
              "io/cocoindex/processor/shaded/javapoet/JavaFile.class",
              "io/cocoindex/bench/ReplayProcessor.class");
    }
  }
}
