package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;

/**
 * A target state declared by a component, its value already serialized (the serialization
 * boundary: later mutation of the declared object changes nothing).
 *
 * @param provider the provider it was declared through
 * @param key its key
 * @param path {@code provider.path() / key}
 * @param value the serialized value
 * @param childProvider for a container declared with a child provider, that provider; else null
 */
public record DeclaredTarget(
    Provider<?> provider, StableKey key, TargetPath path, byte[] value, Provider<?> childProvider) {}
