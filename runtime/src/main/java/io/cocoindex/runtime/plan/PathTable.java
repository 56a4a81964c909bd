package io.cocoindex.runtime.plan;

/**
 * Encoded paths, each with an int or as a set, in one open-addressed table at most half full: a run-wide
 * table of a run's paths (what it claimed, what it mounted) that holds no object per path. Not
 * thread-safe; its owner locks. Its first array is allocated at its first put: a rerun puts few
 * paths in a table of claims, and most of a segmented table's tables none.
 *
 * <p>A slot is two or three adjacent ints (the path's hash, where its bytes are, and its int in a
 * table that keeps one), so that a put touches one cache line of the table rather than one in
 * each of several arrays: about a tenth less per claim of 100k paths, measured alone. A first run
 * still pays a cache miss per path here. The path's length is kept before its bytes: at a
 * million paths the slots, at most half used, are about half of what the table holds.
 *
 * <p>A path's bytes are copied into {@link ByteChunks} rather than kept as the path's own array,
 * and the path itself is not kept: at a million states, a million small arrays held by the table
 * of claims were about an eighth of a rerun (when reruns claimed every path), and a path kept as
 * a {@link TargetPath} would also keep its keys and its parent, about three times its bytes.
 */
final class PathTable {
  /** The offsets of a slot's ints. */
  private static final int HASH = 0;
  private static final int LOCATION = 1;
  private static final int VALUE = 2;
  /** Slots to allocate at the first put. */
  private static final int FIRST_SLOTS = 16;

  /** Ints per slot: 3 with a value, 2 in a set. */
  private final int stride;
  private final int[] noSlots;
  /**
   * Per slot: the path's hash with its low bit set ({@link #stored}; 0 marks a free slot), where
   * its length and bytes are in {@link #bytes}, and its value.
   */
  private int[] slots;
  private int size;
  private final ByteChunks bytes = new ByteChunks();

  private PathTable(int stride) {
    this.stride = stride;
    this.noSlots = new int[stride];
    this.slots = noSlots;
  }

  /** A table of paths, each with an int. */
  static PathTable withValues() {
    return new PathTable(3);
  }

  /** A set of paths: {@link #putIfAbsent}'s value is not kept, and reads as 0. */
  static PathTable set() {
    return new PathTable(2);
  }

  /**
   * Linear probing wants the low bits mixed; paths hash well ({@link
   * io.cocoindex.runtime.state.ByteKey#hashOf}), but not for a table alone.
   */
  static int spread(int h) {
    return h ^ (h >>> 16);
  }

  private int capacity() {
    return slots.length / stride;
  }

  /** How many paths the table holds. */
  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /**
   * Puts {@code encoded} (whose hash is {@code hash}) with {@code value} unless it is there.
   *
   * @return the value it had before, or -1 if it was put now
   */
  int putIfAbsent(int hash, byte[] encoded, int value) {
    if (slots == noSlots) {
      slots = new int[FIRST_SLOTS * stride];
    }
    int i = find(hash, encoded);
    if (i >= 0) {
      return valueAt(i);
    }
    if (2 * (size + 1) > capacity()) {
      grow();
      i = find(hash, encoded);
    }
    int at = ~i * stride;
    slots[at + HASH] = stored(hash);
    slots[at + LOCATION] = bytes.appendSized(encoded);
    if (stride > VALUE) {
      slots[at + VALUE] = value;
    }
    size++;
    return -1;
  }

  /** The value of the path in {@code slot} (as {@link #find} gives it). */
  int valueAt(int slot) {
    return stride > VALUE ? slots[slot * stride + VALUE] : 0;
  }

  /** The slot holding {@code encoded}, or {@code ~slot} of the free slot where it would go. */
  int find(int hash, byte[] encoded) {
    int h = stored(hash);
    int mask = capacity() - 1;
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      int at = slots[i * stride + HASH];
      if (at == 0) {
        return ~i;
      }
      if (at == h && bytes.sizedEquals(slots[i * stride + LOCATION], encoded)) {
        return i;
      }
    }
  }

  /** A hash as the table keeps it: never 0, which marks a free slot. */
  private static int stored(int hash) {
    return hash | 1;
  }

  private void grow() {
    int[] old = slots;
    slots = new int[old.length * 2];
    int mask = capacity() - 1;
    for (int j = 0; j < old.length; j += stride) {
      int h = old[j + HASH];
      if (h == 0) {
        continue;
      }
      int i = spread(h) & mask;
      while (slots[i * stride + HASH] != 0) {
        i = (i + 1) & mask;
      }
      System.arraycopy(old, j, slots, i * stride, stride);
    }
  }

  /** Lets go of every path (and the arrays, which may have reached the old generation). */
  void clear() {
    slots = noSlots;
    bytes.clear();
    size = 0;
  }
}
