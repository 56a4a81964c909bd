package io.cocoindex.runtime.state;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The states of one chunk ({@link ComponentStateTables}) by path, in path order. A chunk is read
 * in path order and mostly written so (a component declares its rows by ascending key), which
 * here is an append to one array searched by halving; the tree map this replaced compared and
 * rebalanced at every state, and allocated an entry and a hashed key for each (with its copy of
 * the values to encode, about a tenth of the state writer's time when one row changed in every
 * component).
 *
 * <p>States that arrive out of path order are inserted by shifting the array while it is small;
 * past {@link #ARRAY_LIMIT} states the chunk moves into a tree map for good, so that a large
 * component declaring its rows in no order (a file's rows by an unordered key) costs a log per
 * state, not a shift of the whole array.
 */
final class SortedStates {
  /** How many states an array holds when one arrives out of order and they move to a tree. */
  static final int ARRAY_LIMIT = 512;

  private TrackedState[] states;
  private int size;
  /** Null while the states are in {@link #states}; once set, holds them all. */
  private NavigableMap<byte[], TrackedState> tree;

  /** Empty, with room for {@code capacity} states before growing. */
  SortedStates(int capacity) {
    states = new TrackedState[Math.max(capacity, 4)];
  }

  int size() {
    return tree != null ? tree.size() : size;
  }

  boolean isEmpty() {
    return size() == 0;
  }

  /** Whether the states moved to a tree map (for tests). */
  boolean inTree() {
    return tree != null;
  }

  /** The state held at {@code path}, or null. */
  TrackedState get(byte[] path) {
    if (tree != null) {
      return tree.get(path);
    }
    int i = search(path);
    return i >= 0 ? states[i] : null;
  }

  /** Holds {@code state} at its path; returns the state it replaces, or null. */
  TrackedState put(TrackedState state) {
    byte[] path = state.path();
    if (tree != null) {
      return tree.put(path, state);
    }
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
    if (size >= ARRAY_LIMIT) {
      moveToTree();
      return tree.put(path, state);
    }
    insertAt(-i - 1, state);
    return null;
  }

  /** Stops holding the state at {@code path}; returns it, or null if none was held. */
  TrackedState remove(byte[] path) {
    if (tree != null) {
      return tree.remove(path);
    }
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
    if (tree != null) {
      return tree.lowerKey(path);
    }
    int i = search(path);
    int below = (i >= 0 ? i : -i - 1) - 1;
    return below >= 0 ? states[below].path() : null;
  }

  /** The least path held above {@code path}, or null. */
  byte[] higherPath(byte[] path) {
    if (tree != null) {
      return tree.higherKey(path);
    }
    int i = search(path);
    int above = i >= 0 ? i + 1 : -i - 1;
    return above < size ? states[above].path() : null;
  }

  /** The states held in {@code [from, to)}, in path order: valid until this changes. */
  List<TrackedState> in(byte[] from, byte[] to) {
    if (tree != null) {
      return new ArrayList<>(tree.subMap(from, true, to, false).values());
    }
    int start = indexFrom(from);
    return inPathOrder().subList(start, Math.max(start, indexFrom(to)));
  }

  /** Stops holding the states in {@code [from, to)}; returns whether there were any. */
  boolean removeIn(byte[] from, byte[] to) {
    if (tree != null) {
      NavigableMap<byte[], TrackedState> range = tree.subMap(from, true, to, false);
      boolean any = !range.isEmpty();
      range.clear();
      return any;
    }
    int start = indexFrom(from);
    int end = Math.max(start, indexFrom(to));
    removeRange(start, end);
    return end > start;
  }

  /** The states held, in path order: valid until this changes. */
  List<TrackedState> inPathOrder() {
    if (tree != null) {
      return new ArrayList<>(tree.values());
    }
    return Arrays.asList(states).subList(0, size);
  }

  private void moveToTree() {
    tree = new TreeMap<>(Arrays::compareUnsigned);
    for (int i = 0; i < size; i++) {
      tree.put(states[i].path(), states[i]);
    }
    states = null;
    size = 0;
  }

  /** The index of the first state whose path is not below {@code path} ({@code size} if none). */
  private int indexFrom(byte[] path) {
    int i = search(path);
    return i >= 0 ? i : -i - 1;
  }

  private void removeRange(int from, int to) {
    System.arraycopy(states, to, states, from, size - to);
    Arrays.fill(states, size - (to - from), size, null);
    size -= to - from;
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
