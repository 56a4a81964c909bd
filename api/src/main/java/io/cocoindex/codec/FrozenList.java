package io.cocoindex.codec;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

/**
 * The unmodifiable list a generated codec reads or copies: its elements in one exact-size array,
 * nulls allowed. One object and one array, where an {@code ArrayList} behind an unmodifiable view
 * is three objects and a spare-capacity array: decoded values are built for every stored record.
 */
final class FrozenList<T> extends AbstractList<T> implements RandomAccess {
  private static final Object[] NONE = {};

  private final Object[] elements;

  private FrozenList(Object[] elements) {
    this.elements = elements;
  }

  /** Collects the elements of a list being read; {@link #build} ends it. */
  static final class Builder<T> {
    private Object[] elements = NONE;
    private int size;

    void add(T element) {
      if (size == elements.length) {
        elements = Arrays.copyOf(elements, Math.max(4, size * 2));
      }
      elements[size++] = element;
    }

    FrozenList<T> build() {
      return new FrozenList<>(size == elements.length ? elements : Arrays.copyOf(elements, size));
    }
  }

  /** A list of exactly these elements, which the caller no longer holds. */
  static <T> FrozenList<T> wrap(Object[] elements) {
    return new FrozenList<>(elements);
  }

  @Override
  @SuppressWarnings("unchecked")
  public T get(int index) {
    return (T) elements[index];
  }

  @Override
  public int size() {
    return elements.length;
  }

  @Override
  public Object[] toArray() {
    return elements.clone();
  }
}
