package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;

/**
 * What an orphan sweep works through: each candidate's encoded path and owner, in path order
 * once {@link #sort sorted}. A path is kept as its bytes and decoded when the sweep reaches it:
 * removing a million rows from components that stay held a decoded path, a tree-map entry and
 * a queued record per row (the keys a reconciliation made staying with each path, about 400
 * bytes a row), and ran out of memory at {@code -Xmx512m}; about 90 bytes a row now. A candidate
 * may carry its tracked row as read ({@link #add(TrackedState, TargetPath)}), for a sweep that
 * need not read it again.
 */
final class SweepCandidates {
  /** One candidate: its encoded path and owner, and whether it was a container when read. */
  interface Candidate {
    byte[] path();

    TargetPath owner();

    boolean container();

    /** Its tracked row as read with it, or null: the sweep reads it by path. */
    default TrackedState row() {
      return null;
    }
  }

  /** A candidate read with its row (no more objects per row than one without). */
  private record WithRow(TrackedState row, TargetPath owner) implements Candidate {
    @Override
    public byte[] path() {
      return row.path();
    }

    @Override
    public boolean container() {
      return row.childGeneration() > 0;
    }
  }

  private static final Comparator<Candidate> BY_PATH =
      (a, b) -> Arrays.compareUnsigned(a.path(), b.path());

  private final ArrayList<Candidate> entries = new ArrayList<>();
  private boolean sorted = true;

  /**
   * Adds a candidate; {@code path} is its encoded path, kept as it is (not copied); {@code
   * container}: its state was a container when read.
   */
  void add(byte[] path, TargetPath owner, boolean container) {
    add(new Run.OrphanCandidate(path, owner, container));
  }

  /**
   * Adds a candidate with its tracked {@code row}, kept as it is: the sweep reconciles that row
   * (see {@link #row}) instead of reading it again.
   */
  void add(TrackedState row, TargetPath owner) {
    add(new WithRow(row, owner));
  }

  void add(Candidate candidate) {
    if (sorted && !entries.isEmpty()
        && BY_PATH.compare(entries.get(entries.size() - 1), candidate) >= 0) {
      sorted = false;
    }
    entries.add(candidate);
  }

  /**
   * Puts the candidates in path order (a container before its children); of two with one path,
   * the one added last stays.
   */
  void sort() {
    if (sorted) {
      return;
    }
    entries.sort(BY_PATH); // stable: of equal paths, the last added comes last
    int kept = 0;
    for (int i = 0; i < entries.size(); i++) {
      if (i + 1 < entries.size() && BY_PATH.compare(entries.get(i), entries.get(i + 1)) == 0) {
        continue;
      }
      entries.set(kept++, entries.get(i));
    }
    entries.subList(kept, entries.size()).clear();
    entries.trimToSize();
    sorted = true;
  }

  int size() {
    return entries.size();
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The {@code i}th candidate's path, decoded now (a new object each time). */
  TargetPath path(int i) {
    checkSorted();
    return TargetPath.decode(entries.get(i).path());
  }

  /** Whether the {@code i}th candidate's state was a container when read. */
  boolean container(int i) {
    checkSorted();
    return entries.get(i).container();
  }

  /** The {@code i}th candidate's encoded path, as added (not to be modified). */
  byte[] encodedPath(int i) {
    checkSorted();
    return entries.get(i).path();
  }

  TargetPath owner(int i) {
    checkSorted();
    return entries.get(i).owner();
  }

  /** The {@code i}th candidate's tracked row as it was added, or null if it came without. */
  TrackedState row(int i) {
    checkSorted();
    return entries.get(i).row();
  }

  /** Whether a candidate has the encoded path {@code path}; once {@link #sort sorted}. */
  boolean contains(byte[] path) {
    checkSorted();
    int low = 0;
    int high = entries.size() - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      int c = Arrays.compareUnsigned(entries.get(mid).path(), path);
      if (c == 0) {
        return true;
      }
      if (c < 0) {
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return false;
  }

  private void checkSorted() {
    if (!sorted) {
      throw new IllegalStateException("the sweep's candidates are read before being sorted");
    }
  }
}
