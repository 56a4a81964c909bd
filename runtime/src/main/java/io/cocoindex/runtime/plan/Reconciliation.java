package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.runtime.codec.CodecException;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outcome of reconciling one target state: the handler's output crossed the serialization
 * boundary (the sink gets the action deserialized, the store gets the record serialized), and
 * the possible-records bookkeeping of precommit and commit.
 */
final class Reconciliation {
  private static final Logger log = LoggerFactory.getLogger(Reconciliation.class);

  final Provider<?> provider;
  final StableKey key;
  final TargetPath path;
  final TrackedState row;
  final TargetActionSink<?> sink;
  final TargetAction<?> action;
  final byte[] record;
  private final boolean fresh;
  private final PossibleRecord entry;
  long childGeneration;
  long childEpoch;
  /** Copies of the path and the owner handed to the store, made once. */
  private byte[] pathBytes;
  private byte[] ownerBytes;
  /** This run's precommit of the state, which its settle refers to. */
  private StateWrite.Precommit precommit;
  /** How the handler said this change affects the state's children (containers only). */
  TargetChildInvalidation invalidation;
  /** A former container declared without children: its action takes its children along. */
  private boolean takesChildrenAlong;
  /**
   * A container's deletion whose precommit moves its child epoch: on a store shared by workers,
   * a child of another worker's run precommitted after it is refused ({@link
   * #deletionInvalidatesChildren}).
   */
  private boolean deletionInvalidatesChildren;
  /** Whether the handler was told the state may be missing: then an Update is a real write. */
  private boolean toldMayBeMissing;
  /** On a store shared by workers, what the settle replaces (see {@link #noteSuperseded}). */
  private long[] superseded;

  private Reconciliation(
      Provider<?> provider,
      StableKey key,
      TargetPath path,
      TrackedState row,
      boolean fresh,
      TargetActionSink<?> sink,
      TargetAction<?> action,
      byte[] record,
      long version) {
    this.provider = provider;
    this.key = key;
    this.path = path;
    this.row = row;
    this.fresh = fresh;
    this.sink = sink;
    this.action = action;
    this.record = record;
    this.entry = action == null ? null : new PossibleRecord(version, record);
    this.childGeneration = row == null ? 0 : row.childGeneration();
    this.childEpoch = row == null ? 0 : row.childEpoch();
  }

  boolean hasAction() {
    return action != null;
  }

  /**
   * The child epoch of a generation a container started when it was declared without children:
   * every generation children are resolved in has an epoch of 1 at least (see {@link
   * #childrenResolvedAgain}).
   */
  static final long WITHOUT_CHILDREN_EPOCH = 0;

  /**
   * This state, a container when last written, is declared without children (a directory that
   * became a file): its action takes what is below it along. Its commit starts a new child
   * generation, which nothing below it was written in: whatever stays tracked there (what the
   * sweep was to forget, when it was refused, stopped, or the process died first) is of an older
   * generation once the state has children again, so it is written again, and the memos that
   * recorded the old generation miss. The new generation's epoch is {@link
   * #WITHOUT_CHILDREN_EPOCH}, so the runs after, declaring it without children still, keep it as
   * it is. Until the commit its precommit keeps the old generation, its children "may be
   * missing" (a new epoch): the action may be applied, or may not.
   */
  void takeChildrenAlong() {
    if (row.childEpoch() != WITHOUT_CHILDREN_EPOCH) {
      childGeneration = row.childGeneration() + 1;
      childEpoch = WITHOUT_CHILDREN_EPOCH;
      takesChildrenAlong = true;
    }
  }

