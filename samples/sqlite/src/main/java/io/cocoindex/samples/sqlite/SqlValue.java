package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.annotation.TargetValue;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * One SQL value, as a tagged union over SQLite's storage classes.
 *
 * @param kind the storage class
 * @param text the TEXT value
 * @param integer the INTEGER value
 * @param real the REAL value
 * @param blob the BLOB value
 */
@TargetValue
public record SqlValue(Kind kind, String text, long integer, double real, byte[] blob) {

  /** SQLite's storage classes. */
  public enum Kind {
    /** SQL NULL. */
    NULL,
    /** A signed integer of up to 8 bytes. */
    INTEGER,
    /** An 8-byte floating-point number. */
    REAL,
    /** A text string. */
    TEXT,
    /** A byte string, stored as given. */
    BLOB
  }

  /** SQL NULL. */
  public static final SqlValue NULL = new SqlValue(Kind.NULL, null, 0, 0, null);

  /**
   * An INTEGER.
   *
   * @param v the integer
   * @return the INTEGER value {@code v}
   */
  public static SqlValue of(long v) {
    return new SqlValue(Kind.INTEGER, null, v, 0, null);
  }

  /**
   * A REAL.
   *
   * @param v the floating-point number; a NaN is kept, though SQLite stores it as NULL
   * @return the REAL value {@code v}
   */
  public static SqlValue of(double v) {
    return new SqlValue(Kind.REAL, null, 0, v, null);
  }

  /**
   * An INTEGER, 1 or 0: SQLite has no boolean storage class.
   *
   * @param v the boolean
   * @return the INTEGER 1 when {@code v} is true, else 0
   */
  public static SqlValue of(boolean v) {
    return new SqlValue(Kind.INTEGER, null, v ? 1 : 0, 0, null);
  }

  /**
   * Converts a Java value: null, String, integral numbers, floating numbers, Boolean, byte[].
   *
   * @param v the value: null, a String, a Long, Integer, Short or Byte, a Boolean, a Double or
   *     Float, or a byte[] (kept, not copied)
   * @return NULL for null, TEXT for a String, INTEGER for an integral number or a Boolean (1 or
   *     0), REAL for a floating number, BLOB for a byte[]
   * @throws IllegalArgumentException naming the type when {@code v} is of any other type
   */
  public static SqlValue of(Object v) {
    if (v == null) {
      return NULL;
    }
    if (v instanceof String s) {
      return new SqlValue(Kind.TEXT, s, 0, 0, null);
    }
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return new SqlValue(Kind.INTEGER, null, ((Number) v).longValue(), 0, null);
    }
    if (v instanceof Boolean b) {
      return new SqlValue(Kind.INTEGER, null, b ? 1 : 0, 0, null);
    }
    if (v instanceof Double || v instanceof Float) {
      return new SqlValue(Kind.REAL, null, 0, ((Number) v).doubleValue(), null);
    }
    if (v instanceof byte[] b) {
      return new SqlValue(Kind.BLOB, null, 0, 0, b);
    }
    throw new IllegalArgumentException(
        "unsupported SQL value type " + v.getClass().getName()
            + ": use String, Long/Integer/Short/Byte, Boolean, Double/Float, byte[] or null");
  }

  /**
   * The value as a preview or a log shows it, in SQL's notation: {@code NULL}, {@code 42},
   * {@code 9.99}, {@code 'it''s'} (a text of more than 60 characters cut, with its length),
   * {@code <12 bytes>}.
   */
  @Override
  public String toString() {
    switch (kind) {
      case INTEGER:
        return Long.toString(integer);
      case REAL:
        return Double.toString(real);
      case TEXT:
        return quoted(text);
      case BLOB:
        return "<" + blob.length + " bytes>";
      default:
        return "NULL";
    }
  }

  /** {@code text} in single quotes (doubled inside), cut past 60 characters with its length. */
  private static String quoted(String text) {
    int shown = Math.min(text.length(), 60);
    String cut = text.substring(0, shown).replace("'", "''");
    return shown == text.length() ? "'" + cut + "'"
        : "'" + cut + "...'(" + text.length() + " chars)";
  }

  /**
   * Whether this is SQL NULL.
   *
   * @return true when the storage class is {@link Kind#NULL}
   */
  public boolean isNull() {
    return kind == Kind.NULL;
  }

  /**
   * Whether this is a REAL NaN, which SQLite stores as NULL.
   *
   * @return true when this is a REAL whose value is NaN
   */
  public boolean isNaN() {
    return kind == Kind.REAL && Double.isNaN(real);
  }

  /**
   * The Java value.
   *
   * @return null for NULL, a String for TEXT, a Long for INTEGER, a Double for REAL, the byte[]
   *     itself (not a copy) for BLOB
   */
  public Object toJava() {
    switch (kind) {
      case INTEGER:
        return integer;
      case REAL:
        return real;
      case TEXT:
        return text;
      case BLOB:
        return blob;
      default:
        return null;
    }
  }

  /**
   * The value as a key component. A REAL is keyed by its text form, {@code -0.0} as {@code 0.0}:
   * SQLite finds both with either, so two keys would make one row two target states (the second
   * upserted, then the first deleted as an orphan, taking the row with it).
   *
   * @return {@link StableKey.Int} for an INTEGER, {@link StableKey.Str} for a TEXT or (its text
   *     form) a REAL, {@link StableKey.Bytes} for a BLOB, {@link StableKey.Null} for NULL
   */
  public StableKey toKey() {
    switch (kind) {
      case INTEGER:
        return new StableKey.Int(integer);
      case TEXT:
        return new StableKey.Str(text);
      case BLOB:
        return new StableKey.Bytes(blob);
      case REAL:
        return new StableKey.Str(Double.toString(real == 0 ? 0.0 : real));
      default:
        return new StableKey.Null();
    }
  }

  void bind(PreparedStatement ps, int index) throws SQLException {
    switch (kind) {
      case INTEGER:
        ps.setLong(index, integer);
        break;
      case REAL:
        ps.setDouble(index, real);
        break;
      case TEXT:
        ps.setString(index, text);
        break;
      case BLOB:
        ps.setBytes(index, blob);
        break;
      default:
        ps.setNull(index, Types.NULL);
    }
  }
}
