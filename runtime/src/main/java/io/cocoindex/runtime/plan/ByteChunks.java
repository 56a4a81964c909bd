package io.cocoindex.runtime.plan;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Bytes appended into a few large arrays, for a run-wide table of paths that holds no object per
 * path: a table that lives as long as the run had its million small arrays each copied by a young
 * collection and promoted, and every new reference to one dirtied a card of the old generation
 * that the next young collection scanned. A place in them is an int: the chunk's index above the
 * low {@link #CHUNK_BITS} bits, the offset in it below. Not thread-safe; its owner locks.
 */
final class ByteChunks {
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  static final int CHUNK_BITS = 16;
  /**
   * Bytes per chunk at most: well below the size the collector allocates outside the young
   * space. The first chunk is smaller, and each next one twice as large up to this: a run
   * declaring a few hundred states should not allocate a full chunk per table.
   */
  private static final int CHUNK = 1 << CHUNK_BITS;
  private static final int FIRST_CHUNK = 1 << 10;
  private static final byte[][] NO_CHUNKS = new byte[0][];
  private static final int[] NO_USED = new int[0];

  private byte[][] chunks = NO_CHUNKS;
  /** How many bytes of each chunk are used. */
  private int[] used = NO_USED;
  private int chunkCount;
  /** The chunk being filled, or -1. */
  private int filling = -1;
  /** The size of the next chunk to fill. */
  private int nextSize = FIRST_CHUNK;

  /**
   * Reserves {@code size} bytes in one chunk, after every byte reserved before (in a chunk of
   * their own past a quarter of a chunk's size).
   *
   * @return where they are: {@link #chunkAt} and {@link #offsetOf} it
   */
  int reserve(int size) {
    int chunk;
    if (size > CHUNK / 4) {
      chunk = addChunk(size);
      filling = -1; // what comes next goes after it
    } else {
      if (filling < 0 || used[filling] + size > chunks[filling].length) {
        filling = addChunk(Math.max(nextSize, size));
        nextSize = Math.min(CHUNK, 2 * nextSize);
      }
      chunk = filling;
    }
    int at = used[chunk];
    used[chunk] = at + size;
    return (chunk << CHUNK_BITS) | at;
  }

  /** Copies {@code bytes} in after their length in 4 bytes; returns where, as {@link #reserve}. */
  int appendSized(byte[] bytes) {
    int location = reserve(Integer.BYTES + bytes.length);
    putSized(chunkAt(location), offsetOf(location), bytes);
    return location;
  }

  /**
   * Writes {@code bytes} at {@code at} of {@code into} after their length in 4 bytes, as {@link
   * #appendSized} does: the one layout of the run's tables of paths.
   *
   * @return where the next write goes
   */
  static int putSized(byte[] into, int at, byte[] bytes) {
    putSize(into, at, bytes.length);
    System.arraycopy(bytes, 0, into, at + Integer.BYTES, bytes.length);
    return at + Integer.BYTES + bytes.length;
  }

  /** Writes a length in 4 bytes at {@code at} of {@code into}, as {@link #putSized} does. */
  static void putSize(byte[] into, int at, int size) {
    INT.set(into, at, size);
  }

  /** A copy of the bytes {@link #appendSized} put at {@code location}. */
  byte[] sizedAt(int location) {
    byte[] chunk = chunkAt(location);
    int at = offsetOf(location);
    int length = sizeAt(chunk, at);
    return Arrays.copyOfRange(chunk, at + Integer.BYTES, at + Integer.BYTES + length);
  }

  /** Whether {@link #appendSized} put {@code bytes} at {@code location}. */
  boolean sizedEquals(int location, byte[] bytes) {
    byte[] chunk = chunkAt(location);
    int at = offsetOf(location) + Integer.BYTES;
    return sizeAt(chunk, at - Integer.BYTES) == bytes.length
        && Arrays.equals(chunk, at, at + bytes.length, bytes, 0, bytes.length);
  }

  /** The length {@link #putSized} wrote at {@code offset} of {@code chunk}. */
  static int sizeAt(byte[] chunk, int offset) {
    return (int) INT.get(chunk, offset);
  }

  byte[] chunkAt(int location) {
    return chunks[location >>> CHUNK_BITS];
  }

  static int offsetOf(int location) {
    return location & ((1 << CHUNK_BITS) - 1);
  }

  /** How many chunks there are, to read them in the order they were added. */
  int chunkCount() {
    return chunkCount;
  }

  /** The chunk of that index; its first {@link #used} bytes are what was reserved in it. */
  byte[] chunk(int index) {
    return chunks[index];
  }

  int used(int index) {
    return used[index];
  }

  /** Lets go of the chunks, which may have reached the old generation. */
  void clear() {
    chunks = NO_CHUNKS;
    used = NO_USED;
    chunkCount = 0;
    filling = -1;
    nextSize = FIRST_CHUNK;
  }

  private int addChunk(int size) {
    if (chunkCount == 1 << (Integer.SIZE - CHUNK_BITS)) {
      // A place is an int: past this, the chunk's index no longer fits in its high bits.
      throw new IllegalStateException("a run-wide table of paths outgrew " + chunkCount
          + " chunks of bytes");
    }
    if (chunkCount == chunks.length) {
      int n = Math.max(4, 2 * chunkCount);
      chunks = Arrays.copyOf(chunks, n);
      used = Arrays.copyOf(used, n);
    }
    chunks[chunkCount] = new byte[size];
    return chunkCount++;
  }
}
