package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.runtime.DeletionLimitExceededException;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ComponentRecord;
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
 */
public final class OrphanSweep {
  private static final Logger log = LoggerFactory.getLogger(OrphanSweep.class);

  /** Candidates whose rows are read in one query. */
  private static final int READ_AHEAD = 256;
  /** Stale components leased in one call. */
  private static final int LEASE_BATCH = 256;

  private final Run run;
  private final Map<TargetPath, TargetPath> candidates = new TreeMap<>();
  private final Map<TargetPath, TargetPath> staleComponents = new LinkedHashMap<>();
  /** Encoded paths deleted (or forgotten) so far: whatever is below them goes with them. */
  private final TreeSet<byte[]> deletedContainers = new TreeSet<>(Arrays::compareUnsigned);
  /**
   * The owners of the candidates skipped below each deleted container, by its encoded path:
   * their tracking goes with the container's only if its deletion commits.
   */
  private final Map<ByteKey, Set<TargetPath>> ownersBelowDeleted = new HashMap<>();
  /** Encoded paths kept because no handler could reach them: what is below them is kept too. */
  private final TreeSet<byte[]> keptSubtrees = new TreeSet<>(Arrays::compareUnsigned);
  private final Set<String> warnedProviders = new HashSet<>();
  private final List<AutoCloseable> leases = new ArrayList<>();
  /**
   * The stale components (all of a drop's) whose record holds a memo: it goes with the record at
   * the sweep's commit, and is forgotten before then if a deletion below it is written.
   */
  private final Set<TargetPath> staleMemos = new HashSet<>();
  /** Whether each container's child generation of this run is committed (see below). */
  private final Map<TargetPath, Boolean> committedGenerations = new HashMap<>();
  /** The containers forgotten with what is below them, without an action (see forgetTree). */
  private final List<byte[]> forgottenContainers = new ArrayList<>();
  /** Stale components another worker's sweep holds: whether it succeeds is not known here. */
  private final Set<TargetPath> sweptElsewhere = new HashSet<>();

  private OrphanSweep(Run run) {
    this.run = run;
  }

  /** Runs the sweep; failures are recorded on the run. */
  public static void sweep(Run run) {
    OrphanSweep s = new OrphanSweep(run);
    try {
      s.collect();
      if (!s.candidates.isEmpty()) {
        s.awaitOtherWorkers();
      }
      s.process();
    } finally {
      s.releaseLeases();
    }
  }

