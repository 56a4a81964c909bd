package io.cocoindex.runtime.codec;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Whether a type fixes the class of every value inside its values, so that a codec chosen by it
 * reads back what was written: {@code Map<String, Long>} does; {@code Map<String, Object>} does
 * not (Jackson reads a {@code Long} 5 back as an {@code Integer}, a record as a map), nor does an
 * interface, an abstract class, a raw collection, or a record with such a component. The
 * registry gives those the {@link DynamicCodec}, which writes each value's class with it.
 */
final class ExactTypes {
  private ExactTypes() {}

  private static final Set<Class<?>> SCALARS = Set.of(String.class, Boolean.class,
      Integer.class, Long.class, Short.class, Byte.class, Character.class, Float.class,
      Double.class, BigInteger.class, BigDecimal.class, UUID.class, Fingerprint.class,
      byte[].class);

  /** Whether {@code type}'s values decode as exactly the classes they were written with. */
  static boolean fixesEveryClass(Type type) {
    return fixes(type, new HashSet<>());
  }

  private static boolean fixes(Type type, Set<Class<?>> visiting) {
    if (type instanceof Class<?> c) {
      return fixesClass(c, visiting);
    }
    if (type instanceof ParameterizedType p) {
      for (Type arg : p.getActualTypeArguments()) {
        if (!fixes(arg, visiting)) {
          return false;
        }
      }
      // A generic record's components are its type arguments, checked above; a collection's,
      // map's or optional's elements too. Any other raw class is judged as a class.
      Class<?> raw = (Class<?>) p.getRawType();
      return isContainer(raw) || raw.isRecord() || fixesClass(raw, visiting);
    }
    if (type instanceof GenericArrayType a) {
      return fixes(a.getGenericComponentType(), visiting);
    }
    return false; // a type variable or a wildcard
  }

  private static boolean fixesClass(Class<?> c, Set<Class<?>> visiting) {
    if (c.isPrimitive() || c.isEnum() || SCALARS.contains(c)) {
      return true;
    }
    if (c == Object.class || isContainer(c)) {
      return false; // a raw collection, map or optional: its elements' classes are not fixed
    }
    if (StableKey.class.isAssignableFrom(c)) {
      return true; // written and read by its own encoding
    }
    if (c.isArray()) {
      return fixesClass(c.getComponentType(), visiting);
    }
    if (c.isRecord()) {
      if (!visiting.add(c)) {
        return true; // recursive: judged by its other components
      }
      for (RecordComponent rc : c.getRecordComponents()) {
        if (!fixes(rc.getGenericType(), visiting)) {
          return false;
        }
      }
      return true;
    }
    // An interface or abstract class names no class to build; any other class is read by its
    // fields, as before.
    return !c.isInterface() && !Modifier.isAbstract(c.getModifiers());
  }

  private static boolean isContainer(Class<?> c) {
    return Collection.class.isAssignableFrom(c) || Map.class.isAssignableFrom(c)
        || c == Optional.class;
  }
}
