package io.cocoindex.runtime.codec.generated;

import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecException;
import io.cocoindex.runtime.codec.CodecFactory;
import io.cocoindex.runtime.codec.CodecRegistry;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Finds the codec {@code cocoindex-processor} generated for a record: the class {@code
 * Outer_Inner_Codec} beside it, through its {@code INSTANCE} field (looked up once per type; the
 * registry caches the codec). Registered through {@code META-INF/services}, so {@link
 * CodecRegistry#standard()} consults it before the reflective fallback; types without a
 * generated codec fall through to the next factory. {@link io.cocoindex.Fingerprint} and {@link
 * io.cocoindex.StableKey} get the built-in codecs of {@link BuiltInCodecs}.
 */
public final class GeneratedCodecFactory implements CodecFactory {
  /** The factory, as {@code META-INF/services} instantiates it. */
  public GeneratedCodecFactory() {}

  @Override
  public Codec<?> create(Type type, CodecRegistry registry) {
    if (!(type instanceof Class<?> cls)) {
      return null;
    }
    GeneratedCodec<?> builtIn = BuiltInCodecs.forType(cls);
    if (builtIn != null) {
      return new GeneratedCodecAdapter<>(builtIn);
    }
    if (!cls.isRecord()) {
      return null;
    }
    Class<?> codecClass;
    try {
      codecClass = Class.forName(codecClassName(cls), true, cls.getClassLoader());
    } catch (ClassNotFoundException e) {
      return null;
    }
    return adapt(cls, codecClass);
  }

  /** {@code a.b.Outer$Inner} gives {@code a.b.Outer_Inner_Codec}. */
  static String codecClassName(Class<?> cls) {
    Deque<String> names = new ArrayDeque<>();
    for (Class<?> c = cls; c != null; c = c.getEnclosingClass()) {
      names.addFirst(c.getSimpleName());
    }
    String pkg = cls.getPackageName();
    return (pkg.isEmpty() ? "" : pkg + ".") + String.join("_", names) + "_Codec";
  }

  private <T> Codec<T> adapt(Class<T> type, Class<?> codecClass) {
    if (!GeneratedCodec.class.isAssignableFrom(codecClass)) {
      return null;
    }
    try {
      Field instance = codecClass.getField("INSTANCE");
      if (!Modifier.isStatic(instance.getModifiers())) {
        return null;
      }
      @SuppressWarnings("unchecked")
      GeneratedCodec<T> codec = (GeneratedCodec<T>) instance.get(null);
      if (codec.type() != type) {
        return null;
      }
      return new GeneratedCodecAdapter<>(codec);
    } catch (ReflectiveOperationException e) {
      throw new CodecException(
          "the generated codec " + codecClass.getName() + " of " + type.getName()
              + " cannot be loaded: " + e.getMessage(),
          e);
    }
  }
}
