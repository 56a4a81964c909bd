package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.MemoStamp;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Memos that a run killed (or failed without settling) left stamped ({@link MemoStamp}), taken up
 * by a later run instead of lost. Without this, a run killed at 99% made the next one run every
 * memoized component it had already finished again, each body's paid work included.
 *
 * <p>Why a stamped memo can be trusted once its states are settled: a memoized component's commit
 * writes its memo only after its own actions and every descendant's were applied and committed
 * (its subtree was healthy), and only when its subtree left nothing for the sweep to delete (a
 * memo with deletions pending is held back for the sweep, never stamped at a commit). So every
 * state of the subtree whose newest possible record is of the stamping run holds that record,
 * exactly as {@link RunSettlement} would have settled it had the run lived.
 */
public final class KilledRunMemos {
  private static final Logger log = LoggerFactory.getLogger(KilledRunMemos.class);

  /** Settles per write of a take-up: what one holds is bounded, however large the subtree. */
  static final int SETTLES_PER_WRITE = 4096;

  private KilledRunMemos() {}

  /**
   * {@code rec} as its memo would read had the run that stamped it settled, when that is an
   * earlier run that did not, and the memo is for {@code fingerprint}; otherwise {@code rec}
   * itself. Reads nothing: whether the memo holds is for its dependencies to say, and only then
   * is it {@link #takeUp taken up}.
   *
   * @param run the run checking the memo
   * @param rec the component's stored record, or null
   * @param fingerprint the fingerprint of the component's input in this run
   * @return {@code rec} unstamped when it holds an earlier unsettled run's memo for {@code
   *     fingerprint}; otherwise {@code rec} (null for null)
   */
  public static ComponentRecord unsettledMemo(Run run, ComponentRecord rec, byte[] fingerprint) {
    if (rec == null || !MemoStamp.isStamped(rec.memoFingerprint())
        || MemoStamp.runOf(rec.memoFingerprint()) >= run.version
        || !Arrays.equals(MemoStamp.fingerprintOf(rec.memoFingerprint()), fingerprint)) {
      return rec;
    }
    return MemoStamp.unstamped(rec);
  }

  /**
   * Settles the states of {@code component}'s subtree that the run which stamped {@code stamped}
   * wrote, and records the memo without its stamp, after them; a preview writes nothing (a drop
   * checks no memo: it runs every body for its registrations). Returns whether the memo can be
   * taken as a hit: false when a write failed (the component then runs, and its commit settles
   * what it changes).
   *
   * <p>The subtree is read a window of owners at a time ({@link
   * io.cocoindex.runtime.state.StateStore#ownedInSubtree}), and its settles written in parts of
   * {@link #SETTLES_PER_WRITE}: a query per component below had cost a take-up of 10,000
   * components 10,000 queries, and one write held every settle of the subtree. A part written
   * alone is sound: each settle records what the stamping run applied (see above), whether or
   * not the memo follows; a run killed in between leaves the memo stamped, and the next one
   * settles the rest.
   *
   * <p>The memo is the one the run read at its start: called only once its hit is claimed
   * ({@link Run#memoHit}), after which no takeover from the subtree is written in the run (one
   * claimed before fails the hit, and nothing is taken up), so no memo the run forgot since is
   * written back.
   *
   * @param run the run that found the memo
   * @param component the memoized component's path
   * @param stamped its stored record, whose memo carries the stamp of an unsettled run
   * @return whether the memo can be taken as a hit
   */
  public static boolean takeUp(Run run, TargetPath component, ComponentRecord stamped) {
    if (run.mode == RunMode.PREVIEW) {
      return true;
    }
    long stamping = MemoStamp.runOf(stamped.memoFingerprint());
    List<StateWrite> writes = new ArrayList<>();
    long[] settled = {0};
    try {
      run.store.ownedInSubtree(run.app, component.encodedUnsafe(), (owner, states) -> {
        RunSettlement.addSettles(states, stamping, writes);
        while (writes.size() >= SETTLES_PER_WRITE) { // an owner's states may fill several
          List<StateWrite> part = writes.subList(0, SETTLES_PER_WRITE);
          run.store.write(run.app, List.copyOf(part)).join();
          settled[0] += part.size();
          part.clear();
        }
      });
      settled[0] += writes.size();
      writes.add(new StateWrite.PutComponent(MemoStamp.unstamped(stamped), run.version));
      run.store.write(run.app, writes).join();
    } catch (CompletionException e) {
      log.warn("app '{}': cannot take up the memo of component {}, recorded by run {}, which did"
          + " not end: the component runs again", run.app, component, stamping, e);
      return false;
    }
    log.debug("app '{}': took up the memo of component {} from run {}, which did not end ({}"
        + " states settled)", run.app, component, stamping, settled[0]);
    return true;
  }
}
