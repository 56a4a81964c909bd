package io.cocoindex;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A key that identifies a target state (or a processing component) stably across runs.
 *
 * <p>Keys are compared by value. {@link Symbol} keys are namespace markers (provider names,
 * attachment types) and never collide with user keys of any other kind, so a child key {@code
 * "index"} and the attachment namespace {@code @index} live side by side.
 *
 * <pre>{@code
 * StableKey.of("docs");                     // Str("docs")
 * StableKey.of(List.of("my_pg", "public")); // Array([Str("my_pg"), Str("public")])
 * StableKey.symbol("vector_index");         // Symbol("vector_index")
 * }</pre>
 */
public sealed interface StableKey
    permits StableKey.Null,
        StableKey.Bool,
        StableKey.Int,
        StableKey.Str,
        StableKey.Bytes,
        StableKey.Uuid,
        StableKey.Symbol,
        StableKey.Array,
        StableKey.Fp {

  /** The null key. */
  record Null() implements StableKey {
    @Override
    public String toString() {
      return "null";
    }
  }

  /**
   * A boolean key.
   *
   * @param value the boolean
   */
  record Bool(boolean value) implements StableKey {
    @Override
    public String toString() {
      return Boolean.toString(value);
    }
  }

  /**
   * An integer key; all integral Java types map to it.
   *
   * @param value the integer, widened to a long
   */
  record Int(long value) implements StableKey {
    @Override
    public String toString() {
      return Long.toString(value);
    }
  }

  /**
   * A string key.
   *
   * @param value the string
   */
  record Str(String value) implements StableKey {
    /**
     * Checks that the string is given.
     *
     * @param value the key's text
     * @throws NullPointerException when {@code value} is null
     */
    public Str {
      Objects.requireNonNull(value, "value");
    }

    /**
     * The value in double quotes, as a Java string literal writes it: {@code "} and the backslash
     * escaped by a backslash, control characters as {@code \n}, {@code \r}, {@code \t} or a
     * backslash-u escape, so that a key always prints on one line and reads back unambiguously.
     */
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(value.length() + 2).append('"');
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        switch (c) {
          case '"' -> sb.append("\\\"");
          case '\\' -> sb.append("\\\\");
          case '\n' -> sb.append("\\n");
          case '\r' -> sb.append("\\r");
          case '\t' -> sb.append("\\t");
          default -> {
            if (c < 0x20 || c == 0x7F) {
              sb.append(String.format("\\u%04X", (int) c));
            } else {
              sb.append(c);
            }
          }
        }
      }
      return sb.append('"').toString();
    }
  }

  /**
   * A byte-string key; compared by content.
   *
   * @param value the bytes
   */
  record Bytes(byte[] value) implements StableKey {
    /**
     * Takes a copy of the bytes, so that the key cannot change afterwards.
     *
     * @param value the key's bytes
     * @throws NullPointerException when {@code value} is null
     */
    public Bytes {
      value = value.clone();
    }

    /**
     * The key's bytes.
     *
     * @return a new copy of the bytes; changing it changes no key
     */
    @Override
    public byte[] value() {
      return value.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Bytes b && Arrays.equals(value, b.value);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return "b'" + HexFormat.of().formatHex(value) + "'";
    }
  }

  /**
   * A UUID key.
   *
   * @param value the UUID
   */
  record Uuid(UUID value) implements StableKey {
    /**
     * Checks that the UUID is given.
     *
     * @param value the key's UUID
     * @throws NullPointerException when {@code value} is null
     */
    public Uuid {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
      return value.toString();
    }
  }

  /**
   * A namespace marker (provider names, attachment types); rendered with a leading {@code @}.
   *
   * @param name the marker's name, without the {@code @}
   */
  record Symbol(String name) implements StableKey {
    /**
     * Checks that the name is given.
     *
     * @param name the marker's name, rendered after {@code @}
     * @throws NullPointerException when {@code name} is null
     */
    public Symbol {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
      return "@" + name;
    }
  }

  /**
   * A composite key, e.g. (database, schema, table).
   *
   * @param items the parts, in order
   */
  record Array(List<StableKey> items) implements StableKey {
    /**
     * Takes an unmodifiable copy of the items.
     *
     * @param items the parts of the key, in order
     * @throws NullPointerException when {@code items} or any item is null
     */
    public Array {
      items = List.copyOf(items);
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < items.size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        sb.append(items.get(i));
      }
      return sb.append(']').toString();
    }
  }

  /**
   * A fingerprint used as a key (e.g. of a long or structured identity).
   *
   * @param value the fingerprint
   */
  record Fp(Fingerprint value) implements StableKey {
    /**
     * Checks that the fingerprint is given.
     *
     * @param value the fingerprint the key stands for
     * @throws NullPointerException when {@code value} is null
     */
    public Fp {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
      return value.toString();
    }
  }

  /**
   * Converts a Java value to a key: {@code String}, {@code Integer/Long/Short/Byte}, {@code
   * Boolean}, {@code UUID}, {@code byte[]}, {@code List<?>} (of convertible items), {@link
   * Fingerprint}, a {@code StableKey} (returned as is) or {@code null}.
   *
   * @param o the value to convert; a list's items are converted in turn
   * @return the key of {@code o}; {@code o} itself when it is a key already
   * @throws IllegalArgumentException naming the type when {@code o} is of any other type
   */
  static StableKey of(Object o) {
    if (o == null) {
      return new Null();
    }
    if (o instanceof StableKey k) {
      return k;
    }
    if (o instanceof String s) {
      return new Str(s);
    }
    if (o instanceof Integer || o instanceof Long || o instanceof Short || o instanceof Byte) {
      return new Int(((Number) o).longValue());
    }
    if (o instanceof Boolean b) {
      return new Bool(b);
    }
    if (o instanceof UUID u) {
      return new Uuid(u);
    }
    if (o instanceof byte[] b) {
      return new Bytes(b);
    }
    if (o instanceof Fingerprint f) {
      return new Fp(f);
    }
    if (o instanceof List<?> list) {
      List<StableKey> items = new ArrayList<>(list.size());
      for (Object item : list) {
        items.add(of(item));
      }
      return new Array(items);
    }
    throw new IllegalArgumentException(
        "unsupported key type "
            + o.getClass().getTypeName() // int[], not [I
            + " (value "
            + describe(o)
            + "): a key must be a String, Integer, Long, Short, Byte, Boolean, UUID, byte[],"
            + " Fingerprint, StableKey, null or a List of those");
  }

  /** The value for an error message: its toString, unless that fails too. */
  private static String describe(Object o) {
    try {
      return String.valueOf(o);
    } catch (RuntimeException e) {
      return "whose toString() threw " + e.getClass().getSimpleName();
    }
  }

  /**
   * A namespace marker key, rendered {@code @name}.
   *
   * @param name the marker's name: a provider name or an attachment type
   * @return a {@link Symbol} key, distinct from any key of another kind
   * @throws NullPointerException when {@code name} is null
   */
  static StableKey symbol(String name) {
    return new Symbol(name);
  }

  /**
   * The text of this string key: what a handler whose values have a {@code String} {@code @Key}
   * reads back from the key it is given ({@code key.asString()}, not a cast to {@link Str}).
   *
   * @return the string the key was made from
   * @throws IllegalStateException naming this key and its kind when it is not a {@link Str}
   */
  default String asString() {
    if (this instanceof Str s) {
      return s.value();
    }
    throw notA("a string key");
  }

  /**
   * The number of this integer key (any integral {@code @Key} component).
   *
   * @return the number the key was made from
   * @throws IllegalStateException naming this key and its kind when it is not an {@link Int}
   */
  default long asLong() {
    if (this instanceof Int i) {
      return i.value();
    }
    throw notA("an integer key");
  }

  /**
   * Part {@code index} of this composite key: {@code key.part(0).asString()} is the first
   * component of a value with several {@code @Key} components, or the context key's name of a
   * connector whose keys start with it.
   *
   * @param index the position of the part, from 0
   * @return the key of that part
   * @throws IllegalStateException naming this key when it is not an {@link Array}, or has no
   *     part {@code index}
   */
  default StableKey part(int index) {
    if (!(this instanceof Array a)) {
      throw notA("a composite key");
    }
    if (index < 0 || index >= a.items().size()) {
      throw new IllegalStateException("key " + this + " has " + a.items().size()
          + (a.items().size() == 1 ? " part" : " parts") + ", not a part " + index);
    }
    return a.items().get(index);
  }

  private IllegalStateException notA(String expected) {
    return new IllegalStateException("key " + this + " is " + kindOf(this) + ", not " + expected);
  }

  private static String kindOf(StableKey key) {
    if (key instanceof Null) {
      return "the null key";
    } else if (key instanceof Bool) {
      return "a boolean key";
    } else if (key instanceof Int) {
      return "an integer key";
    } else if (key instanceof Str) {
      return "a string key";
    } else if (key instanceof Bytes) {
      return "a byte-string key";
    } else if (key instanceof Uuid) {
      return "a UUID key";
    } else if (key instanceof Symbol) {
      return "a symbol";
    } else if (key instanceof Array) {
      return "a composite key";
    }
    return "a fingerprint key";
  }
}
