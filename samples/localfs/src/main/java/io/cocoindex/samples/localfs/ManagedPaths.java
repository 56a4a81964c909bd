package io.cocoindex.samples.localfs;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Removal of the paths the connector manages. A directory is removed with its contents (the
 * destroy shape), but never through a symbolic link: the link's target is not the connector's,
 * and removing only the link would leave the files it wrote while reporting them deleted.
 */
final class ManagedPaths {
  private ManagedPaths() {}

  /**
   * Removes the directory {@code dir} with everything in it; a missing path is fine.
   *
   * @throws FileSystemException when {@code dir} is a symbolic link: nothing is deleted
   */
  static void removeDirectory(Path dir) throws IOException {
    BasicFileAttributes a = attributes(dir);
    if (a == null) {
      return;
    }
    if (a.isSymbolicLink()) {
      throw new FileSystemException(dir.toString(), null, "cannot remove this directory, which"
          + " the app no longer declares: it is a symbolic link (to " + linkTarget(dir) + "),"
          + " and cocoindex deletes neither through a link nor a link it did not create. Its"
          + " tracking is kept, and its removal fails on every run until you remove the link"
          + " yourself (and the files it leads to, if they should go too)");
    }
    if (!a.isDirectory()) {
      Files.deleteIfExists(dir);
      return;
    }
    deleteTree(dir);
  }

  /** The attributes of {@code path} itself (a link is not followed), or null if it is missing. */
  static BasicFileAttributes attributes(Path path) throws IOException {
    Path name = path.getFileName();
    if (name != null && Names.utf8Length(name.toString()) > Names.MAX_NAME_BYTES) {
      return null; // tracked under older rules: the file system cannot hold such a name
    }
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static String linkTarget(Path link) {
    try {
      return Files.readSymbolicLink(link).toString();
    } catch (IOException e) {
      return "a target that cannot be read: " + e.getMessage();
    }
  }

  /** Deletes a real directory and its contents; links inside are deleted, not followed. */
  private static void deleteTree(Path dir) throws IOException {
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
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
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        if (e != null && !(e instanceof NoSuchFileException)) {
          throw e;
        }
        try {
          Files.deleteIfExists(d);
        } catch (DirectoryNotEmptyException raced) {
          deleteTree(d); // something was written into it meanwhile
        }
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
