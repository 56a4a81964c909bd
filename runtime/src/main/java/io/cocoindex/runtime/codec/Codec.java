package io.cocoindex.runtime.codec;

/**
 * Turns one type's values into stored bytes and back: the serialization boundary of declared
 * values, actions and tracking records.
 *
 * @param <T> the value type
 */
public interface Codec<T> {
  byte[] encode(T value);

  /**
   * Decodes bytes written by {@link #encode} (possibly by an older version of the type).
   *
   * @throws CodecException naming the type and the field when the bytes do not fit the type
   */
  T decode(byte[] bytes);
}
