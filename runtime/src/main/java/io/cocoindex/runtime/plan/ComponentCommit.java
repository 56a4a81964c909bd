package io.cocoindex.runtime.plan;

import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.ChildTargetDef;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.codec.CodecException;
import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.MemoStamp;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends one processing component: reconciles what it declared against what was tracked, then
 * level by level (containers before their children) precommits the new possible records,
 * applies the actions through the batched sinks, and finally commits: each applied state keeps
 * only its new record.
 *
 * <p>States the component tracked but no longer declares are not deleted here: they go to the
 * end-of-run {@link OrphanSweep}, by which time any other component that took one over has
 * claimed it, so a move between components is an update, never a delete plus a create.
 */
public final class ComponentCommit {
  private static final Logger log = LoggerFactory.getLogger(ComponentCommit.class);

  /**
   * What a component hands over when its body and children are done.
   *
   * @param component the component path
   * @param declared its declarations, in order
   * @param memoFingerprint the memo input fingerprint for a memoized component, else null
   * @param stored its component record from the last run, or null
   * @param memoValues the encoded memoized-function results it used, or null
   * @param subtreeHealthy whether every descendant component succeeded
   * @param declaredInDepthOrder whether {@code declared} is already in depth order (no
   *     declaration after a deeper one), as it mostly is: then it needs no sort
   * @param declaredInPathOrder whether each of {@code declared} comes after the one before it in
   *     path order, as rows declared by ascending key do
   * @param descendantDeps what the descendants declared on (their {@link Outcome#subtreeDeps}
   *     and those of their memo hits), when this component or an ancestor is memoized; else null
   * @param descendantsPending whether a descendant left work to the orphan sweep ({@link
   *     Outcome#pending})
   * @param descendantsUnsettled whether a descendant left states to the run's settlement ({@link
   *     Outcome#unsettled})
   * @param memoizedAncestors the memoized components above this one, nearest first
   * @param inFlight the gate of components in flight whose slot it holds (one run in the
   *     foreground: its nearest background ancestor's; the root: the first level's), which its
   *     size is reported to
   */
  public record Input(
      TargetPath component,
      List<DeclaredTarget> declared,
      byte[] memoFingerprint,
      ComponentRecord stored,
      byte[] memoValues,
      boolean subtreeHealthy,
      boolean declaredInDepthOrder,
      boolean declaredInPathOrder,
      List<MemoDependencies.Dependency> descendantDeps,
      boolean descendantsPending,
      boolean descendantsUnsettled,
      List<TargetPath> memoizedAncestors,
      LeaseGate inFlight) {}

  /**
   * What a committed component tells its parent.
   *
   * @param pending whether it or a descendant left work to the orphan sweep (states no longer
   *     declared, components no longer mounted): a memoized ancestor's memo waits for the sweep
   * @param subtreeDeps what it and its descendants declared on, when asked for (else empty): a
   *     memoized ancestor is invalidated by their containers' invalidation too
   * @param unsettled whether it or a descendant left applied states to the run's settlement: a
   *     memoized ancestor's memo holds only once the run is settled
   */
  public record Outcome(
      boolean pending, List<MemoDependencies.Dependency> subtreeDeps, boolean unsettled) {
    static final Outcome NONE = new Outcome(false, List.of(), false);

    /** What a component left to another worker tells its parent: its memo cannot be known. */
    public static final Outcome LEFT_ELSEWHERE = new Outcome(true, List.of(), false);
  }

  private final Run run;
  private final Input in;
  /** Where stages after a wait run: the run's pool, or the waiting thread. */
  private final Executor stages;
  private final List<Reconciliation> results;
  /**
   * Stored rows by encoded path (decoding every owned path's keys would cost more than all else):
   * those taken over from other components, and the owned ones when the declarations could not be
   * matched in path order ({@link #matchByPath}). Its table is allocated at the first put only.
   */
  private final Map<ByteKey, TrackedState> rows;
  /** The components that owned states this one takes over (see {@link #load}). */
  private Set<TargetPath> tookFrom = Set.of();
  /**
   * The state each declaration (by its index in {@code in.declared}) found among those the
   * component owned, or null: looked up once, when loading (a second lookup to reconcile was a
   * hash, a probe and a comparison of the path's bytes more per state). Null on a first run.
   */
  private TrackedState[] ownedByDeclaration;
  /** Whether any declaration was not among the owned states (new, or taken over). */
  private boolean acquiredAny;
  private final List<TrackedState> undeclaredOwned = new ArrayList<>();
  /** Leases of the states taken over from another component, held until the commit. */
  private final List<AutoCloseable> stateLeases = new ArrayList<>();
  private volatile boolean componentPrecommitted;
  /** Set by {@link #componentRecord}. */
  private volatile Outcome outcome = Outcome.NONE;
  /** Whether the commit writes the component's memo stamped with the run ({@link MemoStamp}). */
  private boolean memoStamped;
  /** States that were containers and are declared without a child provider now; or null. */
  private List<TargetPath> formerContainers;

