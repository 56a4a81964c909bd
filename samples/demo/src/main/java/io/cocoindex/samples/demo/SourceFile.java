package io.cocoindex.samples.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A source file read for indexing: its bytes, or why it cannot be indexed (binary, not UTF-8,
 * vanished, unreadable). A bad file is reported and left as it was; the next run retries it.
 */
final class SourceFile {
  private SourceFile() {}

  /** A file that cannot be indexed, with a message for the per-file report. */
  static final class BadInput extends RuntimeException {
    BadInput(String message) {
      super(message);
    }
  }

  static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new BadInput("vanished while the run was in progress");
    } catch (IOException e) {
      throw new BadInput("cannot be read: " + e.getMessage());
    }
  }

  /**
   * Decodes a text file.
   *
   * @throws BadInput for a binary file (a NUL byte) or invalid UTF-8, naming the byte offset
   */
  static String text(byte[] bytes) {
    for (int i = 0; i < Math.min(bytes.length, 8192); i++) {
      if (bytes[i] == 0) {
        throw new BadInput("looks binary (a NUL byte at offset " + i + "): not indexed");
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (MalformedInputException e) {
      throw new BadInput("is not valid UTF-8 (" + e.getMessage() + "): not indexed");
    } catch (CharacterCodingException e) {
      throw new BadInput("is not valid UTF-8: not indexed");
    }
  }

  static boolean isIndexable(Path file) {
    String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
    return name.endsWith(".txt") || name.endsWith(".md") || name.endsWith(".markdown")
        || name.endsWith(".rst");
  }
}
