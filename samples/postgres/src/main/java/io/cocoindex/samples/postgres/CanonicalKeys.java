package io.cocoindex.samples.postgres;

import io.cocoindex.StableKey;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A row's key as PostgreSQL compares its primary key: values the column's type makes equal get
 * one key ({@code 1.0} and {@code 1.00} as {@code numeric}, {@code -0.0} and {@code 0.0}, one
 * instant at two offsets, instants apart by less than the column's precision, {@code 1} and
 * {@code '1'} as {@code bigint}). Otherwise the two forms are two target states of one row, and
 * the delete of the one no longer declared removes the row the other just wrote.
 *
 * <p>Each canonical form is what the server computes from the value the sink binds: the same
 * rounding (fractions of a second parsed as a double and rounded to microseconds, then to the
 * column's precision away from 2000-01-01; {@code numeric(p,s)} half away from zero; a {@code
 * real} through single precision), a {@code jsonb} by its value ({@link JsonbCanonical}), an ASCII
 * {@code citext} lower-cased. Values of other types, or text a type does not parse here, are
 * keyed as given.
 */
final class CanonicalKeys {
  private CanonicalKeys() {}

  /** Microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01. */
  private static final long PG_EPOCH_MICROS = 946_684_800L * 1_000_000L;

  private static final Pattern MODIFIER = Pattern.compile("\\(([0-9]+)(?:,([0-9]+))?\\)");
  private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");
  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
  private static final Pattern UUID_HEX = Pattern.compile("[0-9a-f]{32}");

  /**
   * The key of a row of a table with these columns: its primary-key values in canonical form (one
   * value, or an array for a composite key).
   *
   * @param what the table, for messages
   * @throws IllegalArgumentException naming the column when a key value is missing or null
   */
  static StableKey key(
      String what, List<ColumnDef> columns, List<String> primaryKey,
      Map<String, SqlValue> values) {
    StableKey[] parts = new StableKey[primaryKey.size()];
    for (int i = 0; i < parts.length; i++) {
      String column = primaryKey.get(i);
      SqlValue v = values.get(column);
      if (v == null || v.isNull()) {
        throw new IllegalArgumentException(
            "row of " + what + " has " + (v == null ? "no value" : "a null value")
                + " for primary key column '" + column + "'");
      }
      parts[i] = value(typeOf(columns, column), v).toKey();
    }
    return parts.length == 1 ? parts[0] : new StableKey.Array(List.of(parts));
  }

  private static String typeOf(List<ColumnDef> columns, String column) {
    for (ColumnDef c : columns) {
      if (c.name().equals(column)) {
        return c.type();
      }
    }
    throw new IllegalArgumentException("primary key column '" + column + "' is not a column");
  }

  /**
   * The canonical form of a value of a column of this (normalized) type.
   *
   * @param type the column's type, as {@link ColumnDef} normalizes it
   */
  static SqlValue value(String type, SqlValue v) {
    if (v.isNull() || type.endsWith("]")) {
      return v;
    }
    String base = type;
    Integer precision = null;
    Integer scale = null;
    Matcher m = MODIFIER.matcher(type);
    if (m.find()) {
      base = type.substring(0, m.start());
      precision = Integer.valueOf(m.group(1));
      scale = m.group(2) == null ? null : Integer.valueOf(m.group(2));
    }
    try {
      return switch (base) {
        case "smallint", "integer", "bigint" -> integral(v);
        case "numeric" -> numeric(v, precision == null ? null : scale == null ? 0 : scale);
        case "real" -> floating(v, true);
        case "double precision" -> floating(v, false);
        case "boolean" -> bool(v);
        case "text", "varchar" -> text(v);
        case "char" -> v.text() != null ? SqlValue.ofText(v.text().replaceAll(" +$", "")) : text(v);
        case "uuid" -> uuid(v);
        case "jsonb" -> v.text() != null ? SqlValue.ofText(JsonbCanonical.of(v.text())) : v;
        case "citext" -> citext(v);
        case "date" -> date(v);
        case "timestamptz" -> timestamptz(v, precision);
        case "timestamp" -> timestamp(v, precision);
        case "time" -> time(v, precision);
        default -> v;
      };
    } catch (DateTimeException | IllegalArgumentException | ArithmeticException e) {
      return v; // not a form parsed here: keyed as given (the server may still reject it)
    }
  }

