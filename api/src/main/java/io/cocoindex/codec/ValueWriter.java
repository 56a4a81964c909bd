package io.cocoindex.codec;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.util.UUID;

/**
 * The streaming output of {@link GeneratedCodec}s: a JSON-like tree of objects, arrays and
 * scalars. The runtime implements it over a binary encoding. Methods taking a reference write a
 * null for {@code null}.
 */
public interface ValueWriter {
  /** Starts an object; write {@link #field} and a value per field, then {@link #endObject}. */
  void beginObject();

  /** The name of the next field of the current object; its value is written next. */
  void field(String name);

  /** Field {@code index} of {@code names} is the next field; its value is written next. */
  default void field(FieldNames names, int index) {
    field(names.name(index));
  }

  /** Ends the current object. */
  void endObject();

  /** Starts an array; write its elements, then {@link #endArray}. */
  void beginArray();

  /** Ends the current array. */
  void endArray();

  /** Writes a null. */
  void writeNull();

  /** Writes a boolean. */
  void writeBoolean(boolean value);

  /** Writes an int. */
  void writeInt(int value);

  /** Writes a long. */
  void writeLong(long value);

  /** Writes a float. */
  void writeFloat(float value);

  /** Writes a double. */
  void writeDouble(double value);

  /** Writes a string. */
  void writeString(String value);

  /** Writes a byte string. */
  void writeBytes(byte[] value);

  /** Writes a UUID. */
  void writeUuid(UUID value);

  /** Writes a fingerprint. */
  void writeFingerprint(Fingerprint value);

  /** Writes a stable key. */
  void writeStableKey(StableKey value);
}
