package io.cocoindex.codec;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The unmodifiable map a generated codec reads or copies: string keys in the order they were
 * added, in parallel arrays. A small map (most are) is searched linearly; a larger one also
 * keeps an open-addressing table of positions. Where a {@code LinkedHashMap} behind an
 * unmodifiable view allocates a node per entry, this allocates two arrays (three when large).
 *
 * <p>A key added twice keeps its first position and its last value, as a {@code LinkedHashMap}
 * would. Null values are kept.
 */
final class FrozenMap<V> extends AbstractMap<String, V> {
  /** Up to this many entries a linear scan beats hashing. */
  private static final int LINEAR_MAX = 8;

  private final String[] keys;
  private final Object[] values;
  /** Positions plus one, by key hash; null for a small map. */
  private final int[] table;
  /** Whether the keys are in strictly ascending order, the order a map is written in. */
  private final boolean ascending;

  private FrozenMap(String[] keys, Object[] values, int[] table, boolean ascending) {
    this.keys = keys;
    this.values = values;
    this.table = table;
    this.ascending = ascending;
  }

  /** Collects the entries of a map being read or copied; {@link #build} ends it. */
  static final class Builder<V> {
    private String[] keys;
    private Object[] values;
    private int[] table;
    private int size;
    private boolean ascending = true;

    Builder(int expectedSize) {
      int capacity = Math.max(expectedSize, 4);
      keys = new String[capacity];
      values = new Object[capacity];
    }

    void put(String key, V value) {
      // Maps are written in key order: a key after the last one is new, with no search.
      boolean afterLast = size == 0 || (ascending && keys[size - 1].compareTo(key) < 0);
      if (!afterLast) {
        int existing = indexOf(keys, size, table, key);
        if (existing >= 0) {
          values[existing] = value;
          return;
        }
        ascending = false;
      }
      if (size == keys.length) {
        keys = Arrays.copyOf(keys, size * 2);
        values = Arrays.copyOf(values, size * 2);
      }
      keys[size] = key;
      values[size] = value;
      size++;
      if (size > LINEAR_MAX) {
        if (table == null || 2 * size > table.length) {
          table = tableOf(keys, size);
        } else {
          insert(table, key, size - 1);
        }
      }
    }

    FrozenMap<V> build() {
      String[] k = size == keys.length ? keys : Arrays.copyOf(keys, size);
      Object[] v = size == values.length ? values : Arrays.copyOf(values, size);
      return new FrozenMap<>(k, v, size > LINEAR_MAX ? table : null, ascending);
    }
  }

  /** A map of these entries, whose keys are known to be distinct (a map's); the arrays are kept. */
  static <V> FrozenMap<V> ofDistinctKeys(String[] keys, Object[] values) {
    int[] table = keys.length > LINEAR_MAX ? tableOf(keys, keys.length) : null;
    boolean ascending = true;
    for (int i = 1; i < keys.length && ascending; i++) {
      ascending = keys[i - 1].compareTo(keys[i]) < 0;
    }
    return new FrozenMap<>(keys, values, table, ascending);
  }

  /** A map of these keys (and their table) with other values, in the same order. */
  FrozenMap<V> withValues(Object[] newValues) {
    return new FrozenMap<>(keys, newValues, table, ascending);
  }

  /** A table of more than three slots per key, so probes stay short. */
  private static int[] tableOf(String[] keys, int size) {
    int[] table = new int[Integer.highestOneBit(size * 3) << 1];
    for (int i = 0; i < size; i++) {
      insert(table, keys[i], i);
    }
    return table;
  }

  private static void insert(int[] table, String key, int position) {
    int mask = table.length - 1;
    int slot = spread(key.hashCode()) & mask;
    while (table[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    table[slot] = position + 1;
  }

  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  /** The position of {@code key} among the first {@code size} keys, or -1. */
  private static int indexOf(String[] keys, int size, int[] table, Object key) {
    if (table == null) {
      for (int i = 0; i < size; i++) {
        String k = keys[i];
        if (k == key || (k != null && k.equals(key))) {
          return i;
        }
      }
      return -1;
    }
    if (!(key instanceof String)) {
      return -1;
    }
    int mask = table.length - 1;
    for (int slot = spread(key.hashCode()) & mask; table[slot] != 0; slot = (slot + 1) & mask) {
      int i = table[slot] - 1;
      if (keys[i].equals(key)) {
        return i;
      }
    }
    return -1;
  }

  String keyAt(int i) {
    return keys[i];
  }

  @SuppressWarnings("unchecked")
  V valueAt(int i) {
    return (V) values[i];
  }

  /** Whether the keys are in ascending order (as a map written sorted reads back). */
  boolean keysAscending() {
    return ascending;
  }

  @Override
  public int size() {
    return keys.length;
  }

  @Override
  public boolean containsKey(Object key) {
    return indexOf(keys, keys.length, table, key) >= 0;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    int i = indexOf(keys, keys.length, table, key);
    return i < 0 ? null : (V) values[i];
  }

  @Override
  public Set<Entry<String, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<String, V>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < keys.length;
          }

          @Override
          @SuppressWarnings("unchecked")
          public Entry<String, V> next() {
            if (next >= keys.length) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new SimpleImmutableEntry<>(keys[i], (V) values[i]);
          }
        };
      }

      @Override
      public int size() {
        return keys.length;
      }
    };
  }
}
