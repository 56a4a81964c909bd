package io.cocoindex.runtime.codec;

import java.lang.reflect.Type;

/**
 * A source of codecs consulted by {@link CodecRegistry} in order; generated codecs plug in here
 * ahead of the built-in Jackson codecs, without changing any caller.
 */
public interface CodecFactory {
  /** A codec for {@code type}, or {@code null} when this factory does not handle it. */
  Codec<?> create(Type type, CodecRegistry registry);
}
