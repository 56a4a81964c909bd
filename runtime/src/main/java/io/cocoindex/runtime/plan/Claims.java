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
 * <p>A claimed path is kept as its encoded bytes only: the table lives as long as the run, so
 * whatever it holds is copied by every young collection during the run, and a {@link TargetPath}
 * drags its list of keys along (three times the bytes).
 */
final class Claims {
  private static final int SEGMENT_BITS = 6;
  static final int SEGMENTS = 1 << SEGMENT_BITS;
  /** Beyond this many expected states the table grows as it fills rather than up front. */
  private static final long MAX_PRESIZED = 1 << 22;

  private final Segment[] segments = new Segment[SEGMENTS];

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
    for (DeclaredTarget d : declared) {
      TargetPath path = d.path();
      TargetPath other = segmentOf(path).putIfAbsent(path, component);
      if (other != null && !other.equals(component)) {
        return new Conflict(d, other);
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
  }

  private Segment segmentOf(TargetPath path) {
    return segments[spread(path.hashCode()) >>> (32 - SEGMENT_BITS)];
  }

  /** Linear probing wants the low bits mixed; paths hash well, but not for this table alone. */
  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  /**
   * One open-addressed table, at most half full. Its presized arrays are allocated at its first
   * claim: a memoized rerun claims few paths, and would otherwise allocate and clear, every run,
   * a table sized for everything the app tracks.
   */
  private static final class Segment {
    private static final int[] NO_HASHES = new int[1];
    private static final Object[] NO_ENTRIES = new Object[2];

    /** Slots to allocate at the first claim. */
    private final int presized;
    /** Per slot: the path's hash, then its encoded bytes and component at twice the slot. */
    private int[] hashes = NO_HASHES;
    private Object[] entries = NO_ENTRIES;
    private int size;

    Segment(long expected) {
      int slots = 16;
      while (slots < 2 * expected) {
        slots <<= 1;
      }
      presized = slots;
    }

    /** The component that claimed {@code path} before, or null after claiming it now. */
    TargetPath putIfAbsent(TargetPath path, TargetPath component) {
      if (entries == NO_ENTRIES) {
        hashes = new int[presized];
        entries = new Object[2 * presized];
      }
      int i = find(path);
      if (i >= 0) {
        return (TargetPath) entries[2 * i + 1];
      }
      if (2 * (size + 1) > hashes.length) {
        grow();
        i = find(path);
      }
      i = ~i;
      hashes[i] = path.hashCode();
      entries[2 * i] = path.encodedUnsafe(); // never modified, by the path or by this table
      entries[2 * i + 1] = component;
      size++;
      return null;
    }

    /** The slot holding {@code path}, or {@code ~slot} of the free slot where it would go. */
    int find(TargetPath path) {
      int h = path.hashCode();
      byte[] encoded = path.encodedUnsafe();
      int mask = hashes.length - 1;
      for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
        Object at = entries[2 * i];
        if (at == null) {
          return ~i;
        }
        if (hashes[i] == h && Arrays.equals((byte[]) at, encoded)) {
          return i;
        }
      }
    }

    private void grow() {
      int slots = hashes.length * 2;
      int[] oldHashes = hashes;
      Object[] oldEntries = entries;
      hashes = new int[slots];
      entries = new Object[2 * slots];
      int mask = slots - 1;
      for (int j = 0; j < oldHashes.length; j++) {
        Object path = oldEntries[2 * j];
        if (path == null) {
          continue;
        }
        int h = oldHashes[j];
        int i = spread(h) & mask;
        while (entries[2 * i] != null) {
          i = (i + 1) & mask;
        }
        hashes[i] = h;
        entries[2 * i] = path;
        entries[2 * i + 1] = oldEntries[2 * j + 1];
      }
    }

    void clear() {
      if (size > 0) {
        Arrays.fill(entries, null);
      }
      hashes = NO_HASHES;
      entries = NO_ENTRIES;
      size = 0;
    }
  }
}
