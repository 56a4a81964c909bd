package io.cocoindex.samples.localfs;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;

/**
 * One entry of a directory: a file with its content, or a subdirectory (itself a container of
 * entries).
 *
 * @param name the entry's name in its directory (no separators, not {@code .} or {@code ..})
 * @param directory whether it is a subdirectory
 * @param content the file's bytes; empty for a directory
 */
@TargetValue
public record Entry(@Key String name, boolean directory, byte[] content) {

  /** A file {@code name} holding {@code content}. */
  public static Entry file(String name, byte[] content) {
    return new Entry(name, false, content);
  }

  /** An empty directory {@code name}. */
  public static Entry dir(String name) {
    return new Entry(name, true, new byte[0]);
  }
}