  /**
   * This state, a container the orphan sweep deletes on a store shared by workers: its
   * precommit moves its child epoch, as a change that takes the children along does ({@link
   * #takeChildrenAlong}), though the row's generation stays until the settle removes it. Another
   * worker's run that resolved children below it before then has its writes of them refused
   * from that precommit on ({@link StateWrite.ContainerUnchanged}): the deletion's action may
   * have removed the container already, and a child written after it would be left in the
   * target, untracked once the settle forgets what is below the container. A deletion that
   * fails leaves the new epoch: both the container's forms are possible, its children "may be
   * missing", as after a failed change that takes them along.
   */
  void deletionInvalidatesChildren() {
    if (childGeneration > 0 && row != null && !fresh) {
      deletionInvalidatesChildren = true;
    }
  }

  /**
   * Children are resolved in a generation its container started without children: its epoch
   * becomes 1, so that a later run declaring the container without children again starts a new
   * generation over them ({@link #takeChildrenAlong}).
   */
  void childrenResolvedAgain() {
    if (childEpoch == WITHOUT_CHILDREN_EPOCH) {
      childEpoch++;
    }
  }

  /**
   * An Update whose record equals the single settled record of the last run, the state known to
   * exist: what a container returns on every run it is declared. Counted as unchanged. Where the
   * state may be missing (a full reprocess, an interrupted run), the Update rewrites it, and
   * counts as an update.
   */
  boolean isRefresh() {
    return action instanceof TargetAction.Update
        && !toldMayBeMissing
        && invalidation == null
        && row != null
        && row.records().size() == 1
        && !row.records().get(0).isNone()
        && record != null
        && Arrays.equals(row.records().get(0).record(), record);
  }

  /**
   * Whether this run's precommit and settle would leave the stored row exactly as it is: a
   * refresh of a state {@code owner} already owns, in its container's current generation and
   * epoch, whose children keep theirs. Its action is still applied; the store is not written.
   */
  boolean leavesRowAsIs(TargetPath owner) {
    return isRefresh()
        && !fresh
        && Arrays.equals(row.owner(), owner.encodedUnsafe())
        && row.childGeneration() == childGeneration
        && row.childEpoch() == childEpoch
        && row.parentGeneration() == provider.generation()
        && row.parentEpoch() == provider.epoch();
  }

  /**
   * Whether this state's commit starts a new child generation over children tracked in the
   * one before: a container declared without children, or its children destroyed.
   */
  boolean startsChildGeneration() {
    return row != null && !fresh && childGeneration > row.childGeneration();
  }

  /** Whether {@link #precommit} was written for this state in this run. */
  boolean precommitted() {
    return precommit != null;
  }

  int depth() {
    return path.depth();
  }

