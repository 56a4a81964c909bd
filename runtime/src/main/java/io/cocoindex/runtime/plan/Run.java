package io.cocoindex.runtime.plan;

import io.cocoindex.ContextKey;
import io.cocoindex.runtime.ComponentFailure;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.Preview;
import io.cocoindex.runtime.apply.SinkBatcher;
import io.cocoindex.runtime.apply.SinkFailure;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.MemoStamp;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import io.cocoindex.runtime.threads.ComponentPool;
import io.cocoindex.runtime.threads.SharedThreads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The shared state of one update, preview or drop: providers, which component declared which
 * target state, which components ran, what is left for the orphan sweep, and the statistics.
 */
public final class Run {
  /** The name of the app this run updates, previews or drops. */
  public final String app;
  /** Whether this run updates, previews or drops. */
  public final RunMode mode;
  /** Whether memos are ignored: every component runs its body again. */
  public final boolean fullReprocess;
  /** The run's version in the store, which stamps what it writes. */
  public final long version;
  /** The store the app's tracking is read from and written to. */
  public final StateStore store;
  /** Encodes and decodes keys, values and memo inputs. */
  public final CodecRegistry codecs;
  /** The providers registered in this run, by name. */
  public final ProviderRegistry providers;
  /** Groups the run's sink calls into batches per handler. */
  public final SinkBatcher batcher;
  /** The pool the run's components run on. */
  public final ComponentPool componentPool;
  /** What the run applied, by provider, and its other counts. */
  public final RunStats stats = new RunStats();
  /**
   * Bound the background components in flight at once (from their start to their commit), a
   * gate per nesting level ({@link #inFlight}): their declarations are held in memory until they
   * commit, and on a store shared by workers each holds a lease (an advisory lock on
   * PostgreSQL), which the other workers should find free (there the bound stays fixed).
   */
  private volatile LeaseGate[] inFlight;
  /** Leases background components in batches (one store round trip for several). */
  public final LeaseBatcher leases;
  /**
   * On a store shared by workers, bounds the components leased ahead of their start (their lease
   * requested or taken, their body waiting for a thread of the pool): as many as the pool would
   * start in {@link #LEASE_AHEAD_HORIZON_MICROS}, by the running mean of the time a body holds a
   * thread, and {@link #LEASED_AHEAD_PER_THREAD} per thread at least, widened by a slot per
   * component skipped as another worker's until one is taken ({@link LeaseGate#reportSkipped}).
   * A worker then claims
   * little more than it is about to run, and leaves the rest of the round to the other workers:
   * with the in-flight bound alone, a worker leased 64 slow components at once and ran them two
   * at a time while the others, finding them claimed, had nothing to do (a round of 19 all went
   * to one worker). Quick components are leased in batches as large as before, whose round
   * trips a fixed two per thread made the bottleneck. Only the first level's components (the
   * gate {@code inFlight(0)}) are leased within it: below, another worker cannot run one while
   * this one holds its ancestor's lease. Null on a store with one writer.
   */
  public final LeaseGate leasedAhead;
  /** Components leased ahead of their start per thread of the pool at least, on a shared store. */
  public static final int LEASED_AHEAD_PER_THREAD = 2;
  /** How far ahead of their start, in a thread's time, components are leased on a shared store. */
  static final long LEASE_AHEAD_HORIZON_MICROS = 200_000;

  /** Components in flight at once at least; enough to fill sink batches of large components. */
  private static final int MIN_IN_FLIGHT = 64;
  /** Components in flight at once at most, when each declares few states. */
  private static final int MAX_IN_FLIGHT = 256;
  /** About how many declared states the components in flight hold, on an exclusive store. */
  private static final long STATES_IN_FLIGHT = 32_768;
  /**
   * Memo checks (fingerprint a memoized child's input, read its record) queued on the pool at
   * once; past this the mounting component checks inline. Each holds its input until it runs.
   */
  public final Semaphore memoCheckSlots = new Semaphore(MEMO_CHECKS_QUEUED);

