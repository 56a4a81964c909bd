package io.cocoindex.runtime.codec;

/**
 * Turns one type's values into stored bytes and back: the serialization boundary of declared
 * values, actions and tracking records.
 *
 * @param <T> the value type
 */
public interface Codec<T> {
  /**
   * Encodes {@code value}.
   *
   * @param value the value to store, or null
   * @return the stored form
   * @throws CodecException naming the type when the value cannot be written
   */
  byte[] encode(T value);

  /**
   * Decodes bytes written by {@link #encode} (possibly by an older version of the type).
   *
   * @param bytes the stored form
   * @return the value read, equal to the one encoded
   * @throws CodecException naming the type and the field when the bytes do not fit the type
   */
  T decode(byte[] bytes);

  /**
   * What {@code decode(encode(value))} returns, for a value crossing the serialization boundary
   * inside one process. A codec may make it without the bytes.
   *
   * @param value the value crossing the boundary, or null
   * @return a copy sharing nothing that can change with {@code value}
   * @throws CodecException as {@link #encode} or {@link #decode} would
   */
  default T copy(T value) {
    return decode(encode(value));
  }

  /**
   * Whether every value decodes as exactly the classes it was written with, down to the values
   * inside it: true of generated codecs, whose types fix every field, not of Jackson's, which
   * reads a number typed {@code Object} as whatever fits it.
   *
   * @return true when decoded values keep their classes; false by default
   */
  default boolean keepsClasses() {
    return false;
  }
}
