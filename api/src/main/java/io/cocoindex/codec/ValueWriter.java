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

  /**
   * The name of the next field of the current object; its value is written next.
   *
   * @param name the field's name
   */
  void field(String name);

  /**
   * Field {@code index} of {@code names} is the next field; its value is written next.
   *
   * @param names the record's component names, in declaration order
   * @param index the field's index in {@code names}
   */
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

  /**
   * Writes a boolean.
   *
   * @param value the boolean to store
   */
  void writeBoolean(boolean value);

  /**
   * Writes an int.
   *
   * @param value the number to store
   */
  void writeInt(int value);

  /**
   * Writes a long.
   *
   * @param value the number to store
   */
  void writeLong(long value);

  /**
   * Writes a float.
   *
   * @param value the number to store
   */
  void writeFloat(float value);

  /**
   * Writes a double.
   *
   * @param value the number to store
   */
  void writeDouble(double value);

  /**
   * Writes a string.
   *
   * @param value the string to store, or null
   */
  void writeString(String value);

  /**
   * Writes a byte string.
   *
   * @param value the bytes to store, or null
   */
  void writeBytes(byte[] value);

  /**
   * Writes a UUID.
   *
   * @param value the UUID to store, or null
   */
  void writeUuid(UUID value);

  /**
   * Writes a fingerprint.
   *
   * @param value the fingerprint to store, or null
   */
  void writeFingerprint(Fingerprint value);

  /**
   * Writes a stable key.
   *
   * @param value the key to store, or null
   */
  void writeStableKey(StableKey value);
}
