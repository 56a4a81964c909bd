package io.cocoindex.samples.localfs;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Validation of entry names: one path segment, nothing that escapes its directory, and a name
 * the file system can hold. Checked at declaration, so a name that cannot be written fails there,
 * naming itself, rather than in the sink on a path the user never named.
 */
final class Names {
  /** The longest file name, in UTF-8 bytes, of the common file systems (ext4, XFS, APFS, ...). */
  static final int MAX_NAME_BYTES = 255;
  /** How the temporary sibling of an atomic write ends (see {@link AtomicFiles#tempSibling}). */
  static final String TEMP_SUFFIX = ".cocoindex-tmp";

  private Names() {}

  /**
   * Checks a name declared for a file or a subdirectory.
   *
   * @throws IllegalArgumentException naming the entry when it is not a plain file name, is
   *     longer than {@link #MAX_NAME_BYTES} bytes in UTF-8, is not valid Unicode, or has the
   *     shape reserved for temporary siblings ({@link #isTemporaryName})
   */
  static String checkEntryName(String name) {
    checkSegment(name);
    int bytes = utf8Length(name);
    if (bytes < 0) {
      throw new IllegalArgumentException("entry name '" + printable(name) + "' contains an"
          + " unpaired surrogate (a broken UTF-16 string): it has no file name; fix the string");
    }
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException("entry name '" + name + "' is " + bytes
          + " bytes long in UTF-8, and file names are limited to " + MAX_NAME_BYTES
          + " bytes: shorten it");
    }
    if (isTemporaryName(name)) {
      throw new IllegalArgumentException("entry name '" + name + "' is reserved: names that"
          + " start with '.' and end with '" + TEMP_SUFFIX + "' are the temporary files of the"
          + " connector's atomic writes (a write of 'a' goes through '.a" + TEMP_SUFFIX
          + "'); rename it");
    }
    try {
      Path.of(name);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("entry name '" + printable(name) + "' is not a valid"
          + " file name on this platform: " + e.getReason(), e);
    }
    return name;
  }

  /**
   * Checks only that {@code name} is one segment that stays in its directory: what a path built
   * from a tracked key needs, even one declared under older, looser rules (it must still be
   * deletable).
   *
   * @throws IllegalArgumentException naming the entry otherwise
   */
  static String checkSegment(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("an entry name must not be empty");
    }
    if (name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException(
          "entry name '" + name + "' is not allowed: it would escape or alias its directory");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || c == '\\' || c == 0) {
        throw new IllegalArgumentException(
            "entry name '" + printable(name) + "' contains a path separator or NUL:"
                + " declare a subdirectory with declareDir instead");
      }
    }
    return name;
  }

  /**
   * Whether {@code name} has the shape of a temporary sibling: {@code .<anything>.cocoindex-tmp},
   * compared ignoring case, since on a case-insensitive file system {@code .A.COCOINDEX-TMP} is
   * the temporary sibling of {@code A}.
   */
  static boolean isTemporaryName(String name) {
    return name.length() > TEMP_SUFFIX.length() + 1
        && name.charAt(0) == '.'
        && name.regionMatches(true, name.length() - TEMP_SUFFIX.length(), TEMP_SUFFIX, 0,
            TEMP_SUFFIX.length());
  }

  /** The length of {@code s} in UTF-8, or -1 when it holds an unpaired surrogate. */
  static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return -1;
        }
        n += 4;
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return -1;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /**
   * The longest prefix of {@code s} (valid UTF-16) that is at most {@code maxBytes} long in
   * UTF-8, never splitting a surrogate pair.
   */
  static String utf8Prefix(String s, int maxBytes) {
    int n = 0;
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (n + len > maxBytes) {
        break;
      }
      n += len;
      i += Character.charCount(cp);
    }
    return s.substring(0, i);
  }

  /** {@code name} with NUL and unpaired surrogates escaped, for an error message. */
  private static String printable(String name) {
    StringBuilder sb = new StringBuilder(name.length());
    name.codePoints().forEach(cp -> {
      if (cp == 0) {
        sb.append("\\0");
      } else if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
        sb.append(String.format("\\u%04X", cp)); // unpaired: a pair is one code point
      } else {
        sb.appendCodePoint(cp);
      }
    });
    return sb.toString();
  }
}