  private ComponentCommit(Run run, Input in, Executor stages) {
    this.run = run;
    this.in = in;
    this.stages = stages;
    // Sized for what the component declares and owned last run: grown step by step, the maps
    // here were a few percent of a warm run.
    int declared = in.declared.size();
    long owned = in.stored == null ? 0 : Math.min(in.stored.stateCount(), 1 << 20);
    this.rows = new HashMap<>(capacityFor(Math.max(declared, (int) owned)));
    this.results = new ArrayList<>(declared);
  }

  /** A hash table capacity that holds {@code n} entries without growing. */
  private static int capacityFor(int n) {
    return n + n / 3 + 1;
  }

  /**
   * Reconciles, and in an update applies and commits, the component's declarations; its stages
   * after a wait run on {@code stages} (the run's pool, or a {@link CallerRuns}).
   *
   * @param run the run
   * @param in the component's declarations, stored record and what its subtree reported
   * @param stages where stages after a wait run
   * @return completes with what the component tells its parent once committed (at once, with
   *     nothing, in a drop), exceptionally with what failed its apply or commit
   * @throws RunAborted if the run has stopped early
   * @throws RuntimeException what failed the commit before any wait (a state claimed by another
   *     component, say), thrown at once
   */
  public static CompletableFuture<Outcome> run(Run run, Input in, Executor stages) {
    if (run.mode == RunMode.DROP) {
      return CompletableFuture.completedFuture(Outcome.NONE);
    }
    run.checkNotAborted();
    ComponentCommit c = new ComponentCommit(run, in, stages);
    try {
      c.claim(c.load());
      c.reconcileAll();
      if (run.mode == RunMode.PREVIEW) {
        c.plan();
        c.offerOrphans(); // a preview takes no leases
        return CompletableFuture.completedFuture(Outcome.NONE);
      }
      if (!run.store.exclusiveWhileLocked()) {
        Reconciliation.noteSuperseded(run, c.results);
      }
      c.reportSize();
      return PoolStages.then(c.applyLevels(), v -> c.commit(), stages)
          .whenComplete((v, e) -> {
            c.releaseStateLeases();
            if (e != null) {
              // Its body completed, so what it no longer declares is known: deleted by the sweep
              // as after a success. Kept, a deletion the failed apply waits for (a duplicate row
              // under a new UNIQUE index) would fail every run again (a success offers them in
              // its commit).
              c.offerOrphans();
            }
          })
          .thenApply(v -> c.outcome);
    } catch (RuntimeException | Error e) {
      c.releaseStateLeases();
      throw e;
    }
  }

  private void claim(Claims.Declarations declarations) {
    Claims.Conflict c = run.claims.claim(declarations);
    if (c != null) {
      throw c.error(in.component);
    }
  }

  /**
   * Reads the states the component owned, and those it declares that another component owned
   * (it takes them over); returns what it declared, split by what it owned, for its claim.
   */
  private Claims.Declarations load() {
    if (run.startedEmpty) {
      // A first run: nothing is tracked, by this component or any other.
      return Claims.Declarations.allAcquired(in.component, in.declared);
    }
    // A component's record is written with (or before) the first state it owns: without one,
    // it owns nothing.
    List<TrackedState> owned = in.stored == null ? List.of() : run.storedStates(in.component);
    List<DeclaredTarget> acquired = new ArrayList<>();
    List<byte[]> missing = new ArrayList<>();
    ownedByDeclaration = new TrackedState[in.declared.size()];
    if (!matchInPathOrder(owned, acquired, missing)) {
      acquired.clear();
      missing.clear();
      undeclaredOwned.clear();
      Arrays.fill(ownedByDeclaration, null);
      matchByPath(owned, acquired, missing);
    }
    acquiredAny = !acquired.isEmpty();
    List<byte[]> takenOver = new ArrayList<>();
    Map<ByteKey, TargetPath> previousOwners = Map.of();
    for (TrackedState s : run.store.getAll(run.app, missing)) {
      ByteKey path = ByteKey.of(s.path());
      rows.put(path, s);
      takenOver.add(s.path());
      if (previousOwners.isEmpty()) {
        previousOwners = new HashMap<>();
      }
      previousOwners.put(path, TargetPath.decode(s.owner()));
    }
    tookFrom = previousOwners.isEmpty() ? Set.of() : new HashSet<>(previousOwners.values());
    if (!takenOver.isEmpty() && run.mode != RunMode.PREVIEW
        && !run.store.exclusiveWhileLocked()) {
      leaseTakenOver(takenOver);
    }
    return new Claims.Declarations(in.component, in.declared, acquired, previousOwners);
  }

