package io.cocoindex.codec;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.util.UUID;

/**
 * The streaming input of {@link GeneratedCodec}s, positioned before one value at a time. Each
 * {@code read} method consumes one value; methods returning a reference return {@code null} for a
 * stored null, primitive ones return their zero value. A value of the wrong shape fails with a
 * {@link CodecFormatException} naming where it was found.
 */
public interface ValueReader {

  /**
   * Consumes the next value if it is a null, and says whether it was.
   *
   * @return true when a null was consumed; false, consuming nothing, otherwise
   */
  boolean readNull();

  /** Consumes the start of an object; follow with {@link #nextField} until it returns null. */
  void beginObject();

  /**
   * The name of the next field of the current object, positioning the reader on its value; or
   * {@code null}, consuming the end of the object, when no field is left.
   *
   * @return the stored field's name, or {@code null} at the object's end
   */
  String nextField();

  /**
   * The index in {@code names} of the next field of the current object, positioning the reader
   * on its value; or {@link FieldNames#END}, consuming the end of the object, when no field is
   * left. Generated codecs read their fields this way.
   *
   * @param names the record's component names, in declaration order
   * @return the index of the stored field in {@code names}, or {@link FieldNames#END}
   * @throws CodecFormatException naming the record and the field when the stored field is not
   *     one of {@code names}
   */
  default int nextField(FieldNames names) {
    String field = nextField();
    if (field == null) {
      return FieldNames.END;
    }
    int i = names.indexOf(field);
    if (i < 0) {
      throw CodecFormatException.unknownField(names.type(), field);
    }
    return i;
  }

  /** Consumes the start of an array; follow with {@link #nextElement} until it returns false. */
  void beginArray();

  /**
   * Whether an element is left in the current array; consumes the end of the array if not.
   *
   * @return true when the reader is positioned on an element; false at the array's end
   */
  boolean nextElement();

  /** Consumes the next value, whatever its shape. */
  void skipValue();

  /**
   * Consumes a boolean.
   *
   * @return the boolean read; false for a stored null
   */
  boolean readBoolean();

  /**
   * Consumes an int.
   *
   * @return the number read; 0 for a stored null
   */
  int readInt();

  /**
   * Consumes a long.
   *
   * @return the number read; 0 for a stored null
   */
  long readLong();

  /**
   * Consumes a float.
   *
   * @return the number read; 0 for a stored null
   */
  float readFloat();

  /**
   * Consumes a double.
   *
   * @return the number read; 0 for a stored null
   */
  double readDouble();

  /**
   * Consumes a string.
   *
   * @return the string read, or null for a stored null
   */
  String readString();

  /**
   * Consumes a byte string.
   *
   * @return a new array of the bytes read, or null for a stored null
   */
  byte[] readBytes();

  /**
   * Consumes a UUID.
   *
   * @return the UUID read, or null for a stored null
   */
  UUID readUuid();

  /**
   * Consumes a fingerprint.
   *
   * @return the fingerprint read, or null for a stored null
   */
  Fingerprint readFingerprint();

  /**
   * Consumes a stable key.
   *
   * @return the key read, or null for a stored null
   */
  StableKey readStableKey();
}
