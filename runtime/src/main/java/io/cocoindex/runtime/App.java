package io.cocoindex.runtime;

import io.cocoindex.Ctx;
import io.cocoindex.runtime.apply.SinkBatcher;
import io.cocoindex.runtime.component.ComponentRunner;
import io.cocoindex.runtime.inspect.StateInspector;
import io.cocoindex.runtime.inspect.StatusReport;
import io.cocoindex.runtime.plan.OrphanSweep;
import io.cocoindex.runtime.plan.Run;
import io.cocoindex.runtime.plan.RunAborted;
import io.cocoindex.runtime.plan.RunSettlement;
import io.cocoindex.runtime.plan.RunMode;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.threads.ComponentPool;
import io.cocoindex.runtime.threads.SharedThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An application: a main component that declares target states, kept in sync incrementally.
 *
 * <pre>{@code
 * try (App app = App.create("docs", env, ctx -> {
 *   var files = TargetStates.registerRootTargetStatesProvider(ctx, "files", new FileHandler(dir));
 *   for (var doc : docs) {
 *     TargetStates.declareTargetState(ctx, files.targetState(doc.name(), doc.text()));
 *   }
 * })) {
 *   UpdateStats stats = app.update(); // creates, updates and deletes only what changed
 * }
 * }</pre>
 *
 * <p>{@code main} runs on every update, preview and drop: register every root provider there on
 * every run, so states that are no longer declared (and {@link #dropState()}) reach their
 * handlers. The store's update lock is held only while an update, preview or drop runs.
 */
public final class App implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(App.class);

  private final String name;
  private final Environment env;
  private final Consumer<Ctx> main;
  private final StateStore store;
  /**
   * The pool its components run on; a new one takes a worn one's place at a run's start ({@link
   * #poolForRun}).
   */
  private volatile ComponentPool componentPool;
  /** Whether {@link #componentPool} is shared with the other apps of this name and store. */
  private final boolean sharesPool;
  private final Executor sinkExecutor;
  /** Guards {@code closed}, {@code running} and the release's flags. */
  private final Object lifecycle = new Object();
  private boolean closed;
  /**
   * The threads running an update, preview, drop or status read now (one entry per operation):
   * {@link #close} waits for them, or leaves the release to the last of them when one of them
   * closes the app itself.
   */
  private final List<Thread> running = new ArrayList<>();
  /** Closed from inside an operation: the last one to end releases the app. */
  private boolean releaseOnLastEnd;
  /** A thread has taken the release on itself; {@code released} once it is done. */
  private boolean releasing;
  private boolean released;
  private volatile Run current;
  /**
   * The error that stopped a run in which a task of the engine's threads (a component worker's,
   * a sink's, the store writer's) threw past itself, or null: another task of that run may still
   * wait for good for what it held, so the app takes no further runs.
   */
  private volatile Throwable stoppedBy;

  private App(String name, Environment env, Consumer<Ctx> main) {
    this.name = name;
    this.env = env;
    this.main = main;
    this.store = env.acquireStore();
    // On a store the app is the only writer of while it updates, apps of its name take turns:
    // they share one pool, so that an app opened for each update finds its workers started. On a
    // store shared by workers, several apps of one name may run at once (a worker each): each
    // has its own pool.
    this.sharesPool = store.exclusiveWhileLocked();
    // The store as the shared pools tell stores apart (StateStore#identity), so that an app
    // reopened on the embedded store's file finds its pool.
    this.componentPool = sharesPool
        ? SharedThreads.acquireComponentPool(name, store.identity(), env.parallelism())
        : SharedThreads.newComponentPool(name, env.parallelism());
    this.sinkExecutor = sinkThreads("cocoindex-" + name + "-sink");
  }

  /**
   * Creates an app.
   *
   * @param name the app's name, unique in its environment's store
   * @param env where it keeps tracking and finds context values
   * @param main the root component, run on every update
   * @return the app, holding its environment's store until {@link #close()}; it takes the update
   *     lock only while an update, preview or drop runs
   * @throws IllegalArgumentException when {@code name} is blank
   */
  public static App create(String name, Environment env, Consumer<Ctx> main) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(main, "main");
    if (name.isBlank()) {
      throw new IllegalArgumentException("an app name must not be blank");
    }
    return new App(name, env, main);
  }

  /**
   * The app's name, which keys its tracking in the store.
   *
   * @return the name given to {@link #create}
   */
  public String name() {
    return name;
  }

  /**
   * Brings every declared target state up to date; see {@link #update(UpdateOptions)}.
   *
   * @return what the update did, per provider
   * @throws UpdateFailedException after committing the healthy components, when any failed
   * @throws io.cocoindex.runtime.state.StoreLockedException when another process is updating
   */
  public UpdateStats update() {
    return update(UpdateOptions.defaults());
  }

  /**
   * Runs {@code main}, reconciles and applies what changed, and remembers it.
   *
   * <p>An {@link OutOfMemoryError} (any {@link VirtualMachineError} but a stack overflow) thrown
   * anywhere in the run stops it, as a crash would: nothing is applied or committed after it,
   * and this throws that error once the run's other tasks have ended. What the run committed
   * before stands; the next run finishes the rest. A task of the engine's threads that throws past
   * itself (its work lost) stops the run the same way, and this app then takes
   * no further runs (close it and open it again). So does the loss of the run's sessions with a
   * state store shared by workers ({@link io.cocoindex.runtime.state.SessionsLostException}, the
   * cause of the {@link IllegalStateException} thrown): the other workers may soon take the run
   * for dead, so it starts no further sink call.
   *
   * @param options how to run it, such as {@link UpdateOptions#fullReprocess()}
   * @return what the update did, per provider
   * @throws UpdateFailedException after committing the healthy components, when any failed
   * @throws io.cocoindex.runtime.state.StoreLockedException when another process is updating
   */
  public UpdateStats update(UpdateOptions options) {
    Run run = execute(RunMode.UPDATE, options);
    UpdateStats stats = finish(run, "update of app '" + name + "'");
    if (log.isInfoEnabled()) {
      int leftToOthers = run.componentsLeftToOtherWorkers();
      log.info("updated app '{}'{}: {}{}", name,
          options.isFullReprocess() ? " (full reprocess)" : "", stats.summary(),
          leftToOthers == 0 ? "" : "; " + leftToOthers + " components left to other workers"
              + " (one a worker claimed and died on is taken over by a worker reaching it"
              + " later, or else by the next run)");
    }
    return stats;
  }

  /**
   * Plans what {@link #update()} would do, container targets included; applies nothing.
   *
   * @return the actions an update would apply now; no sink ran and nothing was persisted
   * @throws UpdateFailedException when a component or a handler failed
   * @throws io.cocoindex.runtime.state.StoreLockedException when another process is updating
   */
  public Preview preview() {
    Run run = execute(RunMode.PREVIEW, UpdateOptions.defaults());
    List<ComponentFailure> failures = run.failures();
    if (!failures.isEmpty()) {
      throw new UpdateFailedException("preview of app '" + name + "'", failures,
          run.stats.snapshot(Duration.ZERO));
    }
    return run.preview();
  }

  /**
   * Deletes every target state the app owns through its handlers, then forgets the app's state.
   * {@code main} runs for its provider registrations only; its declarations are discarded. If a
   * deletion fails, the tracking of what is left survives and a later {@code dropState} finishes.
   *
   * @return what the drop did, per provider: the deletions it applied
   * @throws UpdateFailedException when a deletion failed; the tracking of what is left survives
   * @throws io.cocoindex.runtime.state.StoreLockedException when another process is updating
   */
  public UpdateStats dropState() {
    begin();
    try {
      refuseIfStopped();
      return dropOpen();
    } finally {
      end();
    }
  }

  private UpdateStats dropOpen() {
    long start = System.nanoTime();
    Run run = locked(() -> {
      Run drop = newRun(RunMode.DROP, false);
      current = drop;
      RunProgressLog progressLog = RunProgressLog.start(name, RunMode.DROP, drop);
      try {
        ComponentRunner.runRoot(drop, main);
        if (drop.abortedBy() == null) {
          OrphanSweep.sweep(drop);
        }
      } catch (RunAborted stopped) {
        // reported below, once the run's other tasks have ended
      } finally {
        current = null;
        progressLog.close();
        try {
          if (drop.abortedBy() != null) {
            awaitStoppedTasks(drop);
          }
        } finally {
          drop.end();
        }
      }
      if (drop.failures().isEmpty() && drop.abortedBy() == null) {
        store.clear(name);
      }
      return drop;
    });
    stopIfAborted(run, RunMode.DROP);
    UpdateStats stats = run.stats.snapshot(Duration.ofNanos(System.nanoTime() - start));
    if (!run.failures().isEmpty()) {
      throw new UpdateFailedException("drop of app '" + name + "'", run.failures(), stats);
    }
    log.info("dropped the state of app '{}': {} target states deleted through their handlers"
        + " (the children of a deleted container go with it)", name,
        stats.total().deleted());
    return stats;
  }

  /**
   * Progress of the update, preview or drop running now, or null when none is.
   *
   * @return a snapshot of the running run's counters, or null
   */
  public RunProgress progress() {
    Run run = current;
    return run == null ? null : run.stats.progress();
  }

  /**
   * What the app tracks now, per provider, and which states an interrupted run left unsettled.
   * Takes no lock: it can run while an update is in progress (and then sees its commits so far).
   *
   * @return the app's tracked states per provider, and its unsettled ones
   */
  public StatusReport status() {
    begin();
    try {
      return StateInspector.inspect(store, name);
    } finally {
      end();
    }
  }

  private Run execute(RunMode mode, UpdateOptions options) {
    begin();
    try {
      refuseIfStopped();
      return stopIfAborted(executeOpen(mode, options), mode);
    } finally {
      end();
    }
  }

  private Run executeOpen(RunMode mode, UpdateOptions options) {
    return locked(() -> {
      Run run = newRun(mode, options.isFullReprocess());
      run.limitDeletions(options.deletionLimit());
      run.startNanos = System.nanoTime();
      current = run;
      RunProgressLog progressLog = RunProgressLog.start(name, mode, run);
      boolean completed = false;
      try {
        // Within the try: whatever fails from here on, the run ends (on a shared store its
        // lock is given back, and what it claimed is known finished or not).
        run.startComponentScan();
        ComponentRunner.runRoot(run, main);
        if (run.abortedBy() == null) {
          OrphanSweep.sweep(run);
          completed = true;
        }
      } catch (RunAborted stopped) {
        // reported below, once the run's other tasks have ended
      } finally {
        current = null;
        progressLog.close();
        try {
          if (run.abortedBy() != null) {
            awaitStoppedTasks(run);
            completed = false;
          }
          RunSettlement.finish(run, completed);
        } finally {
          run.end();
        }
      }
      return run;
    });
  }

  /**
   * How long the end of a stopped run waits for its tasks still under way: each ends at its next
   * stage (none applies or commits anything once the run is stopped); only a component body
   * still running the app's code takes longer.
   */
  private static final long STOPPED_TASKS_WAIT_SECONDS = 5;

  /**
   * Waits, a bounded time, for the tasks of a stopped run still on the pool, and for its sink
   * calls still under way (the stop failed their submissions at once, and their components gave
   * their leases back), so that none is under way when the update lock goes: on a store shared
   * by workers, the run's lock going is what lets another worker take over the components it
   * left, and a call of this run landing after that worker's would leave the sink at this run's
   * value while the tracking holds the other's.
   */
  private void awaitStoppedTasks(Run run) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOPPED_TASKS_WAIT_SECONDS);
    boolean interrupted = false;
    // On one of the pool's workers the pool is never quiet while this waits; its sink calls
    // run elsewhere.
    boolean onPool = onPoolWorker();
    // Polled, not awaitQuiescence: that runs the pool's queued tasks on this thread, and one of
    // them may be a body that blocks.
    while ((!onPool && !componentPool.isQuiescent() || run.batcher.callsUnderWay() > 0)
        && System.nanoTime() < deadline) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        interrupted = true; // waited for all the same: the wait is bounded
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (!onPool && !componentPool.isQuiescent()) {
      log.warn("app '{}': tasks of the stopped run {} still run after {} s (a component body, or"
          + " a wait for a lost task); none of them applies or commits anything", name,
          run.version, STOPPED_TASKS_WAIT_SECONDS);
    }
    if (run.batcher.callsUnderWay() > 0) {
      log.warn("app '{}': {} sink calls of the stopped run {} are still under way after {} s;"
          + " a worker that takes over their components may write before them", name,
          run.batcher.callsUnderWay(), run.version, STOPPED_TASKS_WAIT_SECONDS);
    }
  }

  /**
   * Throws the error that stopped {@code run} early, if one did: an {@link Error} as it was
   * thrown, anything else (the run's sessions with a shared store lost, or a task of the engine's
   * threads threw it past itself) in an {@link IllegalStateException}. After a lost task the app
   * takes no further runs.
   */
  private Run stopIfAborted(Run run, RunMode mode) {
    Throwable error = run.abortedBy();
    if (error == null) {
      return run;
    }
    if (run.lostATask()) {
      stoppedBy = error;
    }
    String where = run.stoppedWhere();
    log.error("{} of app '{}' stopped early by {}{}: what it committed before stands, and the"
        + " next run finishes the rest{}", mode.name().toLowerCase(java.util.Locale.ROOT), name,
        error, where == null ? "" : " (thrown " + where + ")",
        run.lostATask() ? "; a task of the engine was lost, so this app takes no further runs:"
            + " close it, and open it again (best in a new process)" : "");
    if (error instanceof Error e) {
      throw e;
    }
    if (error instanceof io.cocoindex.runtime.state.SessionsLostException) {
      throw new IllegalStateException(mode.name().toLowerCase(java.util.Locale.ROOT) + " of app '"
          + name + "' stopped early: " + error.getMessage(), error);
    }
    throw new IllegalStateException(mode.name().toLowerCase(java.util.Locale.ROOT) + " of app '"
        + name + "' stopped early: a task of the engine was lost to " + error, error);
  }

  /** Runs {@code work} holding the store's update lock of this app ({@link #lockForUpdate}). */
  @SuppressWarnings("try") // the lock is held for the block's duration, never referenced in it
  private Run locked(Supplier<Run> work) {
    try (AutoCloseable lock = lockForUpdate()) {
      return work.get();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot release the update lock of app " + name, e);
    }
  }

  /**
   * The store's update lock of this app, waited for as long as the environment says (polling,
   * from 10 ms up to 1 s apart): the holder may be another process, whose end the OS signals to
   * no one.
   */
  private AutoCloseable lockForUpdate() {
    java.time.Duration wait = env.lockWait();
    long deadline = System.nanoTime() + wait.toNanos();
    long pause = 10;
    boolean logged = false;
    while (true) {
      try {
        return store.lockForUpdate(name);
      } catch (io.cocoindex.runtime.state.StoreLockedException e) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          if (wait.isZero()) {
            throw e;
          }
          throw new io.cocoindex.runtime.state.StoreLockedException(
              e.getMessage() + " (waited " + wait + " for it)");
        }
        if (!logged) {
          log.info("app '{}' waits up to {} for the update lock: {}", name, wait, e.getMessage());
          logged = true;
        }
        try {
          Thread.sleep(Math.min(pause, left / 1_000_000 + 1));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        pause = Math.min(1000, pause * 2);
      }
    }
  }

  private Run newRun(RunMode mode, boolean fullReprocess) {
    long version = mode == RunMode.PREVIEW ? Long.MAX_VALUE : store.nextVersion(name);
    return new Run(name, mode, fullReprocess, version, store, env.codecs(),
        new SinkBatcher(sinkExecutor), poolForRun(), env.context(), env.listeners());
  }

  /**
   * The component pool for a run about to start: the app's, or a new one in its place once it is
   * {@link ComponentPool#worn} (on JDK 17 before 17.0.17 a pool kept for long enough stops
   * waking its workers, and runs hang). Renewed only while no other operation of this app is
   * under way, which might be using it; the worn pool's own app lets it go (an own one is shut
   * down: its idle workers end, and a task of a stopped run still on it finishes).
   */
  private ComponentPool poolForRun() {
    ComponentPool pool = componentPool;
    if (!pool.worn() || onPoolWorker()) {
      return pool;
    }
    synchronized (lifecycle) {
      if (running.size() > 1) {
        return pool; // renewed at a later run
      }
      ComponentPool renewed;
      if (sharesPool) {
        renewed = SharedThreads.renewComponentPool(pool);
      } else {
        renewed = SharedThreads.newComponentPool(name, env.parallelism());
        pool.shutdown();
      }
      componentPool = renewed;
      log.debug("app '{}' runs on a new component pool: the last one had started its share of"
          + " workers", name);
      return renewed;
    }
  }

  private UpdateStats finish(Run run, String what) {
    UpdateStats stats = run.stats.snapshot(Duration.ofNanos(System.nanoTime() - run.startNanos));
    List<ComponentFailure> failures = run.failures();
    if (!failures.isEmpty()) {
      throw new UpdateFailedException(what, failures, stats);
    }
    return stats;
  }

  /** Refuses a run once a task of the engine was lost in an earlier one ({@link #stoppedBy}). */
  private void refuseIfStopped() {
    Throwable stopped = stoppedBy;
    if (stopped != null) {
      throw new IllegalStateException("app '" + name + "' takes no further runs: a task of the"
          + " engine was lost in an earlier one (" + stopped + "), and another task of that run may"
          + " still be waiting. Close the app and open it again, best in a new process; the"
          + " next run finishes what that one left, as after a crash", stopped);
    }
  }

  /** Counts an operation on this thread in, unless the app is closed. */
  private void begin() {
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("app '" + name + "' is closed");
      }
      running.add(Thread.currentThread());
    }
  }

  /** Counts it out; the last one out of an app closed from inside releases what it holds. */
  private void end() {
    boolean release;
    synchronized (lifecycle) {
      running.remove(Thread.currentThread());
      release = releaseOnLastEnd && running.isEmpty() && !releasing;
      if (release) {
        releasing = true;
      }
      lifecycle.notifyAll();
    }
    if (release) {
      release();
    }
  }

  /**
   * Releases the store (when no other app of the environment uses it; a store given to {@link
   * Environment.Builder#stateStore} is the caller's, and stays open). The threads the app ran on
   * outlive it, idle, for the next app ({@link SharedThreads}): its component workers for the next
   * app of its name on the embedded store (on a store shared by workers they are its own, and end),
   * its sink calls' and the store writer's for any. An update, preview, drop or status read that
   * another thread is running finishes first: this waits for it (a shutdown hook may close an app
   * while it updates), and no new one starts. Closed from inside one of them (from {@code main}, a
   * component or a sink), the app is released when the last of them ends. Once this returns on any
   * other thread, the app holds nothing.
   */
  @Override
  public void close() {
    Thread me = Thread.currentThread();
    synchronized (lifecycle) {
      closed = true;
      if (running.contains(me) || (!running.isEmpty() && onOwnThread())) {
        // From inside a run (its main, a component, a sink): waiting would never end.
        releaseOnLastEnd = true;
        return;
      }
      boolean interrupted = false;
      // Wait for the operations, then for whoever releases, unless that falls to this thread.
      while (!running.isEmpty() || (releasing && !released)) {
        try {
          lifecycle.wait();
        } catch (InterruptedException e) {
          interrupted = true; // waited for all the same
        }
      }
      if (interrupted) {
        me.interrupt();
      }
      if (releasing) {
        return; // released
      }
      releasing = true;
    }
    release();
  }

  private void release() {
    try {
      releaseThreadsAndStore();
    } finally {
      synchronized (lifecycle) {
        released = true;
        lifecycle.notifyAll();
      }
    }
  }

  private void releaseThreadsAndStore() {
    // A shared pool stays for the next app of this name, an own one is shut down; either way its
    // idle workers end on their own (waiting for them took up to a millisecond). A pool still
    // running tasks (this app's: apps of one name take turns on a shared one) is waited for
    // before the store goes, unless this is one of its workers.
    if (!sharesPool) {
      componentPool.shutdown();
    }
    if (!componentPool.isQuiescent() && !onPoolWorker()) {
      if (sharesPool) {
        componentPool.awaitQuiescence(10, TimeUnit.SECONDS);
      } else {
        try {
          componentPool.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    if (sharesPool) {
      SharedThreads.releaseComponentPool(componentPool);
    }
    env.releaseStore();
  }

  private boolean onPoolWorker() {
    return Thread.currentThread() instanceof ForkJoinWorkerThread w && w.getPool() == componentPool;
  }

  /**
   * Sink calls on {@link SharedThreads}, each named {@code name} and known as this app's while
   * it runs (see {@link #onOwnThread}). Nothing is left to stop at close: once the app's
   * operations have ended, every call they made has returned.
   */
  private Executor sinkThreads(String name) {
    return task -> SharedThreads.execute(name, () -> {
      OWNER.set(this);
      try {
        task.run();
      } finally {
        OWNER.remove();
      }
    });
  }

  /** The app whose sink thread this is. */
  private static final ThreadLocal<App> OWNER = new ThreadLocal<>();

  /**
   * Whether this thread works for this app's runs (a component or a sink thread): closing the app
   * there cannot wait for the run it works for.
   */
  private boolean onOwnThread() {
    return onPoolWorker() || OWNER.get() == this;
  }
}
