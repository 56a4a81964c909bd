package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.DynamicCodec;

/**
 * A target state declared by a component, its value already past the serialization boundary
 * (later mutation of the declared object changes nothing): copied by the handler's value codec
 * at declaration, or, when the provider was not resolved yet (a child of a container declared in
 * the same component), encoded by the value's own codec until the handler is known.
 *
 * @param provider the provider it was declared through
 * @param key its key
 * @param path {@code provider.path() / key}
 * @param copy the value as the handler's codec copied it, or null when {@code encoded} is set
 * @param encoded the serialized value, or null when {@code copy} is set
 * @param encodedAs the class whose codec wrote {@code encoded} (the value's), or null
 * @param childProvider for a container declared with a child provider, that provider; else null
 */
public record DeclaredTarget(
    Provider<?> provider,
    StableKey key,
    TargetPath path,
    Object copy,
    byte[] encoded,
    Class<?> encodedAs,
    Provider<?> childProvider) {

  /** A declaration whose value was copied (or, in tests, that has none). */
  public DeclaredTarget(
      Provider<?> provider, StableKey key, TargetPath path, Object copy, Provider<?> childProvider) {
    this(provider, key, path, copy, null, null, childProvider);
  }

  /**
   * The value to reconcile: the copy, or the encoded value decoded by the handler's codec (by the
   * codec that wrote it, when the handler's value type is dynamic).
   *
   * @throws io.cocoindex.runtime.codec.CodecException when the encoded value does not fit the
   *     handler's value type
   */
  Object desired() {
    if (encoded == null) {
      return copy;
    }
    Codec<?> codec = provider.binding().valueCodec();
    return codec instanceof DynamicCodec d ? d.decodeAs(encodedAs, encoded) : codec.decode(encoded);
  }
}
