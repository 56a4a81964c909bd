package io.cocoindex.runtime.codec;

import io.cocoindex.TargetHandler;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.HashMap;
import java.util.Map;

/**
 * The value, tracking-record and action types of a {@link TargetHandler} implementation, read
 * from its generic signature; the codecs of the serialization boundary are chosen by them.
 *
 * @param value {@code V}
 * @param trackingRecord {@code R}
 * @param action {@code A}
 */
public record HandlerTypes(Type value, Type trackingRecord, Type action) {

  /**
   * Resolves {@code V}, {@code R} and {@code A} of the handler's class. An argument the class does
   * not fix (a lambda's or method reference's, whose class keeps none; a generic handler class's
   * type variable; anything built from one) resolves to {@code Object}: its values are written
   * with their runtime classes ({@link DynamicCodec}).
   *
   * @param handler the handler
   * @return its three type arguments, each a concrete type or {@code Object}
   */
  public static HandlerTypes of(TargetHandler<?, ?, ?> handler) {
    Type[] args = resolve(handler.getClass(), new HashMap<>());
    if (args == null) {
      return new HandlerTypes(Object.class, Object.class, Object.class);
    }
    for (int i = 0; i < 3; i++) {
      if (!isConcrete(args[i])) {
        args[i] = Object.class;
      }
    }
    return new HandlerTypes(args[0], args[1], args[2]);
  }

  private static Type[] resolve(Type type, Map<TypeVariable<?>, Type> bindings) {
    Class<?> raw;
    if (type instanceof ParameterizedType pt) {
      raw = (Class<?>) pt.getRawType();
      TypeVariable<?>[] vars = raw.getTypeParameters();
      Type[] actual = pt.getActualTypeArguments();
      Map<TypeVariable<?>, Type> next = new HashMap<>(bindings);
      for (int i = 0; i < vars.length; i++) {
        next.put(vars[i], substitute(actual[i], bindings));
      }
      bindings = next;
    } else if (type instanceof Class<?> c) {
      raw = c;
    } else {
      return null;
    }
    if (raw == TargetHandler.class) {
      TypeVariable<?>[] vars = raw.getTypeParameters();
      return new Type[] {
        bindings.getOrDefault(vars[0], vars[0]),
        bindings.getOrDefault(vars[1], vars[1]),
        bindings.getOrDefault(vars[2], vars[2])
      };
    }
    for (Type iface : raw.getGenericInterfaces()) {
      Type[] found = resolve(iface, bindings);
      if (found != null) {
        return found;
      }
    }
    Type sup = raw.getGenericSuperclass();
    return sup == null ? null : resolve(sup, bindings);
  }

  private static Type substitute(Type t, Map<TypeVariable<?>, Type> bindings) {
    if (t instanceof TypeVariable<?> v && bindings.containsKey(v)) {
      return bindings.get(v);
    }
    if (t instanceof ParameterizedType pt) {
      Type[] args = pt.getActualTypeArguments().clone();
      for (int i = 0; i < args.length; i++) {
        args[i] = substitute(args[i], bindings);
      }
      return new ResolvedParameterizedType((Class<?>) pt.getRawType(), args, pt.getOwnerType());
    }
    return t;
  }

  private static boolean isConcrete(Type t) {
    if (t instanceof Class<?>) {
      return true;
    }
    if (t instanceof ParameterizedType pt) {
      for (Type a : pt.getActualTypeArguments()) {
        if (!isConcrete(a)) {
          return false;
        }
      }
      return true;
    }
    if (t instanceof GenericArrayType ga) {
      return isConcrete(ga.getGenericComponentType());
    }
    return false;
  }

  private record ResolvedParameterizedType(Class<?> raw, Type[] args, Type owner)
      implements ParameterizedType {
    @Override
    public Type[] getActualTypeArguments() {
      return args.clone();
    }

    @Override
    public Type getRawType() {
      return raw;
    }

    @Override
    public Type getOwnerType() {
      return owner;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ParameterizedType p
          && raw.equals(p.getRawType())
          && java.util.Arrays.equals(args, p.getActualTypeArguments())
          && java.util.Objects.equals(owner, p.getOwnerType());
    }

    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(args) ^ raw.hashCode() ^ java.util.Objects.hashCode(owner);
    }

    @Override
    public String getTypeName() {
      StringBuilder sb = new StringBuilder(raw.getTypeName()).append('<');
      for (int i = 0; i < args.length; i++) {
        sb.append(i == 0 ? "" : ", ").append(args[i].getTypeName());
      }
      return sb.append('>').toString();
    }
  }
}
