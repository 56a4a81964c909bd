package io.cocoindex.runtime.state;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The runs of one app that completed with every action applied, as intervals of run versions
 * (consecutive successful runs make one interval; a failed run splits them).
 *
 * <p>Why: a successful run settles every state it applied, and writing that per state (the
 * possible records pruned to the applied one) cost as much as the precommit itself. A store
 * that records settled runs leaves those rows as precommitted and resolves them when read: if a
 * row's newest possible record was written by a settled run, that record is the only one. A run
 * that fails or dies is never recorded, so what it precommitted stays "possibly applied", as
 * DESIGN.md rule 3 asks. Immutable.
 */
final class SettledRuns {
  static final SettledRuns NONE = new SettledRuns(new long[0], new long[0]);

  /** Interval starts, ascending, and their inclusive ends; intervals never overlap or touch. */
  private final long[] firsts;
  private final long[] lasts;

  private SettledRuns(long[] firsts, long[] lasts) {
    this.firsts = firsts;
    this.lasts = lasts;
  }

  /** The set of the given {first, last} intervals, in any order. */
  static SettledRuns of(List<long[]> intervals) {
    return intervals.isEmpty() ? NONE : merge(new ArrayList<>(intervals));
  }

  /** Whether no run is recorded as settled. */
  boolean isEmpty() {
    return firsts.length == 0;
  }

  boolean contains(long version) {
    int i = Arrays.binarySearch(firsts, version);
    if (i >= 0) {
      return true;
    }
    int before = -i - 2;
    return before >= 0 && version <= lasts[before];
  }

  /** This set with {@code version} added, merged into a neighbouring interval when adjacent. */
  SettledRuns with(long version) {
    if (contains(version)) {
      return this;
    }
    List<long[]> out = intervals();
    out.add(new long[] {version, version});
    return merge(out);
  }

  private static SettledRuns merge(List<long[]> intervals) {
    intervals.sort((a, b) -> Long.compare(a[0], b[0]));
    List<long[]> merged = new ArrayList<>(intervals.size());
    for (long[] i : intervals) {
      long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && i[0] - 1 <= last[1]) {
        last[1] = Math.max(last[1], i[1]);
      } else {
        merged.add(i.clone());
      }
    }
    long[] f = new long[merged.size()];
    long[] l = new long[merged.size()];
    for (int i = 0; i < f.length; i++) {
      f[i] = merged.get(i)[0];
      l[i] = merged.get(i)[1];
    }
    return new SettledRuns(f, l);
  }

  /** The {first, last} interval holding {@code version}, or null when it is not settled. */
  long[] intervalOf(long version) {
    int i = Arrays.binarySearch(firsts, version);
    int at = i >= 0 ? i : -i - 2;
    return at >= 0 && version <= lasts[at] ? new long[] {firsts[at], lasts[at]} : null;
  }

  /** The intervals, as {first, last} pairs in ascending order. */
  List<long[]> intervals() {
    List<long[]> out = new ArrayList<>(firsts.length);
    for (int i = 0; i < firsts.length; i++) {
      out.add(new long[] {firsts[i], lasts[i]});
    }
    return out;
  }

  /**
   * The possible records of a row as its settle would have left them: only the newest (the
   * last appended) when the run that wrote it is settled, else all of them.
   */
  List<PossibleRecord> resolve(List<PossibleRecord> records) {
    if (records.size() <= 1 || firsts.length == 0) {
      return records;
    }
    PossibleRecord newest = records.get(records.size() - 1);
    return contains(newest.version()) ? List.of(newest) : records;
  }
}