  /**
   * Calls the handler and serializes its output.
   *
   * @param fresh the stored records are meaningless (new state, or its container was destroyed)
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Reconciliation reconcile(
      Run run, Provider<?> provider, StableKey key, TargetPath path, TrackedState row,
      boolean fresh, Object desired, boolean mayBeMissing) {
    HandlerBinding b = provider.binding();
    List<Object> prev = fresh ? List.of() : previousRecords(b, provider, path, row.records());
    TargetReconcileOutput out;
    try {
      out = b.handler().reconcile(key, desired, prev, mayBeMissing);
    } catch (Exception | Error e) {
      // An Error too (an assertion): the orphan sweep, which calls this for a deletion, fails
      // the owner of what it was given, and would let an Error escape the run. Out of memory
      // stays found in the cause, and stops the run (RunAborted#fatalIn).
      throw new IllegalStateException(
          "handler " + b.handler().getClass().getName() + " of provider '" + provider.name()
              + "' failed to reconcile key " + key + ": " + e, e);
    }
    if (out == null) {
      return new Reconciliation(provider, key, path, row, fresh, null, null, null, run.version);
    }
    if (desired == null && out.action() instanceof TargetAction.Delete
        && out.trackingRecord() != null) {
      // Kept, the record would keep the state tracked, and it would be deleted again every run.
      throw new IllegalStateException("handler " + b.handler().getClass().getName()
          + " of provider '" + provider.name() + "' returned a Delete with a tracking record for"
          + " key " + key + ", which is no longer declared: a deletion's tracking record is"
          + " null (TargetReconcileOutput.of(TargetAction.delete(...), sink, null))");
    }
    byte[] record = out.trackingRecord() == null ? null
        : b.recordCodec().encode(out.trackingRecord());
    Object value = out.action().value();
    Object copied = b.actionCodec().copy(value);
    TargetAction<?> action = out.action() instanceof TargetAction.Create ? TargetAction.create(copied)
        : out.action() instanceof TargetAction.Update ? TargetAction.update(copied)
        : TargetAction.delete(copied);
    Reconciliation r = new Reconciliation(
        provider, key, path, row, fresh, out.sink(), action, record, run.version);
    r.invalidation = out.childInvalidation();
    r.toldMayBeMissing = mayBeMissing;
    return r;
  }

  /**
   * The possible records the handler is given, decoded: an unmodifiable list, built straight at
   * its size for the common single settled record (a growable list, then its copy, was a tenth
   * of what a warm rerun allocated).
   */
  private static List<Object> previousRecords(
      HandlerBinding b, Provider<?> provider, TargetPath path, List<PossibleRecord> records) {
    if (records.size() == 1) {
      PossibleRecord only = records.get(0);
      return only.isNone() ? List.of() : List.of(decode(b, provider, path, only));
    }
    List<Object> prev = new ArrayList<>(records.size());
    for (PossibleRecord r : records) {
      if (!r.isNone()) {
        prev.add(decode(b, provider, path, r));
      }
    }
    return List.copyOf(prev);
  }

  private static Object decode(
      HandlerBinding b, Provider<?> provider, TargetPath path, PossibleRecord r) {
    try {
      return b.recordCodec().decode(r.record());
    } catch (CodecException e) {
      throw new IllegalStateException(
          "cannot read the tracking record of " + path + " (provider '" + provider.name()
              + "'): " + e.getMessage(), e);
    }
  }

  /** The precommit: this run's record joins every earlier possible record. */
  StateWrite precommit(TargetPath owner) {
    TrackedState t = target(owner);
    if (row != null && !fresh && row.parentEpoch() < t.parentEpoch()) {
      // Not confirmed until the apply succeeds: a failed apply after a LOSSY invalidation of
      // the container must leave the state "may be missing" for the next run.
      t = new TrackedState(t.path(), t.owner(), List.of(), t.childGeneration(), t.childEpoch(),
          t.parentGeneration(), row.parentEpoch());
    }
    if (row != null && !fresh && row.childGeneration() < t.childGeneration()) {
      // A DESTRUCTIVE change destroys the children only once its apply succeeds: until the
      // commit, the old generation stands, its children "may be missing" (the new epoch). A
      // failed apply followed by a change that is not DESTRUCTIVE must still reconcile them
      // (delete the undeclared ones), not forget them as destroyed. So for an action that takes
      // the children along (its new epoch marks no change to them: one after the row's does).
      // A failed apply leaves that epoch stored too (a failed component writes nothing more), and
      // the next run that resolves the children writes them again, though its sink most likely
      // took nothing along. That rewrite is what keeps them: a sink that throws may have applied
      // part of its batch (the directory removed, the file's write failed), the state's records
      // name both its forms, and only an apply that succeeds tells which one the target holds.
      long epoch = takesChildrenAlong ? row.childEpoch() + 1 : t.childEpoch();
      t = new TrackedState(t.path(), t.owner(), List.of(), row.childGeneration(), epoch,
          t.parentGeneration(), t.parentEpoch());
    }
    if (deletionInvalidatesChildren) {
      t = new TrackedState(t.path(), t.owner(), List.of(), t.childGeneration(),
          row.childEpoch() + 1, t.parentGeneration(), t.parentEpoch());
    }
    precommit = new StateWrite.Precommit(t, entry, fresh, row);
    return precommit;
  }

