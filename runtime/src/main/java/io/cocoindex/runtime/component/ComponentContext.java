package io.cocoindex.runtime.component;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetState;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecException;
import io.cocoindex.runtime.plan.ComponentCommit;
import io.cocoindex.runtime.plan.DeclaredTarget;
import io.cocoindex.runtime.plan.MemoDependencies;
import io.cocoindex.runtime.plan.Provider;
import io.cocoindex.runtime.plan.Run;
import io.cocoindex.runtime.plan.RunMode;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.spi.DeclarationScope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link Ctx}: collects one processing component's declarations (serialized on the
 * spot), mounts its children, and serves memoized functions.
 */
public final class ComponentContext implements Ctx, DeclarationScope {
  private static final Logger log = LoggerFactory.getLogger(ComponentContext.class);
  /**
   * The component whose body runs on this thread ({@link #enterBody}), the innermost of nested
   * foreground bodies; null outside a body. A declaration through an ancestor's context from
   * there is a {@code Ctx} captured from outside the lambda ({@link #checkOpen}).
   */
  private static final ThreadLocal<ComponentContext> RUNNING_BODY = new ThreadLocal<>();

  final Run run;
  final TargetPath path;
  final byte[] memoFingerprint;
  /** The component that mounted this one; null for the root. */
  final ComponentContext parent;
  /**
   * The nearest memoized ancestor, or null: {@link #memoizedAncestors} follows these links, not
   * every parent's (each component of a plain chain walked the whole chain above it at its
   * commit, quadratic in the chain's depth).
   */
  private final ComponentContext nearestMemoizedAncestor;
  /**
   * What the descendants declared on, gathered when this component or an ancestor is memoized
   * (a memo hit skips the whole subtree, so the memo depends on it all); else null.
   */
  private final MemoDependencies.Collector descendantDeps;
  /** A descendant left work to the orphan sweep ({@link ComponentCommit.Outcome#pending}). */
  private volatile boolean descendantsPending;
  /** A descendant left applied states to the run's settlement. */
  private volatile boolean descendantsUnsettled;
  private final Declarations declared;
  private final Set<TargetPath> pendingContainers = new HashSet<>();
  /**
   * The keys of the children it mounted, in a drop only: elsewhere the run's set of mounted
   * components finds a key mounted twice ({@link #reserve}), and a drop keeps none; made at the
   * first mount.
   */
  private Set<StableKey> mountedInDrop;
  /** Guards what it keeps about its background children, below. */
  private final Object childrenLock = new Object();
  /**
   * Its background children mounted and not finished yet. A parent counts them rather than
   * keeping their futures: a component mounting a million children kept a million futures,
   * and a list of them, until it finished.
   */
  private int childrenRunning;
  /** A background child's subtree failed (its future completed with false). */
  private boolean childFailed;
  /** An error of the engine's own stages that completed a child's future exceptionally. */
  private Throwable childError;
  /**
   * Completes once its body has returned and every background child has finished ({@link
   * #childrenFinished}); null until then.
   */
  private CompletableFuture<Void> childrenFinished;
  /** Background children mounted and waiting for a slot of their gate. */
  private int childrenAwaitingSlot;
  /**
   * Completes when the children awaiting a slot are down to half the bound ({@link
   * #awaitChildrenTakingSlots}).
   */
  private CompletableFuture<Void> slotsTaken;
  private ComponentRecord stored;
  private boolean storedLoaded;
  private MemoValues memoValues;
  private volatile boolean closed;
  /**
   * How many of this component's ancestors, and itself once it holds one, hold a slot of a gate
   * of components in flight: the level of the gate its background children take ({@link
   * Run#inFlight}).
   */
  volatile int slotsHeldAbove;
  /** A thread waits for this component alone: a foreground mount ({@link #useMount}). */
  private boolean waitedFor;
  /**
   * A foreground child ({@link #useMount}, a {@code mountTarget}) failed: this component's
   * subtree is not healthy though its body, catching the failure, went on (see {@link
   * #foregroundChildFailed}).
   */
  private volatile boolean foregroundChildFailed;

