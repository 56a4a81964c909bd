package io.cocoindex.runtime.state;

import java.util.List;

/** One change in a store write batch; a batch is applied atomically. */
public sealed interface StateWrite
    permits StateWrite.PutState,
        StateWrite.Confirm,
        StateWrite.Precommit,
        StateWrite.Settle,
        StateWrite.DeleteState,
        StateWrite.DeleteTree,
        StateWrite.DeleteBelow,
        StateWrite.PutComponent,
        StateWrite.DeleteComponent,
        StateWrite.ForgetMemo,
        StateWrite.InvalidateMemo,
        StateWrite.ComponentDone,
        StateWrite.ContainerUnchanged {

  /**
   * Insert or replace the tracking of one path.
   *
   * @param state the tracking to store at its path, records included
   */
  record PutState(TrackedState state) implements StateWrite {}

  /**
   * Confirms a state left as it was: sets the owner and generations from {@code state}, keeping
   * the records the row has when written (on a store shared by workers, another worker's
   * component declaring the state too, on its own view of the source, may have written some since
   * the engine read them); nothing if the row is gone.
   *
   * @param state the path, owner and generations to write, with the records as the engine read
   *     them
   * @param loaded the row as the engine read it in this run
   */
  record Confirm(TrackedState state, TrackedState loaded) implements StateWrite {}

  /**
   * Precommit: appends {@code entry} to the path's possible records, read inside the write
   * transaction (so concurrent writers never drop each other's records), and sets the owner and
   * generations from {@code state} (whose own records are ignored).
   *
   * @param state the path, owner and generations to write
   * @param entry the possible record this run is about to apply
   * @param fresh the stored records are meaningless: start from "may not exist" instead (a row
   *     found where the engine read none, which another worker created meanwhile, keeps its
   *     records beside it)
   * @param loaded the row as the engine read it in this run (null: there was none); a store
   *     that is the app's only writer may use it instead of reading the row again
   */
  record Precommit(TrackedState state, PossibleRecord entry, boolean fresh, TrackedState loaded)
      implements StateWrite {}

  /**
   * Commit after a successful apply: if the entry of {@code version} is still among the path's
   * possible records, it becomes the only one (a "none" entry deletes the path, and with {@code
   * dropDescendants} everything below it); otherwise a later writer owns the path and nothing
   * changes. Entries precommitted after it (by another worker's component declaring the path
   * too) stay, with it: their writes may land after this one's.
   *
   * <p>With {@code superseded} (a store shared by workers), only the records of those versions
   * and "may not exist" go: any other may be the write of a run still going, which can land
   * after this one's whenever it was precommitted (see {@link StateStore#endedRuns}).
   *
   * @param state the path, owner and generations to write (records ignored)
   * @param version the run version of the entry that was applied
   * @param dropDescendants whether a deleted path takes its descendants along (a container)
   * @param precommit this run's precommit of the path: with its {@link Precommit#loaded} row it
   *     gives the row as the precommit left it, for a store that is the app's only writer
   * @param superseded the versions of the records this write replaced: those the engine read
   *     with the row whose runs had ended before it wrote; null on a store with one writer at a
   *     time, where every record precommitted before this one is replaced
   */
  record Settle(TrackedState state, long version, boolean dropDescendants,
      Precommit precommit, long[] superseded) implements StateWrite {
    /**
     * A settle on a store with one writer at a time (no {@code superseded}).
     *
     * @param state the path, owner and generations to write (records ignored)
     * @param version the run version of the entry that was applied
     * @param dropDescendants whether a deleted path takes its descendants along (a container)
     * @param precommit this run's precommit of the path
     */
    public Settle(TrackedState state, long version, boolean dropDescendants, Precommit precommit) {
      this(state, version, dropDescendants, precommit, null);
    }
  }

  /**
   * Forget one path.
   *
   * @param path the encoded target-state path
   */
  record DeleteState(byte[] path) implements StateWrite {}

  /**
   * Forget one path and every path below it (a deleted container and its children).
   *
   * @param path the encoded path of the container
   */
  record DeleteTree(byte[] path) implements StateWrite {}

  /**
   * Forget every path strictly below one, which stays as it is, or only those of some owners:
   * what a state declared without children (a directory that is now a file) took along, in one
   * range rather than a tree per child.
   *
   * <p>With {@code owners}, a path below goes only if one of them owns it as the write applies
   * (what lies below it stays unless owned by one of them too; but a container of theirs that
   * goes takes everything below it along, whoever owns it: a container's children never outlive
   * its row, since a row written there again would restart their generation, and they would
   * pass for current). On a store shared by workers the orphan sweep names the stale components
   * whose leases it holds: no other worker writes a state such a component owns (a takeover
   * makes the state the taker's), while other workers may be writing states of their own
   * components there, on a view of the source where the state still has children.
   *
   * @param path the encoded path of the state, whose own tracking is kept
   * @param owners the encoded paths of the owners whose states below it go; null: every owner's
   */
  record DeleteBelow(byte[] path, List<byte[]> owners) implements StateWrite {
    /**
     * Forget every path strictly below {@code path}, whoever owns it.
     *
     * @param path the encoded path of the state, whose own tracking is kept
     */
    public DeleteBelow(byte[] path) {
      this(path, null);
    }

    /**
     * Whether {@code owner} is among those whose states go (every owner, without {@link
     * #owners}).
     *
     * @param owner an encoded component path
     * @return whether a state below {@link #path} owned by {@code owner} goes
     */
    public boolean covers(byte[] owner) {
      if (owners == null) {
        return true;
      }
      for (byte[] o : owners) {
        if (java.util.Arrays.equals(o, owner)) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * Insert or replace a component's record, written by the run of version {@code runVersion}: on
   * a store shared by workers, a memo that a takeover forgot after that run began ({@link
   * ForgetMemo}, {@link InvalidateMemo}) stays forgotten, and a record without a memo keeps the
   * mark of any forgetting.
   *
   * @param component the record to store at its path
   * @param runVersion the version of the run writing it
   */
  record PutComponent(ComponentRecord component, long runVersion) implements StateWrite {}

  /**
   * Forget a component's record.
   *
   * @param path the encoded component path
   */
  record DeleteComponent(byte[] path) implements StateWrite {}

  /**
   * Forget the memo of the component at {@code path}, if it has a record (its next run is a
   * memo miss); the rest of its record stays. On a store shared by workers the memo is replaced
   * by a mark of the newest run version issued so far: a run that began before the forgetting
   * read the component's states before it, and its memo for the component is not stored.
   *
   * @param path the encoded component path
   */
  record ForgetMemo(byte[] path) implements StateWrite {}

  /**
   * The run of version {@code runVersion} is about to change states below the component at
   * {@code path} (its own, or a descendant's): a memo recorded before no longer stands for the
   * subtree, which a hit would skip, and is forgotten; the rest of the record stays.
   *
   * <p>On a store shared by workers the memo is replaced by the mark of {@code runVersion - 1}
   * (unless a mark as new holds), and the record is created if there is none: the memo of an
   * earlier run written after this one (a memo held back for the orphan sweep, of a worker that
   * processed the component before) then stays forgotten, while this run's own memo may be
   * recorded (see {@link PutComponent}).
   *
   * @param path the encoded path of the memoized component
   * @param runVersion the version of the run about to change states below it
   */
  record InvalidateMemo(byte[] path, long runVersion) implements StateWrite {}

  /**
   * The component at {@code path} ends its work of the run of version {@code runVersion} with
   * this batch: its commit, or the orphan sweep's deletion of its record. A store shared by
   * workers marks the run's claim of the component finished in the same transaction, so that a
   * worker dying between this write and the give-back of the component's lease leaves the
   * component as finished, not as half done for another worker to take over (see {@link
   * StateStore#leaseComponents}). A store with one writer at a time has nothing to mark.
   *
   * @param path the encoded component path
   * @param runVersion the version of the run whose work of the component ends
   */
  record ComponentDone(byte[] path, long runVersion) implements StateWrite {}

  /**
   * A condition, not a change: the batch applies only if the container state at {@code path}
   * has not moved past the child generation and epoch its children in the batch were resolved
   * in (those named here); otherwise the whole batch fails with {@link
   * ContainerChangedException}, writing nothing. On a store shared by workers, another worker's
   * run may have declared the container without children, destroyed its children or deleted it
   * since: its action may have taken the children along already, and a child written after it,
   * tracked in the generation before, would pass for new once the container has children again
   * though the target holds it. The container's row stays locked against such a change until the
   * batch commits. A store with one writer at a time is never sent one (nothing changes the
   * container behind the engine's back) and treats it as met.
   *
   * @param path the encoded path of the container state
   * @param generation the child generation the children were resolved in
   * @param epoch the child epoch the children were resolved in
   */
  record ContainerUnchanged(byte[] path, long generation, long epoch) implements StateWrite {
    /**
     * Whether the container as stored now still holds children resolved so: its child
     * generation and epoch are not past theirs (a container precommitted in the same component
     * may lag behind them until its commit).
     *
     * @param stored the container's tracking as read in the write's transaction, or null
     * @return whether the batch may apply
     */
    public boolean heldBy(TrackedState stored) {
      if (stored == null) {
        return false;
      }
      return stored.childGeneration() < generation
          || (stored.childGeneration() == generation && stored.childEpoch() <= epoch);
    }
  }
}
