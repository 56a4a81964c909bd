package io.cocoindex.samples.postgres;

import io.cocoindex.StableKey;
import io.cocoindex.annotation.TargetValue;
import java.math.BigDecimal;
import java.time.ZonedDateTime;
import java.time.temporal.Temporal;
import java.util.UUID;

/**
 * One column value, typed by the Java value it came from; at most one component is set, none
 * is SQL {@code NULL}. The sink binds it as a parameter and casts it to the column's type, so
 * text forms ({@code numeric}, {@code uuid}, dates, {@code jsonb}) convert on the server.
 *
 * <p>Text holds no U+0000: PostgreSQL's text types cannot store it (and {@code jsonb} rejects
 * its escape), so it is removed here, as CocoIndex's PostgreSQL connector does, rather than
 * failing the whole component at write time.
 *
 * @param text a string, or the text form of a decimal, UUID, date/time or enum; without U+0000
 * @param integer an integral number
 * @param real a floating-point number
 * @param bool a boolean
 * @param bytes a byte string ({@code bytea})
 */
@TargetValue
public record SqlValue(String text, Long integer, Double real, Boolean bool, byte[] bytes) {
  /** SQL {@code NULL}. */
  public static final SqlValue NULL = new SqlValue(null, null, null, null, null);

  /**
   * Checks that at most one component is set, and removes U+0000 from the text.
   *
   * @param text a string, or the text form of a decimal, UUID, date/time or enum; null when
   *     another component is set
   * @param integer an integral number, or null
   * @param real a floating-point number, or null
   * @param bool a boolean, or null
   * @param bytes a byte string, or null; kept, not copied ({@link #ofBytes} copies)
   * @throws IllegalArgumentException when more than one component is set
   */
  public SqlValue {
    if (text != null && text.indexOf('\0') >= 0) {
      text = text.replace("\0", "");
    }
    int set = (text != null ? 1 : 0) + (integer != null ? 1 : 0) + (real != null ? 1 : 0)
        + (bool != null ? 1 : 0) + (bytes != null ? 1 : 0);
    if (set > 1) {
      throw new IllegalArgumentException("a SqlValue holds one value, not " + set);
    }
  }

  /**
   * A text value (U+0000 removed); NULL for {@code null}.
   *
   * @param s the text, or null
   * @return the text value of {@code s} without U+0000, or {@link #NULL}
   */
  public static SqlValue ofText(String s) {
    return s == null ? NULL : new SqlValue(s, null, null, null, null);
  }

  /**
   * An integral number.
   *
   * @param n the number
   * @return the integral value {@code n}, cast to the column's type when written
   */
  public static SqlValue ofLong(long n) {
    return new SqlValue(null, n, null, null, null);
  }

  /**
   * A floating-point number.
   *
   * @param d the number
   * @return the floating-point value {@code d}, cast to the column's type when written
   */
  public static SqlValue ofDouble(double d) {
    return new SqlValue(null, null, d, null, null);
  }

  /**
   * A boolean.
   *
   * @param b the boolean
   * @return the boolean value {@code b}
   */
  public static SqlValue ofBool(boolean b) {
    return new SqlValue(null, null, null, b, null);
  }

  /**
   * A byte string (copied); NULL for {@code null}.
   *
   * @param b the bytes, or null
   * @return the {@code bytea} value of a copy of {@code b}, or {@link #NULL}
   */
  public static SqlValue ofBytes(byte[] b) {
    return b == null ? NULL : new SqlValue(null, null, null, null, b.clone());
  }

