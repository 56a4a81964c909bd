package io.cocoindex.runtime.plan;

import java.util.Arrays;
import java.util.List;

/**
 * Which component declared each target state in this run: a state declared by two components is
 * an error, and the orphan sweep leaves alone what another component took over.
 *
 * <p>A component claims all its states at once under one lock: a concurrent map paid two
 * contended atomic updates per state (its size counter is shared by every component thread),
 * about a tenth of a warm run. The table is open-addressed over arrays (each path's hash beside
 * it), sized up front from what the app tracks: a {@code HashMap} of 100k nodes cost a tenth of
 * a run again, mostly growing, which chases every node.
 *
 * <p>It is split in {@value #SEGMENTS} segments by the hash's high bits, each growing on its
 * own: a cold run has no estimate, and doubling one table of 100k paths moved every entry to a
 * random slot of a table larger than the cache (a sixth of a cold run's component threads); a
 * segment's arrays stay small enough to be rehashed in cache, and to be allocated young.
 *
 * <p>A claimed path is kept as its encoded bytes only, copied into large chunks (see {@link
 * Segment}): the table lives as long as the run, so whatever objects it holds are copied by the
 * young collections during the run, and a {@link TargetPath} drags its list of keys along (three
 * times the bytes).
 */
final class Claims {
  private static final int SEGMENT_BITS = 6;
  static final int SEGMENTS = 1 << SEGMENT_BITS;
  /** Beyond this many expected states the table grows as it fills rather than up front. */
  private static final long MAX_PRESIZED = 1 << 22;

  private final Segment[] segments = new Segment[SEGMENTS];
  /** The components that claimed, by the index the segments keep for them (one per claim). */
  private TargetPath[] owners = new TargetPath[64];
  private int ownerCount;

  /** A path claimed by another component before this one. */
  record Conflict(DeclaredTarget declared, TargetPath other) {}

