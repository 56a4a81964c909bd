package io.cocoindex.samples.redis;

/**
 * Key-name safety. Commands carry keys as arguments, so a name cannot inject a command; the
 * risks are a prefix that matches more than meant in a {@code SCAN MATCH} pattern (escaped
 * here), names with whitespace or control characters (rejected), and two indexes sharing keys.
 *
 * <p>Keys are owned by their last {@value #SEPARATOR}: a prefix ends with it and an id holds
 * none, so the key {@code doc:v2:1} is document {@code 1} of index {@code doc:v2:} and never a
 * document of {@code doc:}, whose purge leaves it alone. (CocoIndex's Valkey connector gets the
 * same from names limited to {@code [A-Za-z0-9_-]}, with prefix {@code <name>:}.)
 */
public final class RedisNames {
  /** Ends every prefix; no document id holds it. */
  public static final char SEPARATOR = ':';

  private RedisNames() {}

  /**
   * Checks an index's key prefix: {@link #check} and the final {@value #SEPARATOR}.
   *
   * @param prefix the key prefix: 1 to 256 characters, no whitespace or control character,
   *     ending with {@value #SEPARATOR}
   * @return {@code prefix}, unchanged
   * @throws IllegalArgumentException naming it when it is invalid
   */
  public static String prefix(String prefix) {
    check("key prefix", prefix, 256);
    if (prefix.charAt(prefix.length() - 1) != SEPARATOR) {
      throw new IllegalArgumentException(
          "invalid key prefix '" + prefix + "': it must end with '" + SEPARATOR + "' (use '"
              + prefix + SEPARATOR + "'), so that no key is under two indexes' prefixes");
    }
    return prefix;
  }

  /**
   * Checks a document id: {@link #check}, and no {@value #SEPARATOR}.
   *
   * @param id the document id: 1 to 512 characters, no whitespace, control character or
   *     {@value #SEPARATOR}
   * @return {@code id}, unchanged
   * @throws IllegalArgumentException naming it when it is invalid
   */
  public static String documentId(String id) {
    check("document id", id, 512);
    if (id.indexOf(SEPARATOR) >= 0) {
      throw new IllegalArgumentException(
          "invalid document id '" + id + "': it must not contain '" + SEPARATOR + "', which"
              + " separates an index's prefix from its ids (doc:v2:1 is document 1 of index"
              + " doc:v2:, not document v2:1 of index doc:)");
    }
    return id;
  }

  /** Whether {@code key}, found under {@code prefix}, is a document key of that index. */
  static boolean ownedBy(String prefix, String key) {
    return key.startsWith(prefix) && key.indexOf(SEPARATOR, prefix.length()) < 0;
  }

  /**
   * Checks a prefix, a document id or a field name.
   *
   * @param what what it is, for the message
   * @param name the name to check
   * @param maxLength the most characters (UTF-16 units) the name may have
   * @return {@code name}, unchanged
   * @throws IllegalArgumentException naming it when null, empty, too long, or holding whitespace
   *     or control characters
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