  private static final int MEMO_CHECKS_QUEUED = 32;
  /** When the run started, by {@link System#nanoTime()}. */
  public long startNanos = System.nanoTime();
  /** See {@link #storedStates}; null on a store shared by workers. */
  private final StateReadAhead statesAhead;
  /** See {@link #storedComponent}; null on a store shared by workers. */
  private final ComponentScan componentScan;
  private final Map<ContextKey<?>, Object> context;
  /** See {@link #memoContainer}. */
  private final Map<ByteKey, TargetPath> memoContainers = new ConcurrentHashMap<>();

  /**
   * The app tracked no state when the run started and no other process can write meanwhile: a
   * path no component of this run has written cannot be tracked, so components skip looking
   * for states they take over (every path of a first run).
   */
  final boolean startedEmpty;

  /**
   * Applied states are settled by recording the run as settled when it completes, not one by
   * one (see {@link RunSettlement}).
   */
  final boolean settlesByRun;
  /**
   * Components whose applied states wait for the run to be recorded as settled: in a cold run,
   * every one, so their paths' bytes only.
   */
  final PathLog settledByRun = new PathLog();

  /** Target state path -> the component that declared it in this run. */
  final Claims claims;
  /** Components mounted in this run (none in a drop, which removes every one). */
  final MountedComponents visited = new MountedComponents();
  /**
   * The paths declared by component bodies that then threw (their declarations discarded): the
   * sweep keeps them, so that a state moved to a component that failed is not deleted under it.
   */
  private final Set<ByteKey> declaredByFailedBodies = ConcurrentHashMap.newKeySet();

  /**
   * A component body declared {@code declared}, and then threw.
   *
   * @param declared the targets the body declared before it threw (discarded)
   */
  public void failedBodyDeclared(List<DeclaredTarget> declared) {
    for (DeclaredTarget d : declared) {
      declaredByFailedBodies.add(d.path().key());
    }
  }

  /** Whether a component body that then threw declared {@code path} in this run. */
  boolean declaredByAFailedBody(TargetPath path) {
    return !declaredByFailedBodies.isEmpty() && declaredByFailedBodies.contains(path.key());
  }

  /** Subtrees whose tracking must be left alone: memo hits, failed bodies. */
  private final Subtrees protectedSubtrees = new Subtrees();
  /** Components skipped because another worker held or had claimed them in this round. */
  final ConcurrentLinkedQueue<TargetPath> leasedElsewhere = new ConcurrentLinkedQueue<>();
  /** States a component owned but did not declare, checked by the sweep at the end. */
  final ConcurrentLinkedQueue<OrphanCandidate> orphanCandidates = new ConcurrentLinkedQueue<>();
  /** A preview's planned actions, each with whether it is a container's refresh. */
  final List<Planned> planned = Collections.synchronizedList(new ArrayList<>());
  final List<ComponentFailure> failures = Collections.synchronizedList(new ArrayList<>());
  /** The components {@link #fail} was called for, each with the first error noted for it. */
  private final Map<TargetPath, Throwable> failed = new ConcurrentHashMap<>();
  /**
   * Memos held back from their components' commits until the sweep has deleted what their
   * subtrees no longer declare or mount (see {@link #deferMemo}), by component.
   */
  final Map<TargetPath, ComponentRecord> deferredMemos = new ConcurrentHashMap<>();
  /**
   * The components whose memo was written stamped with this run ({@link MemoStamp}): a run that
   * is not recorded as settled settles their states one by one, and writes their memos again
   * unstamped. Their paths' bytes only: the records are read back then (a failed run's path),
   * and a million memoized components had their records held to the run's end.
   */
  final PathLog stampedMemos = new PathLog();

  /**
   * States that were containers, declared (and committed) in this run without a child provider:
   * what is tracked below them is forgotten by the sweep. (Their commits started child
   * generations nothing below them is in, so what the sweep does not reach is stale all the same:
   * {@link Reconciliation#takeChildrenAlong}.)
   */
  final Set<TargetPath> declaredWithoutChildren = ConcurrentHashMap.newKeySet();

  void declaredWithoutChildren(TargetPath state) {
    declaredWithoutChildren.add(state);
  }