  private static SqlValue integral(SqlValue v) {
    if (v.text() != null && INTEGER.matcher(v.text().trim()).matches()) {
      return SqlValue.ofLong(Long.parseLong(v.text().trim()));
    }
    if (v.real() != null && Double.isFinite(v.real()) && Math.abs(v.real()) < 0x1p63) {
      return SqlValue.ofLong((long) Math.rint(v.real())); // float8 -> int8 rounds half to even
    }
    return v;
  }

  private static SqlValue numeric(SqlValue v, Integer scale) {
    BigDecimal d;
    if (v.integer() != null) {
      d = BigDecimal.valueOf(v.integer());
    } else if (v.real() != null) {
      if (!Double.isFinite(v.real())) {
        return SqlValue.ofText(special(Double.toString(v.real())));
      }
      // float8 -> numeric keeps DBL_DIG (15) significant digits.
      d = new BigDecimal(v.real()).round(new MathContext(15, RoundingMode.HALF_EVEN));
    } else if (v.text() != null) {
      String t = v.text().trim();
      String special = special(t);
      if (special != null) {
        return SqlValue.ofText(special);
      }
      if (!DECIMAL.matcher(t).matches()) {
        return v;
      }
      d = new BigDecimal(t);
    } else {
      return v;
    }
    if (Math.abs((long) d.scale()) > 10_000) {
      return v; // beyond what PostgreSQL stores: left for the server to judge
    }
    if (scale != null) {
      d = d.setScale(scale, RoundingMode.HALF_UP); // numeric(p,s) rounds half away from zero
    }
    d = d.stripTrailingZeros();
    return SqlValue.ofText(d.signum() == 0 ? "0" : d.toPlainString());
  }

  /** NaN and the infinities as {@code numeric} and the float types name them, or null. */
  private static String special(String t) {
    return switch (t.toLowerCase(Locale.ROOT)) {
      case "nan" -> "NaN";
      case "infinity", "+infinity", "inf", "+inf" -> "Infinity";
      case "-infinity", "-inf" -> "-Infinity";
      default -> null;
    };
  }

  private static SqlValue floating(SqlValue v, boolean single) {
    double d;
    if (v.real() != null) {
      d = v.real();
    } else if (v.integer() != null) {
      d = single ? (double) (float) v.integer() : (double) v.integer();
    } else if (v.text() != null) {
      String t = v.text().trim();
      String special = special(t);
      if (special != null) {
        d = Double.parseDouble(special);
      } else if (DECIMAL.matcher(t).matches()) {
        // strtof and strtod round once, to the column's precision, as parseFloat/parseDouble do.
        d = single ? (double) Float.parseFloat(t) : Double.parseDouble(t);
      } else {
        return v;
      }
    } else {
      return v;
    }
    if (single) {
      d = (float) d;
    }
    return SqlValue.ofDouble(d == 0.0 ? 0.0 : d); // -0.0 = 0.0
  }

  private static SqlValue bool(SqlValue v) {
    if (v.text() == null) {
      return v;
    }
    return switch (v.text().trim().toLowerCase(Locale.ROOT)) {
      case "t", "true", "y", "yes", "on", "1" -> SqlValue.ofBool(true);
      case "f", "false", "n", "no", "off", "0" -> SqlValue.ofBool(false);
      default -> v;
    };
  }

  /**
   * A {@code citext} key lower-cased, as the type compares: ASCII text only, whose lower case
   * does not depend on the database's locale (any other is keyed as given).
   */
  private static SqlValue citext(SqlValue v) {
    String t = text(v).text();
    if (t == null || !t.chars().allMatch(c -> c < 0x80)) {
      return v;
    }
    return SqlValue.ofText(t.toLowerCase(Locale.ROOT));
  }

