package io.cocoindex.codec;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The unmodifiable list a generated codec reads or copies: its elements at the start of one
 * array, nulls allowed. One object and one array, where an {@code ArrayList} behind an
 * unmodifiable view is three objects: decoded values are built for every stored record. A list
 * read keeps its builder's array, spare room included, rather than copying it to size: a stored
 * list does not say its length, and the copy was a second allocation per list.
 */
final class FrozenList<T> extends AbstractList<T> implements RandomAccess {
  private static final Object[] NONE = {};

  private final Object[] elements;
  private final int size;

  private FrozenList(Object[] elements, int size) {
    this.elements = elements;
    this.size = size;
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
      return new FrozenList<>(elements, size);
    }
  }

  /** A list of exactly these elements, which the caller no longer holds. */
  static <T> FrozenList<T> wrap(Object[] elements) {
    return new FrozenList<>(elements, elements.length);
  }

  @Override
  @SuppressWarnings("unchecked")
  public T get(int index) {
    return (T) elements[Objects.checkIndex(index, size)];
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Object[] toArray() {
    return Arrays.copyOf(elements, size);
  }
}
