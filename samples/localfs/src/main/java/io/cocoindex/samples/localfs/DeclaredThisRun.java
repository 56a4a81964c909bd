package io.cocoindex.samples.localfs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The directories one run ensured and the files it wrote, by real path: what a removal in the
 * same run, of an entry no longer declared under another key, must leave standing. One
 * directory reached under two keys (a subdirectory promoted to a root, a root demoted to a
 * subdirectory of a new one, a root declared through a link to its old path) was otherwise
 * written under the new key and then removed, files and all, with the old one at the end of the
 * run. A run's directories are all here: a declared directory gets an action on every run.
 *
 * <p>One per {@link DirHandler}, that is per run ({@link LocalFs#register}), shared by its sinks.
 */
final class DeclaredThisRun {
  /** Real paths of the directories ensured, by the path they were declared as. */
  private final Map<Path, Path> dirs = new ConcurrentHashMap<>();
  private final Set<Path> realDirs = ConcurrentHashMap.newKeySet();
  private final Set<Path> files = ConcurrentHashMap.newKeySet();
  /** Every real path above, as text in order: what lies below a path is one range of it. */
  private final NavigableSet<String> all = new ConcurrentSkipListSet<>();

  /** {@code dir}, as declared, now exists. */
  void ensured(Path dir) throws IOException {
    Path real = dir.toRealPath();
    dirs.put(dir, real);
    realDirs.add(real);
    all.add(real.toString());
  }

  /** {@code file}, as declared, was written. */
  void wrote(Path file) throws IOException {
    Path parent = file.getParent();
    Path realParent = dirs.get(parent);
    Path real = (realParent != null ? realParent : parent.toRealPath()).resolve(file.getFileName());
    files.add(real);
    all.add(real.toString());
  }

  /** Whether the real path {@code real} is a directory ensured in this run. */
  boolean isDirectory(Path real) {
    return realDirs.contains(real);
  }

  /** Whether the real path {@code real} is a file written in this run. */
  boolean isFile(Path real) {
    return files.contains(real);
  }

  /** Whether a directory ensured or a file written in this run lies strictly below {@code real}. */
  boolean anyBelow(Path real) {
    String prefix = real.toString() + real.getFileSystem().getSeparator();
    String next = all.ceiling(prefix);
    return next != null && next.startsWith(prefix);
  }
}
