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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sinks do to the paths the connector manages, never touching what it did not write.
 * The connector writes regular files and directories only; anything else found at a managed
 * path, or an entry of the other kind, was put there by someone else:
 *
 * <ul>
 *   <li>creating or writing an entry fails when something else is in its place, with an error
 *       saying what it is and how to clear the way (CocoIndex fails too: {@code mkdir} and
 *       {@code write_bytes} raise);
 *   <li>removing an entry leaves something else in its place alone, with a warning: what the
 *       connector wrote there is gone already;
 *   <li>a directory is removed with its contents (the destroy shape), but never through a
 *       symbolic link: that fails, since the files the connector wrote may be behind the link,
 *       and the link's target is not the connector's.
 * </ul>
 */
final class ManagedPaths {
  private static final Logger log = LoggerFactory.getLogger(ManagedPaths.class);

  private ManagedPaths() {}

  /**
   * Makes sure {@code dir} is a directory, creating it and its missing parents. A directory, or
   * a link to one, is used as it is.
   *
   * @throws FileSystemException naming what is in the way when {@code dir} or one of its
   *     parents is something else; nothing is deleted
   */
  static void ensureDirectory(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    try {
      Files.createDirectories(dir);
    } catch (FileSystemException e) {
      if (Files.isDirectory(dir)) {
        return; // created meanwhile
      }
      // The nearest of dir and its parents that exists: not a directory, or we would be done.
      for (Path p = dir; p != null; p = p.getParent()) {
        BasicFileAttributes a = Files.exists(p, LinkOption.NOFOLLOW_LINKS) ? attributes(p) : null;
        if (a != null) {
          if (Files.isDirectory(p)) {
            break;
          }
          throw notADirectory(dir, p, a);
        }
      }
      throw e;
    }
  }

  private static FileSystemException notADirectory(
      Path dir, Path blocker, BasicFileAttributes a) {
    String what = blocker.equals(dir)
        ? describe(blocker, a) + " is in its place"
        : blocker + " is " + describe(blocker, a) + ", not a directory";
    return new FileSystemException(dir.toString(), null, "cannot create this directory, which the"
        + " app declares: " + what + "; cocoindex did not write it and will not delete it: move"
        + " or delete it (or declare another path), then run again");
  }

  /**
   * Writes the file {@code file} atomically, creating its directory if it is missing.
   *
   * @throws FileSystemException when something other than a regular file is in its place;
   *     nothing is deleted
   */
  static void writeFile(Path file, byte[] content) throws IOException {
    ensureDirectory(file.getParent());
    BasicFileAttributes a = attributes(file);
    if (a != null && !a.isRegularFile()) {
      throw new FileSystemException(file.toString(), null, "cannot write this file, which the"
          + " app declares: " + describe(file, a) + " is in its place; cocoindex did not write it"
          + " and will not delete it: move or delete it, then run again");
    }
    AtomicFiles.write(file, content);
  }

  /**
   * Removes the file {@code file} (and the temporary sibling a killed write may have left); a
   * missing file is fine, anything else in its place is left alone with a warning.
   */
  static void removeFile(Path file, DeclaredThisRun declared) throws IOException {
    Files.deleteIfExists(AtomicFiles.tempSibling(file));
    BasicFileAttributes a = attributes(file);
    if (a == null) {
      return;
    }
    if (!a.isRegularFile()) {
      leftAlone(file, "file", a);
      return;
    }
    if (declared.isFile(file.toRealPath())) {
      return; // written in this run under another path (a directory reached by two)
    }
    Files.deleteIfExists(file);
  }

  /**
   * Removes the directory {@code dir} with everything in it; a missing path is fine, a file in
   * its place is left alone with a warning. What {@code declared} holds (the same directory, or
   * entries below it, declared in this run under other paths) stays.
   *
   * @throws FileSystemException when {@code dir} is a symbolic link: nothing is deleted
   */
  static void removeDirectory(Path dir, DeclaredThisRun declared) throws IOException {
    BasicFileAttributes a = attributes(dir);
    if (a == null) {
      return;
    }
    if (a.isSymbolicLink()) {
      throw isALink(dir, "this directory, which the app no longer declares");
    }
    if (!a.isDirectory()) {
      leftAlone(dir, "directory", a);
      return;
    }
    Path real = dir.toRealPath();
    if (declared.isDirectory(real)) {
      log.info("left {} in place: the app no longer declares it under this path, but declared"
          + " it again in this run under another ({})", dir, real);
      return;
    }
    if (declared.anyBelow(real)) {
      deleteTreeExcept(real, declared);
      return;
    }
    deleteTree(dir);
  }

  /**
   * Deletes what is below the real directory {@code dir} except what this run declared (and the
   * directories leading to it), which stays with {@code dir} itself.
   */
  private static void deleteTreeExcept(Path dir, DeclaredThisRun declared) throws IOException {
    try (java.util.stream.Stream<Path> children = Files.list(dir)) {
      for (Path child : (Iterable<Path>) children::iterator) {
        BasicFileAttributes a = attributes(child);
        if (a == null || declared.isDirectory(child) || declared.isFile(child)) {
          continue;
        }
        if (a.isDirectory() && declared.anyBelow(child)) {
          deleteTreeExcept(child, declared);
        } else if (a.isDirectory()) {
          deleteTree(child);
        } else {
          Files.deleteIfExists(child);
        }
      }
    }
  }

  /**
   * Removes a file or a directory tree at {@code path}, whichever is there: for an entry whose
   * tracking records disagree on its kind (a kind change, maybe interrupted), both were written
   * by the connector.
   *
   * @throws FileSystemException when {@code path} is a symbolic link: nothing is deleted
   */
  static void removeEither(Path path) throws IOException {
    Files.deleteIfExists(AtomicFiles.tempSibling(path));
    BasicFileAttributes a = attributes(path);
    if (a == null) {
      return;
    }
    if (a.isSymbolicLink()) {
      throw isALink(path, "what the app wrote here");
    }
    if (a.isDirectory()) {
      deleteTree(path);
    } else {
      Files.deleteIfExists(path);
    }
  }

  private static FileSystemException isALink(Path dir, String what) {
    return new FileSystemException(dir.toString(), null, "cannot remove " + what
        + ": it is a symbolic link (to " + linkTarget(dir) + "),"
        + " and cocoindex deletes neither through a link nor a link it did not create. Its"
        + " tracking is kept, and its removal fails on every run until you remove the link"
        + " yourself (and the files it leads to, if they should go too)");
  }

  private static void leftAlone(Path path, String wrote, BasicFileAttributes a) {
    log.warn("left {} alone: the app no longer declares the {} it wrote there, and {} is in its"
        + " place now, which cocoindex did not write", path, wrote, describe(path, a));
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

  private static String describe(Path path, BasicFileAttributes a) {
    if (a.isSymbolicLink()) {
      return "a symbolic link (to " + linkTarget(path) + ")";
    }
    return a.isDirectory() ? "a directory" : a.isRegularFile() ? "a file" : "a special file";
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
