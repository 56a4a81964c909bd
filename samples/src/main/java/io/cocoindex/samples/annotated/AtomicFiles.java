package io.cocoindex.samples.annotated;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** The file operations of the connector's sinks: idempotent, so a retried batch is harmless. */
final class AtomicFiles {
  private AtomicFiles() {}

  /** Writes through a temporary file and a rename, so a crash never leaves half a file. */
  static void writeAtomically(Path file, String content) throws IOException {
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
    Files.writeString(tmp, content, StandardCharsets.UTF_8);
    Files.move(
        tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Deletes a file or a directory tree; absent is fine. */
  static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      walk.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