  /** The commit after a successful apply: only this run's record remains (or none at all). */
  StateWrite commitApplied(TargetPath owner) {
    return new StateWrite.Settle(target(owner), entry.version(), true, precommit, superseded);
  }

  private static final long[] NONE_SUPERSEDED = new long[0];

  /**
   * On a store shared by workers, notes for each state about to be written which of the records
   * read with it its write replaces: those of runs that have ended. Asked before the writes: a
   * run that ends later may have written after this one. A record of a run still going stays
   * possible beside this run's: two workers that read the source at different moments may write
   * one state at once, and whichever write lands last is what the target holds. (The settle of
   * the first to commit had dropped the other's record, and the store named a value the target
   * no longer held, for good: {@code PostgresWorkerViewsTest}.) A store that fails to tell keeps
   * every record, which only costs a rewrite next time.
   *
   * <p>Nothing waits on the other run's commit, so a worker killed anywhere leaves its records
   * possible until a write that reads them after its death (the server gives its run's lock
   * back with its connection). Serializing the writers instead, each component leasing every
   * state it changes until its commit, would hold an advisory lock per changed state across the
   * sink's write: PostgreSQL's lock table holds about 12,000 by default, fewer than 64
   * components in flight of 200 rows.
   */
  static void noteSuperseded(Run run, List<Reconciliation> written) {
    Set<Long> read = new HashSet<>();
    for (Reconciliation r : written) {
      if (r.hasAction() && r.row != null && r.row.records().size() > 1) {
        for (PossibleRecord p : r.row.records()) {
          if (p.version() != 0) {
            read.add(p.version());
          }
        }
      }
    }
    Set<Long> ended = Set.of();
    if (!read.isEmpty()) {
      try {
        ended = run.store.endedRuns(run.app, read);
      } catch (RuntimeException e) {
        log.warn("cannot tell which runs of app '{}' ended: the states written now keep the"
            + " records read with them", run.app, e);
      }
    }
    for (Reconciliation r : written) {
      if (!r.hasAction()) {
        continue;
      }
      if (r.row == null) {
        r.superseded = NONE_SUPERSEDED;
        continue;
      }
      List<PossibleRecord> records = r.row.records();
      if (records.size() == 1) {
        // Settled: its write landed before its settle, so before this one's, whether or not its
        // run is still going (a precommit never leaves its record alone on this store).
        r.superseded = new long[] {records.get(0).version()};
        continue;
      }
      long[] versions = new long[records.size()];
      int n = 0;
      for (PossibleRecord p : records) {
        if (ended.contains(p.version())) {
          versions[n++] = p.version();
        }
      }
      r.superseded = n == versions.length ? versions : Arrays.copyOf(versions, n);
    }
  }

  /**
   * Whether a settled run may stand in for this state's settle: its precommit already wrote what
   * the settle would (owner and generations), and the applied record is not a deletion (whose
   * settle removes the row, and a container's children with it, which a read cannot do).
   */
  boolean settledByRun(TargetPath owner) {
    if (entry == null || entry.isNone() || precommit == null) {
      return false;
    }
    TrackedState written = precommit.state();
    return Arrays.equals(written.owner(), owner.encodedUnsafe())
        && written.childGeneration() == childGeneration
        && written.childEpoch() == childEpoch
        && written.parentGeneration() == provider.generation()
        && written.parentEpoch() == provider.epoch();
  }

  private TrackedState target(TargetPath owner) {
    // The paths' own bytes, not copies: a store only reads a state's arrays. Every state of a
    // component then names its owner with the same array, which the store's writer recognizes
    // by identity instead of hashing it once per state.
    if (pathBytes == null) {
      pathBytes = path.encodedUnsafe();
      ownerBytes = owner.encodedUnsafe();
    }
    return new TrackedState(pathBytes, ownerBytes, List.of(), childGeneration, childEpoch,
        provider.generation(), provider.epoch());
  }
}