  /**
   * The memoized components whose memo this run has forgotten in the store, before changing a
   * state below them ({@link io.cocoindex.runtime.state.StateWrite.InvalidateMemo}): noted once
   * the write has committed, so that the components below them finishing later need not write
   * it again.
   */
  private final Set<TargetPath> memosInvalidated = ConcurrentHashMap.newKeySet();

  void memoInvalidated(TargetPath component) {
    memosInvalidated.add(component);
  }

  /** Whether this run has forgotten {@code component}'s memo in the store. */
  boolean isMemoInvalidated(TargetPath component) {
    return memosInvalidated.contains(component);
  }


  /** The most states the orphan sweep may delete ({@code UpdateOptions.withDeletionLimit}). */
  long deletionLimit = Long.MAX_VALUE;

  /**
   * Caps the orphan sweep's deletions; set before the run starts.
   *
   * @param limit the most states the sweep may delete; past it the sweep deletes nothing
   */
  public void limitDeletions(long limit) {
    deletionLimit = limit;
  }

  /**
   * Records that the sweep refused to delete what it found ({@code error}), as the root's
   * failure: the update fails, and settles its healthy components as a failed run does, without
   * marking any component failed (no memo is forgotten for it; the sweep wrote nothing but what
   * it forgets before it counts: what failed components tracked below the states declared without
   * children, whose actions took it along).
   */
  void refuseSweep(RuntimeException error) {
    failures.add(new ComponentFailure("/", error));
  }

  /** One planned action; {@code refresh}: a container re-ensured as it was. */
  record Planned(PlannedAction action, boolean refresh) {}

  /**
   * A state {@code owner} tracks and did not declare in this run, by its encoded {@code path}, for
   * the sweep (see {@link SweepCandidates}); {@code container}: it was a container when read (a
   * deletion of it takes what is below it).
   */
  record OrphanCandidate(byte[] path, TargetPath owner, boolean container)
      implements SweepCandidates.Candidate {}

  /**
   * Starts a run: watches the pool's and the shared threads' tasks for one lost (see {@link
   * #lostATask}); {@link #end} stops watching.
   *
   * @param app the app's name
   * @param mode whether the run updates, previews or drops
   * @param fullReprocess whether memos are ignored
   * @param version the run's version in the store
   * @param store the store holding the app's tracking
   * @param codecs the codecs for keys, values and memo inputs
   * @param batcher the sink batcher of the app
   * @param componentPool the pool the components run on
   * @param context the values the environment provides to components, by key (copied)
   * @param listeners told of every committed action (copied)
   */
  public Run(
      String app,
      RunMode mode,
      boolean fullReprocess,
      long version,
      StateStore store,
      CodecRegistry codecs,
      SinkBatcher batcher,
      ComponentPool componentPool,
      Map<ContextKey<?>, Object> context,
      List<io.cocoindex.runtime.ActionListener> listeners) {
    this.app = app;
    this.mode = mode;
    this.fullReprocess = fullReprocess;
    this.version = version;
    this.store = store;
    this.codecs = codecs;
    this.providers = new ProviderRegistry(codecs);
    this.batcher = batcher;
    this.componentPool = componentPool;
    this.leases = new LeaseBatcher(store, app, componentPool);
    this.context = Map.copyOf(context);
    this.listeners = new ActionListeners(app, listeners);
    this.startedEmpty = mode != RunMode.DROP && store.exclusiveWhileLocked()
        && !store.hasStates(app);
    this.settlesByRun = mode == RunMode.UPDATE && store.recordsSettledRuns();
    this.claims = new Claims();
    this.statesAhead = store.exclusiveWhileLocked() ? new StateReadAhead(store, app) : null;
    this.componentScan = store.exclusiveWhileLocked() ? new ComponentScan(store, app) : null;
    this.inFlight = new LeaseGate[] {newInFlightGate()};
    int threads = componentPool.getParallelism();
    this.leasedAhead = store.exclusiveWhileLocked() ? null : new LeaseGate(
        LEASED_AHEAD_PER_THREAD * threads, MIN_IN_FLIGHT, LEASE_AHEAD_HORIZON_MICROS * threads);
    this.checksSessions = mode != RunMode.PREVIEW && !store.exclusiveWhileLocked();
    if (checksSessions) {
      batcher.checkBeforeEachCall(this::checkNotAborted);
    }
    componentPool.watch(onTaskLost);
    SharedThreads.watchDeaths(onTaskLost);
  }

