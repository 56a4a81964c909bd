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

  /**
   * A key of the given logical name for values of {@code type}. Two keys of the same name and
   * type are equal.
   *
   * @param name the stable logical name, such as {@code "my_pg"}; never a host or a password
   * @param type the class of the value the environment provides under it
   * @param <T> the value type
   * @return the key
   * @throws NullPointerException when {@code name} or {@code type} is null
   */
  public static <T> ContextKey<T> of(String name, Class<T> type) {
    return new ContextKey<>(name, type);
  }

  /**
   * The stable logical name.
   *
   * @return the name this key was made with
   */
  public String name() {
    return name;
  }

  /**
   * The type of the value provided under this key.
   *
   * @return the class this key was made with
   */
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