  /**
   * Forgets the memos of the components this one took states from, and of their ancestors: a
   * memo stands for the states its subtree owns, and a hit would not declare a taken state
   * again. Two workers that read the source before and after it changed can take a state back
   * and forth in one round; the memo of the component that lost it then hid it from every later
   * round, and the state was deleted as the other's orphan. A memo forgotten for nothing only
   * makes its component run once more.
   */
  private void forgetMemosOfPreviousOwners(List<StateWrite> writes) {
    Set<TargetPath> forgotten = new HashSet<>();
    for (TargetPath owner : tookFrom) {
      for (TargetPath p = owner; p != null && !p.equals(in.component) && forgotten.add(p);
          p = p.depth() == 0 ? null : p.parent()) {
        writes.add(new StateWrite.ForgetMemo(p.encoded()));
      }
    }
  }

  /**
   * Matches the declarations with the owned states by walking both in path order, as a merge
   * join, hashing no path: the owned states come in path order, and declarations mostly do too
   * (rows by ascending key, chunks by ordinal: key encoding keeps their order). Notes each
   * declaration's owned state, the declarations acquired (with their paths, in {@code acquired}
   * and {@code missing}) and the owned states no longer declared. Returns false when the
   * declarations are not in path order; at the first owned state out of path order (a store need
   * not return them in order), stops and returns false, leaving the lists for the caller to clear.
   */
  private boolean matchInPathOrder(
      List<TrackedState> owned, List<DeclaredTarget> acquired, List<byte[]> missing) {
    if (!in.declaredInPathOrder) {
      return false;
    }
    List<DeclaredTarget> declared = in.declared;
    int j = 0;
    for (int i = 0; i < declared.size(); i++) {
      DeclaredTarget d = declared.get(i);
      byte[] path = d.path().encodedUnsafe(); // only read
      int order = -1;
      while (j < owned.size() && (order = Arrays.compareUnsigned(owned.get(j).path(), path)) < 0) {
        if (!ownedInOrder(owned, j)) {
          return false;
        }
        undeclaredOwned.add(owned.get(j++));
      }
      if (j < owned.size() && order == 0) {
        if (!ownedInOrder(owned, j)) {
          return false;
        }
        ownedByDeclaration[i] = owned.get(j++);
      } else {
        acquired.add(d);
        missing.add(path);
      }
    }
    for (; j < owned.size(); j++) {
      if (!ownedInOrder(owned, j)) {
        return false;
      }
      undeclaredOwned.add(owned.get(j));
    }
    return true;
  }

  /** Whether owned state {@code j} comes after the one before it, in path order. */
  private static boolean ownedInOrder(List<TrackedState> owned, int j) {
    return j == 0 || Arrays.compareUnsigned(owned.get(j - 1).path(), owned.get(j).path()) < 0;
  }

  /** As {@link #matchInPathOrder}, for declarations in any order: through a table of paths. */
  private void matchByPath(
      List<TrackedState> owned, List<DeclaredTarget> acquired, List<byte[]> missing) {
    for (TrackedState s : owned) {
      rows.put(ByteKey.of(s.path()), s);
    }
    int i = 0;
    for (DeclaredTarget d : in.declared) {
      TrackedState s = rows.get(d.path().key());
      if (s == null) {
        acquired.add(d);
        missing.add(d.path().encodedUnsafe()); // only read
      } else {
        ownedByDeclaration[i] = s;
      }
      i++;
    }
    if (in.declared.size() - acquired.size() < owned.size()) {
      // Paths are distinct on both sides, so a count tells whether any owned state is no longer
      // declared: a set of the declared paths is built only then (most reruns declare them all).
      Set<ByteKey> declaredPaths = new HashSet<>(capacityFor(in.declared.size()));
      for (DeclaredTarget d : in.declared) {
        declaredPaths.add(d.path().key());
      }
      for (TrackedState s : owned) {
        if (!declaredPaths.contains(ByteKey.of(s.path()))) {
          undeclaredOwned.add(s);
        }
      }
    }
  }

