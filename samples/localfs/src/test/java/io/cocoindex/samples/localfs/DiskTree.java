package io.cocoindex.samples.localfs;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything under a directory, hidden files included, by relative path: a file maps to its
 * text, a directory ({@code "sub/"}) to {@code ""}, a symbolic link ({@code "link@"}) to its
 * target. Links are not followed. A missing root is an empty tree.
 */
final class DiskTree {
  private DiskTree() {}

  static Map<String, String> of(Path root) throws IOException {
    Map<String, String> out = new TreeMap<>();
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        if (!dir.equals(root)) {
          out.put(root.relativize(dir) + "/", "");
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        String rel = root.relativize(file).toString();
        if (attrs.isSymbolicLink()) {
          out.put(rel + "@", Files.readSymbolicLink(file).toString());
        } else {
          out.put(rel, Files.readString(file));
        }
        return FileVisitResult.CONTINUE;
      }
    });
    return out;
  }
}
