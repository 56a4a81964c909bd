package io.cocoindex.samples.sqlite;

import java.util.regex.Pattern;

/** Table, column and index names are checked here before they reach any SQL text. */
public final class SqlIdentifiers {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

  private SqlIdentifiers() {}

  /**
   * Returns {@code name} quoted for SQL.
   *
   * @param what what the name names, for the error message: {@code "table"}, {@code "column"},
   *     {@code "index"} and so on
   * @param name the identifier to check and quote
   * @return {@code name} in double quotes, as SQL text
   * @throws IllegalArgumentException naming the identifier when it is not a plain identifier of
   *     at most 64 letters, digits and underscores, or is reserved by SQLite
   */
  public static String quote(String what, String name) {
    check(what, name);
    return '"' + name + '"';
  }

  /**
   * Checks {@code name}; see {@link #quote}.
   *
   * @param what what the name names, for the error message: {@code "table"}, {@code "column"},
   *     {@code "index"} and so on
   * @param name the identifier to check
   * @return {@code name}, unchanged and unquoted
   * @throws IllegalArgumentException naming the identifier when it is null, not a plain
   *     identifier of at most 64 letters, digits and underscores, or starts with {@code sqlite_}
   *     (reserved by SQLite, in any case)
   */
  public static String check(String what, String name) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "invalid " + what + " name '" + name + "': use 1-64 letters, digits and underscores,"
              + " not starting with a digit");
    }
    if (name.toLowerCase(java.util.Locale.ROOT).startsWith("sqlite_")) {
      throw new IllegalArgumentException(
          "invalid " + what + " name '" + name + "': names starting with sqlite_ are reserved");
    }
    return name;
  }

  /**
   * Checks the name of a schema object (a table, an index, a full-text index): as {@link
   * #check}, and not starting with {@value #RESERVED_PREFIX}, which names the connector's own
   * tables (such as the one a rebuild copies into).
   *
   * @param what what the name names, for the error message: {@code "table"}, {@code "index"},
   *     {@code "full-text index"}
   * @param name the object's name to check
   * @return {@code name}, unchanged and unquoted
   * @throws IllegalArgumentException naming the identifier when {@link #check} rejects it or it
   *     starts with {@value #RESERVED_PREFIX}, in any case
   */
  public static String checkObject(String what, String name) {
    check(what, name);
    if (name.toLowerCase(java.util.Locale.ROOT).startsWith(RESERVED_PREFIX)) {
      throw new IllegalArgumentException("invalid " + what + " name '" + name
          + "': names starting with " + RESERVED_PREFIX + " are reserved for the connector");
    }
    return name;
  }

  /**
   * {@code name} as SQLite compares names: case-insensitively (identifiers are ASCII here).
   * Tables, indexes and full-text indexes are keyed so, and columns compared so: two spellings
   * of one name are one object, never one created and the other dropped.
   */
  static String fold(String name) {
    return name.toLowerCase(java.util.Locale.ROOT);
  }

  /** The prefix of the connector's own schema objects, which user objects cannot take. */
  static final String RESERVED_PREFIX = "cocoindex_";
}