  /**
   * On a store shared by concurrent workers, holds the leases of the states this component takes
   * over from another until its commit, and reads them again under the leases: the old owner's
   * worker may be deleting them in its orphan sweep right now (see {@link
   * io.cocoindex.runtime.state.StateStore#leaseState}).
   */
  private void leaseTakenOver(List<byte[]> paths) {
    paths.sort(Arrays::compareUnsigned);
    stateLeases.addAll(run.store.leaseStates(run.app, paths));
    for (byte[] path : paths) {
      rows.remove(ByteKey.of(path));
    }
    for (TrackedState s : run.store.getAll(run.app, paths)) {
      rows.put(ByteKey.of(s.path()), s);
      // Another worker's component may have taken it over while this one waited for the lease:
      // its memo is forgotten too (a hit would not declare the state this component takes).
      TargetPath owner = TargetPath.decode(s.owner());
      if (!owner.equals(in.component)) {
        tookFrom.add(owner);
      }
    }
  }

  private void releaseStateLeases() {
    for (AutoCloseable lease : stateLeases) {
      try {
        lease.close();
      } catch (Exception e) {
        log.warn("releasing a target state lease of {} failed", in.component, e);
      }
    }
    stateLeases.clear();
  }

  private void reconcileAll() {
    // Containers before their children. The sort cost a tenth of a component's samples even
    // when it moved nothing; the context knows whether it would.
    List<DeclaredTarget> declared = in.declared;
    int[] order = null;
    if (!in.declaredInDepthOrder) {
      order = IntStream.range(0, declared.size()).boxed()
          .sorted(Comparator.comparingInt(k -> declared.get(k).path().depth()))
          .mapToInt(Integer::intValue).toArray();
    }
    for (int k = 0; k < declared.size(); k++) {
      int index = order == null ? k : order[k];
      DeclaredTarget d = declared.get(index);
      Provider<?> p = d.provider();
      if (!p.isResolved()) {
        throw new IllegalStateException(
            "cannot declare key " + d.key() + " on provider '" + p.name() + "': "
                + p.unresolvedMessage());
      }
      p.checkKeyBesideAttachments(d.key());
      // A first run loads nothing, and needs no key per state to find it.
      TrackedState row = ownedByDeclaration == null ? null : ownedByDeclaration[index];
      if (row == null && acquiredAny) {
        row = rows.get(d.path().key()); // taken over from another component, if anyone had it
      }
      boolean fresh = row == null || row.parentGeneration() < p.generation();
      boolean lossyFromParent = !fresh && row.parentEpoch() < p.epoch();
      boolean mayBeMissing = fresh || row.mayBeMissing() || lossyFromParent || run.fullReprocess;
      Object desired;
      try {
        desired = d.desired();
      } catch (CodecException e) {
        throw new IllegalStateException(
            "cannot deserialize the value declared for key " + d.key() + " of provider '"
                + p.name() + "': " + e.getMessage(), e);
      }
      Reconciliation r = Reconciliation.reconcile(
          run, p, d.key(), d.path(), row, fresh, desired, mayBeMissing);
      if (d.childProvider() != null) {
        resolveChildren(d, r, fresh, lossyFromParent);
      } else if (row != null && row.childGeneration() > 0) {
        // A container declared again without children: its commit starts a child generation
        // nothing below it is in, and once committed, the sweep forgets what is tracked there.
        r.takeChildrenAlong();
        if (formerContainers == null) {
          formerContainers = new ArrayList<>();
        }
        formerContainers.add(d.path());
      }
      results.add(r);
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void resolveChildren(
      DeclaredTarget d, Reconciliation r, boolean fresh, boolean lossyFromParent) {
    Provider<?> child = d.childProvider();
    if (r.action == null || r.action instanceof TargetAction.Delete) {
      child.markUnresolved(
          "the container handler returned " + (r.action == null ? "no action" : "a Delete")
              + " for " + d.path() + " (provider '" + d.provider().name()
              + "'): a container handler must return a Create or an Update on every run the"
              + " container is declared");
      return;
    }
    Optional<ChildHandlerFactory<?>> factory = (Optional) r.sink.childHandlerFactory();
    if (factory.isEmpty()) {
      child.markUnresolved(
          "the sink returned for container " + d.path() + " (provider '" + d.provider().name()
              + "') has no child-handler factory: build it with TargetActionSink.withChildHandler");
      return;
    }
    ChildTargetDef<?> def;
    try {
      def = ((ChildHandlerFactory) factory.get())
          .childHandler(r.provider.binding().handler(), r.action.value());
    } catch (Exception e) {
      throw new IllegalStateException(
          "the child-handler factory of container " + d.path() + " (provider '"
              + d.provider().name() + "') failed: " + e, e);
    }
    if (def == null) {
      throw new IllegalStateException("the child-handler factory of container " + d.path()
          + " (provider '" + d.provider().name() + "') returned null: it must return the"
          + " children's handler, ChildTargetDef.of(handler)");
    }
    // What the children's handler found when it was built (a container removed by hand) counts
    // as the container handler's own invalidation: bumped before any memo over the children is
    // checked against the generation and epoch resolved here, so those memos miss.
    TargetChildInvalidation found = def.handler().childInvalidationFound();
    // Only a DESTRUCTIVE discards the children's records: a container handler may return a
    // Create for a container that exists (an "ensure", or whenever prev may be missing), and its
    // children must still be reconciled against what they were, undeclared ones deleted.
    // A state that never had children (declared without them first: a file that became a
    // directory) has child generation 0, which every check of "was a container" reads as none:
    // its first children start a generation above 0, as a new container's do, so that declared
    // without children again it starts a new one over them (Reconciliation#takeChildrenAlong).
    boolean destroyed = fresh || r.invalidation == TargetChildInvalidation.DESTRUCTIVE
        || found == TargetChildInvalidation.DESTRUCTIVE || r.childGeneration == 0;
    if (destroyed) {
      r.childGeneration = r.childGeneration == 0
          ? firstGeneration() : r.childGeneration + 1;
      r.childEpoch++;
    } else if (r.invalidation == TargetChildInvalidation.LOSSY
        || found == TargetChildInvalidation.LOSSY || lossyFromParent) {
      r.childEpoch++;
    }
    r.childrenResolvedAgain();
    child.resolve(def.handler(), r.childGeneration, r.childEpoch, run.codecs);
  }

  /**
   * The first child generation of a container that has none tracked (new, or deleted and
   * declared again): the run's version. Every generation its path had was set by an earlier
   * run, one above the last at most, so none reaches this one; counting from 1 again, a child
   * another worker resolved below the deleted container would find it "unchanged" and be
   * written in it ({@link StateWrite.ContainerUnchanged}), and a memo recorded over the old
   * generation would hold.
   */
  private long firstGeneration() {
    return Math.max(1, run.version);
  }

  private void plan() {
    for (Reconciliation r : results) {
      if (r.hasAction()) {
        run.planned.add(new Run.Planned(
            new PlannedAction(r.provider.name(), r.key, r.action), r.isRefresh()));
      }
    }
  }

  private void offerOrphans() {
    for (TrackedState s : undeclaredOwned) {
      run.orphanCandidates.add(
          new Run.OrphanCandidate(s.path(), in.component, s.childGeneration() > 0));
    }
  }

  /** Per level: precommit its states, then apply their actions; a failure stops the chain. */
  private CompletableFuture<Void> applyLevels() {
    // Counted first, so that each level's list is allocated once at its size (grown from ten,
    // the lists of a component of 100 rows were copied five times).
    TreeMap<Integer, int[]> sizes = new TreeMap<>();
    for (Reconciliation r : results) {
      if (r.hasAction()) {
        sizes.computeIfAbsent(r.depth(), k -> new int[1])[0]++;
      }
    }
    TreeMap<Integer, List<Reconciliation>> levels = new TreeMap<>();
    sizes.forEach((depth, n) -> levels.put(depth, new ArrayList<>(n[0])));
    for (Reconciliation r : results) {
      if (r.hasAction()) {
        levels.get(r.depth()).add(r);
      }
    }
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    boolean first = true;
    boolean memosInvalidated = false;
    for (List<Reconciliation> level : levels.values()) {
      List<StateWrite> component = new ArrayList<>(1);
      if (first) {
        StateWrite record = precommitComponent();
        if (record != null) {
          component.add(record);
        }
        // A precommit gives the states taken over to this component: a run that fails (or
        // dies) before its commit must not leave their previous owners' memos holding, or a
        // source that goes back has them hit, declare nothing, and the sweep delete the states.
        if (!tookFrom.isEmpty()) {
          forgetMemosOfPreviousOwners(component);
        }
      }
      if (!memosInvalidated && changesRows(level)) {
        invalidateMemos(component);
        memosInvalidated = true;
      }
      first = false;
      chain = PoolStages.then(chain, v -> precommitAndApply(level, component), stages);
    }
    return chain;
  }

  /** Whether a precommit of {@code level} changes a row (not only refreshes containers). */
  private boolean changesRows(List<Reconciliation> level) {
    for (Reconciliation r : level) {
      if (!r.leavesRowAsIs(in.component)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The component record as of the first precommit: it must exist before any write can land
   * (so a crash leaves the component findable by the sweep once it is unmounted), and a memo
   * recorded earlier must not outlive a run that fails half-way through its actions.
   */
  private StateWrite precommitComponent() {
    ComponentRecord s = in.stored;
    if (s != null && s.memoFingerprint() == null) {
      return null;
    }
    componentPrecommitted = true;
    return new StateWrite.PutComponent(s == null
        ? new ComponentRecord(in.component.encoded(), null, null, null, 0)
        : new ComponentRecord(s.path(), null, s.memoDependencies(), s.memoValues(),
            s.stateCount()), run.version);
  }

  /**
   * Forgets the memos standing for a subtree in which a row is about to change, in the same
   * write as the first such precommit:
   *
   * <ul>
   *   <li>the memoized ancestors': each one's new memo is recorded only by its own commit, after
   *       this one's. A run that died in between, followed by a source as it was before that
   *       run, had the old memo hit and skip the change for good. Once per ancestor and run,
   *       once a write of it has committed;
   *   <li>on a store shared by workers, this component's own too, if memoized (for a store with
   *       one writer, {@link #precommitComponent} did): a worker that processed it before this
   *       run may still write the memo it held back for its sweep ({@link Run#deferMemo}), and
   *       so may one that processed an ancestor. The mark the store keeps for this run's
   *       version keeps those memos out, and lets this run's own in.
   * </ul>
   */
  private void invalidateMemos(List<StateWrite> writes) {
    if (in.memoFingerprint != null && !run.store.exclusiveWhileLocked()) {
      componentPrecommitted = true;
      writes.add(new StateWrite.InvalidateMemo(in.component.encoded(), run.version));
    }
    invalidateAncestorMemos(writes);
  }

  /** Forgets the memos of the memoized ancestors not forgotten in this run yet. */
  private void invalidateAncestorMemos(List<StateWrite> writes) {
    for (TargetPath a : in.memoizedAncestors) {
      if (!run.isMemoInvalidated(a)) {
        writes.add(new StateWrite.InvalidateMemo(a.encoded(), run.version));
      }
    }
  }

  /** Notes the memos the committed {@code writes} forgot (see {@link #invalidateMemos}). */
  private void notedInvalidated(List<StateWrite> writes) {
    for (StateWrite w : writes) {
      if (w instanceof StateWrite.InvalidateMemo im) {
        run.memoInvalidated(TargetPath.decode(im.path()));
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private CompletableFuture<Void> precommitAndApply(
      List<Reconciliation> level, List<StateWrite> component) {
    List<StateWrite> writes = new ArrayList<>(level.size() + component.size());
    writes.addAll(component);
    for (Reconciliation r : level) {
      // A container refreshed as it was (it returns an action on every run) needs no write:
      // a rerun in which nothing changed leaves the store untouched.
      if (!r.leavesRowAsIs(in.component)) {
        writes.add(r.precommit(in.component));
      }
    }
    if (!run.store.exclusiveWhileLocked()) {
      ContainerChecks.addConditions(run, level, in.component, writes);
    }
    run.checkNotAborted();
    CompletableFuture<Void> precommitted = writes.isEmpty()
        ? CompletableFuture.completedFuture(null) : run.store.write(run.app, writes);
    return PoolStages.then(precommitted, v -> {
      run.checkNotAborted(); // nothing is applied once the run stops: as after a crash here
      if (!component.isEmpty()) {
        notedInvalidated(component);
      }
      if (!run.store.exclusiveWhileLocked()) {
        ContainerChecks.refuseWhileChildrenInFlight(run, level);
      }
      Map<TargetActionSink<?>, List<Reconciliation>> bySink = new IdentityHashMap<>();
      List<TargetActionSink<?>> order = new ArrayList<>();
      for (Reconciliation r : level) {
        bySink.computeIfAbsent(r.sink, s -> {
          order.add(s);
          return new ArrayList<>(order.size() == 1 ? level.size() : 10); // mostly one sink
        }).add(r);
      }
      List<CompletableFuture<Void>> applied = new ArrayList<>(order.size());
      for (TargetActionSink<?> sink : order) {
        List<Reconciliation> forSink = bySink.get(sink);
        // A view: the batcher copies the actions once, as it did the list they were put in.
        List<TargetAction<?>> actions = new AbstractList<>() {
          @Override
          public TargetAction<?> get(int i) {
            return forSink.get(i).action;
          }

          @Override
          public int size() {
            return forSink.size();
          }
        };
        applied.add(run.batcher.submit((TargetActionSink) sink, in.component, (List) actions,
            () -> SinkContexts.applying(forSink, null)));
      }
      return CompletableFuture.allOf(applied.toArray(CompletableFuture[]::new));
    }, stages);
  }

  private CompletableFuture<Void> commit() {
    List<StateWrite> writes = new ArrayList<>();
    List<Reconciliation> applied = new ArrayList<>(results.size());
    boolean settledByRun = false;
    // States left as they were: counted, then added once for each stretch of one provider's.
    String unchangedOf = null;
    long unchanged = 0;
    for (Reconciliation r : results) {
      if (r.hasAction()) {
        if (!r.precommitted()) {
          // Its row was left as it is: there is nothing to settle.
        } else if (run.settlesByRun && r.settledByRun(in.component)) {
          settledByRun = true;
        } else {
          writes.add(r.commitApplied(in.component));
        }
        applied.add(r);
      } else {
        if (!r.provider.name().equals(unchangedOf)) {
          if (unchanged > 0) {
            run.stats.unchanged(unchangedOf, unchanged);
          }
          unchangedOf = r.provider.name();
          unchanged = 0;
        }
        unchanged++;
        StateWrite w = confirmUnchanged(r);
        if (w != null) {
          writes.add(w);
        }
      }
    }
    if (unchanged > 0) {
      run.stats.unchanged(unchangedOf, unchanged);
    }
    StateWrite component = componentRecord(settledByRun || in.descendantsUnsettled);
    if (component != null) {
      writes.add(component);
    }
    if (!tookFrom.isEmpty()) {
      forgetMemosOfPreviousOwners(writes);
      // The states taken over as they were move here at this commit, with no precommit: the
      // memos of the memoized ancestors no longer stand for what their subtrees own (one that
      // fails keeps its record, and its memo would carry the taken states forward).
      invalidateAncestorMemos(writes);
    }
    if (!writes.isEmpty() && !run.store.exclusiveWhileLocked()) {
      // Its claim is marked finished with the commit, not only as its lease is given back: a
      // worker dying in between would leave it to be taken over, with an older input maybe.
      writes.add(new StateWrite.ComponentDone(in.component.encoded(), run.version));
    }
    boolean leftToRun = settledByRun;
    Runnable committed = () -> {
      if (leftToRun) {
        run.settledByRun.add(in.component);
      }
      if (memoStamped) {
        run.memoStamped(in.component);
      }
      if (formerContainers != null) {
        formerContainers.forEach(run::declaredWithoutChildren);
      }
      run.applied(applied);
      offerOrphans();
    };
    if (writes.isEmpty()) {
      committed.run();
      return CompletableFuture.completedFuture(null);
    }
    run.checkNotAborted();
    return run.store.write(run.app, writes).thenRun(committed);
  }

  /**
   * Reports the component's size to its gate of components in flight when it changes
   * something: more such components in flight make larger batches for the sink and the store. A
   * rerun that changes nothing has nothing to batch (a container's refresh aside) and keeps the
   * fewest in flight. Reported as soon as the actions are known, before the waits for the store
   * and the sink, so that large components narrow the gate before many more are admitted.
   */
  private void reportSize() {
    for (Reconciliation r : results) {
      if (r.hasAction() && !r.isRefresh()) {
        in.inFlight.reportSize(in.declared.size());
        return;
      }
    }
  }

  /** Records ownership moves and confirmed (or reset) generations of a state left as it was. */
  private StateWrite confirmUnchanged(Reconciliation r) {
    TrackedState row = r.row;
    if (row == null) {
      return null;
    }
    if (row.parentGeneration() < r.provider.generation()) {
      // Its container was destroyed and the handler wants nothing: nothing is known to exist,
      // below it either (a container's children must not outlive its row: a new row restarts
      // their generation, and they would pass for current).
      return new StateWrite.DeleteTree(row.path());
    }
    // Not copied: read here, and stored as is by the write below (a copy per state was 1.6% of
    // what a warm rerun allocated).
    byte[] owner = in.component.encodedUnsafe();
    boolean same = Arrays.equals(row.owner(), owner)
        && row.parentEpoch() == r.provider.epoch()
        && row.childGeneration() == r.childGeneration
        && row.childEpoch() == r.childEpoch;
    if (same) {
      return null;
    }
    return new StateWrite.Confirm(new TrackedState(row.path(), owner, row.records(),
        r.childGeneration, r.childEpoch, row.parentGeneration(), r.provider.epoch()), row);
  }

  /**
   * The component's record, when it changed; {@code leftToRun}: states it or its descendants
   * applied wait for the run's settlement.
   */
  private StateWrite componentRecord(boolean leftToRun) {
    // Counted per run of declarations on one provider (they mostly come so): a table lookup per
    // declaration was a percent of a warm rerun.
    Map<Provider<?>, long[]> counts = new LinkedHashMap<>();
    Provider<?> current = null;
    long[] count = null;
    for (DeclaredTarget d : in.declared) {
      if (d.provider() != current) {
        current = d.provider();
        count = counts.computeIfAbsent(current, k -> new long[1]);
      }
      count[0]++;
    }
    List<MemoDependencies.Dependency> deps = new ArrayList<>();
    for (Map.Entry<Provider<?>, long[]> e : counts.entrySet()) {
      Provider<?> p = e.getKey();
      byte[] container = p.container() == null ? new byte[0] : p.container().encoded();
      deps.add(new MemoDependencies.Dependency(
          p.name(), container, p.generation(), p.epoch(), e.getValue()[0]));
    }
    // A memo stands for the whole subtree, which a hit skips: it depends on what every
    // descendant declared on as well.
    List<MemoDependencies.Dependency> subtree = in.descendantDeps == null
        ? deps : MemoDependencies.merge(deps, in.descendantDeps);
    byte[] memo = in.subtreeHealthy ? in.memoFingerprint : null;
    List<MemoDependencies.Dependency> recorded = memo != null ? subtree : deps;
    byte[] depBytes = recorded.isEmpty() ? null : MemoDependencies.encode(recorded);
    // States left to the run's settlement are settled only when it is: so is the memo.
    byte[] memoStored = memo != null && leftToRun ? MemoStamp.stamped(memo, run.version) : memo;
    boolean pending = !undeclaredOwned.isEmpty() || in.descendantsPending;
    if (memo != null && (pending || run.hasStaleComponentsBelow(in.component))) {
      // Recorded once the sweep has deleted what the subtree no longer has (see Run#deferMemo).
      run.deferMemo(in.component, new ComponentRecord(
          in.component.encoded(), memoStored, depBytes, in.memoValues, in.declared.size()));
      memo = null;
      memoStored = null;
      pending = true;
    } else if (memoStored != null && leftToRun) {
      memoStamped = true;
    }
    outcome = new Outcome(
        pending, in.descendantDeps == null ? List.of() : subtree, leftToRun);
    ComponentRecord prev = in.stored;
    if (prev == null && memo == null && depBytes == null && in.memoValues == null) {
      return null;
    }
    if (prev != null
        && !componentPrecommitted
        && !run.isMemoInvalidated(in.component)
        && Arrays.equals(prev.memoFingerprint(), memo)
        && Arrays.equals(prev.memoDependencies(), depBytes)
        && Arrays.equals(prev.memoValues(), in.memoValues)
        && prev.stateCount() == in.declared.size()) {
      return null; // as it was: built only when written (a copy of its path, on every rerun)
    }
    return new StateWrite.PutComponent(new ComponentRecord(
        in.component.encoded(), memoStored, depBytes, in.memoValues, in.declared.size()),
        run.version);
  }
}
