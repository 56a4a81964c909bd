package io.cocoindex.runtime.state;

import java.util.Arrays;
import java.util.List;

/**
 * The states of one chunk ({@link ComponentStateTables}) by path, in path order: one array
 * searched by halving. A chunk is read in path order and mostly written so (a component declares
 * its rows by ascending key), and either is an append here; the tree map this replaced compared
 * and rebalanced at every state, and allocated an entry and a hashed key for each (with its copy
 * of the values to encode, about a tenth of the state writer's time when one row changed in
 * every component).
 */
final class SortedStates {
  private TrackedState[] states;
  private int size;

  /** Empty, with room for {@code capacity} states before growing. */
  SortedStates(int capacity) {
    states = new TrackedState[Math.max(capacity, 4)];
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  TrackedState stateAt(int index) {
    return states[index];
  }

  /** The state held at {@code path}, or null. */
  TrackedState get(byte[] path) {
    int i = search(path);
    return i >= 0 ? states[i] : null;
  }

  /** Holds {@code state} at its path; returns the state it replaces, or null. */
  TrackedState put(TrackedState state) {
    byte[] path = state.path();
    if (size == 0 || compare(states[size - 1], path) < 0) {
      insertAt(size, state);
      return null;
    }
    int i = search(path);
    if (i >= 0) {
      TrackedState old = states[i];
      states[i] = state;
      return old;
    }
    insertAt(-i - 1, state);
    return null;
  }

  /** Stops holding the state at {@code path}; returns it, or null if none was held. */
  TrackedState remove(byte[] path) {
    int i = search(path);
    if (i < 0) {
      return null;
    }
    TrackedState old = states[i];
    removeRange(i, i + 1);
    return old;
  }

  /** The greatest path held below {@code path}, or null. */
  byte[] lowerPath(byte[] path) {
    int i = search(path);
    int below = (i >= 0 ? i : -i - 1) - 1;
    return below >= 0 ? states[below].path() : null;
  }

  /** The least path held above {@code path}, or null. */
  byte[] higherPath(byte[] path) {
    int i = search(path);
    int above = i >= 0 ? i + 1 : -i - 1;
    return above < size ? states[above].path() : null;
  }

  /** The index of the first state whose path is not below {@code path} ({@link #size} if none). */
  int indexFrom(byte[] path) {
    int i = search(path);
    return i >= 0 ? i : -i - 1;
  }

  /** Stops holding the states at indexes {@code [from, to)}. */
  void removeRange(int from, int to) {
    System.arraycopy(states, to, states, from, size - to);
    Arrays.fill(states, size - (to - from), size, null);
    size -= to - from;
  }

  /** The states held, in path order: a view, valid until this changes. */
  List<TrackedState> inPathOrder() {
    return Arrays.asList(states).subList(0, size);
  }

  private void insertAt(int index, TrackedState state) {
    if (size == states.length) {
      states = Arrays.copyOf(states, size * 2);
    }
    System.arraycopy(states, index, states, index + 1, size - index);
    states[index] = state;
    size++;
  }

  /** The index of {@code path}, else {@code -(insertion point) - 1}, as the JDK's searches. */
  private int search(byte[] path) {
    int lo = 0;
    int hi = size - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int order = compare(states[mid], path);
      if (order < 0) {
        lo = mid + 1;
      } else if (order > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -lo - 1;
  }

  private static int compare(TrackedState held, byte[] path) {
    return Arrays.compareUnsigned(held.path(), path);
  }
}