  private static SqlValue text(SqlValue v) {
    if (v.integer() != null) {
      return SqlValue.ofText(Long.toString(v.integer()));
    }
    if (v.bool() != null) {
      return SqlValue.ofText(v.bool().toString()); // bool::text is true/false
    }
    return v;
  }

  private static SqlValue uuid(SqlValue v) {
    if (v.text() == null) {
      return v;
    }
    String t = v.text().trim().toLowerCase(Locale.ROOT);
    if (t.startsWith("{") && t.endsWith("}")) {
      t = t.substring(1, t.length() - 1);
    }
    String hex = t.replace("-", "");
    if (!UUID_HEX.matcher(hex).matches()) {
      return v;
    }
    return SqlValue.ofText(hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-"
        + hex.substring(12, 16) + "-" + hex.substring(16, 20) + "-" + hex.substring(20));
  }

  private static SqlValue date(SqlValue v) {
    return v.text() == null ? v : SqlValue.ofText(LocalDate.parse(v.text().trim()).toString());
  }

  private static SqlValue timestamptz(SqlValue v, Integer precision) {
    if (v.text() == null) {
      return v;
    }
    String t = v.text().trim().replace(' ', 'T');
    OffsetDateTime at;
    try {
      at = OffsetDateTime.parse(t);
    } catch (DateTimeException e) {
      return v; // no offset (the session's time zone applies), or not ISO: keyed as given
    }
    Instant i = at.toInstant();
    long micros = roundedMicros(i.getEpochSecond(), i.getNano(), precision);
    return SqlValue.ofText(Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L).toString());
  }

  private static SqlValue timestamp(SqlValue v, Integer precision) {
    if (v.text() == null) {
      return v;
    }
    String t = v.text().trim().replace(' ', 'T');
    LocalDateTime at;
    try {
      at = LocalDateTime.parse(t);
    } catch (DateTimeException e) {
      at = OffsetDateTime.parse(t).toLocalDateTime(); // timestamp ignores an offset
    }
    long micros = roundedMicros(at.toEpochSecond(ZoneOffset.UTC), at.getNano(), precision);
    return SqlValue.ofText(LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) (Math.floorMod(micros, 1_000_000L) * 1_000L), ZoneOffset.UTC).toString());
  }

  private static SqlValue time(SqlValue v, Integer precision) {
    if (v.text() == null) {
      return v;
    }
    LocalTime at = LocalTime.parse(v.text().trim());
    long micros = at.toSecondOfDay() * 1_000_000L + fractionMicros(at.getNano());
    if (precision != null && precision < 6) {
      long unit = pow10(6 - precision);
      micros = (micros + unit / 2) / unit * unit; // time rounds half up
    }
    if (micros >= 86_400_000_000L) {
      return v; // 24:00:00, which PostgreSQL's time has and LocalTime has not
    }
    return SqlValue.ofText(LocalTime.ofNanoOfDay(micros * 1_000L).toString());
  }

  /**
   * Microseconds since 1970 as the server stores this instant: the fraction of a second parsed as
   * a double and rounded with rint, then rounded to {@code precision} digits half away from
   * PostgreSQL's epoch.
   */
  private static long roundedMicros(long epochSecond, int nano, Integer precision) {
    long micros = Math.addExact(Math.multiplyExact(epochSecond, 1_000_000L), fractionMicros(nano));
    if (precision == null || precision >= 6) {
      return micros;
    }
    long unit = pow10(6 - precision);
    long pg = micros - PG_EPOCH_MICROS;
    pg = pg >= 0 ? (pg + unit / 2) / unit * unit : -((-pg + unit / 2) / unit * unit);
    return pg + PG_EPOCH_MICROS;
  }

  /** {@code rint(strtod(".nnnnnnnnn") * 1e6)}, as PostgreSQL's ParseFractionalSecond. */
  private static long fractionMicros(int nano) {
    if (nano % 1_000 == 0) {
      return nano / 1_000;
    }
    return (long) Math.rint(Double.parseDouble(String.format(Locale.ROOT, "0.%09d", nano)) * 1e6);
  }

  private static long pow10(int n) {
    long p = 1;
    for (int i = 0; i < n; i++) {
      p *= 10;
    }
    return p;
  }
}