  /**
   * @param expectedStates about how many states the run will declare (what the app tracks): the
   *     table is sized for them up front
   */
  Claims(long expectedStates) {
    long perSegment = Math.min(Math.max(expectedStates, 0), MAX_PRESIZED) / SEGMENTS;
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i] = new Segment(perSegment);
    }
  }

  /**
   * Claims every declared path for {@code component}; stops at the first path another component
   * holds (the paths claimed before it stay claimed: the run fails that component anyway).
   */
  synchronized Conflict claim(List<DeclaredTarget> declared, TargetPath component) {
    if (declared.isEmpty()) {
      return null;
    }
    if (ownerCount == owners.length) {
      owners = Arrays.copyOf(owners, 2 * ownerCount);
    }
    int owner = ownerCount++;
    owners[owner] = component;
    for (DeclaredTarget d : declared) {
      TargetPath path = d.path();
      int other = segmentOf(path).putIfAbsent(path, owner);
      if (other >= 0 && !owners[other].equals(component)) {
        return new Conflict(d, owners[other]);
      }
    }
    return null;
  }

  /** Whether some component declared {@code path} in this run. */
  synchronized boolean contains(TargetPath path) {
    return segmentOf(path).find(path) >= 0;
  }

  /**
   * Empties the table at the end of its run. Arrays that reached the old generation are scanned
   * by the collector for references into the young one until it reclaims them, whether or not
   * they are still reachable: nulled, they keep nothing of the next run's allocations alive by
   * mistake.
   */
  synchronized void clear() {
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i].clear();
    }
    Arrays.fill(owners, 0, ownerCount, null);
    ownerCount = 0;
  }

  private Segment segmentOf(TargetPath path) {
    return segments[spread(path.hashCode()) >>> (32 - SEGMENT_BITS)];
  }

  /** Linear probing wants the low bits mixed; paths hash well, but not for this table alone. */
  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  /**
   * One open-addressed table, at most half full. Its presized array is allocated at its first
   * claim: a memoized rerun claims few paths, and would otherwise allocate and clear, every run,
   * a table sized for everything the app tracks.
   *
   * <p>A slot is four adjacent ints (the path's hash, where its bytes are, how many, and the
   * claiming component's index), so that a claim touches one cache line of the table rather than
   * one in each of four arrays: about a tenth less per claim of 100k paths, measured alone.
   * Claiming is still about 6% of a warm run's component threads (one miss per path).
   *
   * <p>A claimed path's bytes are copied into the segment's chunks rather than kept as the
   * path's own array. The table lives as long as the run, so a million small arrays held by it
   * were each copied by a young collection and promoted, and every new reference to one dirtied
   * a card of the old table that the next young collection scanned: at a million states that
   * was about an eighth of a warm run. Chunks are few, large objects, and the table holds ints.
   */
  private static final class Segment {
    /** Ints per slot, and their offsets in it. */
    private static final int STRIDE = 4;
    private static final int HASH = 0;
    private static final int LOCATION = 1;
    private static final int LENGTH = 2;
    private static final int OWNER = 3;
    private static final int[] NO_SLOTS = new int[STRIDE];
    /**
     * Bytes per chunk at most: well below the size the collector allocates outside the young
     * space. A segment's first chunk is smaller, and each next one twice as large up to this: a
     * run declaring a few hundred states should not allocate a full chunk per segment.
     */
    private static final int CHUNK_BITS = 16;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final int FIRST_CHUNK = 1 << 10;
    private static final byte[][] NO_CHUNKS = new byte[0][];

    /** Slots to allocate at the first claim. */
    private final int presized;
    /**
     * Per slot: the path's hash with its low bit set ({@link #stored}; 0 marks a free slot), where
     * its bytes are (the chunk's index above the low {@link #CHUNK_BITS} bits, the offset in
     * them) and how many, and the index of its component.
     */
    private int[] slots = NO_SLOTS;
    private int size;
    private byte[][] chunks = NO_CHUNKS;
    private int chunkCount;
    /** The chunk being filled (-1: none yet), and how many of its bytes are used. */
    private int filling = -1;
    private int used;

    Segment(long expected) {
      int n = 16;
      while (n < 2 * expected) {
        n <<= 1;
      }
      presized = n;
    }

    private int capacity() {
      return slots.length / STRIDE;
    }

    /** The component index that claimed {@code path} before, or -1 after claiming it now. */
    int putIfAbsent(TargetPath path, int owner) {
      if (slots == NO_SLOTS) {
        slots = new int[presized * STRIDE];
      }
      int i = find(path);
      if (i >= 0) {
        return slots[i * STRIDE + OWNER];
      }
      if (2 * (size + 1) > capacity()) {
        grow();
        i = find(path);
      }
      int at = ~i * STRIDE;
      byte[] encoded = path.encodedUnsafe();
      slots[at + HASH] = stored(path.hashCode());
      slots[at + LOCATION] = append(encoded);
      slots[at + LENGTH] = encoded.length;
      slots[at + OWNER] = owner;
      size++;
      return -1;
    }

    /** The slot holding {@code path}, or {@code ~slot} of the free slot where it would go. */
    int find(TargetPath path) {
      int h = stored(path.hashCode());
      int mask = capacity() - 1;
      for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
        int at = slots[i * STRIDE + HASH];
        if (at == 0) {
          return ~i;
        }
        if (at == h && sameBytes(i * STRIDE, path.encodedUnsafe())) {
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
      int offset = location & (CHUNK - 1);
      return Arrays.equals(chunks[location >>> CHUNK_BITS], offset, offset + encoded.length,
          encoded, 0, encoded.length);
    }

    /** Copies {@code bytes} into the chunks; returns where (chunk index, then offset). */
    private int append(byte[] bytes) {
      int n = bytes.length;
      if (n > CHUNK / 4) {
        return addChunk(bytes.clone()) << CHUNK_BITS; // a long path: a chunk of its own
      }
      if (filling < 0 || used + n > chunks[filling].length) {
        int next = filling < 0 ? FIRST_CHUNK : Math.min(CHUNK, 2 * chunks[filling].length);
        filling = addChunk(new byte[Math.max(next, n)]);
        used = 0;
      }
      System.arraycopy(bytes, 0, chunks[filling], used, n);
      int location = (filling << CHUNK_BITS) | used;
      used += n;
      return location;
    }

    private int addChunk(byte[] chunk) {
      if (chunkCount == chunks.length) {
        chunks = Arrays.copyOf(chunks, Math.max(4, chunkCount * 2));
      }
      chunks[chunkCount] = chunk;
      return chunkCount++;
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

    void clear() {
      slots = NO_SLOTS;
      chunks = NO_CHUNKS;
      chunkCount = 0;
      filling = -1;
      used = 0;
      size = 0;
    }
  }
}