  /**
   * The gate of the background components in flight with {@code level} ancestors holding a slot
   * of one: the root's children (and those of its foreground descendants) take level 0, theirs
   * level 1, and so on. A component holds its slot while it waits for its children, so they
   * must not wait for the same gate (all its slots held by parents, none would start); with a
   * gate per level, the deepest components in flight always make progress, and a component
   * mounting 100,000 children holds no more of them at once than the root does of its own.
   * Before, the children of a component holding a slot ran unbounded: a component mounting
   * 100,000 children of ten states ran out of memory at {@code -Xmx512m} where the same
   * components mounted by the root did not, and on PostgreSQL 20,000 children's leases filled
   * the server's lock table.
   *
   * @param level how many of the component's ancestors hold a slot of a gate
   * @return the gate of that level, made on first use
   */
  public LeaseGate inFlight(int level) {
    LeaseGate[] gates = inFlight;
    if (level < gates.length) {
      return gates[level];
    }
    synchronized (this) {
      gates = inFlight;
      if (level >= gates.length) {
        // Grown by at least half: a chain thousands deep makes its gates in few copies.
        gates = Arrays.copyOf(gates, Math.max(level + 1, gates.length * 3 / 2 + 1));
        for (int i = inFlight.length; i < gates.length; i++) {
          gates[i] = newInFlightGate();
        }
        inFlight = gates;
      }
      return gates[level];
    }
  }

  /** A gate of components in flight: sized by their states on an exclusive store. */
  private LeaseGate newInFlightGate() {
    return store.exclusiveWhileLocked()
        ? new LeaseGate(MIN_IN_FLIGHT, MAX_IN_FLIGHT, STATES_IN_FLIGHT)
        : new LeaseGate(MIN_IN_FLIGHT);
  }

  /**
   * Whether the run asks the store, at each apply, commit and sink call, whether the other
   * workers may soon take it for dead ({@link StateStore#checkRunAlive}): on a store shared by
   * workers, in a run that writes.
   */
  private final boolean checksSessions;
  /** Completes with the error that stopped the run early ({@link #abort}), if one did. */
  private final CompletableFuture<Throwable> aborted = new CompletableFuture<>();
  /** The first error given to {@link #abort}, set before the store is told of it. */
  private final AtomicReference<Throwable> stopping = new AtomicReference<>();
  /** Where {@link #stopping}'s error was thrown, as {@link #abort(Throwable, String)} said. */
  private volatile String stoppedWhere;
  /**
   * A task of the run's pool, or of a shared thread (a store's writer, an app's sink calls),
   * threw past itself while the run went on: a task of the run may be lost.
   */
  private volatile boolean taskLost;
  private final Consumer<Throwable> onTaskLost = error -> {
    taskLost = true;
    abort(error);
  };

  /**
   * Stops the run early: a fatal error ({@link RunAborted#fatalIn}) was thrown in it, or a task
   * of the engine's threads threw past itself ({@link #lostATask}). No stage applies or commits
   * anything after this ({@link #checkNotAborted}); every wait for a component ends; the app
   * then reports {@code error}. What the run committed before stands, and the next run finishes
   * the rest, as after a crash (on a store shared by workers, those still in the round may, once
   * this run ends: see {@link StateStore#runAborted}, which is told first). Only the first call
   * counts.
   *
   * @param error the error the app reports for the run
   */
  public void abort(Throwable error) {
    abort(error, null);
  }

