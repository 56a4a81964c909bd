package io.cocoindex.samples.redis;

/**
 * Key-name safety. Commands carry keys as arguments, so a name cannot inject a command; the
 * risks are a prefix that matches more than meant in a {@code SCAN MATCH} pattern (escaped
 * here) and names with whitespace or control characters, which are rejected.
 */
public final class RedisNames {
  private RedisNames() {}

  /**
   * Checks a prefix, a document id or a field name.
   *
   * @param what what it is, for the message
   * @throws IllegalArgumentException naming it when empty, too long, or holding whitespace or
   *     control characters
   */
  public static String check(String what, String name, int maxLength) {
    if (name == null || name.isEmpty() || name.length() > maxLength) {
      throw new IllegalArgumentException(
          "invalid " + what + " " + (name == null ? "null" : "'" + name + "'") + ": it must have 1"
              + " to " + maxLength + " characters");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            "invalid " + what + " '" + name + "': whitespace and control characters are not"
                + " allowed");
      }
    }
    return name;
  }

  /** A {@code SCAN MATCH} pattern for every key starting with {@code prefix}, globs escaped. */
  static String prefixPattern(String prefix) {
    StringBuilder sb = new StringBuilder();
    for (char c : prefix.toCharArray()) {
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\' || c == '^') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('*').toString();
  }
}
