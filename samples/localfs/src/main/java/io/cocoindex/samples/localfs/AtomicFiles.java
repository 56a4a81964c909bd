package io.cocoindex.samples.localfs;

import io.cocoindex.Fingerprint;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

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

  /**
   * Writes to a temporary sibling, syncs it, and renames it over {@code target}, whose directory
   * must exist. Whatever is found at the sibling's name (one a killed write left, or a link
   * planted there to a file elsewhere) is removed, not opened: the sibling is always created new,
   * so the write never goes through a link to outside the directory.
   */
  static void write(Path target, byte[] content) throws IOException {
    Path tmp = tempSibling(target);
    try {
      Files.deleteIfExists(tmp); // a link itself, not what it leads to
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
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
}
