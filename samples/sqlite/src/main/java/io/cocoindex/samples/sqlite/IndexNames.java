package io.cocoindex.samples.sqlite;

import io.cocoindex.Fingerprint;

/**
 * The name an index has in the database. SQLite index names are database-wide (one namespace
 * with tables and views), an index is declared on its table: its name is scoped by the table,
 * {@code <table>__<name>} as CocoIndex names indexes, so two tables may each declare {@code
 * by_title} and an index moved between tables is two names (the new one created, the old one
 * dropped). A name already scoped so, the table's name and one {@code _} then more
 * ({@code docs_by_title} on {@code docs}, the usual SQLite convention), is kept as declared:
 * within a table, names of the two forms never meet ({@code docs_x} against {@code docs__x}).
 */
final class IndexNames {
  /** The longest name this connector writes ({@link SqlIdentifiers}). */
  static final int MAX_LENGTH = 64;

  private IndexNames() {}

  /**
   * The name of index {@code name} of table {@code table} in the database; longer than {@value
   * #MAX_LENGTH}, its first 55 characters and 8 hex digits of a fingerprint of both names
   * (case-folded, as SQLite compares them), so that two long names are not cut into one.
   */
  static String of(String table, String name) {
    if (isScopedBy(table, name)) {
      return name;
    }
    String full = table + "__" + name;
    if (full.length() <= MAX_LENGTH) {
      return full;
    }
    String hash = Fingerprint.ofString(
        SqlIdentifiers.fold(table) + "\0" + SqlIdentifiers.fold(name)).toString().substring(1, 9);
    return full.substring(0, MAX_LENGTH - 9) + "_" + hash;
  }

  /** Whether {@code name} is {@code <table>_} and more, not starting with {@code _}. */
  private static boolean isScopedBy(String table, String name) {
    int n = table.length();
    return name.length() > n + 1 && name.regionMatches(true, 0, table, 0, n)
        && name.charAt(n) == '_' && name.charAt(n + 1) != '_';
  }
}