  /**
   * As {@link #abort(Throwable)}, saying where {@code error} was thrown, for the app's report.
   *
   * @param error the error the app reports for the run
   * @param where e.g. {@code in component /"c"}, or null when not known
   */
  public void abort(Throwable error, String where) {
    if (aborted.isDone()) {
      return;
    }
    if (stopping.compareAndSet(null, error)) {
      stoppedWhere = where;
    }
    // The store first: a lease given back once the run is seen stopped (a component failed by
    // the batcher's stop below, or one that does not start) must not mark its claim finished.
    try {
      store.runAborted(app, version);
    } catch (Throwable ignored) {
      // a shared store then takes the leases closed from now on for finished: what the run
      // left is the next run's, as before
    }
    if (aborted.complete(error)) {
      try {
        batcher.stop(new RunAborted(error));
      } catch (Throwable ignored) {
        // out of memory, say: the run is stopped all the same; a drain still running checks it
      }
    }
  }

  /**
   * The error the run is stopping early with, or null: as {@link #abortedBy}, but from the moment
   * {@link #abort} is called, before the store has been told (a round trip on a shared store),
   * so that components about to start need not ask for their lease meanwhile.
   *
   * @return the first error given to {@link #abort}, or null while the run goes on
   */
  public Throwable stoppingBy() {
    return stopping.get();
  }

  /**
   * Where the error that stopped the run early was thrown, when the engine knows it: in a
   * component's body, or in a sink applying a component's actions (an out-of-memory error is
   * thrown by whatever allocates last, but a sink or a body holding too much is the usual cause).
   *
   * @return e.g. {@code in the sink of provider 'rows' applying 1 action (create "a") for
   *     component /"c"}, or null
   */
  public String stoppedWhere() {
    // Two first errors racing: the one the run reports is said where it was thrown, or nothing.
    return stopping.get() == abortedBy() ? stoppedWhere : null;
  }

  /**
   * The error that stopped the run early, or null.
   *
   * @return the error given to {@link #abort}, or null while the run goes on
   */
  public Throwable abortedBy() {
    return aborted.getNow(null);
  }

  /**
   * Completes with the error that stops the run early; never, in a run that ends as it should.
   *
   * @return a future completed with the error given to {@link #abort}
   */
  public CompletableFuture<Throwable> abortion() {
    return aborted;
  }

  /**
   * Whether a task threw past itself in the run: something may wait for good for what it held.
   *
   * @return true once a task of the pool or of a shared thread was lost during the run
   */
  public boolean lostATask() {
    return taskLost;
  }

  /**
   * Throws {@link RunAborted} once the run is stopped: checked before each apply, commit and
   * sink call. On a store shared by workers, a run whose sessions were lost ({@link
   * StateStore#checkRunAlive}) is stopped here, with that error: another worker may soon take it
   * for dead, and change what it would write.
   *
   * @throws RunAborted if {@link #abort} was called, wrapping its error
   */
  public void checkNotAborted() {
    checkSessions();
    if (aborted.isDone()) {
      throw new RunAborted(aborted.join());
    }
  }

  /** Stops the run if the store says its sessions were lost ({@link #checksSessions}). */
  private void checkSessions() {
    if (checksSessions && !aborted.isDone()) {
      try {
        store.checkRunAlive(app, version);
      } catch (RuntimeException lost) {
        abort(lost);
      }
    }
  }

  private final ActionListeners listeners;

  /** Counts a component's committed actions (a refresh as unchanged) and tells the listeners. */
  void applied(List<Reconciliation> applied) {
    String provider = null;
    long[] counts = new long[4]; // created, updated, deleted, unchanged: as RunStats keeps them
    for (Reconciliation r : applied) {
      String name = r.provider.name();
      if (!name.equals(provider)) {
        flushApplied(provider, counts);
        provider = name;
      }
      counts[r.isRefresh() ? 3
          : r.action instanceof io.cocoindex.TargetAction.Create ? 0
          : r.action instanceof io.cocoindex.TargetAction.Update ? 1 : 2]++;
      listeners.tell(name, r.key, r.action);
    }
    flushApplied(provider, counts);
  }

  private void flushApplied(String provider, long[] counts) {
    if (provider != null) {
      stats.applied(provider, counts[0], counts[1], counts[2], counts[3]);
      java.util.Arrays.fill(counts, 0);
    }
  }

