package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ByteKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which component declared each target state in this run: a state declared by two components is
 * an error, and the orphan sweep leaves alone what another component took over.
 *
 * <p>Only the paths a component <em>acquires</em> go into the run-wide table: those it did not
 * own when it loaded its states (new states, and states it takes over from another component).
 * A path it declares again and already owned (every path of a rerun that changed nothing) stays
 * out of it: one path has one owner, so another component can only declare it by taking it over,
 * and a takeover is checked against what the owner declared instead. An owner that kept any of
 * its paths leaves the bytes of its declared paths here, one array per component, appended in
 * order; a takeover from an owner that has not claimed yet waits in {@link #takenFrom} for that
 * claim. A rerun thus copies its paths once, in order, rather than hashing each into a table
 * larger than the cache, which was about a fifth of a warm rerun's component threads.
 *
 * <p>A component claims all its paths at once under one lock: a concurrent map paid two
 * contended atomic updates per state (its size counter is shared by every component thread).
 * The table is open-addressed over arrays (each path's hash beside it), split in {@value
 * #SEGMENTS} segments by the hash's high bits, each growing on its own: doubling one table of
 * 100k paths (a first run) moved every entry to a random slot of a table larger than the cache;
 * a segment's arrays stay small enough to be rehashed in cache, and to be allocated young.
 *
 * <p>A claimed path is kept as its encoded bytes only, copied into large chunks (see {@link
 * Segment}): the table lives as long as the run, so whatever objects it holds are copied by the
 * young collections during the run, and a {@link TargetPath} drags its list of keys along (three
 * times the bytes).
 */
final class Claims {
  private static final int SEGMENT_BITS = 6;
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  static final int SEGMENTS = 1 << SEGMENT_BITS;

  private final Segment[] segments = new Segment[SEGMENTS];

  /** The components that acquired paths, by the index the segments keep for them. */
  private TargetPath[] owners = new TargetPath[64];
  private int ownerCount;
  /**
   * The components that kept paths they owned, each with every path it declared, in the order
   * they claimed, until {@link #declaredBy} first looks one up: most runs never do (it takes a
   * takeover from a component that claimed before), and hashing every component into a map had
   * been about 3% of a warm rerun of small components.
   */
  private final ArrayList<TargetPath> keptBy = new ArrayList<>();
  private final ArrayList<DeclaredPaths> keptPaths = new ArrayList<>();
  /** The same, by component, from the first lookup on (null before). */
  private Map<TargetPath, DeclaredPaths> keptIndex;
  /** Takeovers from components that had not claimed yet, by the component taken from. */
  private final Map<TargetPath, List<Takeover>> takenFrom = new HashMap<>();
  /**
   * The memoized components whose memos hit in this run: each declares again, by its memo, every
   * state its subtree owns, without claiming them.
   */
  private final Set<TargetPath> memoHits = new HashSet<>();

  Claims() {
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i] = new Segment();
    }
  }

  /** A path claimed by another component before this one. */
  record Conflict(DeclaredTarget declared, TargetPath other, TargetPath memoized) {
    Conflict(DeclaredTarget declared, TargetPath other) {
      this(declared, other, null);
    }

    /** The error that fails {@code component}, which declared the path after {@code other}. */
    IllegalStateException error(TargetPath component) {
      return new IllegalStateException(
          "target state " + declared.path() + " (key " + declared.key() + " of provider "
              + declared.provider().name() + ") is declared by two components in one run: "
              + other + " and " + component + (memoized == null ? "" : " (" + memoized
              + " by its memo, its input unchanged; if it no longer declares it, the memo is"
              + " stale: put what changed in its input, or run a full reprocess)"));
    }
  }

  /** {@code by} declared {@code declared}, which another component owned. */
  private record Takeover(DeclaredTarget declared, TargetPath by) {}

  /**
   * What a component declared, split by what it owned when it loaded its states.
   *
   * @param component the declaring component
   * @param declared everything it declared
   * @param acquired the declarations of paths it did not own (all of them in a first run)
   * @param previousOwners for each acquired path (by {@link TargetPath#key()}) another component
   *     owned, that component; the other acquired paths were not tracked
   */
  record Declarations(
      TargetPath component,
      List<DeclaredTarget> declared,
      List<DeclaredTarget> acquired,
      Map<ByteKey, TargetPath> previousOwners) {

    /** A component that owned nothing: everything it declared is acquired, nothing taken over. */
    static Declarations allAcquired(TargetPath component, List<DeclaredTarget> declared) {
      return new Declarations(component, declared, declared, Map.of());
    }

    boolean keptAny() {
      return acquired.size() < declared.size();
    }
  }

  /**
   * Claims what a component declared; stops at the first path another component declared in
   * this run too (the paths claimed before it stay claimed: the run fails that component anyway).
   */
  synchronized Conflict claim(Declarations d) {
    TargetPath component = d.component();
    if (!d.acquired().isEmpty()) {
      int owner = ownerIndex(component);
      for (DeclaredTarget declared : d.acquired()) {
        TargetPath path = declared.path();
        int other = segmentOf(path).putIfAbsent(path, owner);
        if (other >= 0 && !owners[other].equals(component)) {
          return new Conflict(declared, owners[other]);
        }
        TargetPath from = d.previousOwners().isEmpty() ? null
            : d.previousOwners().get(path.key());
        if (from != null && !from.equals(component)) {
          if (memoHitCovers(from)) {
            return new Conflict(declared, from, from); // its owner's memo declares it again
          }
          DeclaredPaths ownerDeclared = declaredBy(from);
          if (ownerDeclared != null && ownerDeclared.holds(path)) {
            return new Conflict(declared, from); // its owner claimed it again before
          }
          // An owner that kept nothing declared only paths it acquired: the table has those.
          takenFrom.computeIfAbsent(from, k -> new ArrayList<>())
              .add(new Takeover(declared, component));
        }
      }
    }
    if (d.keptAny()) {
      DeclaredPaths mine = new DeclaredPaths(d.declared());
      kept(component, mine);
      for (Takeover t : takenFrom.getOrDefault(component, List.of())) {
        if (mine.holds(t.declared().path())) {
          return new Conflict(t.declared(), t.by());
        }
      }
    }
    return null;
  }

  /**
   * The paths a component declared, copied in order into one array (each path's length in 4
   * bytes, then its bytes): a rerun pays a copy per path here, and only a takeover from the
   * component reads them, through a set made at the first such question (a large component split
   * in two would otherwise scan them once per path taken over).
   */
  private static final class DeclaredPaths {
    private final byte[] paths;
    private Set<ByteKey> set;

    DeclaredPaths(List<DeclaredTarget> declared) {
      int size = 0;
      for (DeclaredTarget d : declared) {
        size += Integer.BYTES + d.path().encodedUnsafe().length;
      }
      paths = new byte[size];
      int at = 0;
      for (DeclaredTarget d : declared) {
        byte[] path = d.path().encodedUnsafe();
        INT.set(paths, at, path.length);
        System.arraycopy(path, 0, paths, at + Integer.BYTES, path.length);
        at += Integer.BYTES + path.length;
      }
    }

    boolean holds(TargetPath path) {
      if (set == null) {
        set = new HashSet<>();
        for (int at = 0; at < paths.length; ) {
          int length = (int) INT.get(paths, at);
          at += Integer.BYTES;
          set.add(ByteKey.of(Arrays.copyOfRange(paths, at, at + length)));
          at += length;
        }
      }
      return set.contains(path.key());
    }
  }

  private void kept(TargetPath component, DeclaredPaths paths) {
    if (keptIndex != null) {
      keptIndex.put(component, paths);
    } else {
      keptBy.add(component);
      keptPaths.add(paths);
    }
  }

  /**
   * Notes that {@code component}'s memo hit: by its memo it declares again every state its
   * subtree owns. A state another component took over from that subtree earlier in the run is
   * then declared by both (the memo stands for the same declarations, so it is not a move): the
   * conflict, which fails the memoized component, is returned; null when there is none. A
   * takeover that comes after this is the taker's conflict ({@link #claim}).
   */
  synchronized Conflict memoHit(TargetPath component) {
    memoHits.add(component);
    for (Map.Entry<TargetPath, List<Takeover>> e : takenFrom.entrySet()) {
      if (e.getKey().startsWith(component) && !e.getValue().isEmpty()) {
        Takeover t = e.getValue().get(0);
        return new Conflict(t.declared(), t.by(), e.getKey());
      }
    }
    return null;
  }

  /** Whether {@code owner} is a component whose memo hit in this run, or lies below one. */
  private boolean memoHitCovers(TargetPath owner) {
    if (memoHits.isEmpty()) {
      return false;
    }
    for (TargetPath p = owner; ; p = p.parent()) {
      if (memoHits.contains(p)) {
        return true;
      }
      if (p.depth() == 0) {
        return false;
      }
    }
  }

  /** What {@code component} declared, if it claimed and kept paths it owned; else null. */
  private DeclaredPaths declaredBy(TargetPath component) {
    if (keptIndex == null) {
      keptIndex = new HashMap<>(Math.max(16, 2 * keptBy.size()));
      for (int i = 0; i < keptBy.size(); i++) {
        keptIndex.put(keptBy.get(i), keptPaths.get(i)); // a later claim wins, as a put did
      }
      keptBy.clear();
      keptPaths.clear();
    }
    return keptIndex.get(component);
  }

  private int ownerIndex(TargetPath component) {
    if (ownerCount == owners.length) {
      owners = Arrays.copyOf(owners, 2 * ownerCount);
    }
    owners[ownerCount] = component;
    return ownerCount++;
  }

  /**
   * Whether some component acquired {@code path} in this run. For a path its owner did not
   * declare (what the orphan sweep asks about), that is whether any component declared it.
   */
  synchronized boolean contains(TargetPath path) {
    return segmentOf(path).find(path) >= 0;
  }

  /** The component that acquired {@code path} in this run, or null if none did. */
  synchronized TargetPath acquiredBy(TargetPath path) {
    Segment segment = segmentOf(path);
    int slot = segment.find(path);
    return slot >= 0 ? owners[segment.ownerAt(slot)] : null;
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
    keptBy.clear();
    keptBy.trimToSize();
    keptPaths.clear();
    keptPaths.trimToSize();
    keptIndex = null;
    takenFrom.clear();
    memoHits.clear();
  }

  private Segment segmentOf(TargetPath path) {
    return segments[spread(path.hashCode()) >>> (32 - SEGMENT_BITS)];
  }

  /** Linear probing wants the low bits mixed; paths hash well, but not for this table alone. */
  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  /**
   * One open-addressed table, at most half full. Its first array is allocated at its first
   * claim: a rerun claims few paths, and most segments none.
   *
   * <p>A slot is four adjacent ints (the path's hash, where its bytes are, how many, and the
   * claiming component's index), so that a claim touches one cache line of the table rather than
   * one in each of four arrays: about a tenth less per claim of 100k paths, measured alone.
   * A first run still pays a cache miss per path here.
   *
   * <p>A claimed path's bytes are copied into the segment's chunks rather than kept as the
   * path's own array. The table lives as long as the run, so a million small arrays held by it
   * were each copied by a young collection and promoted, and every new reference to one dirtied
   * a card of the old table that the next young collection scanned: at a million states that
   * was about an eighth of a rerun (when reruns claimed every path). Chunks are few, large
   * objects, and the table holds ints.
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
    private static final int FIRST_SLOTS = 16;
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

    private int capacity() {
      return slots.length / STRIDE;
    }

    /** The component index that claimed {@code path} before, or -1 after claiming it now. */
    int putIfAbsent(TargetPath path, int owner) {
      if (slots == NO_SLOTS) {
        slots = new int[FIRST_SLOTS * STRIDE];
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

    /** The component index that claimed the path in {@code slot} (as {@link #find} gives it). */
    int ownerAt(int slot) {
      return slots[slot * STRIDE + OWNER];
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
