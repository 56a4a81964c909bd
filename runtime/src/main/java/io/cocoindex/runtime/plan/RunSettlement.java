package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.MemoStamp;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of an update on a store that records settled runs: components left the states they
 * applied as precommitted (their settles would have cost a write per state), and this settles
 * them all at once.
 *
 * <p>A run in which nothing failed is recorded as settled: one small write. A run with failures
 * is not (what its failed components precommitted may or may not have been applied), so the
 * states of the components that did succeed are settled one by one here, as they would have
 * been without the shortcut. A run that dies before this point leaves every state it touched
 * "possibly applied", which is what DESIGN.md rule 3 asks of an interrupted run.
 */
public final class RunSettlement {
  private static final Logger log = LoggerFactory.getLogger(RunSettlement.class);

  /** Component records read back in one query by a failed run's settlement. */
  private static final int RECORDS_PER_READ = 1024;

  private RunSettlement() {}

  /**
   * Settles what the run's components left to it; call once the sweep is done, or when the run
   * ends early. Never throws: a state left unsettled is only re-examined by the next run.
   *
   * @param run the run to settle
   * @param completed whether the run got through its components and its sweep
   */
  public static void finish(Run run, boolean completed) {
    if (!run.settlesByRun) {
      return;
    }
    try {
      if (completed && run.failures().isEmpty()) {
        // Recorded even when nothing waits for it, so that the settled runs stay one interval.
        try {
          run.store.runSettled(run.app, run.version);
          return;
        } catch (RuntimeException e) {
          log.warn("cannot record run {} of app '{}' as settled; settling its states one by one",
              run.version, run.app, e);
        }
      }
      if (!run.settledByRun.isEmpty()) {
        settleEach(run);
      }
    } catch (RuntimeException e) {
      log.warn("cannot settle the states applied by run {} of app '{}': the next run treats"
          + " them as possibly applied", run.version, run.app, e);
    }
  }

  /**
   * Settles, component by component, the states each applied in this run; then writes without
   * the run's stamp the memos whose subtrees are all settled. A memo written beside its own
   * component's settles, while a descendant's were written apart, was recorded when the
   * descendant's write failed: it hit in every later run, and the descendant's states stayed
   * applied and never settled. Left stamped, it is taken up by the next run, which settles them.
   */
  private static void settleEach(Run run) {
    // The components at or above one whose settles were lost: their memos stay stamped.
    Set<TargetPath> unsettled = new HashSet<>();
    RuntimeException[] lost = {null};
    run.settledByRun.forEachBatch(RECORDS_PER_READ, components -> {
      List<CompletableFuture<Void>> writes = new ArrayList<>(components.size());
      for (TargetPath component : components) {
        List<StateWrite> settles = new ArrayList<>();
        addSettles(run, component.encoded(), run.version, settles);
        writes.add(settles.isEmpty()
            ? CompletableFuture.completedFuture(null) : run.store.write(run.app, settles));
      }
      for (int i = 0; i < components.size(); i++) {
        try {
          writes.get(i).join();
        } catch (CompletionException e) {
          lost[0] = lost[0] != null ? lost[0] : e;
          // Up to the nearest one noted already, whose ancestors are too.
          TargetPath p = components.get(i);
          while (unsettled.add(p) && p.depth() > 0) {
            p = p.parent();
          }
        }
      }
    });
    run.stampedMemos.forEachBatch(RECORDS_PER_READ, stamped -> {
      Set<TargetPath> settled = new LinkedHashSet<>(stamped);
      settled.removeAll(unsettled);
      List<StateWrite> memos = new ArrayList<>();
      for (ComponentRecord record : stillStamped(run, settled)) {
        memos.add(new StateWrite.PutComponent(MemoStamp.unstamped(record), run.version));
      }
      if (!memos.isEmpty()) {
        run.store.write(run.app, memos).join();
      }
    });
    if (lost[0] != null) {
      throw lost[0];
    }
  }

  /**
   * The records of {@code components}, whose memos this run stamped, that still carry its
   * stamp as stored: not one whose commit was lost (its states applied and never settled: its
   * new memo must not be recorded), nor one whose memo was forgotten since.
   */
  private static List<ComponentRecord> stillStamped(Run run, Collection<TargetPath> components) {
    List<byte[]> paths = new ArrayList<>(components.size());
    components.forEach(c -> paths.add(c.encoded()));
    List<ComponentRecord> out = new ArrayList<>();
    for (Optional<ComponentRecord> read : run.store.componentsAt(run.app, paths)) {
      byte[] memo = read.map(ComponentRecord::memoFingerprint).orElse(null);
      if (MemoStamp.isStamped(memo) && MemoStamp.runOf(memo) == run.version) {
        out.add(read.get());
      }
    }
    return out;
  }

  /**
   * Adds to {@code settles} the settle of each state {@code owner} owns whose newest possible
   * record run {@code version} wrote (not a deletion): that record becomes its only one.
   */
  static void addSettles(Run run, byte[] owner, long version, List<StateWrite> settles) {
    addSettles(run.store.ownedBy(run.app, owner), version, settles);
  }

  /** As above, for the states {@code owned} of one owner, as read. */
  static void addSettles(List<TrackedState> owned, long version, List<StateWrite> settles) {
    for (TrackedState row : owned) {
      List<PossibleRecord> records = row.records();
      PossibleRecord newest = records.isEmpty() ? null : records.get(records.size() - 1);
      if (newest != null && newest.version() == version && !newest.isNone()) {
        // The precommit that wrote the row as it stands, so the settle resolves against it.
        StateWrite.Precommit written = new StateWrite.Precommit(row, newest, false, row);
        settles.add(new StateWrite.Settle(row, version, false, written));
      }
    }
  }
}