  ComponentContext(Run run, ComponentContext parent, TargetPath path, byte[] memoFingerprint,
      ComponentRecord stored, boolean storedLoaded) {
    this.run = run;
    this.parent = parent;
    this.nearestMemoizedAncestor = parent == null ? null
        : parent.memoFingerprint != null ? parent : parent.nearestMemoizedAncestor;
    this.path = path;
    this.memoFingerprint = memoFingerprint;
    this.descendantDeps = memoFingerprint != null
        || (parent != null && parent.descendantDeps != null)
        ? new MemoDependencies.Collector() : null;
    this.stored = stored;
    this.storedLoaded = storedLoaded;
    this.slotsHeldAbove = parent == null ? 0 : parent.slotsHeldAbove;
    // Sized like the components finished before it: growing a table of a hundred declarations
    // step by step was 3% of a warm run.
    this.declared = new Declarations(Math.max(16, run.declarationsHint()));
  }

  /** The memoized components above this one, nearest first. */
  List<TargetPath> memoizedAncestors() {
    List<TargetPath> out = List.of();
    for (ComponentContext a = nearestMemoizedAncestor; a != null;
        a = a.nearestMemoizedAncestor) {
      if (out.isEmpty()) {
        out = new ArrayList<>(2);
      }
      out.add(a.path);
    }
    return out;
  }

  @Override
  public <T> T get(ContextKey<T> key) {
    return run.contextValue(key);
  }

  @Override
  public String appName() {
    return run.app;
  }

  @Override
  public List<StableKey> path() {
    return path.keys();
  }

  // ---- mounting ----

  @Override
  public void mount(Object subpath, Consumer<Ctx> component) {
    Objects.requireNonNull(component, "component");
    ComponentContext child = newChild(subpath);
    addChild(ComponentRunner.start(child, c -> {
      component.accept(c);
      return null;
    }));
    awaitChildrenTakingSlots();
  }

  @Override
  public <T> T useMount(Object subpath, Function<Ctx, T> component) {
    Objects.requireNonNull(component, "component");
    ComponentContext child = newChild(subpath);
    child.waitedFor = true;
    try {
      return ComponentRunner.runForeground(child, component);
    } catch (RuntimeException | Error e) {
      foregroundChildFailed = true;
      throw e;
    }
  }

  /**
   * Whether a foreground child of this component failed in this run. A mounted child's failure
   * reaches its parent through the child's future; a foreground one's only as the exception its
   * parent's body may catch and go on from (an app skipping a table it cannot set up), and the
   * parent (or a memoized ancestor) then recorded its memo as if its subtree were healthy: the
   * next run on its input hit it and the failed child never ran again.
   */
  boolean foregroundChildFailed() {
    return foregroundChildFailed;
  }

  @Override
  public void mountMemo(Object subpath, Object input, Consumer<Ctx> component) {
    Objects.requireNonNull(component, "component");
    StableKey key = StableKey.of(subpath);
    TargetPath childPath = path.child(key);
    reserve(key, childPath);
    if (run.mode == RunMode.DROP) {
      // A drop runs every body for its registrations and discards its declarations: a provider
      // registered in a memoized body must be reachable too (its memoized functions keep their
      // recorded results).
      ComponentContext child = new ComponentContext(run, this, childPath, null, null, false);
      addChild(ComponentRunner.start(child, c -> {
        component.accept(c);
        return null;
      }));
      awaitChildrenTakingSlots();
      return;
    }
    addChild(ComponentRunner.startMemo(this, childPath, input, component));
    awaitChildrenTakingSlots();
  }

  /** A memoized child of this component whose memo missed: {@code stored} is its record. */
  ComponentContext memoChild(TargetPath childPath, byte[] fingerprint, ComponentRecord stored) {
    return new ComponentContext(run, this, childPath, fingerprint, stored, true);
  }

