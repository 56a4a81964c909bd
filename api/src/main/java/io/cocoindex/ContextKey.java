package io.cocoindex;

import java.util.Objects;

/**
 * A typed key for a value provided by the environment (a connection, a client). Its {@link
 * #name()} is a stable logical name: put it in target-state keys instead of hosts or passwords,
 * so rotating credentials never orphans tracked states.
 *
 * @param <T> the value type
 */
public final class ContextKey<T> {
  private final String name;
  private final Class<T> type;

  private ContextKey(String name, Class<T> type) {
    this.name = Objects.requireNonNull(name, "name");
    this.type = Objects.requireNonNull(type, "type");
  }

  /** A key of the given logical name for values of {@code type}. */
  public static <T> ContextKey<T> of(String name, Class<T> type) {
    return new ContextKey<>(name, type);
  }

  /** The stable logical name. */
  public String name() {
    return name;
  }

  /** The type of the value provided under this key. */
  public Class<T> type() {
    return type;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ContextKey<?> k && k.name.equals(name) && k.type.equals(type);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + type.hashCode();
  }

  @Override
  public String toString() {
    return "ContextKey[" + name + ": " + type.getSimpleName() + "]";
  }
}
