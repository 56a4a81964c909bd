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

  /** Consumes the next value if it is a null, and says whether it was. */
  boolean readNull();

  /** Consumes the start of an object; follow with {@link #nextField} until it returns null. */
  void beginObject();

  /**
   * The name of the next field of the current object, positioning the reader on its value; or
   * {@code null}, consuming the end of the object, when no field is left.
   */
  String nextField();

  /**
   * The index in {@code names} of the next field of the current object, positioning the reader
   * on its value; or {@link FieldNames#END}, consuming the end of the object, when no field is
   * left. Generated codecs read their fields this way.
   *
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

  /** Whether an element is left in the current array; consumes the end of the array if not. */
  boolean nextElement();

  /** Consumes the next value, whatever its shape. */
  void skipValue();

  /** Consumes a boolean. */
  boolean readBoolean();

  /** Consumes an int. */
  int readInt();

  /** Consumes a long. */
  long readLong();

  /** Consumes a float. */
  float readFloat();

  /** Consumes a double. */
  double readDouble();

  /** Consumes a string. */
  String readString();

  /** Consumes a byte string. */
  byte[] readBytes();

  /** Consumes a UUID. */
  UUID readUuid();

  /** Consumes a fingerprint. */
  Fingerprint readFingerprint();

  /** Consumes a stable key. */
  StableKey readStableKey();
}
