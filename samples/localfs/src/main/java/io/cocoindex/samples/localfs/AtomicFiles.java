package io.cocoindex.samples.localfs;

import io.cocoindex.Fingerprint;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/** File operations that leave either the old or the new content, never a torn file. */
final class AtomicFiles {
  private AtomicFiles() {}

  /**
   * The temporary sibling a write of {@code target} goes through: {@code .<name>.cocoindex-tmp}.
   * Its name is fixed (not random) so that one left by a killed write is overwritten by the next
   * write of the same file or deleted with it, never orphaned. It always fits in {@link
   * Names#MAX_NAME_BYTES}: for a name too long to take 15 more bytes, it is {@code
   * .<prefix>~<16 hex digits of the name's fingerprint>.cocoindex-tmp}, so every name the
   * validator accepts can be written.
   */
  static Path tempSibling(Path target) {
    String name = target.getFileName().toString();
    String plain = "." + name + Names.TEMP_SUFFIX;
    if (Names.utf8Length(plain) <= Names.MAX_NAME_BYTES) {
      return target.resolveSibling(plain);
    }
    String hash = Fingerprint.ofString(name).toString().substring(1, 17);
    int prefixBytes = Names.MAX_NAME_BYTES - 2 - hash.length() - Names.TEMP_SUFFIX.length();
    return target.resolveSibling(
        "." + Names.utf8Prefix(name, prefixBytes) + "~" + hash + Names.TEMP_SUFFIX);
  }

  /** Writes to a temporary sibling, syncs it, and renames it over {@code target}. */
  static void write(Path target, byte[] content) throws IOException {
    Path dir = target.getParent();
    Files.createDirectories(dir);
    Path tmp = tempSibling(target);
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Removes a file or a whole tree; a missing path is fine. */
  static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      if (path.getFileName() != null) {
        Files.deleteIfExists(tempSibling(path)); // a killed first write of a file
      }
      return;
    }
    if (!Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      Files.deleteIfExists(path);
      Files.deleteIfExists(tempSibling(path));
      return;
    }
    Files.walkFileTree(path, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        if (e != null && !(e instanceof NoSuchFileException)) {
          throw e;
        }
        try {
          Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException raced) {
          deleteRecursively(dir);
        }
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
