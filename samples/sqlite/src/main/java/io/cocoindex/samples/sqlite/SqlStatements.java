package io.cocoindex.samples.sqlite;

import java.util.Locale;

/**
 * The one check made of a SQL command's text: that it is one statement. SQLite's JDBC driver runs
 * only the first statement of a text and ignores the rest without a word, so a setup of two
 * {@code CREATE VIEW}s would make one view and report success.
 */
final class SqlStatements {
  private SqlStatements() {}

  /**
   * Refuses {@code sql} when a {@code ;} outside quotes and comments is followed by more SQL. A
   * trigger is not checked: its body's statements end with {@code ;} inside the one statement.
   *
   * @param what what the text is, for the error ("the setup of SQL command v of table docs")
   * @throws IllegalArgumentException naming {@code what} when the text holds a second statement
   */
  static void checkOne(String what, String sql) {
    if (sql == null || isTrigger(sql)) {
      return;
    }
    int end = firstTerminator(sql);
    if (end >= 0 && hasSql(sql, end + 1)) {
      throw new IllegalArgumentException(what + " holds more than one statement, and SQLite's"
          + " driver runs only the first: declare one SQL command per statement ("
          + sql.substring(0, end + 1).strip() + " ...)");
    }
  }

  private static boolean isTrigger(String sql) {
    String words = sql.strip().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
    return words.startsWith("CREATE TRIGGER") || words.startsWith("CREATE TEMP TRIGGER")
        || words.startsWith("CREATE TEMPORARY TRIGGER");
  }

  /** The index of the first {@code ;} outside quotes and comments, or -1. */
  private static int firstTerminator(String sql) {
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == ';') {
        return i;
      }
      i = skip(sql, i);
    }
    return -1;
  }

  /** Whether anything but blanks, comments and {@code ;} follows {@code from}. */
  private static boolean hasSql(String sql, int from) {
    int i = from;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c) || c == ';') {
        i++;
      } else if (startsComment(sql, i)) {
        i = skip(sql, i);
      } else {
        return true;
      }
    }
    return false;
  }

  private static boolean startsComment(String sql, int i) {
    return sql.startsWith("--", i) || sql.startsWith("/*", i);
  }

  /** The index after the token at {@code i}: a quoted name or string, a comment, or one char. */
  private static int skip(String sql, int i) {
    char c = sql.charAt(i);
    if (sql.startsWith("--", i)) {
      int nl = sql.indexOf('\n', i);
      return nl < 0 ? sql.length() : nl + 1;
    }
    if (sql.startsWith("/*", i)) {
      int close = sql.indexOf("*/", i + 2);
      return close < 0 ? sql.length() : close + 2;
    }
    char close = switch (c) {
      case '\'', '"', '`' -> c;
      case '[' -> ']';
      default -> 0;
    };
    if (close == 0) {
      return i + 1;
    }
    int j = i + 1;
    while (j < sql.length()) {
      if (sql.charAt(j) == close) {
        // A doubled quote is the quote itself, inside the string or name.
        if (close != ']' && j + 1 < sql.length() && sql.charAt(j + 1) == close) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      j++;
    }
    return sql.length();
  }
}
