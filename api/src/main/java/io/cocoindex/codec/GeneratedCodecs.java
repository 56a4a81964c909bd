package io.cocoindex.codec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * The shared pieces of generated codecs: collections, optionals, enums and boxes, composed from
 * element readers and writers so the generated code stays flat. Not for connector code.
 *
 * <p>Each helper calls its element reader or writer from its own call site rather than through
 * {@link #readNullable}/{@link #writeNullable}: the JIT profiles a call site per method, so one
 * shared site would see every codec's element types and stop inlining any of them.
 */
public final class GeneratedCodecs {
  private GeneratedCodecs() {}

  /**
   * Writes a boxed or other reference value with {@code write}, or a null.
   *
   * @param out the output, positioned where the value goes
   * @param value the value, or null
   * @param write writes a non-null value
   * @param <T> the value type
   */
  public static <T> void writeNullable(
      ValueWriter out, T value, BiConsumer<ValueWriter, ? super T> write) {
    if (value == null) {
      out.writeNull();
    } else {
      write.accept(out, value);
    }
  }

  /**
   * Reads a value with {@code read}, or {@code null} for a stored null.
   *
   * @param in the input, positioned before the value
   * @param read reads a non-null value
   * @param <T> the value type
   * @return what {@code read} returned, or null
   */
  public static <T> T readNullable(ValueReader in, Function<ValueReader, T> read) {
    return in.readNull() ? null : read.apply(in);
  }

  /**
   * Writes an enum constant by name, as the reflective codec does.
   *
   * @param out the output, positioned where the value goes
   * @param value the constant, or null
   */
  public static void writeEnum(ValueWriter out, Enum<?> value) {
    out.writeString(value == null ? null : value.name());
  }

  /**
   * Reads an enum constant by name.
   *
   * @param in the input, positioned before the value
   * @param valueOf the enum's {@code valueOf}
   * @param enumType the enum's name, for the error
   * @param <E> the enum type
   * @return the constant, or null for a stored null
   * @throws CodecFormatException naming the enum when it has no constant of the stored name
   */
  public static <E extends Enum<E>> E readEnum(
      ValueReader in, Function<String, E> valueOf, String enumType) {
    String name = in.readString();
    if (name == null) {
      return null;
    }
    try {
      return valueOf.apply(name);
    } catch (IllegalArgumentException e) {
      throw new CodecFormatException(
          "stored " + enumType + " constant '" + name + "' no longer exists (removed or renamed?)",
          e);
    }
  }

  /**
   * Writes a {@code char} as a one-character string, as the reflective codec does.
   *
   * @param out the output, positioned where the value goes
   * @param value the character
   */
  public static void writeChar(ValueWriter out, char value) {
    out.writeString(String.valueOf(value));
  }

  /**
   * Reads a {@code char} written as a one-character string.
   *
   * @param in the input, positioned before the value
   * @return the string's only character
   * @throws CodecFormatException when the stored value is not a one-character string
   */
  public static char readChar(ValueReader in) {
    String s = in.readString();
    if (s == null || s.length() != 1) {
      throw new CodecFormatException("expected a one-character string, found " + quote(s));
    }
    return s.charAt(0);
  }

  /**
   * Writes a list in order, or a null.
   *
   * @param out the output, positioned where the value goes
   * @param list the list, or null; its elements may be null
   * @param element writes a non-null element
   * @param <T> the element type
   */
  public static <T> void writeList(
      ValueWriter out, List<T> list, BiConsumer<ValueWriter, ? super T> element) {
    if (list == null) {
      out.writeNull();
      return;
    }
    out.beginArray();
    if (list instanceof RandomAccess) { // no iterator to allocate
      for (int i = 0, n = list.size(); i < n; i++) {
        writeElement(out, list.get(i), element);
      }
    } else {
      for (T item : list) {
        writeElement(out, item, element);
      }
    }
    out.endArray();
  }

  private static <T> void writeElement(
      ValueWriter out, T item, BiConsumer<ValueWriter, ? super T> element) {
    if (item == null) { // null checks are repeated, not shared: see the class comment
      out.writeNull();
    } else {
      element.accept(out, item);
    }
  }

  /**
   * Reads an unmodifiable list, or {@code null} for a stored null.
   *
   * @param in the input, positioned before the value
   * @param element reads a non-null element
   * @param <T> the element type
   * @return the list read, null elements kept; or null
   */
  public static <T> List<T> readList(ValueReader in, Function<ValueReader, T> element) {
    return readList(in, element, null);
  }

  /**
   * Reads an unmodifiable list whose stored null elements read as {@code whenNull}: an empty
   * optional for a list of optionals, which stores an empty one as null (as the reflective codec
   * does, and reads it back).
   *
   * @param in the input, positioned before the value
   * @param element reads a non-null element
   * @param whenNull what a stored null element reads as
   * @param <T> the element type
   * @return the list read, or null
   */
  public static <T> List<T> readList(
      ValueReader in, Function<ValueReader, T> element, T whenNull) {
    if (in.readNull()) {
      return null;
    }
    FrozenList.Builder<T> list = new FrozenList.Builder<>();
    in.beginArray();
    while (in.nextElement()) {
      list.add(in.readNull() ? whenNull : element.apply(in));
    }
    return list.build();
  }

  /**
   * Writes a set in its elements' natural order, so equal sets give equal bytes whatever their
   * iteration order.
   *
   * @param out the output, positioned where the value goes
   * @param set the set, or null
   * @param element writes a non-null element
   * @param <T> the element type
   */
  public static <T extends Comparable<? super T>> void writeSet(
      ValueWriter out, Set<T> set, BiConsumer<ValueWriter, ? super T> element) {
    if (set == null) {
      out.writeNull();
      return;
    }
    List<T> sorted = new ArrayList<>(set);
    sorted.sort(null);
    writeList(out, sorted, element);
  }

  /**
   * Reads an unmodifiable set keeping the stored order, or {@code null} for a stored null.
   *
   * @param in the input, positioned before the value
   * @param element reads a non-null element
   * @param <T> the element type
   * @return the set read, or null
   */
  public static <T> Set<T> readSet(ValueReader in, Function<ValueReader, T> element) {
    List<T> list = readList(in, element);
    return list == null ? null : Collections.unmodifiableSet(new LinkedHashSet<>(list));
  }

  /**
   * Writes a map as an object with its entries sorted by key, so the bytes are deterministic.
   *
   * @param out the output, positioned where the value goes
   * @param map the map, or null; its values may be null
   * @param value writes a non-null value
   * @param <V> the value type
   */
  public static <V> void writeMap(
      ValueWriter out, Map<String, V> map, BiConsumer<ValueWriter, ? super V> value) {
    if (map == null) {
      out.writeNull();
      return;
    }
    if (map instanceof FrozenMap<V> frozen && frozen.keysAscending()) {
      // A map read or copied before: already in key order, its entries in arrays.
      out.beginObject();
      for (int i = 0, n = frozen.size(); i < n; i++) {
        out.field(frozen.keyAt(i));
        V v = frozen.valueAt(i);
        if (v == null) {
          out.writeNull();
        } else {
          value.accept(out, v);
        }
      }
      out.endObject();
      return;
    }
    Object[] entries = keysAndValuesByKey(map);
    out.beginObject();
    for (int i = 0; i < entries.length; i += 2) {
      out.field((String) entries[i]);
      @SuppressWarnings("unchecked")
      V v = (V) entries[i + 1];
      if (v == null) {
        out.writeNull();
      } else {
        value.accept(out, v);
      }
    }
    out.endObject();
  }

  /**
   * The entries of {@code map} sorted by key, as key, value, key, value... One array: sorting the
   * map's entries kept an array of them and, for {@code Map.of} maps, an entry object each.
   */
  private static Object[] keysAndValuesByKey(Map<String, ?> map) {
    int n = map.size();
    if (n > 16) {
      @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array is created raw
      Map.Entry<String, ?>[] entries = map.entrySet().toArray(new Map.Entry[n]);
      if (!(map instanceof SortedMap<?, ?> sorted && sorted.comparator() == null)) {
        Arrays.sort(entries, (a, b) -> a.getKey().compareTo(b.getKey()));
      }
      Object[] out = new Object[2 * entries.length];
      for (int i = 0; i < entries.length; i++) {
        out[2 * i] = entries[i].getKey();
        out[2 * i + 1] = entries[i].getValue();
      }
      return out;
    }
    boolean sorted = map instanceof SortedMap<?, ?> s && s.comparator() == null;
    Object[] out = new Object[2 * n];
    int count = 0;
    for (Map.Entry<String, ?> e : map.entrySet()) {
      if (count == n) { // the map grew while being read: as its iterator saw it
        n = 2 * n + 1;
        out = Arrays.copyOf(out, 2 * n);
      }
      String key = e.getKey();
      int j = count++;
      if (!sorted) { // small: insertion sort as the entries come
        while (j > 0 && ((String) out[2 * j - 2]).compareTo(key) > 0) {
          out[2 * j] = out[2 * j - 2];
          out[2 * j + 1] = out[2 * j - 1];
          j--;
        }
      }
      out[2 * j] = key;
      out[2 * j + 1] = e.getValue();
    }
    return count == n ? out : Arrays.copyOf(out, 2 * count);
  }

  /**
   * Reads an unmodifiable map keeping the stored order, or {@code null} for a stored null.
   *
   * @param in the input, positioned before the value
   * @param value reads a non-null value
   * @param <V> the value type
   * @return the map read, null values kept; or null
   */
  public static <V> Map<String, V> readMap(ValueReader in, Function<ValueReader, V> value) {
    return readMap(in, value, null);
  }

  /**
   * Reads an unmodifiable map whose stored null values read as {@code whenNull}: an empty
   * optional for a map of optionals (see {@link #readList(ValueReader, Function, Object)}).
   *
   * @param in the input, positioned before the value
   * @param value reads a non-null value
   * @param whenNull what a stored null value reads as
   * @param <V> the value type
   * @return the map read, or null
   */
  public static <V> Map<String, V> readMap(
      ValueReader in, Function<ValueReader, V> value, V whenNull) {
    if (in.readNull()) {
      return null;
    }
    FrozenMap.Builder<V> map = new FrozenMap.Builder<>(4);
    in.beginObject();
    for (String key = in.nextField(); key != null; key = in.nextField()) {
      map.put(key, in.readNull() ? whenNull : value.apply(in));
    }
    return map.build();
  }

  /**
   * Writes an optional as its value, or a null when empty, as the reflective codec does.
   *
   * @param out the output, positioned where the value goes
   * @param optional the optional; null is written as empty
   * @param value writes the present value
   * @param <T> the value type
   */
  public static <T> void writeOptional(
      ValueWriter out, Optional<T> optional, BiConsumer<ValueWriter, ? super T> value) {
    T v = optional == null ? null : optional.orElse(null);
    if (v == null) {
      out.writeNull();
    } else {
      value.accept(out, v);
    }
  }

  /**
   * Reads an optional: empty for a stored null.
   *
   * @param in the input, positioned before the value
   * @param value reads the present value
   * @param <T> the value type
   * @return the optional read; never null
   */
  public static <T> Optional<T> readOptional(ValueReader in, Function<ValueReader, T> value) {
    return in.readNull() ? Optional.empty() : Optional.ofNullable(value.apply(in));
  }

  // ---- copies: the same results as writing and reading back, without the written form ----

  /** What the Smile writer says of a string that has no UTF-8 form. */
  public static final String UNPAIRED_SURROGATE =
      "a string holds an unpaired surrogate: not valid Unicode, cannot be written as UTF-8";

  /**
   * Fails as writing {@code s} would, for a copy that keeps it as it is.
   *
   * @param s the string to check, or null
   * @throws IllegalArgumentException when it holds an unpaired surrogate
   */
  public static void checkString(String s) {
    copyString(s);
  }

  /**
   * Fails as writing {@code c} would, for a copy that keeps it as it is.
   *
   * @param c the character to check
   * @throws IllegalArgumentException when it is a surrogate
   */
  public static void checkChar(char c) {
    copyChar(c);
  }

  /**
   * Fails as writing {@code c} would, for a copy that keeps it; see {@link #checkChar}.
   *
   * @param c the character to check, or null
   * @throws IllegalArgumentException when it is a surrogate
   */
  public static void checkCharacter(Character c) {
    if (c != null) {
      copyChar(c);
    }
  }

  /**
   * A string as a copy keeps it (strings are immutable).
   *
   * @param s the string to copy, or null
   * @return {@code s} itself
   * @throws IllegalArgumentException when it holds an unpaired surrogate, as writing it would
   */
  public static String copyString(String s) {
    if (s != null && !Utf8.isWellFormed(s)) {
      throw new IllegalArgumentException(UNPAIRED_SURROGATE);
    }
    return s;
  }

  /**
   * A {@code char} as a copy keeps it.
   *
   * @param c the character to copy
   * @return {@code c} itself
   * @throws IllegalArgumentException when it is a surrogate, which has no UTF-8 form alone
   */
  public static char copyChar(char c) {
    if (Character.isSurrogate(c)) {
      throw new IllegalArgumentException(UNPAIRED_SURROGATE);
    }
    return c;
  }

  /**
   * A boxed {@code char} as a copy keeps it; see {@link #copyChar}.
   *
   * @param c the character to copy, or null
   * @return {@code c} itself
   * @throws IllegalArgumentException when it is a surrogate
   */
  public static Character copyCharacter(Character c) {
    checkCharacter(c);
    return c;
  }

  /**
   * A fresh copy of a byte array, the one mutable leaf.
   *
   * @param b the bytes, or null
   * @return a new array of the same bytes, or null
   */
  public static byte[] copyBytes(byte[] b) {
    return b == null ? null : b.clone();
  }

  /**
   * An unmodifiable copy of a list, each non-null element copied by {@code element}. A list that
   * nobody can change (one a codec made, or the JDK's {@code List.of}) whose elements all copy as
   * themselves is returned as it is: every declared row went through three allocations here
   * only to repeat what it already was.
   *
   * @param list the list, or null
   * @param element copies a non-null element
   * @param <T> the element type
   * @return the copy, {@code list} itself when it is unmodifiable and no element needed copying,
   *     or null
   */
  public static <T> List<T> copyList(List<T> list, Function<T, T> element) {
    return copyList(list, element, null);
  }

  /**
   * {@link #copyList(List, Function)} for a list whose null elements read back as {@code
   * whenNull}, as {@link #readList(ValueReader, Function, Object)} reads them.
   *
   * @param list the list, or null
   * @param element copies a non-null element
   * @param whenNull what a null element becomes
   * @param <T> the element type
   * @return the copy, {@code list} itself when it is unmodifiable and no element needed copying,
   *     or null
   */
  public static <T> List<T> copyList(List<T> list, Function<T, T> element, T whenNull) {
    if (list == null) {
      return null;
    }
    Object[] copy;
    if (isImmutableList(list)) {
      copy = copiedOrNull(list.size(), list::get, element, whenNull);
      if (copy == null) {
        return list;
      }
    } else {
      copy = list.toArray();
      if (copy.getClass() != Object[].class) {
        // A list may hand out an array of its element type; a copied element may be of another.
        copy = Arrays.copyOf(copy, copy.length, Object[].class);
      }
      for (int i = 0; i < copy.length; i++) {
        @SuppressWarnings("unchecked")
        T item = (T) copy[i];
        copy[i] = item == null ? whenNull : element.apply(item);
      }
    }
    return FrozenList.wrap(copy);
  }

  /**
   * The {@code n} elements {@code at} gives, each non-null one copied and each null one {@code
   * whenNull}, or null when each copied as itself: the array is allocated at the first element
   * that did not.
   */
  private static <T> Object[] copiedOrNull(
      int n, IntFunction<T> at, Function<T, T> element, T whenNull) {
    Object[] copy = null;
    for (int i = 0; i < n; i++) {
      T item = at.apply(i);
      T copied = item == null ? whenNull : element.apply(item);
      if (copy == null && copied != item) {
        copy = new Object[n];
        for (int j = 0; j < i; j++) {
          copy[j] = at.apply(j);
        }
      }
      if (copy != null) {
        copy[i] = copied;
      }
    }
    return copy;
  }

  /** The JDK's unmodifiable lists of {@code List.of} and {@code List.copyOf}: not views. */
  private static final Class<?> LIST_12 = List.of(1).getClass();
  private static final Class<?> LIST_N = List.of(1, 2, 3).getClass();

  /** Whether no one can change {@code list}: one a codec made, or one of the JDK's. */
  private static boolean isImmutableList(List<?> list) {
    Class<?> c = list.getClass();
    return c == FrozenList.class || c == LIST_12 || c == LIST_N;
  }

  /**
   * An unmodifiable copy of a set in its elements' natural order (the order reading back gives),
   * each non-null element copied by {@code element}.
   *
   * @param set the set, or null
   * @param element copies a non-null element
   * @param <T> the element type
   * @return the copy, or null
   */
  public static <T extends Comparable<? super T>> Set<T> copySet(
      Set<T> set, Function<T, T> element) {
    if (set == null) {
      return null;
    }
    List<T> sorted = new ArrayList<>(set);
    sorted.sort(null);
    Set<T> copy = new LinkedHashSet<>();
    for (T item : sorted) {
      copy.add(item == null ? null : element.apply(item));
    }
    return Collections.unmodifiableSet(copy);
  }

  /**
   * An unmodifiable copy of a map in key order (the order reading back gives), each non-null
   * value copied by {@code value}.
   *
   * @param map the map, or null
   * @param value copies a non-null value
   * @param <V> the value type
   * @return the copy, {@code map} itself when a codec made it and no value needed copying, or
   *     null
   */
  public static <V> Map<String, V> copyMap(Map<String, V> map, Function<V, V> value) {
    return copyMap(map, value, null);
  }

  /**
   * {@link #copyMap(Map, Function)} for a map whose null values read back as {@code whenNull},
   * as {@link #readMap(ValueReader, Function, Object)} reads them.
   *
   * @param map the map, or null
   * @param value copies a non-null value
   * @param whenNull what a null value becomes
   * @param <V> the value type
   * @return the copy, {@code map} itself when a codec made it and no value needed copying, or
   *     null
   */
  public static <V> Map<String, V> copyMap(Map<String, V> map, Function<V, V> value, V whenNull) {
    if (map == null) {
      return null;
    }
    if (map instanceof FrozenMap<V> frozen && frozen.keysAscending()) {
      // Kept as it is when every value copies as itself, as a list is.
      Object[] values = copiedOrNull(frozen.size(), frozen::valueAt, value, whenNull);
      return values == null ? frozen : frozen.withValues(values);
    }
    Object[] entries = keysAndValuesByKey(map);
    String[] keys = new String[entries.length / 2];
    Object[] values = new Object[keys.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = (String) entries[2 * i];
      @SuppressWarnings("unchecked")
      V v = (V) entries[2 * i + 1];
      values[i] = v == null ? whenNull : value.apply(v);
    }
    return FrozenMap.ofDistinctKeys(keys, values);
  }

  /**
   * A copy of an optional: empty for a null or empty one, else its value copied (the optional
   * itself when its value copies as itself).
   *
   * @param optional the optional, or null
   * @param value copies the present value
   * @param <T> the value type
   * @return the copy; never null
   */
  public static <T> Optional<T> copyOptional(Optional<T> optional, Function<T, T> value) {
    if (optional == null || optional.isEmpty()) {
      return Optional.empty();
    }
    T v = optional.get();
    T copied = value.apply(v);
    return copied == v ? optional : Optional.of(copied);
  }

  private static String quote(String s) {
    return s == null ? "null" : "'" + s + "'";
  }
}
