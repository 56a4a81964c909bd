package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;

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
 * @param childProvider for a container declared with a child provider, that provider; else null
 */
public record DeclaredTarget(
    Provider<?> provider,
    StableKey key,
    TargetPath path,
    Object copy,
    byte[] encoded,
    Provider<?> childProvider) {

  /**
   * The value to reconcile: the copy, or the encoded value decoded by the handler's codec.
   *
   * @throws io.cocoindex.runtime.codec.CodecException when the encoded value does not fit the
   *     handler's value type
   */
  Object desired() {
    return encoded == null ? copy : provider.binding().valueCodec().decode(encoded);
  }
}
