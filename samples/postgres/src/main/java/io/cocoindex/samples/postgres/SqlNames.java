package io.cocoindex.samples.postgres;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Identifier and type safety: every name that reaches SQL text passes through here first, so a
 * malicious name is rejected before anything is executed. Values never reach SQL text: they are
 * always bound as parameters.
 */
public final class SqlNames {
  /** PostgreSQL's unquoted identifier shape, within its 63-byte limit. */
  private static final Pattern IDENTIFIER = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]{0,62}$");

  /**
   * A type name: words ({@code double precision}), an optional modifier ({@code numeric(10,2)},
   * {@code vector(3)}), trailing words ({@code timestamp(3) with time zone}) and array brackets.
   */
  private static final Pattern TYPE =
      Pattern.compile(
          "^[a-z_][a-z0-9_]*( [a-z_][a-z0-9_]*)*(\\( ?[0-9]{1,5} ?(, ?[0-9]{1,5} ?)?\\))?"
              + "( [a-z_][a-z0-9_]*)*(\\[\\])*$");

  /** Types already checked: each row action carries its table's column types. */
  private static final Map<String, String> CHECKED_TYPES = new ConcurrentHashMap<>();

  private SqlNames() {}

  /**
   * Checks an identifier (schema, table, column, index).
   *
   * @param what what the name is, for the message ("table", "column of table public.docs")
   * @return the name, unchanged
   * @throws IllegalArgumentException naming it when it is not a plain identifier
   */
  public static String identifier(String what, String name) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "invalid " + what + " name " + (name == null ? "null" : "'" + name + "'")
              + ": PostgreSQL identifiers here must match [A-Za-z_][A-Za-z0-9_]{0,62}");
    }
    return name;
  }

  /** The identifier double-quoted, after {@link #identifier} checks it. */
  static String quote(String what, String name) {
    return '"' + identifier(what, name) + '"';
  }

  /** {@code "schema"."table"}, both checked. */
  static String qualified(String schema, String table) {
    return quote("schema", schema) + "." + quote("table", table);
  }

  /**
   * Normalizes a SQL type (lower case, single spaces) and checks its shape.
   *
   * @param what what the type belongs to, for the message
   * @throws IllegalArgumentException naming it when it is not a plain type name
   */
  public static String type(String what, String sqlType) {
    String known = sqlType == null ? null : CHECKED_TYPES.get(sqlType);
    if (known != null) {
      return known;
    }
    String normalized =
        sqlType == null
            ? ""
            : sqlType.trim().replaceAll("\\s+", " ").replace(" (", "(").toLowerCase(Locale.ROOT);
    if (!TYPE.matcher(normalized).matches()) {
      throw new IllegalArgumentException(
          "invalid SQL type " + (sqlType == null ? "null" : "'" + sqlType + "'") + " of " + what
              + ": use a type name such as text, bigint, numeric(10,2) or text[]");
    }
    if (CHECKED_TYPES.size() < 10_000) {
      CHECKED_TYPES.put(sqlType, normalized);
    }
    return normalized;
  }
}
