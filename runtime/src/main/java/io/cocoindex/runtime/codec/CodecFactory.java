package io.cocoindex.runtime.codec;

import java.lang.reflect.Type;

/**
 * A source of codecs consulted by {@link CodecRegistry} in order; generated codecs plug in here
 * ahead of the built-in Jackson codecs, without changing any caller.
 */
public interface CodecFactory {
  /**
   * A codec for {@code type}, or {@code null} when this factory does not handle it.
   *
   * @param type the type to serialize, with its type arguments
   * @param registry the registry asking, for the codecs of the type's parts
   * @return the codec, or {@code null} to let the next factory answer
   */
  Codec<?> create(Type type, CodecRegistry registry);
}