  /**
   * The value the environment provides for {@code key}.
   *
   * @param <T> the value's type
   * @param key the key the value was provided under
   * @return the provided value
   * @throws IllegalStateException if the environment provides no value for {@code key}
   */
  @SuppressWarnings("unchecked")
  public <T> T contextValue(ContextKey<T> key) {
    Object v = context.get(key);
    if (v == null) {
      throw new IllegalStateException(
          "the environment provides no value for " + key
              + ": add Environment.builder().provide(key, value)");
    }
    return (T) v;
  }

  /** How many states the component that finished last declared (bounded): a sizing hint. */
  private volatile int declarationsHint;

  private static final int MAX_DECLARATIONS_HINT = 1 << 12;

  /**
   * Notes how many states a finishing component declared.
   *
   * @param states how many states it declared (kept bounded)
   */
  public void declared(int states) {
    declarationsHint = Math.min(states, MAX_DECLARATIONS_HINT);
  }

  /**
   * About how many states a new component will declare: as many as the last one to finish.
   *
   * @return the count last given to {@link #declared}, bounded; 0 before any
   */
  public int declarationsHint() {
    return declarationsHint;
  }

  /**
   * Ends the run: drops what only the run needed (the stats and failures stay readable), and
   * tells the store, once every action it applied has returned (see {@link StateStore#endedRuns}).
   */
  public void end() {
    componentPool.unwatch(onTaskLost);
    SharedThreads.unwatchDeaths(onTaskLost);
    // After a lost task another of the run's may still be under way: the run is not told
    // ended (a shared store keeps its records as a live run's) until the store closes.
    if (mode != RunMode.PREVIEW && !taskLost) {
      store.runEnded(app, version);
    }
    if (taskLost) {
      store.runLostATask(app);
    }
    claims.clear();
    if (componentScan != null) {
      // After a read under way (a run that failed before any component asked for it): the
      // run's reads end with it.
      componentScan.close();
    }
    if (statesAhead != null) {
      statesAhead.clear();
    }
    listeners.reportFailures();
  }

  /**
   * Starts reading every component record on the component pool, which {@link #storedComponent}
   * would do at the first request: the read then overlaps the root's first steps (its own work,
   * a table's foreground mount) rather than following them; a memoized rerun that changed
   * nothing spent about a fifth of its time in it, after the mount. Only for a run that reads the
   * records in one scan (see {@link #storedComponent}), not a drop, of an app that tracks
   * anything.
   */
  public void startComponentScan() {
    if (componentScan == null || startedEmpty || mode == RunMode.DROP) {
      return;
    }
    try {
      componentPool.execute(componentScan::run); // a failure is the askers' (ComponentScan#take)
    } catch (RejectedExecutionException closing) {
      // The pool is going (the app closing): the first request reads them, as without this.
    }
  }

  /**
   * The record {@code component} left in the store, as this run found it; each component asks
   * once (a path is mounted once per run). On a store that is the app's only writer while the
   * run holds its lock, every record is read in one scan ({@link ComponentScan}).
   *
   * @param component the component's path
   * @return its record, or empty if the store tracks no such component
   */
  public Optional<ComponentRecord> storedComponent(TargetPath component) {
    return storedComponent(component, false);
  }

  /**
   * As {@link #storedComponent(TargetPath)}; {@code waitedFor}: a thread waits for this component
   * alone (a foreground mount), which reads its own record by path while the scan has not passed
   * it, so that the scan is not on the mount's path (a table's mount, which comes before any other
   * component, had spent a quarter of its time in it).
   *
   * @param component the component's path
   * @param waitedFor whether a thread waits for this component alone
   * @return its record, or empty if the store tracks no such component
   */
  public Optional<ComponentRecord> storedComponent(TargetPath component, boolean waitedFor) {
    if (componentScan == null) {
      return store.component(app, component.encoded());
    }
    return waitedFor ? componentScan.takeAlone(component) : componentScan.take(component);
  }

