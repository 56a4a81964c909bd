package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ByteKey;
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
 * PathTable}): the table lives as long as the run, so whatever objects it holds are copied by the
 * young collections during the run, and a {@link TargetPath} drags its list of keys along (three
 * times the bytes).
 */
final class Claims {
  private static final int SEGMENT_BITS = 6;
  static final int SEGMENTS = 1 << SEGMENT_BITS;

  private final PathTable[] segments = new PathTable[SEGMENTS];

  /** The components that acquired paths, by the index the segments keep for them. */
  private int[] owners = new int[64];
  private int ownerCount;
  /**
   * Their paths, where {@link #owners} says: the bytes only, as a cold run's every component
   * acquires its paths, and a million of them had been held to the run's end as {@link
   * TargetPath}s (the path, its key, its parent's path).
   */
  private final ByteChunks ownerPaths = new ByteChunks();
  /**
   * The components that kept paths they owned, each with every path it declared, in the order
   * they claimed, until {@link #declaredBy} first looks one up: most runs never do (it takes a
   * takeover from a component that claimed before), and hashing every component into a map had
   * been about 3% of a warm rerun of small components.
   */
  private final KeptDeclarations kept = new KeptDeclarations();
  /** The same, by component, from the first lookup on (null before). */
  private Map<ByteKey, DeclaredPaths> keptIndex;
  /** Takeovers from components that had not claimed yet, by the component taken from. */
  private final Map<TargetPath, List<Takeover>> takenFrom = new HashMap<>();
  /**
   * The memoized components whose memos hit in this run: each declares again, by its memo, every
   * state its subtree owns, without claiming them. Their paths' bytes: as a set of paths, a
   * million memo hits kept each path with its key and a map node to the run's end.
   */
  private final PathTable memoHits = PathTable.set();

  Claims() {
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i] = PathTable.withValues();
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
          "target state " + declared.path() + " (key " + declared.key() + " of provider '"
              + declared.provider().name() + "') is declared by two components in one run: "
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
        int other = segmentOf(path).putIfAbsent(path.hashCode(), path.encodedUnsafe(), owner);
        if (other >= 0 && !ownerPaths.sizedEquals(owners[other], component.encodedUnsafe())) {
          return new Conflict(declared, owner(other));
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
      if (keptIndex == null) {
        // No takeover was looked up yet (each builds the index first), so none waits for it.
        kept.add(component, d.declared());
      } else {
        DeclaredPaths mine = DeclaredPaths.of(d.declared());
        keptIndex.put(component.key(), mine);
        for (Takeover t : takenFrom.getOrDefault(component, List.of())) {
          if (mine.holds(t.declared().path())) {
            return new Conflict(t.declared(), t.by());
          }
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

    DeclaredPaths(byte[] paths) {
      this.paths = paths;
    }

    static DeclaredPaths of(List<DeclaredTarget> declared) {
      int size = 0;
      for (DeclaredTarget d : declared) {
        size += Integer.BYTES + d.path().encodedUnsafe().length;
      }
      byte[] paths = new byte[size];
      int at = 0;
      for (DeclaredTarget d : declared) {
        at = ByteChunks.putSized(paths, at, d.path().encodedUnsafe());
      }
      return new DeclaredPaths(paths);
    }

    boolean holds(TargetPath path) {
      if (set == null) {
        set = new HashSet<>();
        for (int at = 0; at < paths.length; ) {
          int length = ByteChunks.sizeAt(paths, at);
          at += Integer.BYTES;
          set.add(ByteKey.of(Arrays.copyOfRange(paths, at, at + length)));
          at += length;
        }
      }
      return set.contains(path.key());
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
    memoHits.putIfAbsent(component.hashCode(), component.encodedUnsafe(), 0);
    for (Map.Entry<TargetPath, List<Takeover>> e : takenFrom.entrySet()) {
      if (e.getKey().startsWith(component)) { // each list holds a takeover at least
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
      if (memoHits.find(p.hashCode(), p.encodedUnsafe()) >= 0) {
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
      Map<ByteKey, DeclaredPaths> index = new HashMap<>();
      // a later claim wins, as a put does
      kept.forEach((c, declared) -> index.put(ByteKey.of(c), new DeclaredPaths(declared)));
      kept.clear();
      keptIndex = index;
    }
    return keptIndex.get(component.key());
  }

  private int ownerIndex(TargetPath component) {
    if (ownerCount == owners.length) {
      owners = Arrays.copyOf(owners, 2 * ownerCount);
    }
    owners[ownerCount] = ownerPaths.appendSized(component.encodedUnsafe());
    return ownerCount++;
  }

  private TargetPath owner(int index) {
    return TargetPath.decode(ownerPaths.sizedAt(owners[index]));
  }

  /**
   * Whether some component acquired {@code path} in this run. For a path its owner did not
   * declare (what the orphan sweep asks about), that is whether any component declared it.
   */
  synchronized boolean contains(TargetPath path) {
    return segmentOf(path).find(path.hashCode(), path.encodedUnsafe()) >= 0;
  }

  /** The component that acquired {@code path} in this run, or null if none did. */
  synchronized TargetPath acquiredBy(TargetPath path) {
    PathTable segment = segmentOf(path);
    int slot = segment.find(path.hashCode(), path.encodedUnsafe());
    return slot >= 0 ? owner(segment.valueAt(slot)) : null;
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
    ownerCount = 0;
    ownerPaths.clear();
    kept.clear();
    keptIndex = null;
    takenFrom.clear();
    memoHits.clear();
  }

  private PathTable segmentOf(TargetPath path) {
    return segments[PathTable.spread(path.hashCode()) >>> (32 - SEGMENT_BITS)];
  }
}
