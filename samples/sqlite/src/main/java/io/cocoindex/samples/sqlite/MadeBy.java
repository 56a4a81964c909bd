package io.cocoindex.samples.sqlite;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The app that made a schema object, named in a comment of the object's SQL after its name (the
 * comment reads {@code cocoindex app: indexer}), which SQLite keeps in {@code sqlite_master} as
 * written, through renames and added columns. Several apps may write one database; SQLite names
 * are the database's, so a table or full-text index one app made is never taken by another.
 *
 * <p>The name is percent-encoded where it could end the comment or the pattern reading it back:
 * {@code %}, {@code *} and anything but ASCII letters, digits, spaces and {@code -_.:}.
 */
final class MadeBy {
  /** The comment as {@link #comment} writes it, for patterns matching a whole statement. */
  static final String PATTERN = "/\\* cocoindex app: [A-Za-z0-9 %_.:-]* \\*/";

  private static final Pattern COMMENT =
      Pattern.compile("/\\* cocoindex app: ([A-Za-z0-9 %_.:-]*) \\*/");

  private MadeBy() {}

  /** The comment naming {@code app}. */
  static String comment(String app) {
    StringBuilder out = new StringBuilder("/* cocoindex app: ");
    for (byte b : app.getBytes(StandardCharsets.UTF_8)) {
      char ch = (char) (b & 0xff);
      if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
          || ch == ' ' || ch == '-' || ch == '_' || ch == '.' || ch == ':') {
        out.append(ch);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(ch >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(ch & 0xf, 16)));
      }
    }
    return out.append(" */").toString();
  }

  /**
   * The app the first such comment in {@code sql} names, or null: none (an object made by hand,
   * or by a version of the connector before apps were recorded), or no SQL.
   */
  static String appIn(String sql) {
    if (sql == null) {
      return null;
    }
    Matcher m = COMMENT.matcher(sql);
    if (!m.find()) {
      return null;
    }
    try {
      return URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return m.group(1); // edited by hand: compared as written
    }
  }
}
