package io.cocoindex.runtime.plan;

import java.util.Arrays;

/**
 * Encoded paths, each with an int, in one open-addressed table at most half full: a run-wide
 * table of a run's paths (what it claimed, what it mounted) that holds no object per path. Not
 * thread-safe; its owner locks. Its first array is allocated at its first put: a rerun puts few
 * paths in a table of claims, and most of a segmented table's tables none.
 *
 * <p>A slot is four adjacent ints (the path's hash, where its bytes are, how many, and its int),
 * so that a put touches one cache line of the table rather than one in each of four arrays: about
 * a tenth less per claim of 100k paths, measured alone. A first run still pays a cache miss per
 * path here.
 *
 * <p>A path's bytes are copied into {@link ByteChunks} rather than kept as the path's own array,
 * and the path itself is not kept: at a million states, a million small arrays held by the table
 * of claims were about an eighth of a rerun (when reruns claimed every path), and a path kept as
 * a {@link TargetPath} would also keep its keys and its parent, about three times its bytes.
 */
final class PathTable {
  /** Ints per slot, and their offsets in it. */
  private static final int STRIDE = 4;
  private static final int HASH = 0;
  private static final int LOCATION = 1;
  private static final int LENGTH = 2;
  private static final int VALUE = 3;
  private static final int[] NO_SLOTS = new int[STRIDE];
  /** Slots to allocate at the first put. */
  private static final int FIRST_SLOTS = 16;
  /**
   * Per slot: the path's hash with its low bit set ({@link #stored}; 0 marks a free slot), where
   * its bytes are in {@link #bytes} and how many, and its value.
   */
  private int[] slots = NO_SLOTS;
  private int size;
  private final ByteChunks bytes = new ByteChunks();

  /**
   * Linear probing wants the low bits mixed; paths hash well ({@link
   * io.cocoindex.runtime.state.ByteKey#hashOf}), but not for a table alone.
   */
  static int spread(int h) {
    return h ^ (h >>> 16);
  }

  private int capacity() {
    return slots.length / STRIDE;
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
    if (slots == NO_SLOTS) {
      slots = new int[FIRST_SLOTS * STRIDE];
    }
    int i = find(hash, encoded);
    if (i >= 0) {
      return slots[i * STRIDE + VALUE];
    }
    if (2 * (size + 1) > capacity()) {
      grow();
      i = find(hash, encoded);
    }
    int at = ~i * STRIDE;
    slots[at + HASH] = stored(hash);
    slots[at + LOCATION] = bytes.append(encoded);
    slots[at + LENGTH] = encoded.length;
    slots[at + VALUE] = value;
    size++;
    return -1;
  }

  /** The value of the path in {@code slot} (as {@link #find} gives it). */
  int valueAt(int slot) {
    return slots[slot * STRIDE + VALUE];
  }

  /** The slot holding {@code encoded}, or {@code ~slot} of the free slot where it would go. */
  int find(int hash, byte[] encoded) {
    int h = stored(hash);
    int mask = capacity() - 1;
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      int at = slots[i * STRIDE + HASH];
      if (at == 0) {
        return ~i;
      }
      if (at == h && sameBytes(i * STRIDE, encoded)) {
        return i;
      }
    }
  }

  /** A hash as the table keeps it: never 0, which marks a free slot. */
  private static int stored(int hash) {
    return hash | 1;
  }

  private boolean sameBytes(int at, byte[] encoded) {
    if (slots[at + LENGTH] != encoded.length) {
      return false;
    }
    int location = slots[at + LOCATION];
    int offset = ByteChunks.offsetOf(location);
    return Arrays.equals(bytes.chunkAt(location), offset, offset + encoded.length,
        encoded, 0, encoded.length);
  }

  private void grow() {
    int[] old = slots;
    slots = new int[old.length * 2];
    int mask = capacity() - 1;
    for (int j = 0; j < old.length; j += STRIDE) {
      int h = old[j + HASH];
      if (h == 0) {
        continue;
      }
      int i = spread(h) & mask;
      while (slots[i * STRIDE + HASH] != 0) {
        i = (i + 1) & mask;
      }
      System.arraycopy(old, j, slots, i * STRIDE, STRIDE);
    }
  }

  /** Lets go of every path (and the arrays, which may have reached the old generation). */
  void clear() {
    slots = NO_SLOTS;
    bytes.clear();
    size = 0;
  }
}
