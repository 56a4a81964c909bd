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
 * a run again, mostly growing, which chases every node; growing arrays reads them in order.
 *
 * <p>A claimed path is kept as its encoded bytes only: the table lives as long as the run, so
 * whatever it holds is copied by every young collection during the run, and a {@link TargetPath}
 * drags its list of keys along (three times the bytes).
 */
final class Claims {
  /** Beyond this many expected states the table grows as it fills rather than up front. */
  private static final long MAX_PRESIZED = 1 << 22;

  /**
   * Per slot: the path's hash, then the path's encoded bytes and its component at twice the
   * slot.
   */
  private int[] hashes;
  private Object[] entries;
  private int size;

  /** A path claimed by another component before this one. */
  record Conflict(DeclaredTarget declared, TargetPath other) {}

  /**
   * @param expectedStates about how many states the run will declare (what the app tracks): the
   *     table is sized for them up front
   */
  Claims(long expectedStates) {
    int slots = 16;
    long wanted = Math.min(Math.max(expectedStates, 0), MAX_PRESIZED) * 2;
    while (slots < wanted) {
      slots <<= 1;
    }
    hashes = new int[slots];
    entries = new Object[2 * slots];
  }

  /**
   * Claims every declared path for {@code component}; stops at the first path another component
   * holds (the paths claimed before it stay claimed: the run fails that component anyway).
   */
  synchronized Conflict claim(List<DeclaredTarget> declared, TargetPath component) {
    if (2 * (size + declared.size()) > hashes.length) {
      grow(size + declared.size());
    }
    for (DeclaredTarget d : declared) {
      TargetPath other = putIfAbsent(d.path(), component);
      if (other != null && !other.equals(component)) {
        return new Conflict(d, other);
      }
    }
    return null;
  }

  /** Whether some component declared {@code path} in this run. */
  synchronized boolean contains(TargetPath path) {
    return find(path) >= 0;
  }

  /**
   * Empties the table at the end of its run. Its arrays are large enough to be allocated in the
   * old generation directly, where the collector scans them for references into the young one
   * until it reclaims them, whether or not they are still reachable: nulled, they keep nothing
   * of the next run's allocations alive by mistake.
   */
  synchronized void clear() {
    Arrays.fill(entries, null);
    hashes = new int[16];
    entries = new Object[32];
    size = 0;
  }

  /** The component that claimed {@code path} before, or null after claiming it now. */
  private TargetPath putIfAbsent(TargetPath path, TargetPath component) {
    int i = find(path);
    if (i >= 0) {
      return (TargetPath) entries[2 * i + 1];
    }
    i = ~i;
    hashes[i] = path.hashCode();
    entries[2 * i] = path.encodedUnsafe(); // never modified, by the path or by this table
    entries[2 * i + 1] = component;
    size++;
    return null;
  }

  /** The slot holding {@code path}, or {@code ~slot} of the free slot where it would go. */
  private int find(TargetPath path) {
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

  /** Keeps the table at most half full for {@code needed} entries. */
  private void grow(int needed) {
    int slots = hashes.length;
    while (slots < 2 * needed) {
      slots <<= 1;
    }
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

  /** Linear probing wants the low bits mixed; paths hash well, but not for this table alone. */
  private static int spread(int h) {
    return h ^ (h >>> 16);
  }
}