  /** A plain (not memoized) child at {@code subpath}, reserved for this run. */
  private ComponentContext newChild(Object subpath) {
    StableKey key = StableKey.of(subpath);
    TargetPath childPath = path.child(key);
    reserve(key, childPath);
    return new ComponentContext(run, this, childPath, null, null, false);
  }

  /**
   * Notes {@code childPath} as mounted in this run, unless it was already: its parent mounted
   * {@code key} twice. The run's set of mounted components answers (a child's path is its
   * parent's and its key), not a set of keys per parent, which a million children held beside it.
   */
  private void reserve(StableKey key, TargetPath childPath) {
    checkOpen("mount a component");
    boolean first;
    if (run.mode == RunMode.DROP) {
      synchronized (childrenLock) {
        if (mountedInDrop == null) {
          mountedInDrop = new HashSet<>();
        }
        first = mountedInDrop.add(key);
      }
    } else {
      first = run.visit(childPath);
    }
    if (!first) {
      throw new IllegalStateException(
          "component " + childPath + " is mounted twice by " + path
              + ": every child component needs its own subpath");
    }
  }

  /** Counts a background child as running until {@code finished} completes. */
  private void addChild(CompletableFuture<Boolean> finished) {
    synchronized (childrenLock) {
      childrenRunning++;
    }
    finished.whenComplete(this::childFinished);
  }

  private void childFinished(Boolean healthy, Throwable error) {
    CompletableFuture<Void> done = null;
    Throwable failed;
    synchronized (childrenLock) {
      if (error != null) {
        if (childError == null) {
          childError = error;
        }
      } else if (!healthy) {
        childFailed = true;
      }
      if (--childrenRunning == 0) {
        done = childrenFinished;
      }
      failed = childError;
    }
    if (done != null) {
      complete(done, failed);
    }
  }

