package io.cocoindex.runtime.codec;

import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the codec of a type: first from the registered {@link CodecFactory factories} (generated
 * codecs, found through {@link ServiceLoader} too), then the built-in {@link JacksonCodecFactory}
 * that handles records, enums, strings, boxed primitives, byte[], collections, maps, Optional,
 * Fingerprint and StableKey. A type that does not fix the classes inside its values ({@code
 * Object}, a type variable or wildcard left unresolved, {@code Map<String, Object>}, an
 * interface: see {@link ExactTypes}) gets a {@link DynamicCodec} instead of Jackson's, which
 * writes each value's runtime class with it.
 */
public final class CodecRegistry {
  private final List<CodecFactory> factories;
  private final Map<Type, Codec<?>> cache = new ConcurrentHashMap<>();
  private final DynamicCodec dynamic = new DynamicCodec(this, Object.class);

  private CodecRegistry(List<CodecFactory> factories) {
    this.factories = List.copyOf(factories);
  }

  /**
   * The registry with factories from {@link ServiceLoader} and the built-in Jackson fallback.
   *
   * @return a new registry, the one an environment uses when given none
   */
  public static CodecRegistry standard() {
    List<CodecFactory> factories = new ArrayList<>();
    for (ServiceLoader.Provider<CodecFactory> p : Discovered.PROVIDERS) {
      factories.add(p.get()); // a fresh instance per registry, as a fresh ServiceLoader gives
    }
    factories.add(new JacksonCodecFactory());
    return new CodecRegistry(factories);
  }

  /**
   * The factories on the class path, found once: looking them up reads every jar's service
   * files, which cost more than the rest of opening an app.
   */
  private static final class Discovered {
    static final List<ServiceLoader.Provider<CodecFactory>> PROVIDERS =
        ServiceLoader.load(CodecFactory.class, CodecRegistry.class.getClassLoader()).stream()
            .toList();
  }

  /**
   * A registry consulting {@code first} before the standard factories.
   *
   * @param first the factories to ask first, in order
   * @return a new registry
   */
  public static CodecRegistry with(List<CodecFactory> first) {
    List<CodecFactory> factories = new ArrayList<>(first);
    factories.addAll(standard().factories);
    return new CodecRegistry(factories);
  }

  /**
   * The codec of {@code type}, created once and cached.
   *
   * @param type the type of the values, with its type arguments
   * @param <T> the value type
   * @return the codec; a dynamic one, writing each value's class, for a type that fixes none
   * @throws CodecException naming the type when no factory handles it
   */
  @SuppressWarnings("unchecked")
  public <T> Codec<T> codecFor(Type type) {
    if (isDynamic(type)) {
      return (Codec<T>) dynamic;
    }
    Codec<?> cached = cache.get(type);
    if (cached != null) {
      return (Codec<T>) cached;
    }
    for (CodecFactory factory : factories) {
      // Jackson is the fallback: a type that leaves classes open is better served by the codec
      // that writes them (see ExactTypes).
      Codec<?> codec = factory instanceof JacksonCodecFactory
          && !ExactTypes.fixesEveryClass(type)
          ? new DynamicCodec(this, type) : factory.create(type, this);
      if (codec != null) {
        cache.putIfAbsent(type, codec);
        return (Codec<T>) cache.get(type);
      }
    }
    throw new CodecException("no codec for type " + type.getTypeName());
  }

  /**
   * Whether {@code type} names no class whose values a codec could be chosen by: {@code Object},
   * a type variable or a wildcard.
   *
   * @param type the type to check
   * @return true for {@code Object}, a type variable or a wildcard
   */
  public static boolean isDynamic(Type type) {
    return type == Object.class || type instanceof TypeVariable<?> || type instanceof WildcardType;
  }

  /**
   * The codec the factories alone give {@code type} (Jackson's for a type that leaves classes
   * open): what read its values before {@link DynamicCodec} did. Not cached.
   */
  @SuppressWarnings("unchecked")
  <T> Codec<T> factoryCodecFor(Type type) {
    for (CodecFactory factory : factories) {
      Codec<?> codec = factory.create(type, this);
      if (codec != null) {
        return (Codec<T>) codec;
      }
    }
    throw new CodecException("no codec for type " + type.getTypeName());
  }

  /**
   * Encodes then decodes {@code value}: a deep copy through the serialized form.
   *
   * @param type the type to copy it as
   * @param value the value, or null
   * @param <T> the value type
   * @return the copy
   * @throws CodecException as the codec's {@code encode} or {@code decode} would
   */
  public <T> T copy(Type type, T value) {
    Codec<T> codec = codecFor(type);
    return codec.decode(codec.encode(value));
  }
}