  /**
   * Converts a Java value: {@code String}, integral boxes, {@code Float/Double}, {@code
   * Boolean}, {@code byte[]}, {@code BigDecimal}, {@code UUID}, {@code java.time} values and
   * enums (as text), {@code null}.
   *
   * @param v the value: one of the types above, where a {@code java.time} value is a {@link
   *     Temporal} ({@code LocalDate}, {@code Instant}, {@code OffsetDateTime}, ...), or a {@code
   *     SqlValue}, returned as it is
   * @return {@link #NULL} for null; otherwise the value of the matching component, text for a
   *     decimal (plain notation), a UUID, a date/time (ISO form, a {@code ZonedDateTime} at its
   *     offset without the zone's name) or an enum (its name)
   * @throws IllegalArgumentException naming the type of anything else
   */
  public static SqlValue of(Object v) {
    if (v == null) {
      return NULL;
    }
    if (v instanceof SqlValue s) {
      return s;
    }
    if (v instanceof String s) {
      return ofText(s);
    }
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ofLong(((Number) v).longValue());
    }
    if (v instanceof Double || v instanceof Float) {
      return ofDouble(((Number) v).doubleValue());
    }
    if (v instanceof Boolean b) {
      return ofBool(b);
    }
    if (v instanceof byte[] b) {
      return ofBytes(b);
    }
    if (v instanceof BigDecimal d) {
      return ofText(d.toPlainString());
    }
    if (v instanceof ZonedDateTime z) {
      return ofText(z.toOffsetDateTime().toString()); // PostgreSQL rejects the [zone] suffix
    }
    if (v instanceof UUID || v instanceof Temporal) {
      return ofText(v.toString());
    }
    if (v instanceof Enum<?> e) {
      return ofText(e.name());
    }
    throw new IllegalArgumentException(
        "no SQL value for " + v.getClass().getName() + ": use String, a number, Boolean, byte[],"
            + " BigDecimal, UUID, a java.time value, an enum, or a SqlValue");
  }

  /**
   * The value as a preview or a log shows it, in SQL's notation: {@code NULL}, {@code 42},
   * {@code 9.99}, {@code true}, {@code 'it''s'} (a text of more than 60 characters cut, with its
   * length), {@code <12 bytes>}.
   */
  @Override
  public String toString() {
    if (text != null) {
      return quoted(text);
    }
    if (integer != null) {
      return integer.toString();
    }
    if (real != null) {
      return real.toString();
    }
    if (bool != null) {
      return bool.toString();
    }
    return bytes != null ? "<" + bytes.length + " bytes>" : "NULL";
  }

  /** {@code text} in single quotes (doubled inside), cut past 60 characters with its length. */
  private static String quoted(String text) {
    int shown = Math.min(text.length(), 60);
    String cut = text.substring(0, shown).replace("'", "''");
    return shown == text.length() ? "'" + cut + "'"
        : "'" + cut + "...'(" + text.length() + " chars)";
  }

  /**
   * Whether this is SQL {@code NULL}.
   *
   * @return true when no component is set
   */
  public boolean isNull() {
    return text == null && integer == null && real == null && bool == null && bytes == null;
  }

  /** This value as part of a row's key. */
  StableKey toKey() {
    if (integer != null) {
      return new StableKey.Int(integer);
    }
    if (bool != null) {
      return new StableKey.Bool(bool);
    }
    if (bytes != null) {
      return new StableKey.Bytes(bytes);
    }
    if (real != null) {
      return new StableKey.Str(Double.toString(real)); // cast back to the column's type on delete
    }
    if (text != null) {
      return new StableKey.Str(text);
    }
    throw new IllegalArgumentException("SQL NULL cannot be part of a key");
  }

  /** The value a key component stands for: the inverse of {@link #toKey}, up to the cast. */
  static SqlValue fromKey(StableKey k) {
    if (k instanceof StableKey.Int i) {
      return ofLong(i.value());
    }
    if (k instanceof StableKey.Bool b) {
      return ofBool(b.value());
    }
    if (k instanceof StableKey.Bytes b) {
      return ofBytes(b.value());
    }
    if (k instanceof StableKey.Str s) {
      return ofText(s.value());
    }
    if (k instanceof StableKey.Uuid u) {
      return ofText(u.value().toString());
    }
    throw new IllegalArgumentException("key component " + k + " is not a primary-key value");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SqlValue v && java.util.Objects.equals(text, v.text)
        && java.util.Objects.equals(integer, v.integer) && java.util.Objects.equals(real, v.real)
        && java.util.Objects.equals(bool, v.bool) && java.util.Arrays.equals(bytes, v.bytes);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(text, integer, real, bool) * 31 + java.util.Arrays.hashCode(bytes);
  }
}
