package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.DynamicCodec;

/**
 * A target state declared by a component, its value already past the serialization boundary
 * (later mutation of the declared object changes nothing): copied by the handler's value codec
 * at declaration, or, when the provider was not resolved yet (a child of a container declared in
 * the same component), copied by {@link DynamicCodec} (by the value's runtime classes) until the
 * handler is known, or encoded by the value's own codec when that copy cannot take the value.
 *
 * @param provider the provider it was declared through
 * @param key its key
 * @param path {@code provider.path() / key}
 * @param copy the value as the handler's codec copied it, or (with {@code encodedAs} {@code
 *     Object.class}) as {@link DynamicCodec} did; null when {@code encoded} is set
 * @param encoded the serialized value, or null when {@code copy} is set
 * @param encodedAs the class whose codec wrote {@code encoded} (the value's), or {@code
 *     Object.class} for a {@code copy} by {@link DynamicCodec} (the codec of {@code Object}), or
 *     null for a copy by the handler's codec
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

  /**
   * A declaration whose value was copied by the handler's codec (or, in tests, that has none).
   *
   * @param provider the provider it was declared through
   * @param key its key
   * @param path {@code provider.path() / key}
   * @param copy the value as the handler's codec copied it
   * @param childProvider for a container declared with a child provider, that provider; else null
   */
  public DeclaredTarget(
      Provider<?> provider, StableKey key, TargetPath path, Object copy, Provider<?> childProvider) {
    this(provider, key, path, copy, null, null, childProvider);
  }

  /**
   * The value to reconcile: the copy (a dynamic one copied again by the handler's codec, when
   * that is not dynamic), or the encoded value decoded by the handler's codec (by the codec that
   * wrote it, when the handler's value type is dynamic).
   *
   * @throws io.cocoindex.runtime.codec.CodecException when the encoded value does not fit the
   *     handler's value type
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  Object desired() {
    if (encoded == null) {
      if (encodedAs == null) {
        return copy;
      }
      // copied by DynamicCodec before the handler was known: as the handler's codec takes it
      Codec codec = provider.binding().valueCodec();
      return codec instanceof DynamicCodec ? copy : codec.copy(copy);
    }
    Codec<?> codec = provider.binding().valueCodec();
    return codec instanceof DynamicCodec d ? d.decodeAs(encodedAs, encoded) : codec.decode(encoded);
  }
}
