package io.cocoindex;

import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Reads record components for {@link Fingerprint}: through a small class made per accessor (what
 * a lambda compiles to), which the JIT inlines like a direct call. A method handle kept in a
 * table is not a constant to the JIT and cost about 20 ns per component read, most of
 * fingerprinting a memoized component's input records. Where the record's class is not open to
 * this module, reads go through a method handle, then through reflection.
 */
final class ComponentReaders {
  private ComponentReaders() {}

  /**
   * The reader of one component: a {@code Function<Object, Object>} for {@code OBJECT}, a {@code
   * ToLongFunction} for integral numbers and chars, a {@code ToDoubleFunction} for floating ones,
   * a {@code Predicate} for booleans.
   *
   * @throws RuntimeException when the accessor is not accessible to this module at all
   */
  static Object of(Class<?> type, Method accessor, int kind) {
    Sam sam = Sam.of(kind);
    try {
      MethodHandles.Lookup in = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
      MethodHandle impl = in.unreflect(accessor);
      return LambdaMetafactory.metafactory(in, sam.method, MethodType.methodType(sam.type),
              sam.erased, impl, MethodType.methodType(sam.erased.returnType(), type))
          .getTarget().invoke();
    } catch (Throwable notOpen) {
      // A record in a named module that does not open its package to us: a method handle.
      try {
        MethodHandle h = MethodHandles.lookup().unreflect(accessor)
            .asType(MethodType.methodType(sam.erased.returnType(), Object.class));
        return sam.wrap(h);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** A reader through reflection, which reports why it cannot read when it cannot. */
  static Function<Object, Object> reflective(Method accessor) {
    return r -> {
      try {
        return accessor.invoke(r);
      } catch (InvocationTargetException e) {
        throw rethrow(e.getCause());
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    };
  }

  /** The functional interface a component of one kind is read through. */
  private enum Sam {
    OBJECT(Function.class, "apply", Object.class),
    LONG(ToLongFunction.class, "applyAsLong", long.class),
    DOUBLE(ToDoubleFunction.class, "applyAsDouble", double.class),
    BOOLEAN(Predicate.class, "test", boolean.class);

    final Class<?> type;
    final String method;
    final MethodType erased;

    Sam(Class<?> type, String method, Class<?> returns) {
      this.type = type;
      this.method = method;
      this.erased = MethodType.methodType(returns, Object.class);
    }

    static Sam of(int kind) {
      return switch (kind) {
        case Fingerprint.INTEGRAL_COMPONENT, Fingerprint.CHAR_COMPONENT -> LONG;
        case Fingerprint.FLOATING_COMPONENT -> DOUBLE;
        case Fingerprint.BOOLEAN_COMPONENT -> BOOLEAN;
        default -> OBJECT;
      };
    }

    /** The interface over a method handle of type {@link #erased}. */
    Object wrap(MethodHandle h) {
      return switch (this) {
        case OBJECT -> (Function<Object, Object>) r -> {
          try {
            return (Object) h.invokeExact(r);
          } catch (Throwable t) {
            throw rethrow(t);
          }
        };
        case LONG -> (ToLongFunction<Object>) r -> {
          try {
            return (long) h.invokeExact(r);
          } catch (Throwable t) {
            throw rethrow(t);
          }
        };
        case DOUBLE -> (ToDoubleFunction<Object>) r -> {
          try {
            return (double) h.invokeExact(r);
          } catch (Throwable t) {
            throw rethrow(t);
          }
        };
        case BOOLEAN -> (Predicate<Object>) r -> {
          try {
            return (boolean) h.invokeExact(r);
          } catch (Throwable t) {
            throw rethrow(t);
          }
        };
      };
    }
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException e) {
      throw e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }
}
