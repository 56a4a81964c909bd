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

  /**
   * Words that begin a column constraint or clause, never part of a type name ({@code integer
   * not null} is a type and a constraint; the connector casts values to the type).
   */
  private static final java.util.Set<String> CONSTRAINT_WORDS = java.util.Set.of(
      "not", "null", "default", "primary", "references", "check", "unique", "constraint",
      "collate", "generated");

  /** Types already checked: each row action carries its table's column types. */
  private static final Map<String, String> CHECKED_TYPES = new ConcurrentHashMap<>();

  private SqlNames() {}

  /**
   * Checks an identifier (schema, table, column, index).
   *
   * @param what what the name is, for the message ("table", "column of table public.docs")
   * @param name the identifier to check: a letter or underscore, then letters, digits and
   *     underscores, 63 characters at most
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
   * @param sqlType the type as written: {@code text}, {@code numeric(10, 2)}, {@code
   *     timestamp(3) with time zone}, {@code text[]}
   * @return the type normalized, a synonym under one name ({@code int8} as {@code bigint},
   *     {@code timestamp with time zone} as {@code timestamptz}), so that a respelled type is no
   *     type change
   * @throws IllegalArgumentException naming it when it is null or not a plain type name, or
   *     holds a constraint ({@code not null}, {@code default}, ...)
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
    StringBuilder before = new StringBuilder();
    for (String word : normalized.split(" ")) {
      if (!CONSTRAINT_WORDS.contains(word)) {
        before.append(before.length() == 0 ? "" : " ").append(word);
      } else {
        String alone = before.length() == 0 ? "text" : before.toString();
        throw new IllegalArgumentException("invalid SQL type '" + sqlType + "' of " + what + ": '"
            + word + "' begins a constraint, which a column's type cannot hold (the connector"
            + " casts every value to the type, and declares no NOT NULL, DEFAULT, CHECK, UNIQUE,"
            + " REFERENCES or COLLATE): give the type alone ('" + alone + "')");
      }
    }
    normalized = canonicalType(normalized);
    if (CHECKED_TYPES.size() < 10_000) {
      CHECKED_TYPES.put(sqlType, normalized);
    }
    return normalized;
  }

  /** A modifier with its spaces removed: {@code (10, 2)} is {@code (10,2)}. */
  private static final Pattern MODIFIER = Pattern.compile("\\( ?([0-9]+) ?(?:, ?([0-9]+) ?)?\\)");

  /**
   * One name per type, so that a synonym ({@code int} for {@code integer}, {@code timestamp with
   * time zone} for {@code timestamptz}) is no type change (which rewrites every row).
   */
  private static String canonicalType(String type) {
    String arrays = "";
    while (type.endsWith("[]")) {
      arrays += "[]";
      type = type.substring(0, type.length() - 2);
    }
    String modifier = "";
    String words = type;
    java.util.regex.Matcher m = MODIFIER.matcher(type);
    if (m.find()) {
      modifier = "(" + m.group(1) + (m.group(2) != null ? "," + m.group(2) : "") + ")";
      words = (type.substring(0, m.start()).trim() + " " + type.substring(m.end()).trim()).trim();
    }
    String name = switch (words) {
      case "int", "int4", "integer" -> "integer";
      case "int2", "smallint" -> "smallint";
      case "int8", "bigint" -> "bigint";
      case "float4", "real" -> "real";
      case "float8", "double precision" -> "double precision";
      case "float" -> {
        // float(p): real up to 24 bits of precision, double precision above; bare float: double.
        String bits = modifier.isEmpty() ? "53" : m.group(1);
        modifier = "";
        yield Integer.parseInt(bits) <= 24 ? "real" : "double precision";
      }
      case "bool", "boolean" -> "boolean";
      case "decimal", "numeric" -> "numeric";
      case "character varying", "varchar" -> "varchar";
      case "character", "char" -> {
        modifier = modifier.isEmpty() ? "(1)" : modifier; // char alone is char(1)
        yield "char";
      }
      case "timestamp with time zone", "timestamptz" -> "timestamptz";
      case "timestamp without time zone", "timestamp" -> "timestamp";
      case "time with time zone", "timetz" -> "timetz";
      case "time without time zone", "time" -> "time";
      case "bit varying", "varbit" -> "varbit";
      default -> null;
    };
    if (name == null) {
      return type + arrays; // not a synonym we know: kept as written (normalized)
    }
    return name + modifier + arrays;
  }
}
