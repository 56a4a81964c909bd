package io.cocoindex.runtime.state;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The read-modify-write semantics of {@link StateWrite.Precommit} and {@link StateWrite.Settle},
 * shared by every store: each resolves, against the row as read inside the write transaction,
 * to a plain put or delete.
 */
public final class StateWrites {
  /** The record of a state that may not exist, as of no run. */
  private static final PossibleRecord MAY_NOT_EXIST = new PossibleRecord(0, null);

  private StateWrites() {}

  /**
   * The plain write that {@code w} amounts to given the current row, or null for nothing.
   * Puts, deletes and component writes are returned as they are.
   *
   * @param w the write to resolve
   * @param read the row at an encoded path, as read inside the write transaction, or null
   * @return a plain write, or null when there is nothing to write
   */
  public static StateWrite resolve(StateWrite w, Function<byte[], TrackedState> read) {
    return resolve(w, read, false);
  }

  /**
   * As {@link #resolve(StateWrite, Function)}; {@code shared}: on a store shared by workers, a
   * precommit never leaves its record alone, so that a state with one possible record is one
   * whose write has landed (its settle wrote it so), which another worker's write then replaces
   * whether or not that run is still going (see {@code Reconciliation#noteSuperseded}). Where
   * only records of the value it precommits again were there, "may not exist" stays beside it:
   * a run that fails before its settle then has the next one write the state again.
   *
   * @param w the write to resolve
   * @param read the row at an encoded path, as read inside the write transaction, or null
   * @param shared whether the store is shared by workers
   * @return a plain write, or null when there is nothing to write
   */
  public static StateWrite resolve(
      StateWrite w, Function<byte[], TrackedState> read, boolean shared) {
    if (w instanceof StateWrite.Precommit p) {
      TrackedState t = p.state();
      TrackedState row = read.apply(t.path());
      if (row == null || (p.fresh() && p.loaded() != null)) {
        // "May not exist", as of no run: version 0 never matches the entry a Settle looks for.
        return new StateWrite.PutState(t.withRecords(List.of(MAY_NOT_EXIST, p.entry())));
      }
      List<PossibleRecord> records = new ArrayList<>(row.records().size() + 2);
      if (p.fresh()) {
        // Read as new, but another worker's component created it since (each declaring it on
        // its own view of the source): its record stays possible, beside "may not exist".
        records.add(MAY_NOT_EXIST);
      }
      for (PossibleRecord r : row.records()) {
        if (!sameBytes(r.record(), p.entry().record()) && !(p.fresh() && r.version() == 0)) {
          records.add(r);
        }
      }
      if (shared && records.isEmpty()) {
        records.add(MAY_NOT_EXIST);
      }
      records.add(p.entry());
      return new StateWrite.PutState(t.withRecords(records));
    }
    if (w instanceof StateWrite.Confirm c) {
      TrackedState row = read.apply(c.state().path());
      return row == null ? null : new StateWrite.PutState(c.state().withRecords(row.records()));
    }
    if (w instanceof StateWrite.Settle s) {
      TrackedState t = s.state();
      TrackedState row = read.apply(t.path());
      if (row == null) {
        return null;
      }
      List<PossibleRecord> records = row.records();
      if (s.superseded() != null) {
        return settleSuperseded(s, row);
      }
      for (int i = 0; i < records.size(); i++) {
        PossibleRecord r = records.get(i);
        if (r.version() != s.version()) {
          continue;
        }
        if (i < records.size() - 1) {
          // Another run precommitted the path after this one (a component of another worker,
          // which read the source at another moment, declares it too): its write may land after
          // this one's, or may have landed already, so its record stays possible.
          List<PossibleRecord> kept = new ArrayList<>(records.subList(i, records.size()));
          return new StateWrite.PutState(t.withRecords(kept));
        }
        if (r.isNone()) {
          return s.dropDescendants()
              ? new StateWrite.DeleteTree(t.path())
              : new StateWrite.DeleteState(t.path());
        }
        return new StateWrite.PutState(t.withRecords(List.of(r)));
      }
      return null; // a later writer took the path over
    }
    return w;
  }

  /**
   * A settle on a store shared by workers: its own record stays with every record it did not
   * supersede, in their order; "may not exist" goes (this write made the state exist, or
   * deleted it, as its own record says), and so does a record of the same value as its own (the
   * same form, whichever write lands last).
   */
  private static StateWrite settleSuperseded(StateWrite.Settle s, TrackedState row) {
    PossibleRecord own = null;
    for (PossibleRecord r : row.records()) {
      if (r.version() == s.version()) {
        own = r;
      }
    }
    if (own == null) {
      return null; // a later writer took the path over
    }
    List<PossibleRecord> kept = new ArrayList<>(row.records().size());
    for (PossibleRecord r : row.records()) {
      if (r == own || (r.version() != 0 && !contains(s.superseded(), r.version())
          && !sameBytes(r.record(), own.record()))) {
        kept.add(r);
      }
    }
    TrackedState t = s.state();
    if (kept.size() == 1 && own.isNone()) {
      return s.dropDescendants()
          ? new StateWrite.DeleteTree(t.path())
          : new StateWrite.DeleteState(t.path());
    }
    return new StateWrite.PutState(t.withRecords(kept));
  }

  private static boolean contains(long[] versions, long v) {
    for (long x : versions) {
      if (x == v) {
        return true;
      }
    }
    return false;
  }

  private static boolean sameBytes(byte[] a, byte[] b) {
    return a == null ? b == null : b != null && Arrays.equals(a, b);
  }
}