  /**
   * The states {@code component} owned when this run reached it, for its commit (asked once per
   * component and run). On a store that is the app's only writer while the run holds its lock,
   * read ahead for the components after it in path order ({@link StateReadAhead}); on a store
   * shared by workers, read with its lease when its record was ({@link LeaseBatcher}).
   *
   * @param component the component's path
   * @return the states it owned, empty if none
   */
  public List<TrackedState> storedStates(TargetPath component) {
    if (statesAhead != null) {
      return statesAhead.ownedBy(component);
    }
    List<TrackedState> readWithLease = leases.takeStates(component);
    return readWithLease != null ? readWithLease : store.ownedBy(app, component.encoded());
  }

  /**
   * When the run reads the records in one scan: those no component of this run asked for (once
   * the scan has ended), which include the orphan sweep's stale components (a record written
   * during the run is a visited component's); otherwise null.
   */
  Collection<ComponentRecord> componentsNotAskedFor() {
    return componentScan == null ? null : componentScan.notAskedFor();
  }

  /**
   * A container that memoized components declared on, decoded once per run: every memo hit checks
   * its containers, and a run of a thousand memoized components on one table decoded the table's
   * path a thousand times.
   */
  TargetPath memoContainer(byte[] encoded) {
    return memoContainers.computeIfAbsent(ByteKey.of(encoded), k -> TargetPath.decode(encoded));
  }

  /**
   * Notes that {@code component}'s memo hit (see {@link Claims#memoHit}); returns the error that
   * fails it when a state its memo declares again was taken over by another component earlier in
   * the run, else null.
   *
   * @param component the path of the component whose memo hit
   * @return the error that fails the component, or null if its memo stands
   */
  public RuntimeException memoHit(TargetPath component) {
    Claims.Conflict c = claims.memoHit(component);
    return c == null ? null : c.error(component);
  }

  /**
   * Notes that {@code component} was mounted in this run: the sweep keeps its record. A parent
   * notes each child as it mounts it, so a child noted already is one its parent mounted twice.
   *
   * @param component the mounted component's path
   * @return whether it was not noted before in this run; always true in a drop, which notes none
   */
  public boolean visit(TargetPath component) {
    // A drop removes every component whether mounted or not: a million paths held for nothing
    // were a fifth of what ran a drop of a million components out of memory at -Xmx512m.
    return mode == RunMode.DROP || visited.add(component);
  }

  /**
   * Leaves the tracking at and below {@code subtree} alone in this run (a memo hit, a failed
   * body, another worker's component): the sweep deletes nothing there.
   *
   * @param subtree the path of the subtree's top component
   */
  public void protect(TargetPath subtree) {
    protectedSubtrees.add(subtree);
  }

  /**
   * How many components this run left to other workers (on a shared store): held by one, or
   * claimed by one in this round (a worker that died after claiming leaves them to the next run).
   *
   * @return the number of components left to other workers so far
   */
  public int componentsLeftToOtherWorkers() {
    return leasedElsewhere.size();
  }

  /**
   * {@code component} was left to the worker that holds or claimed it; its tracking is kept.
   *
   * @param component the path of the component left
   */
  public void leftToAnotherWorker(TargetPath component) {
    protect(component);
    leasedElsewhere.add(component);
  }

  /**
   * Records {@code component}'s failure, reported with the run's; a fatal error in it ({@link
   * RunAborted#fatalIn}) also aborts the run.
   *
   * @param component the failed component's path
   * @param error what it threw (the first noted for it is the one {@link #failureAtOrBelow} gives);
   *     a {@link SinkFailure} is reported as the sink's exception, its cause, with its context
   */
  public void fail(TargetPath component, Throwable error) {
    // A component that failed on a session the store lost: the run stops, saying so.
    checkSessions();
    // A component that gave up as the run stops (RunAborted, its cause the fatal error) does not
    // stop it again: it may have given up before the store was told (stoppingBy), holding no
    // lease, and each such call would tell the store once more.
    Throwable fatal = error instanceof RunAborted ? null : RunAborted.fatalIn(error);
    if (fatal != null) {
      String where;
      try {
        where = error instanceof SinkFailure sf
            ? "in " + sf.work().underWay() + " for component " + component
            : "in component " + component;
      } catch (VirtualMachineError stillOut) {
        where = null; // the run stops all the same, only said less precisely
      }
      abort(fatal, where);
    }
    // Noted whole, so that a foreground component's failure tells what its sink applied too.
    failed.putIfAbsent(component, error);
    // A sink's failure is reported as the sink's own exception, which callers compare, with
    // what it was applying beside it.
    failures.add(error instanceof SinkFailure sf
        ? new ComponentFailure(component.toString(), sf.getCause(), sf.context())
        : new ComponentFailure(component.toString(), error));
  }