  /**
   * With concurrent workers, waits for the components this run left to other workers: one may
   * be taking over a state this worker's components no longer declare, and the sweep must see
   * that move (the new owner) rather than delete the state under it. Only a sweep with candidates
   * waits. The leases it holds meanwhile are those of stale components, which no worker mounted
   * in this round, so no worker it waits for waits on them.
   */
  private void awaitOtherWorkers() {
    if (run.mode != RunMode.UPDATE || run.store.exclusiveWhileLocked()
        || run.leasedElsewhere.isEmpty()) {
      return;
    }
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

  private void releaseLeases() {
    for (AutoCloseable lease : leases) {
      try {
        lease.close();
      } catch (Exception e) {
        log.warn("releasing a lease taken by the orphan sweep failed", e);
      }
    }
  }

  private void collect() {
    for (Run.OrphanCandidate c : run.orphanCandidates) {
      candidates.put(c.path(), c.owner());
    }
    if (run.mode == RunMode.DROP) {
      run.store.scan(run.app, new byte[0], s -> candidates.put(
          TargetPath.decode(s.path()), TargetPath.decode(s.owner())));
      for (ComponentRecord c : run.store.components(run.app)) {
        TargetPath p = TargetPath.decode(c.path());
        staleComponents.put(p, p);
        if (c.memoFingerprint() != null) {
          staleMemos.add(p);
        }
      }
      return;
    }
    List<TargetPath> stale = new ArrayList<>();
    Set<TargetPath> memoized = new HashSet<>();
    Collection<ComponentRecord> records = run.componentsNotAskedFor();
    for (ComponentRecord c : records != null ? records : run.store.components(run.app)) {
      TargetPath p = TargetPath.decode(c.path());
      if (!run.visited.contains(p) && !run.isProtected(p)) {
        stale.add(p);
        if (c.memoFingerprint() != null) {
          memoized.add(p);
        }
      }
    }
    stale.sort((a, b) -> Arrays.compareUnsigned(a.encodedUnsafe(), b.encodedUnsafe()));
    for (int from = 0; from < stale.size(); from += LEASE_BATCH) {
      List<TargetPath> batch = stale.subList(from, Math.min(stale.size(), from + LEASE_BATCH));
      // Another worker sweeping the same stale component does it; skip it here. Leased in
      // batches (a round trip each on a shared store); a preview writes nothing and needs none.
      List<AutoCloseable> granted = null;
      if (run.mode == RunMode.UPDATE) {
        List<byte[]> paths = new ArrayList<>(batch.size());
        batch.forEach(p -> paths.add(p.encoded()));
        granted = run.store.leaseComponents(run.app, paths);
      }
      for (int i = 0; i < batch.size(); i++) {
        TargetPath p = batch.get(i);
        if (granted != null) {
          if (granted.get(i) == null) {
            sweptElsewhere.add(p);
            continue;
          }
          leases.add(granted.get(i));
        }
        staleComponents.put(p, p);
        if (memoized.contains(p)) {
          staleMemos.add(p);
        }
        for (TrackedState s : run.store.ownedBy(run.app, p.encodedUnsafe())) {
          candidates.put(TargetPath.decode(s.path()), p);
        }
      }
    }
  }

  private record Deletion(Reconciliation r, TargetPath owner) {}

  /**
   * Forgets {@code row} with what is below it, noting it among {@link #forgottenContainers} if it
   * is a container.
   */
  private void forgetTree(List<StateWrite> forget, TrackedState row) {
    forget.add(new StateWrite.DeleteTree(row.path()));
    if (row.childGeneration() > 0) {
      forgottenContainers.add(row.path());
    }
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

  private void process() {
    List<Deletion> deletions = new ArrayList<>();
    List<StateWrite> forget = new ArrayList<>();
    Set<TargetPath> forgetOwners = new HashSet<>();
    Set<TargetPath> keptOwners = new HashSet<>();
    // With concurrent workers, another worker's component may be taking a candidate over right
    // now: hold each candidate's lease from the owner check below until the commit, taken in
    // encoded-path order like a takeover's (see StateStore#leaseState).
    boolean leaseStates = run.mode != RunMode.PREVIEW && !run.store.exclusiveWhileLocked();
    // In path order (a container before its children), which is also the encoded-path order
    // leases are taken in.
    List<Map.Entry<TargetPath, TargetPath>> ordered = new ArrayList<>(candidates.entrySet());
    Map<ByteKey, TrackedState> rows = new HashMap<>();
    int readUpTo = 0;
    byte[] lastContainer = null;
    TargetPath lastOwner = null;
    long withContainers = 0; // states that go with a container this sweep deletes
    for (int i = 0; i < ordered.size(); i++) {
      TargetPath path = ordered.get(i).getKey();
      TargetPath owner = ordered.get(i).getValue();
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
      byte[] container = deletedContainerAbove(path);
      if (container != null) {
        withContainers++;
        // In path order, a container's children mostly come together, of one owner.
        if (container != lastContainer || !owner.equals(lastOwner)) {
          ownersBelowDeleted.computeIfAbsent(ByteKey.of(container), k -> new HashSet<>())
              .add(owner);
          lastContainer = container;
          lastOwner = owner;
        }
        continue;
      }
      if (i >= readUpTo) {
        readUpTo = readAhead(ordered, i, rows, leaseStates);
      }
      TrackedState row = rows.remove(ByteKey.of(path.encodedUnsafe()));
      if (row == null) {
        continue;
      }
      if (!TargetPath.decode(row.owner()).equals(owner)) {
        continue;
      }
      Provider<?> provider = run.providers.lookup(path.parent());
      if (provider == null && run.declaredWithoutChildren.contains(path.parent())) {
        // Its parent is declared in this run as a state without children (a directory that is
        // now a file): what was below it went with the parent's own action, as below a Delete.
        forgetTree(forget, row);
        forgetOwners.add(owner);
        deletedContainers.add(path.encodedUnsafe());
        continue;
      }
      if (provider == null) {
        boolean underKept = below(keptSubtrees, path);
        if (run.mode == RunMode.DROP && !underKept
            && run.providers.isRootRegistered(rootProvider(path))) {
          // A drop resolves no container's children: they go with their container's Delete.
          // One whose container is not tracked at all was left by a container abandoned before
          // abandoning took its children along (see process' no-action case): forgotten too.
          forgetTree(forget, row);
          forgetOwners.add(owner);
          deletedContainers.add(path.encodedUnsafe());
          continue;
        }
        keptOwners.add(owner);
        if (!underKept) { // kept with what is above it otherwise
          keptSubtrees.add(path.encodedUnsafe());
          unreachable(path, owner);
        }
        continue;
      }
      if (row.parentGeneration() < provider.generation()) {
        if (!generationCommitted(provider)) {
          // Its container's DESTRUCTIVE change failed (or its component did), so it was not
          // destroyed: kept, with what is below it, for a run in which the change commits.
          keptOwners.add(owner);
          keptSubtrees.add(path.encodedUnsafe());
          continue;
        }
        forgetTree(forget, row);
        forgetOwners.add(owner);
        deletedContainers.add(path.encodedUnsafe());
        continue;
      }
      boolean mayBeMissing = row.mayBeMissing() || row.parentEpoch() < provider.epoch()
          || run.fullReprocess;
      Reconciliation r;
      try {
        r = Reconciliation.reconcile(
            run, provider, path.last(), path, row, false, null, mayBeMissing);
      } catch (RuntimeException ex) {
        run.fail(owner, ex);
        keptOwners.add(owner);
        continue;
      }
      if (r.hasAction()) {
        deletions.add(new Deletion(r, owner));
      } else {
        // The handler wants nothing done (it abandons the state): its tracking goes, and a
        // container's children's with it, as after a Delete (rule 8).
        forgetTree(forget, row);
        forgetOwners.add(owner);
      }
      // Whatever the handler did for the container covers its children.
      deletedContainers.add(path.encodedUnsafe());
    }
    long toDelete = deletions.size() + withContainers;
    if (run.mode == RunMode.UPDATE && toDelete > run.deletionLimit) {
      // Nothing is written: every candidate stays tracked (and its owner's memo unrecorded), and
      // the next update weighs them again.
      run.refuseSweep(
          new DeletionLimitExceededException(toDelete, withContainers, run.deletionLimit));
      return;
    }
    if (run.mode == RunMode.PREVIEW) {
      for (Deletion d : deletions) {
        run.planned.add(new Run.Planned(
            new PlannedAction(d.r.provider.name(), d.r.key, d.r.action), false));
      }
      return;
    }
    Applied applied = apply(deletions);
    keptOwners.addAll(applied.failedOwners());
    keepOwnersBelowFailedDeletions(deletions, applied, keptOwners);
    // One transaction settles the applied deletions and forgets the rest: the states left
    // without an action, and the records of the stale components that are now empty.
    List<StateWrite> commit = new ArrayList<>(applied.settles());
    commit.addAll(forget);
    Set<TargetPath> concerned = new HashSet<>(forgetOwners);
    for (Deletion d : applied.deletions()) {
      concerned.add(d.owner);
    }
    for (TargetPath component : staleComponents.keySet()) {
      if (!keptOwners.contains(component)) {
        commit.add(new StateWrite.DeleteComponent(component.encoded()));
        concerned.add(component);
      }
    }
    concerned.removeAll(applied.failedOwners()); // each has failed once already
    invalidateMemosOfOwnersKeptBelow(forgottenContainers, commit);
    Map<TargetPath, ComponentRecord> memos = addDeferredMemos(commit, keptOwners);
    if (commit.isEmpty()) {
      return;
    }
    try {
      run.store.write(run.app, commit).join();
    } catch (CompletionException e) {
      failOwners(concerned, "committing", e);
      if (!memos.isEmpty()) {
        log.warn("the memos of {} components were not recorded: they run again next time",
            memos.size());
      }
      return;
    }
    memos.forEach(run::memoWritten);
    List<Reconciliation> deleted = new ArrayList<>(applied.deletions().size());
    for (Deletion d : applied.deletions()) {
      deleted.add(d.r);
    }
    run.applied(deleted);
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
          || anyAtOrBelow(sweptElsewhere, component) || anyAtOrBelow(leftElsewhere, component)
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
   * Each goes with its record at the sweep's commit, and a run that dies before then (or a
   * deletion that fails, which keeps the record) must not leave it to hit when the component
   * is mounted again on the same input, skipping the states deleted meanwhile. A drop's too (a
   * drop that keeps some of a memoized component's states deletes others).
   */
  private void invalidateStaleMemos(List<Deletion> deletions, List<StateWrite> pre) {
    if (staleMemos.isEmpty()) {
      return;
    }
    Set<TargetPath> invalidated = new HashSet<>();
    for (Deletion d : deletions) {
      invalidateStaleMemosFrom(d.owner, invalidated, pre);
      for (TargetPath below : ownersBelow(d)) {
        invalidateStaleMemosFrom(below, invalidated, pre);
      }
    }
  }

  /**
   * Forgets, in the deletions' precommit, the memos of the memoized components at or above an
   * owner that failed in this run, or lie below one that did. A failed component keeps its
   * record as it was, memo included (when it failed before its first precommit), so a state it
   * or a descendant stopped declaring (deleted here: a healthy descendant's, its own once its
   * body completed, a child's it no longer mounts) was still covered by that memo: once the
   * input came back to what it was, the memo hit and the state was never declared again. (A
   * component that committed recorded what its subtree declares now; stale components' own
   * memos are {@link #invalidateStaleMemos}'s.)
   */
  private void invalidateMemosOfFailedAncestors(List<Deletion> deletions, List<StateWrite> pre) {
    if (!run.anyFailed()) {
      return;
    }
    Set<TargetPath> seen = new HashSet<>();
    for (Deletion d : deletions) {
      if (d.owner.depth() == 0) {
        continue; // the root is never memoized
      }
      for (TargetPath p = d.owner; seen.add(p); p = p.parent()) {
        if (!staleComponents.containsKey(p) && run.failedAtOrAbove(p) && !staleMemos.contains(p)
            && run.store.component(run.app, p.encoded())
                .map(c -> c.memoFingerprint() != null).orElse(false)) {
          pre.add(new StateWrite.InvalidateMemo(p.encoded(), run.version));
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
      if (staleMemos.contains(p)) {
        pre.add(new StateWrite.InvalidateMemo(p.encoded(), run.version));
      }
    }
  }

  /**
   * Forgets, in {@code writes} (a deletion's precommit, or the commit that forgets a subtree),
   * the memos of the components that own states strictly below one of {@code subtrees} and whose
   * tracking this run keeps as it was: those that failed or lie below one that did, memo hits
   * and what lies below them, components left to another worker; and those of their memoized
   * ancestors. Such states are no candidates, but the container's Delete (or its forgetting)
   * takes them along, their tracking with it (rule 8). A memo recorded when the component
   * declared them hit once it was mounted on that input again, the container declared again (its
   * child generation starting over, at the one the memo recorded), and they stayed missing for
   * good. (Stale owners' memos are forgotten by {@link #invalidateStaleMemos}; a component that
   * committed in this run recorded what it declares now.) Only a run with a failure or a
   * protected subtree reads the subtrees for their owners.
   */
  private void invalidateMemosOfOwnersKeptBelow(List<byte[]> subtrees, List<StateWrite> writes) {
    if (subtrees.isEmpty() || run.mode != RunMode.UPDATE
        || (!run.anyFailed() && !run.anyProtected())) {
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
      if (staleComponents.containsKey(owner)
          || !(run.failedAtOrAbove(owner) || run.isProtected(owner))) {
        continue;
      }
      for (TargetPath p = owner; p != null && seen.add(p); p = p.depth() == 0 ? null : p.parent()) {
        if (run.store.component(run.app, p.encoded())
            .map(c -> c.memoFingerprint() != null).orElse(false)) {
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
   * Reads the rows of the next {@link #READ_AHEAD} candidates from {@code from} on in one query
   * (a read per candidate made removing a component cost three times creating it), under their
   * leases when states are leased. A candidate the loop then skips (below a container deleted
   * meanwhile) was read, and leased, for nothing, which is harmless.
   *
   * @return the index of the first candidate not read
   */
  private int readAhead(List<Map.Entry<TargetPath, TargetPath>> ordered, int from,
      Map<ByteKey, TrackedState> rows, boolean leaseStates) {
    List<byte[]> paths = new ArrayList<>(READ_AHEAD);
    int i = from;
    for (; i < ordered.size() && paths.size() < READ_AHEAD; i++) {
      TargetPath path = ordered.get(i).getKey();
      if (run.claims.contains(path) || belowDeletedContainer(path)) {
        continue;
      }
      paths.add(path.encodedUnsafe()); // only read
    }
    if (leaseStates) {
      leases.addAll(run.store.leaseStates(run.app, paths)); // in path order, like the loop
    }
    for (TrackedState s : run.store.getAll(run.app, paths)) {
      rows.put(ByteKey.of(s.path()), s);
    }
    return i;
  }

  /**
   * The owners of the states below a container whose deletion failed keep their records: those
   * states are still tracked, and a stale owner's record is how the next run finds them
   * (deleted with the record, they stayed tracked, and in the target, for good).
   */
  private void keepOwnersBelowFailedDeletions(
      List<Deletion> deletions, Applied applied, Set<TargetPath> keptOwners) {
    if (ownersBelowDeleted.isEmpty() || applied.deletions().size() == deletions.size()) {
      return;
    }
    Set<Deletion> done = Collections.newSetFromMap(new IdentityHashMap<>());
    done.addAll(applied.deletions());
    for (Deletion d : deletions) {
      if (!done.contains(d)) {
        keptOwners.addAll(ownersBelow(d));
      }
    }
  }

  /** The owners of the candidates skipped below {@code d}'s state (a container's children). */
  private Set<TargetPath> ownersBelow(Deletion d) {
    return ownersBelowDeleted.getOrDefault(ByteKey.of(d.r.path.encodedUnsafe()), Set.of());
  }

  /** The deleted container {@code path} lies strictly below, as its encoded path, or null. */
  private byte[] deletedContainerAbove(TargetPath path) {
    return subtreeAbove(deletedContainers, path);
  }

  /**
   * Whether an ancestor of {@code path} was deleted in this sweep. Nothing below a deleted path
   * is ever added, so the deleted paths are disjoint subtrees, and in byte order an ancestor can
   * only be the greatest of them before {@code path}.
   */
  private boolean belowDeletedContainer(TargetPath path) {
    return below(deletedContainers, path);
  }

  /** Whether {@code path} lies strictly below one of {@code subtrees}, disjoint subtrees. */
  private static boolean below(TreeSet<byte[]> subtrees, TargetPath path) {
    return subtreeAbove(subtrees, path) != null;
  }

  /** The one of {@code subtrees} (disjoint) that {@code path} lies strictly below, or null. */
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
    if (!warnedProviders.add(unregistered ? name : path.parent().toString())) {
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

  /** Precommits the deletions, then applies them deepest level first. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private Applied apply(List<Deletion> deletions) {
    Set<TargetPath> failed = new HashSet<>();
    if (deletions.isEmpty()) {
      return new Applied(List.of(), List.of(), failed);
    }
    if (!run.store.exclusiveWhileLocked()) {
      List<Reconciliation> written = new ArrayList<>(deletions.size());
      deletions.forEach(d -> written.add(d.r));
      Reconciliation.noteSuperseded(run, written);
    }
    List<StateWrite> pre = new ArrayList<>();
    for (Deletion d : deletions) {
      pre.add(d.r.precommit(d.owner));
    }
    invalidateStaleMemos(deletions, pre);
    invalidateMemosOfFailedAncestors(deletions, pre);
    List<byte[]> containers = new ArrayList<>();
    for (Deletion d : deletions) {
      if (d.r.childGeneration > 0) {
        containers.add(d.r.path.encodedUnsafe());
      }
    }
    invalidateMemosOfOwnersKeptBelow(containers, pre);
    try {
      run.store.write(run.app, pre).join();
    } catch (CompletionException e) {
      for (Deletion d : deletions) {
        failed.add(d.owner);
      }
      failOwners(failed, "precommitting", e);
      return new Applied(List.of(), List.of(), failed);
    }
    TreeMap<Integer, List<Deletion>> levels = new TreeMap<>();
    for (Deletion d : deletions) {
      levels.computeIfAbsent(-d.r.depth(), k -> new ArrayList<>()).add(d);
    }
    List<StateWrite> commit = new ArrayList<>();
    List<Deletion> applied = new ArrayList<>();
    for (List<Deletion> level : levels.values()) {
      // One submission per (owner, sink): a failing owner's deletions never fail another's.
      Map<TargetPath, Map<TargetActionSink<?>, List<Deletion>>> groups = new LinkedHashMap<>();
      for (Deletion d : level) {
        groups.computeIfAbsent(d.owner, k -> new IdentityHashMap<>())
            .computeIfAbsent(d.r.sink, k -> new ArrayList<>()).add(d);
      }
      Map<CompletableFuture<Void>, List<Deletion>> pending = new HashMap<>();
      for (Map.Entry<TargetPath, Map<TargetActionSink<?>, List<Deletion>>> g : groups.entrySet()) {
        for (Map.Entry<TargetActionSink<?>, List<Deletion>> s : g.getValue().entrySet()) {
          List<TargetAction<?>> actions = new ArrayList<>();
          s.getValue().forEach(d -> actions.add(d.r.action));
          pending.put(run.batcher.submit((TargetActionSink) s.getKey(), g.getKey().toString(),
              (List) actions), s.getValue());
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
            run.fail(owner, new IllegalStateException(
                "deleting target states no longer declared by " + owner + " failed: " + cause,
                cause));
          }
        }
      }
    }
    return new Applied(applied, commit, failed);
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