  /**
   * Completes once every background child has finished, as {@code allOf} their futures did:
   * exceptionally if one of them did. Asked once, when its body has returned.
   */
  CompletableFuture<Void> childrenFinished() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Throwable failed;
    synchronized (childrenLock) {
      childrenFinished = done;
      if (childrenRunning > 0) {
        return done;
      }
      failed = childError;
    }
    complete(done, failed);
    return done;
  }

  private static void complete(CompletableFuture<Void> done, Throwable error) {
    if (error != null) {
      done.completeExceptionally(error);
    } else {
      done.complete(null);
    }
  }

  /** Whether every background child's subtree succeeded, once {@link #childrenFinished}. */
  boolean childrenHealthy() {
    synchronized (childrenLock) {
      return !childFailed;
    }
  }

  /** How many of its background children have not finished yet. */
  int childrenRunning() {
    synchronized (childrenLock) {
      return childrenRunning;
    }
  }

  /**
   * How many of a component's background children may wait for a slot of their gate of
   * components in flight before its body waits in {@code mount} for them to take one: a child
   * waiting holds its context and the futures of its start (about 700 bytes), and a body
   * mounting a million children ran out of memory at {@code -Xmx512m} holding them all.
   */
  static final int CHILDREN_AWAITING_SLOT =
      Math.max(2, Integer.getInteger("cocoindex.mount.childrenAwaitingSlot", 1024));

  /** A background child of this component waits for {@code slot} of its gate. */
  void childAwaitsSlot(CompletableFuture<Void> slot) {
    if (slot.isDone()) {
      return;
    }
    synchronized (childrenLock) {
      childrenAwaitingSlot++;
    }
    slot.whenComplete((v, e) -> childTookSlot());
  }

  private void childTookSlot() {
    CompletableFuture<Void> resume = null;
    synchronized (childrenLock) {
      childrenAwaitingSlot--;
      if (slotsTaken != null && childrenAwaitingSlot <= CHILDREN_AWAITING_SLOT / 2) {
        resume = slotsTaken;
        slotsTaken = null;
      }
    }
    if (resume != null) {
      resume.complete(null);
    }
  }

  /**
   * Waits, past {@link #CHILDREN_AWAITING_SLOT} children waiting for a slot, until half of them
   * have one: the children below it always make progress (their gate is the next level's), and
   * a wait on a pool worker lets the pool start another ({@link OwnTasks#join}).
   */
  private void awaitChildrenTakingSlots() {
    CompletableFuture<Void> resume;
    synchronized (childrenLock) {
      if (childrenAwaitingSlot <= CHILDREN_AWAITING_SLOT) {
        return;
      }
      if (slotsTaken == null) {
        slotsTaken = new CompletableFuture<>();
      }
      resume = slotsTaken;
    }
    OwnTasks.join(resume, run.abortion(), slotsHeldAbove);
  }

  /** A child committed: what it tells its parent. */
  void childCommitted(ComponentCommit.Outcome outcome) {
    if (outcome.pending()) {
      descendantsPending = true;
    }
    if (outcome.unsettled()) {
      descendantsUnsettled = true;
    }
    if (descendantDeps != null) {
      descendantDeps.add(outcome.subtreeDeps());
    }
  }

  /** A memoized child's memo held: its subtree declared on {@code deps}, as recorded. */
  void childMemoHit(List<MemoDependencies.Dependency> deps) {
    if (descendantDeps != null) {
      descendantDeps.add(deps);
    }
  }

  /**
   * Containers from outside its subtree that this memoized component's memo missed for, as they
   * are no longer declared: its memo is recorded without them ({@link
   * MemoDependencies.Dependency#isAbsent}).
   */
  void recordedWithout(List<MemoDependencies.Dependency> absent) {
    if (!absent.isEmpty()) {
      descendantDeps.add(absent);
    }
  }

  /** What the descendants declared on, when gathered; else null. */
  List<MemoDependencies.Dependency> descendantDeps() {
    return descendantDeps == null ? null : descendantDeps.list();
  }

  boolean descendantsPending() {
    return descendantsPending;
  }

  boolean descendantsUnsettled() {
    return descendantsUnsettled;
  }

  // ---- memoized functions ----

  @Override
  public <I, T> T memo(String function, I input, Class<T> resultType, Function<I, T> compute) {
    checkOpen("call a memoized function");
    // The result type is part of the key: a function whose result type changed computes anew
    // rather than decoding a value of the old type.
    Fingerprint key =
        Fingerprint.of(java.util.Arrays.asList(function, input, resultType.getName()));
    Codec<T> codec = run.codecs.codecFor(resultType);
    MemoValues values = memoValues();
    byte[] cached = run.fullReprocess ? null : values.lookup(key);
    if (cached != null) {
      try {
        return codec.decode(cached);
      } catch (CodecException e) {
        // A cache: a value stored before its type changed shape is computed again.
        log.debug("memoized function '{}' of component {}: its stored result cannot be read as"
            + " {} ({}); computing it again", function, path, resultType.getName(), e.getMessage());
      }
    }
    T result = compute.apply(input);
    byte[] bytes = codec.encode(result);
    values.put(key, bytes);
    return codec.decode(bytes);
  }

  private synchronized MemoValues memoValues() {
    if (memoValues == null) {
      memoValues = MemoValues.decode(stored().map(ComponentRecord::memoValues).orElse(null));
    }
    return memoValues;
  }

  /** Whether its stored record was read already (a memoized component's, for its check). */
  synchronized boolean storedLoaded() {
    return storedLoaded;
  }

  /** Takes its stored record as read with its lease (null: it has none), unless read already. */
  synchronized void storedReadWithLease(ComponentRecord record) {
    if (!storedLoaded) {
      stored = record;
      storedLoaded = true;
    }
  }

  /**
   * Has {@link #stored} read its record again at the next call: read before its lease (the root's
   * memoized functions), it may be older than another worker's commit (see {@link
   * RootCommitLease}).
   */
  synchronized void readStoredAgain() {
    storedLoaded = false;
  }

  synchronized java.util.Optional<ComponentRecord> stored() {
    if (!storedLoaded) {
      stored = run.storedComponent(path, waitedFor).orElse(null);
      storedLoaded = true;
    }
    return java.util.Optional.ofNullable(stored);
  }

  synchronized byte[] memoValuesToStore() {
    if (memoValues == null) {
      return stored().map(ComponentRecord::memoValues).orElse(null);
    }
    return memoValues.encodeUsed();
  }

  // ---- declarations ----

  @Override
  public <V> TargetStateProvider<V> registerRootProvider(
      String name, TargetHandler<V, ?, ?> handler) {
    Objects.requireNonNull(handler, "handler");
    checkOpen("register a provider");
    return run.providers.registerRoot(name, handler);
  }

  @Override
  public <V> void declare(TargetState<V> ts) {
    record(ts, false);
  }

  @Override
  public <V, C> TargetStateProvider<C> declareWithChild(TargetState<V> parent) {
    return record(parent, true);
  }

  @Override
  public <V, C> TargetStateProvider<C> mountTarget(TargetState<V> parent) {
    Provider.DeclaredValue<V> dv = declaredValue(parent);
    StableKey subpath = new StableKey.Array(List.of(
        StableKey.symbol("target"), new StableKey.Str(dv.provider().name()), dv.key()));
    return useMount(subpath, c -> ((ComponentContext) c).record(parent, true));
  }

  @SuppressWarnings("unchecked")
  private <V, C> Provider<C> record(TargetState<V> ts, boolean withChild) {
    checkOpen("declare a target state");
    Provider.DeclaredValue<V> dv = declaredValue(ts);
    Provider<V> provider = dv.provider();
    if (!run.providers.owns(provider)) {
      throw new IllegalStateException(
          "cannot declare key " + dv.key() + " on provider '" + provider.name() + "': it was"
              + " registered by another run or app; register providers in main on every run and"
              + " declare through the provider that registration returns");
    }
    TargetPath statePath = provider.path().child(dv.key());
    Provider<C> child = withChild ? run.providers.newChildProvider(provider, statePath) : null;
    if (run.mode == RunMode.DROP) {
      return child;
    }
    if (dv.value() == null) {
      throw new IllegalArgumentException(
          "the value declared for key " + dv.key() + " of provider '" + provider.name()
              + "' is null: declare a value, or stop declaring the key to delete it");
    }
    if (!provider.isResolved() && !isPendingContainer(provider.container())) {
      throw new IllegalStateException(
          "cannot declare key " + dv.key() + " on provider '" + provider.name() + "': "
              + provider.unresolvedMessage());
    }
    DeclaredTarget declaration;
    try {
      declaration = pastBoundary(provider, dv, statePath, child);
    } catch (CodecException e) {
      throw new CodecException("cannot declare key " + dv.key() + " on provider '"
          + provider.name() + "': " + e.getMessage(), e);
    }
    synchronized (declared) {
      if (!declared.add(declaration)) {
        throw new IllegalStateException(
            "key " + dv.key() + " of provider '" + provider.name() + "' is declared twice in"
                + " component " + path + " (target state " + statePath + ")");
      }
      if (withChild) {
        pendingContainers.add(statePath);
      }
    }
    return child;
  }

  /**
   * The declaration of {@code dv}, its value past the serialization boundary (rule 1): copied by
   * the handler's codec, or, while the handler is not known, kept as {@link DeclaredTarget} says.
   */
  @SuppressWarnings("unchecked")
  private <V> DeclaredTarget pastBoundary(
      Provider<V> provider, Provider.DeclaredValue<V> dv, TargetPath statePath, Provider<?> child) {
    Object copy = null;
    byte[] encoded = null;
    Class<?> encodedAs = null;
    if (provider.isResolved()) {
      copy = provider.binding().valueCodec().copy(dv.value());
    } else {
      // The handler is not known yet: encoded by the codec of the value's class when that keeps
      // every class (a generated one: fast), else copied by the value's runtime classes
      // (DynamicCodec), which keep what Jackson would not (a Long in a Map<String, Object>, an
      // ArrayList); a value that copy cannot take is encoded by its class's codec after all.
      Codec<V> own = run.codecs.codecFor((Class<V>) dv.value().getClass());
      if (!own.keepsClasses()) {
        try {
          copy = run.codecs.codecFor(Object.class).copy(dv.value());
          encodedAs = Object.class;
        } catch (CodecException e) {
          // encoded below
        }
      }
      if (copy == null) {
        encoded = own.encode(dv.value());
        encodedAs = dv.value().getClass();
      }
    }
    return new DeclaredTarget(provider, dv.key(), statePath, copy, encoded, encodedAs, child);
  }

  /** Whether this component declared {@code container} with a child provider (under lock). */
  private boolean isPendingContainer(TargetPath container) {
    synchronized (declared) {
      return pendingContainers.contains(container);
    }
  }

  @SuppressWarnings("unchecked")
  private static <V> Provider.DeclaredValue<V> declaredValue(TargetState<V> ts) {
    Objects.requireNonNull(ts, "target state");
    if (ts instanceof Provider.DeclaredValue<?> dv) {
      return (Provider.DeclaredValue<V>) dv;
    }
    throw new IllegalArgumentException(
        "target state " + ts + " was not made by a provider of this runtime:"
            + " use provider.targetState(key, value)");
  }

  /** The component's declarations so far. */
  List<DeclaredTarget> declarations() {
    synchronized (declared) {
      return declared.snapshot();
    }
  }

  /** Whether every declaration came after the one before it in path order. */
  boolean declaredInPathOrder() {
    synchronized (declared) {
      return declared.inPathOrder();
    }
  }

  /** Whether no declaration came after a deeper one: {@link #declarations} is in depth order. */
  boolean declaredInDepthOrder() {
    synchronized (declared) {
      return declared.inDepthOrder();
    }
  }

  void close() {
    closed = true;
  }

  /**
   * Drops what the component declared and read, once it has finished. A context made while its
   * component waited for a slot has usually been promoted to the old generation by then, and a
   * young collection keeps whatever an old object references until a marking of the old
   * generation finds that object dead: a finished context would keep its hundred declared
   * values, and everything they reference, through every young collection until then (at a
   * million states, half of what a warm run allocated survived its young collections, and
   * collections took half its time).
   */
  synchronized void release() {
    synchronized (declared) {
      declared.clear();
      pendingContainers.clear();
    }
    stored = null;
    storedLoaded = true;
    memoValues = null;
  }

  private void checkOpen(String what) {
    if (closed) {
      throw new IllegalStateException(
          "cannot " + what + " in component " + path + " after its body returned: inside a"
              + " mounted component, use the Ctx its lambda was given, not one captured from"
              + " outside it");
    }
    ComponentContext running = RUNNING_BODY.get();
    if (running != null && running != this && running.isBelow(this)) {
      // While the ancestor's body still runs (a foreground child, or a mounted one started
      // before the ancestor returned), the declaration would be taken as the ancestor's: its
      // own component would not own it, and whether it failed depended on timing.
      throw new IllegalStateException(
          "cannot " + what + " in component " + path + " from the body of its descendant "
              + running.path + ": inside a mounted component, use the Ctx its lambda was given,"
              + " not one captured from outside it");
    }
  }

  /** Whether {@code ancestor} mounted this component, or one of its ancestors. */
  private boolean isBelow(ComponentContext ancestor) {
    for (ComponentContext c = parent; c != null; c = c.parent) {
      if (c == ancestor) {
        return true;
      }
    }
    return false;
  }

  /**
   * Marks {@code ctx}'s body as running on this thread until {@link #exitBody}; returns what to
   * restore then (the body this one is nested in).
   */
  static ComponentContext enterBody(ComponentContext ctx) {
    ComponentContext outer = RUNNING_BODY.get();
    RUNNING_BODY.set(ctx);
    return outer;
  }

  /** Ends a body {@link #enterBody} began: {@code outer} is what it returned. */
  static void exitBody(ComponentContext outer) {
    if (outer == null) {
      RUNNING_BODY.remove();
    } else {
      RUNNING_BODY.set(outer);
    }
  }

  @Override
  public String toString() {
    return "Ctx[" + path + "]";
  }
}