  /** Whether {@link #fail} was called for {@code component} or any of its ancestors. */
  boolean failedAtOrAbove(TargetPath component) {
    for (TargetPath f : failed.keySet()) {
      if (component.startsWith(f)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@link #fail} was called in this run. */
  boolean anyFailed() {
    return !failed.isEmpty();
  }

  /** Whether any subtree is protected in this run (see {@link #isProtected}). */
  boolean anyProtected() {
    return !protectedSubtrees.isEmpty();
  }

  /**
   * A component at or below {@code component} that {@link #fail} was called for (itself first),
   * or null: what a failed foreground mount reports.
   *
   * @param component the path of the subtree's top component
   * @return the failed component's path and its first error (for a sink's, the {@link
   *     SinkFailure}, whose message says what the sink was applying), or null if none failed there
   */
  public Map.Entry<TargetPath, Throwable> failureAtOrBelow(TargetPath component) {
    Throwable own = failed.get(component);
    if (own != null) {
      return Map.entry(component, own);
    }
    for (Map.Entry<TargetPath, Throwable> f : failed.entrySet()) {
      if (f.getKey().startsWith(component)) {
        return f;
      }
    }
    return null;
  }

  /** Whether {@link #fail} was called for {@code component} or any component below it. */
  boolean failedAtOrBelow(TargetPath component) {
    for (TargetPath f : failed.keySet()) {
      if (f.startsWith(component)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Holds back a memoized component's memo ({@code record}, written without it meanwhile) until
   * the orphan sweep has deleted the states its subtree no longer declares and the components it
   * no longer mounts: a memo recorded first would, after a failed or interrupted deletion, let
   * every later run skip the subtree, and the deletion would never be retried.
   */
  void deferMemo(TargetPath component, ComponentRecord record) {
    deferredMemos.put(component, record);
  }

  /** {@code component}'s record was written with a memo stamped with this run. */
  void memoStamped(TargetPath component) {
    stampedMemos.add(component);
  }

  /**
   * Whether the app tracks a component below {@code component} that this run neither visited nor
   * left alone (under a memo hit, a failure, another worker): one its subtree no longer mounts,
   * which the orphan sweep is to remove. Only asked by memoized components that ran.
   */
  boolean hasStaleComponentsBelow(TargetPath component) {
    if (startedEmpty) {
      return false;
    }
    List<byte[]> below = componentScan != null
        ? componentScan.pathsBelow(component.encodedUnsafe())
        : store.componentPathsBelow(app, component.encodedUnsafe());
    for (byte[] path : below) {
      if (!visited.contains(path) && !isProtected(TargetPath.decode(path))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The failures recorded in this run so far: components' and a refused sweep's.
   *
   * @return a copy, in the order they were recorded
   */
  public List<ComponentFailure> failures() {
    synchronized (failures) {
      return List.copyOf(failures);
    }
  }

  /**
   * The preview of what this run (a preview's) planned.
   *
   * @return every planned action, and those of them that change something (not a refresh)
   */
  public Preview preview() {
    List<PlannedAction> actions = new ArrayList<>();
    List<PlannedAction> changes = new ArrayList<>();
    synchronized (planned) {
      for (Planned p : planned) {
        actions.add(p.action());
        if (!p.refresh()) {
          changes.add(p.action());
        }
      }
    }
    return new Preview(actions, changes);
  }

  /** Whether {@code component} lies in a protected subtree ({@link #protect}). */
  boolean isProtected(TargetPath component) {
    return protectedSubtrees.covers(component);
  }
}
