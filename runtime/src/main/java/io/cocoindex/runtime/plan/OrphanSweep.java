package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.runtime.DeletionLimitExceededException;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.apply.SinkFailure;
import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ContainerChangedException;
import io.cocoindex.runtime.state.MemoStamp;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a run: every target state that was tracked and is declared by no component any more
 * is reconciled with {@code desired = null} through its provider's handler, and its deletion is
 * applied and committed.
 *
 * <p>Candidates are the states a committed component no longer declared, every state of a
 * component that was not mounted in this run (outside memoized or failed subtrees), or, for a
 * drop, every state of the app. A candidate declared by another component in this run moved
 * there and is skipped. Below a container being deleted, nothing is reconciled: the container's
 * Delete removes its children and their tracking goes with it. A child written under a container
 * generation that was destroyed since is forgotten without a delete.
 *
 * <p>The sweep goes in chunks, so what it holds (reconciliations, leases on a shared store, the
 * writes of one transaction) is bounded however much goes: first the candidates of committed
 * components (a drop's every state), then the stale components a batch at a time, each batch's
 * candidates in path order. A chunk is precommitted, applied deepest first and committed before
 * the next is reconciled, and ends only where no candidate after it lies below a container it
 * deletes, so a chunk knows the owners of everything its Deletes take along. Descendants owned by
 * a later batch are found in the store, and their memos forgotten before the Delete applies; a
 * later candidate below a container whose deletion failed is kept, as within a chunk. A stale
 * component's record goes with its batch's last chunk, unless a state of it was kept. An update
 * with a deletion limit first counts, in a pass that writes nothing (each candidate's handler is
 * asked twice then; skipped when a bound of the count is within the limit, see {@link
 * #mustCount}), and deletes nothing when the count is over the limit; the states below a
 * container it would delete count too, those of components whose tracking the run keeps
 * included, each once. What the sweep only forgets (a state whose handler abandons it, one its
 * container's recreate destroyed, one below a state now declared without children, and what is
 * below any of those) is no deletion, and does not count. What failed components track below a
 * state declared without children is forgotten before the count, whatever it finds: that state's
 * action took it along ({@link #forgetWhatFailedOwnersTrackBelowFormerContainers}).
 *
 * <p>On a store shared by workers, an update leases the stale components: up to {@link
 * #LEASED_UP_FRONT} of them all when the sweep starts, held to its end, so no other worker mounts
 * one meanwhile; beyond that, each batch in its turn, held until its commit (a record waiting for
 * the candidates no handler resolved, to the end). A stale component another worker holds (its
 * sweep), or has mounted since this run started (a run on a newer input, which declares it
 * again: every lease claims its component for the round, a foreground one too), is left to that
 * worker: not swept, not counted, so that what the newer run declares there stays.
 */
public final class OrphanSweep {
  private static final Logger log = LoggerFactory.getLogger(OrphanSweep.class);

  /**
   * Deletions (with states forgotten) per chunk, and at most this many candidates read in one
   * query or stale components leased in one call, unless the system property {@code
   * cocoindex.sweep.chunk} says otherwise: read as each sweep starts, so that a test can make the
   * sweeps it runs go in many chunks (and restore the property after); not a tuning knob.
   */
  static final int DEFAULT_CHUNK = 2048;
  /**
   * Stale components leased when the sweep starts and held to its end, at most: as many as
   * that, the sweep holds every stale component it sweeps (as one that swept everything at once
   * did), so no other worker mounts one of them meanwhile. Beyond it each batch is leased in
   * its turn, and held until its commit.
   */
  private static final int LEASED_UP_FRONT = 1024;
  /**
   * About how many states a batch of stale components past {@link Sizes#staleBatch} may own, by
   * their records ({@link #staleBatchEnd}): the batch's candidates are held together.
   */
  static final long STALE_STATES_PER_BATCH = 32_768;
  /** About how many states of stale components one read brings ({@link #addOwnedStates}). */
  static final long STALE_STATES_PER_READ = 4096;
  /** What a stale component whose record counts no more is taken to own, in sizing reads. */
  static final long FEW_STATES = 16;
  /**
   * The bytes of tracking records a batch's candidates keep with them, at most, on a store with
   * one writer ({@link #addOwnedStates}): past that, a candidate is read again by path, as on a
   * shared store, so that a batch of 32,768 states of large records does not hold them all.
   */
  static final long KEPT_ROW_BYTES = 16L << 20;

  /**
   * A sweep's sizes, from {@link #DEFAULT_CHUNK} or the system property.
   *
   * @param chunk deletions (with states forgotten) per chunk
   * @param readAhead candidates whose rows are read (and leased) in one query
   * @param maxStateLeases state leases a chunk holds before it ends, on a store shared by
   *     workers: on PostgreSQL each is an advisory lock, and the server's lock table (64 per
   *     connection by default, shared) refused a sweep that held one per state of 20,000 removed
   *     components
   * @param staleBatch stale components leased, then swept, together (each lease an advisory
   *     lock, as above)
   */
  record Sizes(int chunk, int readAhead, int maxStateLeases, int staleBatch) {
    static Sizes current() {
      int chunk = Math.max(1, Integer.getInteger("cocoindex.sweep.chunk", DEFAULT_CHUNK));
      int readAhead = Math.min(256, chunk);
      return new Sizes(chunk, readAhead, 4 * readAhead, Math.min(256, chunk));
    }
  }

  /** What both passes of a sweep work through, and what they share. */
  private static final class Work {
    final Sizes sizes = Sizes.current();
    /** The states committed components no longer declared (a drop's: every state). */
    final SweepCandidates committedCandidates = new SweepCandidates();
    /** The components this run did not mount, in path order (a drop's: every component). */
    final List<TargetPath> stale = new ArrayList<>();
    /**
     * The stale components whose record counts more than {@link #FEW_STATES} states, with that
     * count: what a read of stale components' states is sized by ({@link #addOwnedStates}).
     */
    final Map<TargetPath, Long> manyStates = new HashMap<>();
    /**
     * The stale components whose record holds a memo, by encoded path: it goes with the record,
     * and is forgotten before then if a deletion below it is written (see invalidateStaleMemos).
     */
    final Set<ByteKey> staleMemos = new HashSet<>();
    final Set<String> warnedProviders = new HashSet<>();
    boolean awaitedOtherWorkers;
    /** The stale components' leases taken when the sweep started ({@link #LEASED_UP_FRONT}). */
    final Map<TargetPath, AutoCloseable> leasedUpFront = new HashMap<>();
    /** Whether the stale components were leased up front: none is leased batch by batch. */
    boolean upFront;
    /**
     * Stale components another worker's sweep holds, or another worker mounted in this round:
     * what becomes of them is not known here, and neither pass counts or sweeps them.
     */
    final Set<TargetPath> sweptElsewhere = new HashSet<>();

    /** About how many states {@code component}, stale, owns (at least {@link #FEW_STATES}). */
    long expectedStates(TargetPath component) {
      return manyStates.getOrDefault(component, FEW_STATES);
    }
  }

  private final Run run;
  private final Work work;
  /** A pass that counts what would be deleted, and writes, leases and applies nothing. */
  private final boolean counting;
  /** Containers deleted (or forgotten) by an earlier chunk: what is below them went with them. */
  private final Subtrees deletedSubtrees = new Subtrees();
  /**
   * Those of {@link #deletedSubtrees} that were forgotten, not deleted: what is below them is
   * forgotten with them, and no deletion counts it (the target keeps it, or lost it to its
   * container's recreate, which the limit does not weigh).
   */
  private final Subtrees forgottenSubtrees = new Subtrees();
  /** Containers whose deletion failed in an earlier chunk: what is below them is kept. */
  private final Subtrees failedSubtrees = new Subtrees();
  /** Paths kept because no handler could reach them: what is below them is kept too. */
  private final Subtrees keptSubtrees = new Subtrees();
  /** Owners a state of which stays tracked: their records (and memos) stay. */
  private final Set<TargetPath> keptOwners = new HashSet<>();
  /** Whether each container's child generation of this run is committed (see below). */
  private final Map<TargetPath, Boolean> committedGenerations = new HashMap<>();
  /**
   * Candidates whose container no handler of this run resolves, in the order met: settled when
   * every batch is swept ({@link #settleUnresolved}).
   */
  private final List<Candidate> unresolved = new ArrayList<>();
  private final Set<TargetPath> unresolvedOwners = new HashSet<>();
  /** Stale components whose record waits for {@link #settleUnresolved}: one owns such a state. */
  private final List<TargetPath> recordsAwaitingUnresolved = new ArrayList<>();
  /** The leases of the batch of stale components being swept, by component. */
  private final Map<TargetPath, AutoCloseable> componentLeases = new HashMap<>();
  /**
   * The leases of the stale components whose records wait for {@link #settleUnresolved}: held
   * until then, or another worker could mount one and have its new record deleted.
   */
  private final List<AutoCloseable> awaitingLeases = new ArrayList<>();
  /** The leases of the candidates of the chunk being swept. */
  private final List<AutoCloseable> stateLeases = new ArrayList<>();
  /** States the sweep deletes (or would) through their handlers, and with their containers. */
  private long throughHandlers;
  private long withContainers;
  /** A write failed: the sweep stops, and what it did not reach stays tracked for next time. */
  private boolean stopped;
  /**
   * Whether everything tracked below a state declared without children in this run is a
   * candidate the sweep forgets: then it goes in one range ({@link #forgetBelow}), its candidates
   * neither read nor written one by one (a tree each, 20,000 for a table of 20,000 rows). So it
   * is in a run that keeps no component's tracking as it was (a failed component's, a memo
   * hit's, another worker's, which may own states there that are no candidates), and on a store
   * with one writer while the run holds its lock. On a store shared by workers, another worker
   * may be writing below the state on a view of the source where it still has children (a
   * component this run committed, which that worker's newer run processes again in the round, or
   * one this run never saw): there the range is only that of the stale components the sweep
   * holds, whose states no other worker writes ({@link StateWrite.DeleteBelow#owners}), and the
   * committed components' candidates are each leased, their owners checked, and forgotten as a
   * tree of their own.
   */
  private final boolean forgetsAllBelowFormerContainers;
  /** Whether the store has one writer while the run holds its lock (no state is leased). */
  private final boolean exclusive;

  private OrphanSweep(Run run, Work work, boolean counting) {
    this.run = run;
    this.work = work;
    this.counting = counting;
    this.exclusive = run.store.exclusiveWhileLocked();
    this.forgetsAllBelowFormerContainers = run.mode == RunMode.UPDATE && !keptMayOwn(run)
        && !run.declaredWithoutChildren.isEmpty();
  }

  /**
   * Runs the sweep; failures are recorded on the run.
   *
   * @param run the run whose components have all finished, not stopped early
   */
  public static void sweep(Run run) {
    Work work = collect(run);
    try {
      sweep(run, work);
    } finally {
      release(new ArrayList<>(work.leasedUpFront.values()));
    }
  }

  private static void sweep(Run run, Work work) {
    // A store with one writer while the run holds its lock has no other worker to lease from.
    boolean leases = run.mode == RunMode.UPDATE && !run.store.exclusiveWhileLocked();
    if (leases && work.stale.size() <= LEASED_UP_FRONT) {
      leaseUpFront(run, work);
    }
    if (!new OrphanSweep(run, work, false).forgetWhatFailedOwnersTrackBelowFormerContainers()) {
      return; // a write failed: what is left stays tracked for the next run
    }
    if (mustCount(run, work)) {
      OrphanSweep count = new OrphanSweep(run, work, true);
      count.pass();
      long toDelete = count.throughHandlers + count.withContainers;
      if (toDelete > run.deletionLimit) {
        // Nothing more is written: every candidate stays tracked (and its owner's memo
        // unrecorded), and the next update weighs them again.
        run.refuseSweep(
            new DeletionLimitExceededException(toDelete, count.withContainers, run.deletionLimit));
        return;
      }
    }
    OrphanSweep s = new OrphanSweep(run, work, false);
    try {
      s.pass();
    } finally {
      release(s.stateLeases); // a chunk's, if its flush did not come (a batch's go in sweepStale)
      release(s.awaitingLeases);
    }
  }

  /**
   * Whether an update with a deletion limit must count before it sweeps. Each state the count
   * takes is a distinct tracked state: a candidate (a committed component's, or a stale
   * component's), or, below a container the sweep deletes, a state that is none (of a component
   * whose tracking this run keeps, or of a stale component another worker's sweep holds). So the
   * count is at most the candidates plus the states that are none below the candidates that were
   * containers, and a bound within the limit spares the pass (each handler is then asked once):
   * the committed components' candidates are known, each with whether it was a container, the
   * stale components' states are counted as they are read, then what is below the containers
   * among them all, until they pass the room left. (A component's record counts what it declared
   * in its last successful run, not what it owns, which may be more: no bound.)
   *
   * <p>All of it is read only while it cannot change before the sweep meets it, or the bound
   * could be passed: on the app's only writer, or, on a store shared by workers, what the stale
   * components own once they are leased up front, and only when no component this run keeps may
   * own a state below a container. A kept component there (a memo hit, a failure, one left to
   * another worker) may be mounted by another worker meanwhile, and a stale component leased
   * only at its batch (past {@link #LEASED_UP_FRONT}) may commit before: states a bound read
   * first did not see.
   */
  private static boolean mustCount(Run run, Work work) {
    if (run.mode != RunMode.UPDATE || run.deletionLimit == Long.MAX_VALUE) {
      return false;
    }
    long room = run.deletionLimit - work.committedCandidates.size();
    if (room < 0) {
      return true;
    }
    boolean exclusive = run.store.exclusiveWhileLocked();
    boolean belowContainers = keptMayOwn(run) || !work.sweptElsewhere.isEmpty();
    if (belowContainers && !exclusive) {
      // Read below each container the pass deletes (skipped with every stale component left to
      // another sweep, the pass let a table go with such rows uncounted).
      return !work.stale.isEmpty() || !work.committedCandidates.isEmpty();
    }
    if (work.stale.isEmpty() && !belowContainers) {
      return false;
    }
    if (!work.upFront && !exclusive) {
      return true;
    }
    List<byte[]> containers = new ArrayList<>();
    if (belowContainers) {
      for (int i = 0; i < work.committedCandidates.size(); i++) {
        if (work.committedCandidates.container(i)) {
          containers.add(work.committedCandidates.encodedPath(i));
        }
      }
    }
    for (TargetPath p : work.stale) {
      List<TrackedState> owned = run.store.ownedBy(run.app, p.encodedUnsafe());
      room -= owned.size();
      if (room < 0) {
        return true;
      }
      if (belowContainers) {
        owned.stream().filter(s -> s.childGeneration() > 0).forEach(s -> containers.add(s.path()));
      }
    }
    for (byte[] container : containers) {
      room -= notCandidatesBelow(run, work, container, room);
      if (room < 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * How many tracked states strictly below {@code container} are no candidates of the sweep,
   * counted up to one more than {@code room}.
   */
  private static long notCandidatesBelow(Run run, Work work, byte[] container, long room) {
    long[] n = {0};
    run.store.scan(run.app, container, s -> {
      if (n[0] <= room && s.path().length > container.length
          && !isCandidate(run, work, s)) {
        n[0]++;
      }
    });
    return n[0];
  }

  /**
   * Leases every stale component now (a call per batch), to hold them to the sweep's end. One
   * another worker's sweep holds is left to it: neither pass counts or sweeps it.
   */
  private static void leaseUpFront(Run run, Work work) {
    work.upFront = true;
    List<TargetPath> leased = new ArrayList<>(work.stale.size());
    for (int from = 0; from < work.stale.size(); from += work.sizes.staleBatch()) {
      List<TargetPath> batch =
          work.stale.subList(from, Math.min(work.stale.size(), from + work.sizes.staleBatch()));
      List<byte[]> paths = new ArrayList<>(batch.size());
      batch.forEach(p -> paths.add(p.encoded()));
      List<AutoCloseable> granted = run.store.leaseComponentsToSweep(run.app, paths);
      for (int i = 0; i < batch.size(); i++) {
        if (granted.get(i) == null) {
          leftToAnotherSweep(work, batch.get(i));
        } else {
          work.leasedUpFront.put(batch.get(i), granted.get(i));
          leased.add(batch.get(i));
        }
      }
    }
    work.stale.clear();
    work.stale.addAll(leased);
  }

  /**
   * Leaves {@code component} to the other worker that holds it (its sweep) or mounted it in this
   * round: its memo is that worker's to forget, or to keep with its record (this one never
   * writes a record it does not hold).
   */
  private static void leftToAnotherSweep(Work work, TargetPath component) {
    work.sweptElsewhere.add(component);
    work.staleMemos.remove(ByteKey.of(component.encodedUnsafe()));
  }

  /** Reads what the sweep works through; leases nothing. */
  private static Work collect(Run run) {
    Work work = new Work();
    for (Run.OrphanCandidate c; (c = run.orphanCandidates.poll()) != null; ) {
      work.committedCandidates.add(c);
    }
    boolean drop = run.mode == RunMode.DROP;
    // A drop's states are owned by the components it removes: their owners are those very
    // paths, decoded once (a million components decoded twice ran a drop out of memory).
    Map<ByteKey, TargetPath> owners = drop ? new HashMap<>() : null;
    Collection<ComponentRecord> records = drop ? null : run.componentsNotAskedFor();
    for (ComponentRecord c : records != null ? records : run.store.components(run.app)) {
      TargetPath p = TargetPath.decode(c.path());
      if (drop || (!run.visited.contains(p) && !run.isProtected(p))) {
        work.stale.add(p);
        if (c.stateCount() > FEW_STATES) {
          work.manyStates.put(p, c.stateCount());
        }
        if (c.memoFingerprint() != null) {
          work.staleMemos.add(ByteKey.of(c.path()));
        }
        if (drop) {
          owners.put(ByteKey.of(c.path()), p);
        }
      }
    }
    records = null;
    if (drop) {
      run.store.scan(run.app, new byte[0], s -> work.committedCandidates.add(s.path(),
          owners.computeIfAbsent(ByteKey.of(s.owner()), k -> TargetPath.decode(s.owner())),
          s.childGeneration() > 0));
    }
    work.committedCandidates.sort();
    work.stale.sort((a, b) -> Arrays.compareUnsigned(a.encodedUnsafe(), b.encodedUnsafe()));
    return work;
  }

  /**
   * Sweeps the committed components' candidates, then the stale components' (a drop's: every
   * state, then every record).
   */
  private void pass() {
    boolean noStale = work.stale.isEmpty();
    sweepCandidates(work.committedCandidates, List.of(), noStale);
    if (run.mode == RunMode.DROP) {
      // Every state was a candidate above: the records go in chunks.
      for (int from = 0; from < work.stale.size() && !stopped; from += work.sizes.chunk()) {
        int to = Math.min(work.stale.size(), from + work.sizes.chunk());
        sweepCandidates(
            new SweepCandidates(), work.stale.subList(from, to), to == work.stale.size());
      }
      return;
    }
    for (int from = 0, to; from < work.stale.size() && !stopped; from = to) {
      to = staleBatchEnd(from);
      sweepStale(work.stale.subList(from, to), to == work.stale.size());
    }
    if (!stopped) {
      settleUnresolved();
    }
  }

  /**
   * Forgets, with their memos, the states that components which failed in this run track below a
   * state declared without children in it (a directory that is now a file): its action took what
   * was below it along, as {@link #sweepCandidates} forgets the candidates there. A failed
   * component keeps its tracking, which the state's new child generation makes stale once it has
   * children again ({@link Reconciliation#takeChildrenAlong}); forgotten here, it neither waits
   * for that run nor counts as below the state if it is deleted meanwhile. Done before the
   * deletion limit is weighed, as those states are already gone from the target: a sweep the limit
   * refuses forgets them all the same. Read only in an update with a failure; written a chunk at a
   * time as the scan goes ({@link Sizes#chunk} forgotten subtrees a write, with the memos of their
   * owners), so that a failed component with a million rows there is not held, or written, at
   * once. A chunk whose write fails stops the sweep: what it did not forget stays tracked, of the
   * old generation, and the next run declaring the state without children forgets it. The
   * candidates the scan meets there are left to the sweep, which reads them again by path: only a
   * run with a failure pays that second read, and forgotten here they would not be leased, while
   * on a shared store the sweep leases each candidate and checks its owner before it goes.
   *
   * @return false if a write failed
   */
  private boolean forgetWhatFailedOwnersTrackBelowFormerContainers() {
    if (run.mode != RunMode.UPDATE || !run.anyFailed() || run.declaredWithoutChildren.isEmpty()) {
      return true;
    }
    ForgottenBelowFormerContainers chunk = new ForgottenBelowFormerContainers();
    for (TargetPath former : run.declaredWithoutChildren) {
      byte[] top = former.encodedUnsafe();
      byte[][] last = {null}; // the last subtree forgotten below this state
      run.store.scan(run.app, top, s -> {
        byte[] path = s.path();
        if (stopped || path.length <= top.length || (last[0] != null && isBelow(path, last[0]))) {
          return; // the state itself, or below one forgotten already
        }
        TargetPath owner = TargetPath.decode(s.owner());
        if (!isCandidate(s) && run.failedAtOrAbove(owner)) {
          last[0] = path;
          chunk.add(path, owner, s.childGeneration() > 0);
          if (chunk.trees.size() >= work.sizes.chunk()) {
            stopped = !writeForgotten(chunk);
          }
        }
      });
      if (stopped) {
        return false;
      }
    }
    return writeForgotten(chunk);
  }

  /** A chunk of the subtrees failed owners track below states declared without children. */
  private static final class ForgottenBelowFormerContainers {
    final List<byte[]> trees = new ArrayList<>();
    /** The owners whose memos (and their memoized ancestors') this chunk forgets. */
    final Set<TargetPath> owners = new HashSet<>();
    /** The owners an earlier chunk's write forgot the memos of: not read again. */
    final Set<TargetPath> ownersDone = new HashSet<>();
    /** Those of {@link #trees} that are containers: the memos of the owners below them go. */
    final List<byte[]> containers = new ArrayList<>();

    void add(byte[] path, TargetPath owner, boolean container) {
      trees.add(path);
      if (!ownersDone.contains(owner)) {
        owners.add(owner);
      }
      if (container) {
        containers.add(path);
      }
    }
  }

  /** Writes a chunk of forgotten subtrees with the memos they concern; empties it. */
  private boolean writeForgotten(ForgottenBelowFormerContainers chunk) {
    if (chunk.trees.isEmpty()) {
      return true;
    }
    List<StateWrite> commit = new ArrayList<>();
    invalidateMemosOfFailedAncestors(chunk.owners, commit);
    invalidateMemosBelow(chunk.containers, new HashSet<>(), commit);
    chunk.trees.forEach(path -> commit.add(new StateWrite.DeleteTree(path)));
    boolean written = write(commit, Set.of(), Map.of());
    chunk.ownersDone.addAll(chunk.owners);
    chunk.trees.clear();
    chunk.owners.clear();
    chunk.containers.clear();
    return written;
  }

  /** Whether {@code path} lies strictly below {@code top} (both encoded). */
  private static boolean isBelow(byte[] path, byte[] top) {
    return path.length > top.length && Arrays.equals(path, 0, top.length, top, 0, top.length);
  }

  /**
   * Settles the candidates whose container no handler resolved, once every batch is swept: one
   * below a container the sweep deleted went with it; one below a container whose deletion
   * failed is kept with it; any other cannot be reached, and is kept ({@link #unreachable}).
   * Then the records of the stale components that waited for them go, with the memos held back
   * for the sweep, unless the last chunk recorded those.
   */
  private void settleUnresolved() {
    if (unresolved.isEmpty()) {
      return;
    }
    unresolved.sort((a, b) ->
        Arrays.compareUnsigned(a.path().encodedUnsafe(), b.path().encodedUnsafe()));
    for (Candidate c : unresolved) {
      if (failedSubtrees.covers(c.path())) {
        keptOwners.add(c.owner());
      } else if (deletedSubtrees.covers(c.path())) {
        if (!forgottenSubtrees.covers(c.path())) {
          withContainers++;
        }
      } else {
        keep(c.path(), c.owner());
      }
    }
    if (counting || run.mode == RunMode.PREVIEW) {
      return;
    }
    List<StateWrite> commit = new ArrayList<>();
    Set<TargetPath> concerned = new HashSet<>();
    for (TargetPath component : recordsAwaitingUnresolved) {
      if (!keptOwners.contains(component)) {
        deleteRecord(component, commit);
        concerned.add(component);
      }
    }
    write(commit, concerned, addDeferredMemos(commit, keptOwners));
  }

  /**
   * Adds to {@code commit} the deletion of a stale component's record, which ends the sweep's
   * work on it: on a store shared by workers its claim is marked finished in the same write (a
   * worker dying before the sweep gives its lease back leaves it as swept, not as half done).
   */
  private void deleteRecord(TargetPath component, List<StateWrite> commit) {
    byte[] path = component.encoded();
    commit.add(new StateWrite.DeleteComponent(path));
    if (!run.store.exclusiveWhileLocked()) {
      commit.add(new StateWrite.ComponentDone(path, run.version));
    }
  }

  /**
   * Writes a commit of the sweep. If it fails, the owners {@code concerned} fail (their tracking
   * is kept) and the {@code memos} it carries go unrecorded (those components run again next
   * time); if it lands, those memos are recorded for the run.
   *
   * @return whether it landed
   */
  private boolean write(List<StateWrite> commit, Set<TargetPath> concerned,
      Map<TargetPath, ComponentRecord> memos) {
    if (commit.isEmpty()) {
      return true;
    }
    run.checkNotAborted();
    try {
      run.store.write(run.app, commit).join();
    } catch (CompletionException e) {
      failOwners(concerned, "committing", e);
      if (!memos.isEmpty()) {
        log.warn("the memos of {} components were not recorded: they run again next time",
            memos.size());
      }
      return false;
    }
    memos.forEach((component, record) -> {
      if (MemoStamp.isStamped(record.memoFingerprint())) {
        run.memoStamped(component);
      }
    });
    return true;
  }

  /**
   * Keeps a state no handler of this run can reach, with its owner's record, and what is below
   * it (reported once, for the highest such state).
   */
  private void keep(TargetPath path, TargetPath owner) {
    keptOwners.add(owner);
    if (!keptSubtrees.covers(path.parent())) { // kept with what is above it otherwise
      keptSubtrees.add(path);
      unreachable(path, owner);
    }
  }

  /**
   * Sweeps a batch of stale components: reads their states and sweeps those, each record going
   * at the batch's last chunk unless a state of it is kept (or waits for {@link
   * #settleUnresolved}); if {@code last}, that chunk is the sweep's. Unless the stale components
   * were leased up front, an update leases the batch first (another worker sweeping one does it;
   * it is skipped here, and by the next pass) and holds it until the batch's commit; a counting
   * pass gives it back once counted. A preview leases nothing.
   */
  private void sweepStale(List<TargetPath> batch, boolean last) {
    List<TargetPath> asked = new ArrayList<>(batch.size());
    for (TargetPath p : batch) {
      if (!work.sweptElsewhere.contains(p)) {
        asked.add(p);
      }
    }
    List<AutoCloseable> granted = null;
    if (run.mode == RunMode.UPDATE && !work.upFront && !run.store.exclusiveWhileLocked()) {
      List<byte[]> paths = new ArrayList<>(asked.size());
      asked.forEach(p -> paths.add(p.encoded()));
      granted = run.store.leaseComponentsToSweep(run.app, paths);
    }
    SweepCandidates candidates = new SweepCandidates();
    List<TargetPath> swept = new ArrayList<>(asked.size());
    try {
      for (int i = 0; i < asked.size(); i++) {
        TargetPath p = asked.get(i);
        if (granted != null) {
          if (granted.get(i) == null) {
            leftToAnotherSweep(work, p);
            if (counting) {
              countBelowDeletedContainers(p);
            }
            continue;
          }
          componentLeases.put(p, granted.get(i));
        }
        swept.add(p);
      }
      addOwnedStates(swept, candidates);
      candidates.sort();
      sweepCandidates(candidates, swept, last);
    } finally {
      // After the batch's commit its records are gone or kept, but those waiting for the
      // unresolved candidates, whose leases are held until then.
      for (TargetPath p : recordsAwaitingUnresolved) {
        AutoCloseable lease = componentLeases.remove(p);
        if (lease != null) {
          awaitingLeases.add(lease);
        }
      }
      release(new ArrayList<>(componentLeases.values()));
      componentLeases.clear();
    }
  }

  /**
   * Where the batch of stale components starting at {@code from} ends: {@link
   * Sizes#staleBatch} of them, and on a store with one writer (which leases nothing) more, up to
   * a chunk's, while their records count at most {@link #STALE_STATES_PER_BATCH} states. Each
   * batch's deletions end in a write and a sink call the sweep waits for: removing 100,000
   * components of one state each took 390 of them, about 0.6x the time in batches of 2,048.
   */
  private int staleBatchEnd(int from) {
    return run.store.exclusiveWhileLocked()
        ? partEnd(work.stale, from, work.sizes.staleBatch(), work.sizes.chunk(),
            STALE_STATES_PER_BATCH)
        : Math.min(work.stale.size(), from + work.sizes.staleBatch());
  }

  /**
   * Where a part of the stale {@code components} starting at {@code from} ends: {@code least} of
   * them (or what is left), then more, up to {@code most}, while their records count at most
   * {@code states} states.
   */
  private int partEnd(List<TargetPath> components, int from, int least, int most, long states) {
    int to = Math.min(components.size(), from + least);
    int last = Math.min(components.size(), from + most);
    long counted = 0;
    for (int i = from; i < to; i++) {
      counted += work.expectedStates(components.get(i));
    }
    while (to < last && counted + work.expectedStates(components.get(to)) <= states) {
      counted += work.expectedStates(components.get(to++));
    }
    return to;
  }

  /**
   * Adds the states each of the stale {@code components} owns to {@code candidates}, read a
   * part of the batch at a time ({@link StateStore#ownedByEach}): a read per component had been
   * a round trip each on a shared store (5,000 of them to remove 5,000 components). A part
   * holds about {@link #STALE_STATES_PER_READ} states by the components' records, one read
   * at a time: more than one component's at once, never the whole batch's when they are large.
   *
   * <p>On a store with one writer, each candidate keeps the row read here, and the sweep
   * reconciles it without reading it again by path ({@link #readAhead}; the second read was half
   * of the sweep's time in SQLite). That row is still the stored one when the candidate's turn
   * comes: the run's components have all committed, and the update lock keeps every other
   * process from writing, so only this batch's earlier chunks write meanwhile, and they change
   * their own candidates' rows, component records, and what lies below the paths they deleted
   * or forgot, none of it a later candidate of the batch (a chunk ends only before a candidate
   * below none of those paths, and in path order none after it is below one either). On a shared
   * store another worker may take a state over meanwhile: it is read again, under its lease. Rows
   * are kept up to {@link #KEPT_ROW_BYTES} of records a batch; those past it are read again.
   */
  private void addOwnedStates(List<TargetPath> components, SweepCandidates candidates) {
    boolean keepRows = run.store.exclusiveWhileLocked();
    long keptBytes = 0;
    for (int from = 0, to; from < components.size(); from = to) {
      to = partEnd(components, from, 1, components.size(), STALE_STATES_PER_READ);
      List<TargetPath> part = components.subList(from, to);
      List<byte[]> paths = new ArrayList<>(part.size());
      part.forEach(p -> paths.add(p.encodedUnsafe()));
      List<List<TrackedState>> owned = run.store.ownedByEach(run.app, paths);
      for (int i = 0; i < part.size(); i++) {
        for (TrackedState s : owned.get(i)) {
          if (keepRows && keptBytes < KEPT_ROW_BYTES) {
            candidates.add(s, part.get(i));
            keptBytes += recordBytes(s);
          } else {
            candidates.add(s.path(), part.get(i), s.childGeneration() > 0);
          }
        }
      }
    }
  }

  /** The bytes of {@code row}'s possible records. */
  private static long recordBytes(TrackedState row) {
    long n = 0;
    for (PossibleRecord r : row.records()) {
      n += r.record() == null ? 0 : r.record().length;
    }
    return n;
  }

  /**
   * With concurrent workers, waits for the components this run left to other workers: one may
   * be taking over a state this worker's components no longer declare, and the sweep must see
   * that move (the new owner) rather than delete the state under it. Only a sweep with candidates
   * waits, once. The leases it holds meanwhile are those of stale components, which no worker
   * mounted in this round, so no worker it waits for waits on them.
   */
  private void awaitOtherWorkers() {
    if (work.awaitedOtherWorkers || run.mode != RunMode.UPDATE
        || run.store.exclusiveWhileLocked() || run.leasedElsewhere.isEmpty()) {
      return;
    }
    work.awaitedOtherWorkers = true;
    List<byte[]> paths = new ArrayList<>();
    for (TargetPath p : run.leasedElsewhere) {
      paths.add(p.encoded());
    }
    long start = System.nanoTime();
    run.store.awaitComponentsReleased(run.app, paths);
    long waitedMs = (System.nanoTime() - start) / 1_000_000;
    if (waitedMs >= 100) {
      log.debug("waited {} ms for {} components of other workers before the orphan sweep",
          waitedMs, paths.size());
    }
  }

  private static void release(List<AutoCloseable> leases) {
    for (AutoCloseable lease : leases) {
      try {
        lease.close();
      } catch (Exception e) {
        log.warn("releasing a lease taken by the orphan sweep failed", e);
      }
    }
    leases.clear();
  }

  private record Deletion(Reconciliation r, TargetPath owner) {}

  private record Candidate(TargetPath path, TargetPath owner) {}

  /** What one chunk of the sweep collects until it is applied and committed. */
  private static final class Chunk {
    final List<Deletion> deletions = new ArrayList<>();
    final List<StateWrite> forget = new ArrayList<>();
    final Set<TargetPath> forgetOwners = new HashSet<>();
    /** Encoded paths deleted (or forgotten) in this chunk: whatever is below them goes too. */
    final TreeSet<byte[]> deleted = new TreeSet<>(Arrays::compareUnsigned);
    /**
     * The owners of the candidates skipped below each deleted container, by its encoded path:
     * their tracking goes with the container's only if its deletion commits.
     */
    final Map<ByteKey, Set<TargetPath>> ownersBelowDeleted = new HashMap<>();
    /** The containers forgotten with what is below them, without an action (see forgetTree). */
    final List<byte[]> forgottenContainers = new ArrayList<>();
    /** The paths among {@link #deleted} that are forgotten, not deleted: no deletion below. */
    final Set<ByteKey> forgotten = new HashSet<>();
    /**
     * The paths among {@link #forgotten} below which only the states of the stale components
     * being swept go ({@link #forgetBelow} on a shared store): each candidate met below one is
     * among them, and its owner's memos go with the chunk's commit.
     */
    final Set<ByteKey> forgottenForOwners = new HashSet<>();

    int size() {
      return deletions.size() + forget.size();
    }
  }

  /**
   * Forgets {@code row} with what is below it, noting it among the chunk's forgotten containers
   * if it is a container.
   */
  private static void forgetTree(Chunk chunk, TrackedState row, TargetPath owner) {
    chunk.forget.add(new StateWrite.DeleteTree(row.path()));
    chunk.forgetOwners.add(owner);
    chunk.deleted.add(row.path());
    chunk.forgotten.add(ByteKey.of(row.path()));
    if (row.childGeneration() > 0) {
      chunk.forgottenContainers.add(row.path());
    }
  }

  /**
   * Forgets every state below {@code former}, a state declared without children in this run, in
   * one range ({@link #forgetsAllBelowFormerContainers}): the candidates after it below it are
   * skipped. With {@code owners} (a shared store: the stale components being swept, which the
   * sweep holds), only theirs go, and the range is the chunk's alone: the owner of each candidate
   * skipped below it has its memos forgotten with the chunk's commit, and later batches forget
   * their own components' states there. Without, it is noted among the chunk's forgotten
   * containers, so that the memos of the components owning states there are forgotten as below
   * any forgotten container, and what later chunks meet below it is gone. {@code owner}, that of
   * the candidate met first there, fails if the write does.
   */
  private static void forgetBelow(
      Chunk chunk, TargetPath former, TargetPath owner, List<byte[]> owners) {
    byte[] path = former.encoded();
    chunk.forget.add(new StateWrite.DeleteBelow(path, owners));
    chunk.forgetOwners.add(owner);
    chunk.deleted.add(path);
    chunk.forgotten.add(ByteKey.of(path));
    if (owners == null) {
      chunk.forgottenContainers.add(path);
    } else {
      chunk.forgottenForOwners.add(ByteKey.of(path));
    }
  }

  /**
   * The encoded owners of the candidates from {@code from} on that lie below {@code former}, in
   * the order met: in path order, those below it come together.
   */
  private static List<byte[]> ownersBelow(SweepCandidates candidates, int from, TargetPath former) {
    byte[] top = former.encodedUnsafe();
    Map<TargetPath, byte[]> owners = new LinkedHashMap<>();
    for (int j = from; j < candidates.size() && isBelow(candidates.encodedPath(j), top); j++) {
      owners.computeIfAbsent(candidates.owner(j), TargetPath::encoded);
    }
    return new ArrayList<>(owners.values());
  }

  /** The state declared without children in this run that {@code path} lies below, or null. */
  private TargetPath formerContainerAbove(TargetPath path) {
    for (TargetPath p = path; p.depth() > 0; ) {
      p = p.parent();
      if (run.declaredWithoutChildren.contains(p)) {
        return p;
      }
    }
    return null;
  }

  /**
   * Whether {@code provider}'s generation, which this run's reconciliation of its container gave
   * it, is committed: a DESTRUCTIVE change records its new generation only once its action has
   * applied and its component has committed. Until then the children it was to destroy are
   * still in the target. Read from the store once per container, and only for a candidate of an
   * older generation.
   */
  private boolean generationCommitted(Provider<?> provider) {
    TargetPath container = provider.container();
    if (container == null) {
      return true;
    }
    return committedGenerations.computeIfAbsent(container, c -> {
      List<TrackedState> rows = run.store.getAll(run.app, List.of(c.encoded()));
      return !rows.isEmpty() && rows.get(0).childGeneration() >= provider.generation();
    });
  }

  /**
   * Sweeps {@code candidates} (paths to their owners) in path order, a chunk at a time; the
   * records of {@code components} (stale, every state of theirs among the candidates) go with
   * the last chunk unless a state of theirs is kept; if {@code last}, that chunk is the sweep's.
   */
  private void sweepCandidates(
      SweepCandidates candidates, List<TargetPath> components, boolean last) {
    if (!candidates.isEmpty()) {
      awaitOtherWorkers();
    }
    // With concurrent workers, another worker's component may be taking a candidate over right
    // now: hold each candidate's lease from the owner check below until the commit, taken in
    // encoded-path order like a takeover's (see StateStore#leaseState).
    boolean leaseStates = run.mode != RunMode.PREVIEW && !counting
        && !run.store.exclusiveWhileLocked();
    // In path order (a container before its children), which is also the encoded-path order
    // leases are taken in.
    Map<ByteKey, TrackedState> rows = new HashMap<>();
    int readUpTo = 0;
    byte[] lastContainer = null;
    TargetPath lastOwner = null;
    boolean lastForgotten = false;
    boolean lastForOwners = false;
    // On a shared store, only the states of stale components the sweep holds (the batch's,
    // every candidate's owner here) are forgotten below a former container in one range.
    boolean rangeOfHeld = forgetsAllBelowFormerContainers && !exclusive && !components.isEmpty();
    Chunk chunk = new Chunk();
    for (int i = 0; i < candidates.size(); i++) {
      TargetPath path = candidates.path(i);
      TargetPath owner = candidates.owner(i);
      if (i >= readUpTo) {
        // A chunk ends where nothing read ahead (and leased) is left to reconcile, and nothing
        // after it lies below a container it deletes (whose Delete takes that along: the chunk
        // must know its owners).
        if ((chunk.size() >= work.sizes.chunk()
            || stateLeases.size() >= work.sizes.maxStateLeases())
            && subtreeAbove(chunk.deleted, path) == null) {
          if (!flush(chunk, List.of(), false)) {
            return;
          }
          rows.clear();
          chunk = new Chunk();
          lastContainer = null;
          lastOwner = null;
        }
      }
      TargetPath taker = run.claims.acquiredBy(path);
      if (taker != null) {
        if (run.failedAtOrAbove(taker)) {
          // The takeover may not have been written (a state taken over as it was moves at the
          // taker's commit): the state may still be the owner's, whose record is how a later
          // run reaches it (deleted with the sweep, it stayed tracked, and in the target, for
          // good). A takeover whose precommit landed forgot the owner's memo there.
          keptOwners.add(owner);
        }
        continue;
      }
      if (run.declaredByAFailedBody(path)) {
        // A component whose body threw declared it (taking it over, most likely): kept with its
        // owner, whose record reaches it, until a run in which that component commits.
        keptOwners.add(owner);
        continue;
      }
      if (failedSubtrees.covers(path)) {
        keptOwners.add(owner); // below a container an earlier chunk failed to delete
        continue;
      }
      if (deletedSubtrees.covers(path)) {
        if (!forgottenSubtrees.covers(path)) {
          withContainers++; // went with a container an earlier chunk deleted
        }
        continue;
      }
      byte[] container = subtreeAbove(chunk.deleted, path);
      if (container != null) {
        // In path order, a container's children mostly come together, of one owner.
        if (container != lastContainer) {
          lastContainer = container;
          lastOwner = null;
          lastForgotten = chunk.forgotten.contains(ByteKey.of(container));
          lastForOwners = chunk.forgottenForOwners.contains(ByteKey.of(container));
        }
        if (!owner.equals(lastOwner)) {
          chunk.ownersBelowDeleted.computeIfAbsent(ByteKey.of(container), k -> new HashSet<>())
              .add(owner);
          if (lastForOwners) {
            chunk.forgetOwners.add(owner); // its state went with the range of its owner's
          }
          lastOwner = owner;
        }
        if (!lastForgotten) {
          withContainers++;
        }
        continue;
      }
      if (forgetsAllBelowFormerContainers && (exclusive || rangeOfHeld)) {
        TargetPath former = formerContainerAbove(path);
        if (former != null) {
          forgetBelow(chunk, former, owner, exclusive ? null : ownersBelow(candidates, i, former));
          continue;
        }
      }
      if (i >= readUpTo) {
        readUpTo = readAhead(candidates, i, rows, leaseStates, chunk);
      }
      TrackedState row = rows.remove(ByteKey.of(path.encodedUnsafe()));
      if (row == null) {
        continue;
      }
      if (!Arrays.equals(row.owner(), owner.encodedUnsafe())) { // moved to another owner
        continue;
      }
      Provider<?> provider = run.providers.lookup(path.parent());
      if (provider == null && formerContainerAbove(path) != null) {
        // A state above it is declared in this run without children (a directory that is now
        // a file): what was below it went with that state's own action, as below a Delete. Not
        // only its parent: an attachment's parent is its type's provider (docs/@index), below
        // the state.
        forgetTree(chunk, row, owner);
        continue;
      }
      if (provider == null) {
        if (run.mode != RunMode.DROP) {
          // Its container is declared by no one: it may be a candidate of a later batch, whose
          // Delete takes this state along. Settled once every batch is swept; its owner's record
          // waits until then.
          unresolved.add(new Candidate(path, owner));
          unresolvedOwners.add(owner);
          continue;
        }
        if (!keptSubtrees.covers(path.parent())
            && run.providers.isRootRegistered(rootProvider(path))) {
          // A drop resolves no container's children: they go with their container's Delete.
          // One whose container is not tracked at all was left by a container abandoned before
          // abandoning took its children along (see the no-action case below): forgotten too.
          forgetTree(chunk, row, owner);
          continue;
        }
        keep(path, owner);
        continue;
      }
      if (row.parentGeneration() < provider.generation()) {
        if (!generationCommitted(provider)) {
          // Its container's DESTRUCTIVE change failed (or its component did), so it was not
          // destroyed: kept, with what is below it, for a run in which the change commits.
          keptOwners.add(owner);
          keptSubtrees.add(path);
          continue;
        }
        forgetTree(chunk, row, owner);
        continue;
      }
      boolean mayBeMissing = row.mayBeMissing() || row.parentEpoch() < provider.epoch()
          || run.fullReprocess;
      Reconciliation r;
      try {
        r = Reconciliation.reconcile(
            run, provider, path.last(), path, row, false, null, mayBeMissing);
      } catch (RuntimeException ex) {
        if (!counting) {
          run.fail(owner, ex);
        }
        keptOwners.add(owner);
        continue;
      }
      if (r.hasAction()) {
        chunk.deletions.add(new Deletion(r, owner));
        // Whatever the handler does for the container covers its children.
        chunk.deleted.add(path.encodedUnsafe());
      } else {
        // The handler wants nothing done (it abandons the state): its tracking goes, and a
        // container's children's with it, as after a Delete (rule 8).
        forgetTree(chunk, row, owner);
      }
    }
    flush(chunk, components, last);
  }

  /**
   * Applies and commits a chunk: precommits its deletions, applies them deepest level first,
   * and commits their settles with the states it forgets and the records of {@code components}
   * that keep no state; the {@code last} chunk of the sweep also records the memos held back for
   * it. A preview plans the deletions; a counting pass only counts them.
   *
   * @return false if the commit failed (its owners failed): the sweep stops there
   */
  private boolean flush(Chunk chunk, List<TargetPath> components, boolean last) {
    throughHandlers += chunk.deletions.size();
    if (counting || run.mode == RunMode.PREVIEW) {
      if (run.mode == RunMode.PREVIEW) {
        for (Deletion d : chunk.deletions) {
          run.planned.add(new Run.Planned(
              new PlannedAction(d.r.provider.name(), d.r.key, d.r.action), false));
        }
      }
      if (counting) {
        withContainers += othersBelow(containers(chunk.deletions));
      }
      // Later chunks count (or plan nothing for) what is below the containers this one deletes.
      containers(chunk.deletions).forEach(deletedSubtrees::add);
      chunk.forgottenContainers.forEach(deletedSubtrees::add);
      chunk.forgottenContainers.forEach(forgottenSubtrees::add);
      return true;
    }
    Applied applied = apply(chunk);
    keptOwners.addAll(applied.failedOwners());
    keepOwnersBelowFailedDeletions(chunk, applied);
    // One transaction settles the applied deletions and forgets the rest: the states left
    // without an action, and the records of the stale components that are now empty.
    List<StateWrite> commit = new ArrayList<>(applied.settles());
    commit.addAll(chunk.forget);
    // A stale owner's record may go only with a later chunk: the memos over what this one
    // forgets go now (a deletion's went in its precommit), before any record goes below.
    Set<TargetPath> invalidated = new HashSet<>();
    if (!work.staleMemos.isEmpty()) {
      for (TargetPath owner : chunk.forgetOwners) {
        invalidateStaleMemosFrom(owner, invalidated, commit);
      }
    }
    invalidateMemosOfFailedAncestors(chunk.forgetOwners, commit);
    invalidateMemosBelow(chunk.forgottenContainers, invalidated, commit);
    Set<TargetPath> concerned = new HashSet<>(chunk.forgetOwners);
    for (Deletion d : applied.deletions()) {
      concerned.add(d.owner);
    }
    List<TargetPath> deletedRecords = new ArrayList<>();
    for (TargetPath component : components) {
      if (unresolvedOwners.contains(component)) {
        recordsAwaitingUnresolved.add(component);
      } else if (!keptOwners.contains(component)) {
        deleteRecord(component, commit);
        concerned.add(component);
        deletedRecords.add(component);
      }
    }
    concerned.removeAll(applied.failedOwners()); // each has failed once already
    Map<TargetPath, ComponentRecord> memos =
        last && unresolved.isEmpty() ? addDeferredMemos(commit, keptOwners) : Map.of();
    boolean written;
    try {
      written = write(commit, concerned, memos);
    } finally {
      release(stateLeases);
    }
    if (!written) {
      stopped = true;
      return false;
    }
    // What is below a container this chunk deleted went with it; below one whose deletion
    // failed, it stays tracked, and later chunks keep it too.
    Set<Deletion> done = Collections.newSetFromMap(new IdentityHashMap<>());
    done.addAll(applied.deletions());
    for (Deletion d : chunk.deletions) {
      if (d.r.childGeneration > 0) {
        (done.contains(d) ? deletedSubtrees : failedSubtrees).add(d.r.path);
      }
    }
    chunk.forgottenContainers.forEach(deletedSubtrees::add);
    chunk.forgottenContainers.forEach(forgottenSubtrees::add);
    deletedRecords.forEach(c -> work.staleMemos.remove(ByteKey.of(c.encodedUnsafe())));
    List<Reconciliation> deleted = new ArrayList<>(applied.deletions().size());
    for (Deletion d : applied.deletions()) {
      deleted.add(d.r);
    }
    run.applied(deleted);
    return true;
  }

  /**
   * Whether a component whose tracking this run keeps as it was may own states (failed ones and
   * what lies below them, memo hits, components left to another worker): a container the sweep
   * deletes takes its states below along, though they are no candidates.
   */
  private static boolean keptMayOwn(Run run) {
    return run.anyFailed() || run.anyProtected();
  }

  /**
   * For a counting pass: the tracked states strictly below {@code containers} (deleted by a
   * chunk) that are no candidates of this sweep, owned by components whose tracking this run
   * keeps as it was, or left to another worker's sweep. The containers' Deletes take them along
   * all the same, and the deletion limit counts them (it let a table go with the rows of a
   * component that failed, uncounted). Candidates below are counted as the sweep meets them.
   */
  private long othersBelow(List<byte[]> containers) {
    if (containers.isEmpty() || (!keptMayOwn(run) && work.sweptElsewhere.isEmpty())) {
      return 0;
    }
    long[] n = {0};
    for (byte[] container : containers) {
      run.store.scan(run.app, container, s -> {
        if (s.path().length > container.length && !isCandidate(s)) {
          n[0]++;
        }
      });
    }
    return n[0];
  }

  /**
   * For a counting pass: the states of {@code component}, found held by another worker's sweep
   * only at its batch, below a container an earlier chunk would delete. They go with it all the
   * same; when {@link #othersBelow} read below it they were still candidates, left to be counted
   * as the pass met them, which it now never will.
   */
  private void countBelowDeletedContainers(TargetPath component) {
    if (deletedSubtrees.isEmpty()) {
      return;
    }
    for (TrackedState s : run.store.ownedBy(run.app, component.encodedUnsafe())) {
      TargetPath path = TargetPath.decode(s.path());
      if (deletedSubtrees.covers(path) && !forgottenSubtrees.covers(path)) {
        withContainers++;
      }
    }
  }

  /** Whether the sweep meets {@code s} as a candidate (counted then, if it goes). */
  private boolean isCandidate(TrackedState s) {
    return isCandidate(run, work, s);
  }

  private static boolean isCandidate(Run run, Work work, TrackedState s) {
    TargetPath owner = TargetPath.decode(s.owner());
    return isStale(run, owner) ? !work.sweptElsewhere.contains(owner)
        : work.committedCandidates.contains(s.path());
  }

  /** The encoded paths of the containers among {@code deletions}. */
  private static List<byte[]> containers(List<Deletion> deletions) {
    List<byte[]> containers = new ArrayList<>();
    for (Deletion d : deletions) {
      if (d.r.childGeneration > 0) {
        containers.add(d.r.path.encodedUnsafe());
      }
    }
    return containers;
  }

  /**
   * Adds the memos held back for the sweep ({@link Run#deferMemo}) of the components whose
   * subtrees it left nothing to: no failure at, below or above them, no state kept for a handler
   * it could not reach, no component left to another worker (to process or to sweep). The others
   * stay unrecorded, so those components run again next time and their sweep is retried.
   * Returns the records added, by component.
   */
  private Map<TargetPath, ComponentRecord> addDeferredMemos(
      List<StateWrite> commit, Set<TargetPath> keptOwners) {
    Map<TargetPath, ComponentRecord> added = new HashMap<>();
    // A component another worker processed: whether its work succeeded is not known here.
    Set<TargetPath> leftElsewhere = new HashSet<>(run.leasedElsewhere);
    for (Map.Entry<TargetPath, ComponentRecord> m : run.deferredMemos.entrySet()) {
      TargetPath component = m.getKey();
      if (run.failedAtOrBelow(component) || anyAtOrBelow(keptOwners, component)
          || anyAtOrBelow(work.sweptElsewhere, component)
          || anyAtOrBelow(leftElsewhere, component)
          || keptOffBySweep(component)) {
        continue;
      }
      commit.add(new StateWrite.PutComponent(m.getValue(), run.version));
      added.put(component, m.getValue());
    }
    return added;
  }

  /**
   * Whether an ancestor of {@code component} failed (or was left to another worker), which keeps
   * the sweep off its whole subtree: the components {@code component} no longer mounts were not
   * removed, and a memo recorded now would hit over them.
   */
  private boolean keptOffBySweep(TargetPath component) {
    return component.depth() > 0 && run.isProtected(component.parent());
  }

  private static boolean anyAtOrBelow(Set<TargetPath> paths, TargetPath ancestor) {
    for (TargetPath p : paths) {
      if (p.startsWith(ancestor)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Forgets, in the deletions' precommit, the memos of the stale components at or above their
   * owners (and above the owners of the states below a deleted container, which go with it).
   * Each goes with its record at its batch's last commit, and a run that dies before then (or a
   * deletion that fails, which keeps the record) must not leave it to hit when the component
   * is mounted again on the same input, skipping the states deleted meanwhile. A drop's too (a
   * drop that keeps some of a memoized component's states deletes others).
   */
  private void invalidateStaleMemos(Chunk chunk, List<Deletion> deletions,
      Set<TargetPath> invalidated, List<StateWrite> pre) {
    if (work.staleMemos.isEmpty()) {
      return;
    }
    for (Deletion d : deletions) {
      invalidateStaleMemosFrom(d.owner, invalidated, pre);
      for (TargetPath below : ownersBelow(chunk, d)) {
        invalidateStaleMemosFrom(below, invalidated, pre);
      }
    }
  }

  /**
   * Forgets, in the write that deletes (a chunk's precommit) or forgets (its commit) states of
   * {@code owners}, the memos of the memoized components at or above an owner that failed in
   * this run, or lie below one that did. A failed component keeps its record as it was, memo
   * included (when it failed before its first precommit, or its commit was lost), so a state it
   * or a descendant stopped declaring (a healthy descendant's, its own once its body completed,
   * a child's it no longer mounts) was still covered by that memo: once the input came back to
   * what it was, the memo hit and the state was never declared again, deleted or forgotten (its
   * container now declared without children, its handler abandoning it). (A component that
   * committed recorded what its subtree declares now; stale components' own memos are {@link
   * #invalidateStaleMemos}'s.)
   */
  private void invalidateMemosOfFailedAncestors(
      Collection<TargetPath> owners, List<StateWrite> writes) {
    if (!run.anyFailed()) {
      return;
    }
    Set<TargetPath> seen = new HashSet<>();
    for (TargetPath owner : owners) {
      if (owner.depth() == 0) {
        continue; // the root is never memoized
      }
      for (TargetPath p = owner; seen.add(p); p = p.parent()) {
        if (!isStale(p) && run.failedAtOrAbove(p) && hasMemo(p)) {
          writes.add(new StateWrite.InvalidateMemo(p.encoded(), run.version));
        }
        if (p.depth() == 0) {
          break;
        }
      }
    }
  }

  private void invalidateStaleMemosFrom(
      TargetPath owner, Set<TargetPath> invalidated, List<StateWrite> pre) {
    for (TargetPath p = owner; p != null && invalidated.add(p);
        p = p.depth() == 0 ? null : p.parent()) {
      if (work.staleMemos.contains(ByteKey.of(p.encodedUnsafe()))) {
        pre.add(new StateWrite.InvalidateMemo(p.encoded(), run.version));
      }
    }
  }

  /** Whether this sweep removes {@code component}'s record (unless a state of it is kept). */
  private boolean isStale(TargetPath component) {
    return isStale(run, component);
  }

  private static boolean isStale(Run run, TargetPath component) {
    return run.mode == RunMode.DROP
        || (!run.visited.contains(component) && !run.isProtected(component));
  }

  private boolean hasMemo(TargetPath component) {
    return run.store.component(run.app, component.encoded())
        .map(c -> c.memoFingerprint() != null).orElse(false);
  }

  /**
   * Forgets, in {@code writes} (a chunk's precommit, or the commit that forgets subtrees), the
   * memos of the components that own states strictly below one of {@code subtrees} but whose
   * records this chunk leaves as they were. The container's Delete (or its forgetting) takes
   * those states along, their tracking with it (rule 8); a memo recorded when the component
   * declared them hit once it was mounted on that input again, the container declared again (its
   * child generation starting over, at the one the memo recorded), and they stayed missing for
   * good. Those owners are:
   *
   * <ul>
   *   <li>components whose tracking this run keeps as it was: those that failed or lie below one
   *       that did, memo hits and what lies below them, components left to another worker; with
   *       their memoized ancestors (a component that committed in this run recorded what it
   *       declares now);
   *   <li>stale components of a later batch, whose records (and memos) go only then, and their
   *       stale memoized ancestors: a run that dies before must not leave those memos standing.
   *       (Stale owners among this chunk's candidates are {@link #invalidateStaleMemos}'s.)
   * </ul>
   *
   * <p>The subtrees are read for their owners only when there may be such an owner: in a run
   * with a failure or a protected subtree, or one that has stale memos left.
   */
  private void invalidateMemosBelow(
      List<byte[]> subtrees, Set<TargetPath> invalidated, List<StateWrite> writes) {
    boolean keptMayOwn = keptMayOwn(run);
    boolean staleMayOwn = !work.staleMemos.isEmpty();
    if (subtrees.isEmpty() || run.mode != RunMode.UPDATE || (!keptMayOwn && !staleMayOwn)) {
      return;
    }
    Set<TargetPath> owners = new HashSet<>();
    for (byte[] subtree : subtrees) {
      run.store.scan(run.app, subtree, s -> {
        if (s.path().length > subtree.length) {
          owners.add(TargetPath.decode(s.owner()));
        }
      });
    }
    Set<TargetPath> seen = new HashSet<>();
    for (TargetPath owner : owners) {
      if (isStale(owner)) {
        invalidateStaleMemosFrom(owner, invalidated, writes);
        continue;
      }
      if (!(run.failedAtOrAbove(owner) || run.isProtected(owner))) {
        continue;
      }
      for (TargetPath p = owner; p != null && seen.add(p); p = p.depth() == 0 ? null : p.parent()) {
        if (hasMemo(p)) {
          writes.add(new StateWrite.InvalidateMemo(p.encoded(), run.version));
        }
      }
    }
  }

  /**
   * What {@link #apply} did: the deletions the sinks applied, their settles (not yet written),
   * and the owners whose deletions failed.
   */
  private record Applied(
      List<Deletion> deletions, List<StateWrite> settles, Set<TargetPath> failedOwners) {}

  /**
   * Reads the rows of the next {@link Sizes#readAhead} candidates from {@code from} on in one query
   * (a read per candidate made removing a component cost three times creating it), under their
   * leases when states are leased; a candidate that came with its row (see {@link
   * #addOwnedStates}) is not read again. A candidate the loop then skips (below a container
   * deleted meanwhile) was read, and leased, for nothing, which is harmless.
   *
   * @return the index of the first candidate not read
   */
  private int readAhead(SweepCandidates candidates, int from,
      Map<ByteKey, TrackedState> rows, boolean leaseStates, Chunk chunk) {
    List<byte[]> paths = new ArrayList<>(work.sizes.readAhead());
    int i = from;
    for (int n = 0; i < candidates.size() && n < work.sizes.readAhead(); i++) {
      TargetPath path = candidates.path(i);
      if (run.claims.contains(path) || subtreeAbove(chunk.deleted, path) != null
          || deletedSubtrees.covers(path) || failedSubtrees.covers(path)) {
        continue;
      }
      n++;
      TrackedState read = candidates.row(i);
      if (read != null) {
        rows.put(ByteKey.of(read.path()), read);
      } else {
        paths.add(path.encodedUnsafe()); // only read
      }
    }
    if (leaseStates) {
      stateLeases.addAll(run.store.leaseStates(run.app, paths)); // in path order, like the loop
    }
    if (!paths.isEmpty()) {
      for (TrackedState s : run.store.getAll(run.app, paths)) {
        rows.put(ByteKey.of(s.path()), s);
      }
    }
    return i;
  }

  /**
   * The owners of the states below a container whose deletion failed keep their records: those
   * states are still tracked, and a stale owner's record is how the next run finds them
   * (deleted with the record, they stayed tracked, and in the target, for good).
   */
  private void keepOwnersBelowFailedDeletions(Chunk chunk, Applied applied) {
    if (chunk.ownersBelowDeleted.isEmpty()
        || applied.deletions().size() == chunk.deletions.size()) {
      return;
    }
    Set<Deletion> done = Collections.newSetFromMap(new IdentityHashMap<>());
    done.addAll(applied.deletions());
    for (Deletion d : chunk.deletions) {
      if (!done.contains(d)) {
        keptOwners.addAll(ownersBelow(chunk, d));
      }
    }
  }

  /** The owners of the candidates skipped below {@code d}'s state (a container's children). */
  private static Set<TargetPath> ownersBelow(Chunk chunk, Deletion d) {
    return chunk.ownersBelowDeleted.getOrDefault(
        ByteKey.of(d.r.path.encodedUnsafe()), Set.of());
  }

  /**
   * The one of {@code subtrees} that {@code path} lies strictly below, as its encoded path, or
   * null. Nothing below a deleted path is added to a chunk, so its deleted paths are disjoint
   * subtrees, and in byte order an ancestor can only be the greatest of them before {@code path}.
   */
  private static byte[] subtreeAbove(TreeSet<byte[]> subtrees, TargetPath path) {
    byte[] p = path.encodedUnsafe();
    byte[] c = subtrees.lower(p);
    return c != null && c.length < p.length && Arrays.equals(c, 0, c.length, p, 0, c.length)
        ? c : null;
  }

  /**
   * A state no handler of this run can reach: kept. An update warns (once per provider); a drop
   * fails, since clearing the store would leave the state behind, untracked.
   */
  private void unreachable(TargetPath path, TargetPath owner) {
    String name = rootProvider(path);
    boolean unregistered = !run.providers.isRootRegistered(name);
    if (!work.warnedProviders.add(unregistered ? name : path.parent().toString())) {
      return;
    }
    if (run.mode == RunMode.DROP) {
      run.fail(owner, new IllegalStateException(unregistered
          ? "cannot drop target state " + path + ": provider '" + name + "' was not registered"
              + " by main in this drop (main failed before registering it, or no longer does);"
              + " its target states are kept, and dropState can finish once main registers it"
          : "cannot drop target state " + path + ": no handler is resolved for " + path.parent()
              + " in this drop (its container is no longer declared by main, or its component"
              + " failed); its target states are kept"));
    } else if (run.mode == RunMode.UPDATE && run.providers.unresolved(path.parent()) != null) {
      // Its container is declared, but its handler returned no Create or Update: the removal
      // cannot be carried out, and must not pass unseen (as declaring a child does not).
      run.fail(owner, new IllegalStateException("cannot delete target state " + path
          + ", no longer declared: " + run.providers.unresolved(path.parent())
          + "; its tracking is kept"));
    } else if (unregistered) {
      log.warn("provider '{}' was not registered in this run, so its target states (such as {})"
          + " are kept: register it again (declaring nothing) to let an update or dropState"
          + " delete them", name,
          path);
    } else {
      log.warn("no handler is resolved for {} in this run (its container is not declared, or its"
          + " handler returned no Create/Update); its target states are kept", path.parent());
    }
  }

  /** The name of the root provider {@code path} lies under. */
  private static String rootProvider(TargetPath path) {
    StableKey first = path.keys().get(0);
    return first instanceof StableKey.Symbol s ? s.name() : first.toString();
  }

  /**
   * Precommits a chunk's deletions, with the memos they make stale forgotten, then applies them
   * deepest level first.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private Applied apply(Chunk chunk) {
    Set<TargetPath> failed = new HashSet<>();
    if (chunk.deletions.isEmpty()) {
      return new Applied(List.of(), List.of(), failed);
    }
    boolean shared = !run.store.exclusiveWhileLocked();
    if (shared) {
      List<Reconciliation> written = reconciliations(chunk.deletions);
      for (Reconciliation r : written) {
        r.deletionInvalidatesChildren(); // another worker's children written after it refused
      }
      Reconciliation.noteSuperseded(run, written);
    }
    List<Deletion> deletions = precommit(chunk, shared, failed);
    TreeMap<Integer, List<Deletion>> levels = new TreeMap<>();
    for (Deletion d : deletions) {
      if (shared && d.r.childGeneration > 0 && refusedWhileChildrenInFlight(d, failed)) {
        continue; // its precommit stands, as after a failed action
      }
      levels.computeIfAbsent(-d.r.depth(), k -> new ArrayList<>()).add(d);
    }
    List<StateWrite> commit = new ArrayList<>();
    List<Deletion> applied = new ArrayList<>();
    for (List<Deletion> level : levels.values()) {
      run.checkNotAborted();
      // One submission per (owner, sink): a failing owner's deletions never fail another's.
      Map<TargetPath, Map<TargetActionSink<?>, List<Deletion>>> groups = new LinkedHashMap<>();
      for (Deletion d : level) {
        groups.computeIfAbsent(d.owner, k -> new IdentityHashMap<>())
            .computeIfAbsent(d.r.sink, k -> new ArrayList<>()).add(d);
      }
      // In the deletions' order, which is their paths' (within a level): the store's tree
      // deletes of the settles read its owner ranges ahead when they come in path order.
      Map<CompletableFuture<Void>, List<Deletion>> pending = new LinkedHashMap<>();
      for (Map.Entry<TargetPath, Map<TargetActionSink<?>, List<Deletion>>> g : groups.entrySet()) {
        for (Map.Entry<TargetActionSink<?>, List<Deletion>> s : g.getValue().entrySet()) {
          List<TargetAction<?>> actions = new ArrayList<>();
          List<Reconciliation> swept = new ArrayList<>(s.getValue().size());
          s.getValue().forEach(d -> {
            actions.add(d.r.action);
            swept.add(d.r);
          });
          String what = run.mode == RunMode.DROP
              ? "for the drop" : "for target states no longer declared";
          pending.put(run.batcher.submit((TargetActionSink) s.getKey(), g.getKey(),
              (List) actions, () -> SinkContexts.applying(swept, what)), s.getValue());
        }
      }
      for (Map.Entry<CompletableFuture<Void>, List<Deletion>> p : pending.entrySet()) {
        try {
          p.getKey().join();
          for (Deletion d : p.getValue()) {
            commit.add(d.r.commitApplied(d.owner));
            applied.add(d);
          }
        } catch (CompletionException ex) {
          Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
          TargetPath owner = p.getValue().get(0).owner;
          if (failed.add(owner)) {
            // Its error wraps the sink's own, as it always has (callers look for it as the
            // cause); its message says which provider's sink and what it was deleting.
            run.fail(owner, cause instanceof SinkFailure sf
                ? new IllegalStateException(sf.getMessage(), sf.getCause())
                : new IllegalStateException("deleting target states no longer declared by "
                    + owner + " failed: " + cause, cause));
          }
        }
      }
    }
    return new Applied(applied, commit, failed);
  }

  /**
   * Precommits {@code chunk}'s deletions, with the memos they make stale forgotten, in one write.
   * On a store shared by workers a deletion below a container another worker has changed since
   * would delete what that change took along: the write is refused ({@link
   * ContainerChecks#addConditions}). Then only the deletions below that container are left out,
   * their owners failing, and the rest are precommitted again: one changed container must not
   * fail every owner of a chunk of up to {@link #DEFAULT_CHUNK} deletions.
   *
   * @return the deletions precommitted; none if the write failed otherwise (their owners failed,
   *     added to {@code failed})
   */
  private List<Deletion> precommit(Chunk chunk, boolean shared, Set<TargetPath> failed) {
    List<Deletion> deletions = chunk.deletions;
    while (true) {
      List<StateWrite> pre = new ArrayList<>();
      for (Deletion d : deletions) {
        pre.add(d.r.precommit(d.owner));
      }
      if (shared) {
        ContainerChecks.addConditions(run, reconciliations(deletions), null, pre);
      }
      Set<TargetPath> invalidated = new HashSet<>();
      invalidateStaleMemos(chunk, deletions, invalidated, pre);
      invalidateMemosOfFailedAncestors(deletions.stream().map(Deletion::owner).toList(), pre);
      invalidateMemosBelow(containers(deletions), invalidated, pre);
      run.checkNotAborted(); // a run stopped early deletes nothing more (App reports why)
      try {
        run.store.write(run.app, pre).join();
        return deletions;
      } catch (CompletionException e) {
        byte[] changed = shared ? refusedBy(e) : null;
        List<Deletion> rest = new ArrayList<>(deletions.size());
        Set<TargetPath> refused = new LinkedHashSet<>();
        for (Deletion d : deletions) {
          if (changed != null && isBelow(d.r.path.encodedUnsafe(), changed)) {
            refused.add(d.owner);
          } else {
            rest.add(d);
          }
        }
        if (refused.isEmpty()) { // not a container's refusal: nothing of the chunk is written
          Set<TargetPath> owners = new LinkedHashSet<>();
          deletions.forEach(d -> owners.add(d.owner));
          owners.removeIf(owner -> !failed.add(owner));
          failOwners(owners, "precommitting", e);
          return List.of();
        }
        refused.removeIf(owner -> !failed.add(owner));
        failOwners(refused, "precommitting", e);
        if (rest.isEmpty()) {
          return List.of();
        }
        log.debug("{} deletions of the sweep below a container another worker changed were"
            + " refused; precommitting the chunk's {} others again",
            deletions.size() - rest.size(), rest.size());
        deletions = rest;
      }
    }
  }

  /** The container whose condition refused a write, as its encoded path, or null. */
  private static byte[] refusedBy(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ContainerChangedException c && c.refusedBy() != null) {
        return c.refusedBy();
      }
    }
    return null;
  }

  private static List<Reconciliation> reconciliations(List<Deletion> deletions) {
    List<Reconciliation> rs = new ArrayList<>(deletions.size());
    deletions.forEach(d -> rs.add(d.r));
    return rs;
  }

  /**
   * On a store shared by workers, whether the deletion {@code d} of a container, precommitted,
   * must not be applied: another worker's run still going has a child's write below it in
   * flight, which may land after the deletion's action and be forgotten by its settle while the
   * target holds it ({@link ContainerChecks}). Its owner then fails, as when its action fails,
   * and is added to {@code failed}: the container stays tracked with both its forms possible,
   * its children "may be missing" (the epoch its precommit moved), and a later run deletes it.
   */
  private boolean refusedWhileChildrenInFlight(Deletion d, Set<TargetPath> failed) {
    try {
      ContainerChecks.refuseWhileChildrenInFlight(run, d.r.path);
      return false;
    } catch (ContainerChangedException e) {
      if (failed.add(d.owner)) {
        run.fail(d.owner, new IllegalStateException("deleting target state " + d.r.path
            + ", no longer declared by " + d.owner + ", was held back: " + e.getMessage(), e));
      }
      return true;
    }
  }

  /** A store write of the sweep failed: every owner concerned fails (its tracking is kept). */
  private void failOwners(Set<TargetPath> owners, String what, CompletionException e) {
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    for (TargetPath owner : owners) {
      run.fail(owner, new IllegalStateException(what + " the deletion of target states no"
          + " longer declared by " + owner + " failed: " + cause, cause));
    }
  }
}
