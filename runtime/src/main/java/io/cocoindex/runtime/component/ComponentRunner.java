package io.cocoindex.runtime.component;

import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.plan.CallerRuns;
import io.cocoindex.runtime.plan.ComponentCommit;
import io.cocoindex.runtime.plan.DeclaredTarget;
import io.cocoindex.runtime.plan.KilledRunMemos;
import io.cocoindex.runtime.plan.LeaseBatcher;
import io.cocoindex.runtime.plan.LeaseGate;
import io.cocoindex.runtime.plan.MemoDependencies;
import io.cocoindex.runtime.plan.PoolStages;
import io.cocoindex.runtime.plan.Run;
import io.cocoindex.runtime.plan.RunAborted;
import io.cocoindex.runtime.plan.RunMode;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.StateStore;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs processing components: the body on the run's bounded pool, then (after every child has
 * finished) its commit. A component's future completes with whether its whole subtree succeeded;
 * it never completes exceptionally, failures are recorded on the run.
 */
public final class ComponentRunner {
  private static final Logger log = LoggerFactory.getLogger(ComponentRunner.class);

  private ComponentRunner() {}

  /**
   * Runs the app's root component on the calling thread and waits for the whole tree.
   *
   * <p>Not on the component pool: the root usually mounts a target in the foreground first, and
   * a pool worker that waits for a foreground component relies on the pool to start another
   * worker for the stages that component's commit queued on the waiting worker itself. In three
   * test runs that did not happen: the only worker sat in the wait with the stage in its own
   * queue, and the run never ended. Here the root's own stages, and those of the foreground
   * targets it mounts, run on the calling thread while it waits ({@link CallerRuns}); those of
   * its other children go to the pool.
   *
   * @param run the run, whose pool runs the other components
   * @param main the app's main function: the root component's body
   * @return whether the root and every component below it finished without failing (the
   *     failures themselves are the run's: {@link Run#failures})
   * @throws io.cocoindex.runtime.plan.RunAborted when the run stops early before the tree is done
   */
  public static boolean runRoot(Run run, Consumer<Ctx> main) {
    ComponentContext root = new ComponentContext(run, null, TargetPath.ROOT, null, null, false);
    // Every worker runs the root (it registers the providers and mounts the components); its
    // body is not leased, its commit is when it declares states (RootCommitLease).
    run.visit(root.path);
    mounted(root);
    CallerRuns own = new CallerRuns(run.componentPool, run.abortion());
    return own.join(runBody(root, c -> {
      main.accept(c);
      return null;
    }, own));
  }

  /**
   * Counts {@code ctx} as mounted by this run; its parent noted its path as mounted already
   * ({@link Run#visit}), so that its tracking is the run's, not an orphan's.
   */
  private static void mounted(ComponentContext ctx) {
    ctx.run.stats.componentMounted();
  }

  /**
   * Runs {@code body}, then the component's commit once its children are done, its stages on
   * {@code stages}.
   */
  private static CompletableFuture<Boolean> runBody(
      ComponentContext ctx, Function<Ctx, ?> body, Executor stages) {
    return runBody(ctx, body, stages, null);
  }

  /**
   * Runs {@code body} on this thread, then its commit; the time the body held the thread (its
   * foreground children's included) is reported to {@code leasedAhead}, if given.
   */
  private static CompletableFuture<Boolean> runBody(
      ComponentContext ctx, Function<Ctx, ?> body, Executor stages, LeaseGate leasedAhead) {
    Throwable error = null;
    ComponentContext outer = ComponentContext.enterBody(ctx);
    long started = leasedAhead != null ? System.nanoTime() : 0;
    try {
      body.apply(ctx);
    } catch (Throwable t) {
      error = t;
    } finally {
      ComponentContext.exitBody(outer);
      if (leasedAhead != null) {
        leasedAhead.reportSize((System.nanoTime() - started) / 1_000);
      }
    }
    return finish(ctx, error, stages);
  }

  static CompletableFuture<Boolean> start(ComponentContext ctx, Function<Ctx, ?> body) {
    Run run = ctx.run;
    // A preview or a drop's registration pass writes nothing: it needs no lease.
    // A store that is the app's only writer while locked has no other worker to share with.
    boolean leased = run.mode == RunMode.UPDATE && !run.store.exclusiveWhileLocked();
    mounted(ctx);
    // Its children take the gate of the level below: it holds its slot while it waits for them.
    int level = ctx.slotsHeldAbove;
    LeaseGate gate = run.inFlight(level);
    ctx.slotsHeldAbove++;
    CompletableFuture<Void> slot = gate.acquire();
    if (ctx.parent != null) {
      ctx.parent.childAwaitsSlot(slot); // its mounting body waits past a bound of these
    }
    // Leases are taken in batches; no thread waits for this component's own round trip. On a
    // shared store, only about what the pool is to start soon is leased (Run#leasedAhead), so
    // that other workers find the rest free: a slot of it is held from the request to the body's
    // start, never while waiting for another. Only on the first level: below, a component has an
    // ancestor this worker holds the lease of, so no other worker can run it, and its level's
    // gate bounds its lease. Within that bound, children whose parent's body had held its thread
    // a while (the mean it follows, narrowed to two per thread) were leased two per round trip.
    LeaseGate ahead = leased && level == 0 ? run.leasedAhead : null;
    // Its record is read with its lease, in one query for the batch, unless it was read already.
    boolean readRecord = leased && !ctx.storedLoaded();
    CompletableFuture<AutoCloseable> leasing = !leased ? slot.thenApply(v -> StateStore.NO_LEASE)
        : (ahead == null ? slot : slot.thenCompose(v -> ahead.acquire()))
            // A run stopping meanwhile starts no more bodies: no round trip for a lease.
            .thenCompose(v -> run.stoppingBy() != null
                ? CompletableFuture.<LeaseBatcher.Leased>failedFuture(
                    new RunAborted(run.stoppingBy()))
                : run.leases.lease(ctx.path.encoded(), readRecord))
            .thenApply(granted -> {
              if (granted.lease() != null && granted.recordRead()) {
                ctx.storedReadWithLease(granted.record());
              }
              return granted.lease();
            });
    return leasing.handleAsync((lease, leaseError) -> {
      if (ahead != null) {
        // Skipped as another worker's, it widens what is leased ahead until one is taken.
        if (lease == null && leaseError == null) {
          ahead.reportSkipped();
        } else if (lease != null) {
          ahead.reportTaken();
        }
        ahead.release(); // it starts now, or is skipped
      }
      Throwable cannotStart = leaseError != null ? unwrap(leaseError)
          : run.abortedBy() != null ? new RunAborted(run.abortedBy()) : null;
      if (cannotStart != null) {
        // The store cannot lease (connection lost, say): this component fails, the run goes on.
        // A run stopped early starts no more bodies.
        if (lease != null) {
          release(lease, ctx.path);
        }
        gate.release();
        run.protect(ctx.path);
        run.fail(ctx.path, cannotStart);
        run.stats.componentFinished();
        return CompletableFuture.completedFuture(false);
      }
      if (lease == null) {
        // Another worker is processing it: leave its tracking alone.
        gate.release();
        run.leftToAnotherWorker(ctx.path);
        if (ctx.parent != null) {
          ctx.parent.childCommitted(ComponentCommit.Outcome.LEFT_ELSEWHERE);
        }
        run.stats.componentFinished();
        log.debug("component {} is being processed by another worker; skipped", ctx.path);
        return CompletableFuture.completedFuture(true);
      }
      // The time bodies hold a thread sizes what is leased ahead of them.
      return runBody(ctx, body, run.componentPool, ahead).whenComplete((ok, err) -> {
        release(lease, ctx.path);
        gate.release();
      });
    }, stage -> run.componentPool.executeBody(stage, level)).thenCompose(f -> f);
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  private static void release(AutoCloseable lease, TargetPath component) {
    try {
      lease.close();
    } catch (Exception e) {
      log.warn("releasing the lease of component {} failed", component, e);
    }
  }

  /**
   * How many foreground components one thread runs nested in one another before the next one
   * goes to a thread of its own: each is a few frames of the engine's and the app's own around
   * its body, on the stack of the body that mounted it, and a chain of them some 860 deep
   * overflowed a pool worker's stack (every component of the chain failed with a {@link
   * StackOverflowError}).
   */
  static final int FOREGROUND_NESTING_PER_THREAD =
      Math.max(1, Integer.getInteger("cocoindex.foreground.nestingPerThread", 64));
  /** How many foreground components the current thread is running, nested. */
  private static final ThreadLocal<int[]> FOREGROUND_NESTING =
      ThreadLocal.withInitial(() -> new int[1]);

  static <T> T runForeground(ComponentContext ctx, Function<Ctx, T> body) {
    int[] nesting = FOREGROUND_NESTING.get();
    if (nesting[0] >= FOREGROUND_NESTING_PER_THREAD) {
      return onThreadOfItsOwn(ctx, body);
    }
    nesting[0]++;
    try {
      return runForegroundHere(ctx, body);
    } finally {
      nesting[0]--;
    }
  }

  /**
   * Runs a foreground component on a new thread, with a stack of its own, and waits for it: its
   * result, or what it threw, as if run here. A pool worker waiting for it runs the stages it
   * queued on itself meanwhile ({@link OwnTasks}).
   */
  private static <T> T onThreadOfItsOwn(ComponentContext ctx, Function<Ctx, T> body) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Throwable[] thrown = new Throwable[1];
    Thread t = new Thread(null, () -> {
      try {
        result.complete(runForeground(ctx, body));
      } catch (Throwable e) {
        thrown[0] = e;
        result.complete(null);
      }
    }, "cocoindex-foreground-" + ctx.run.app, 0);
    t.setDaemon(true);
    t.start();
    // Completes normally; publishes thrown[0].
    T value = OwnTasks.join(result, ctx.run.abortion(), ctx.slotsHeldAbove);
    Throwable e = thrown[0];
    if (e instanceof RuntimeException re) {
      throw re;
    }
    if (e instanceof Error err) {
      throw err;
    }
    if (e != null) {
      throw new CompletionException(e);
    }
    return value;
  }

  private static <T> T runForegroundHere(ComponentContext ctx, Function<Ctx, T> body) {
    Run run = ctx.run;
    mounted(ctx);
    AutoCloseable lease = run.mode == RunMode.UPDATE
        ? run.store.leaseComponent(run.app, ctx.path.encoded(), true) : StateStore.NO_LEASE;
    T result = null;
    Throwable error = null;
    boolean healthy;
    try {
      ComponentContext outer = ComponentContext.enterBody(ctx);
      try {
        result = body.apply(ctx);
      } catch (Throwable t) {
        error = t;
      } finally {
        ComponentContext.exitBody(outer);
      }
      // On a pool worker (a component mounting a target in the foreground), stages of the commit
      // that could not run at once (and the run's other tasks) may be queued on this very
      // worker: run them rather than wait for another worker to. Any other thread (the app's
      // caller, running the root) runs the commit's stages itself while it waits.
      if (Thread.currentThread() instanceof ForkJoinWorkerThread w
          && w.getPool() == run.componentPool) {
        healthy = OwnTasks.join(finish(ctx, error, run.componentPool), run.abortion(),
            ctx.slotsHeldAbove);
      } else {
        CallerRuns own = new CallerRuns(run.componentPool, run.abortion());
        healthy = own.join(finish(ctx, error, own));
      }
    } finally {
      release(lease, ctx.path);
    }
    if (error instanceof RuntimeException re) {
      throw re;
    }
    if (error instanceof Error e) {
      throw e;
    }
    if (error != null) {
      throw new CompletionException(error);
    }
    if (!healthy) {
      throw new IllegalStateException("foreground component " + ctx.path + " failed: "
          + firstFailure(ctx));
    }
    return result;
  }

  /** What failed in {@code ctx}'s subtree (by path, not by its text: /1 is not above /12). */
  private static String firstFailure(ComponentContext ctx) {
    var f = ctx.run.failureAtOrBelow(ctx.path);
    if (f == null) {
      return "see the run's failures";
    }
    return f.getKey().equals(ctx.path) ? String.valueOf(f.getValue().getMessage())
        : f.getKey() + ": " + f.getValue().getMessage();
  }

  private static CompletableFuture<Boolean> finish(
      ComponentContext ctx, Throwable bodyError, Executor stages) {
    ctx.close();
    Run run = ctx.run;
    return PoolStages.then(ctx.childrenFinished(),
            v -> finishAfterChildren(ctx, bodyError, stages), stages)
        .handle((ok, err) -> {
          ctx.release();
          run.stats.componentFinished();
          if (err != null) {
            // Not its body's, nor its commit's (finishAfterChildren reports those): an error in
            // the engine's own stages. The component fails; its future, as every component's,
            // completes normally.
            run.protect(ctx.path);
            run.fail(ctx.path, unwrap(err));
            return false;
          }
          return ok;
        });
  }

  private static CompletableFuture<Boolean> finishAfterChildren(
      ComponentContext ctx, Throwable bodyError, Executor stages) {
    Run run = ctx.run;
    boolean childrenHealthy = ctx.childrenHealthy() && !ctx.foregroundChildFailed();
    if (bodyError != null) {
      run.protect(ctx.path);
      if (run.mode == RunMode.DROP) {
        Throwable fatal = RunAborted.fatalIn(bodyError);
        if (fatal != null) {
          run.abort(fatal, "in component " + ctx.path);
        }
        log.warn("component {} failed while collecting registrations for a drop: {}",
            ctx.path, bodyError.toString());
      } else {
        // What it declared before throwing stays with its owners through the sweep: a state it
        // takes over is most likely what it declared, and deleted, it would come back next run.
        run.failedBodyDeclared(ctx.declarations());
        run.fail(ctx.path, bodyError);
      }
      return CompletableFuture.completedFuture(false);
    }
    run.stats.componentRun();
    CompletableFuture<ComponentCommit.Outcome> committed;
    AutoCloseable rootLease = StateStore.NO_LEASE;
    try {
      List<DeclaredTarget> declared = ctx.declarations();
      // The next components' tables are sized like this one's (Run#declarationsHint).
      run.declared(declared.size());
      if (ctx.parent == null) {
        // Every worker runs the root: its own states are reconciled by one at a time.
        rootLease = RootCommitLease.take(ctx, declared);
      }
      committed = ComponentCommit.run(run, new ComponentCommit.Input(
          ctx.path, declared, ctx.memoFingerprint,
          ctx.stored().orElse(null), ctx.memoValuesToStore(), childrenHealthy,
          ctx.declaredInDepthOrder(), ctx.declaredInPathOrder(), ctx.descendantDeps(),
          ctx.descendantsPending(), ctx.descendantsUnsettled(), ctx.memoizedAncestors(),
          run.inFlight(Math.max(0, ctx.slotsHeldAbove - 1))),
          stages);
    } catch (RuntimeException | Error e) { // a handler's assertion fails its component alone
      committed = CompletableFuture.failedFuture(e);
    }
    if (rootLease != StateStore.NO_LEASE) {
      AutoCloseable lease = rootLease;
      committed = committed.whenComplete((outcome, err) -> release(lease, ctx.path));
    }
    return committed.handle((outcome, err) -> {
      if (err != null) {
        Throwable cause = unwrap(err);
        // Unlike a body that threw, its body mounted every child it has now: the children it
        // no longer mounts are swept as after a success, not protected (their deletion may be
        // what its failed apply waits for).
        run.fail(ctx.path, cause);
        return false;
      }
      if (ctx.parent != null) {
        ctx.parent.childCommitted(outcome);
      }
      return childrenHealthy;
    });
  }

  /**
   * Mounts a memoized child: fingerprints its input, reads its record, and either carries its
   * states forward (a hit) or starts its body. The check runs on the pool, so that fingerprinting
   * the inputs of many children uses every core; when all of the run's {@link
   * Run#memoCheckSlots} are taken, the mounting thread checks inline instead, which bounds the
   * inputs held by queued checks (a run of a million components must not hold them all).
   */
  static CompletableFuture<Boolean> startMemo(
      ComponentContext parent, TargetPath path, Object input, Consumer<Ctx> body) {
    Run run = parent.run;
    if (!run.memoCheckSlots.tryAcquire()) {
      return checkMemo(parent, path, input, body);
    }
    CompletableFuture<CompletableFuture<Boolean>> checked;
    try {
      checked = CompletableFuture.supplyAsync(() -> {
        try {
          return checkMemo(parent, path, input, body);
        } finally {
          run.memoCheckSlots.release();
        }
      }, run.componentPool);
    } catch (RuntimeException rejected) {
      run.memoCheckSlots.release();
      throw rejected;
    }
    return checked.thenCompose(f -> f);
  }

  private static CompletableFuture<Boolean> checkMemo(
      ComponentContext parent, TargetPath path, Object input, Consumer<Ctx> body) {
    Run run = parent.run;
    byte[] fingerprint;
    ComponentRecord rec;
    boolean stamped = false;
    List<MemoDependencies.Dependency> deps = null;
    List<MemoDependencies.Dependency> absent = List.of();
    try {
      fingerprint = Fingerprint.of(input).bytes();
      rec = run.storedComponent(path).orElse(null);
      // A memo a killed run recorded reads as it would have once that run settled.
      ComponentRecord memo = KilledRunMemos.unsettledMemo(run, rec, fingerprint);
      if (memoMatches(run, memo, fingerprint)) {
        deps = MemoDependencies.decode(memo.memoDependencies());
        List<MemoDependencies.Dependency> missedFor = MemoDependencies.missedFor(deps, run, path);
        if (missedFor != null) {
          absent = missedFor;
          deps = null;
        }
        stamped = memo != rec;
      }
    } catch (RuntimeException | Error e) {
      // An input that cannot be fingerprinted (or a record that cannot be read) fails this child
      // alone, a stack overflow on a deep input too; its tracking is kept. Like every
      // component's future, this one completes normally.
      return failedAlone(run, path, e);
    }
    if (deps != null) { // a hit
      // Claimed before a stamped memo is taken up: the record was read at the run's start, and
      // a takeover from the subtree claimed earlier in the run forgot the memo since, which the
      // take-up's write brought back (it hit in later runs, over a state no longer owned). A
      // takeover claimed after this one fails at its claim, writing nothing.
      RuntimeException conflict = run.memoHit(path);
      if (conflict != null) { // fails it, as a body declaring the state again would have
        return failedAlone(run, path, conflict);
      }
      try {
        // Not taken up, the component runs; a takeover from it claimed meanwhile has failed as
        // one from a hit, which its body, on the same input, would declare again all the same.
        if (stamped && !KilledRunMemos.takeUp(run, path, rec)) {
          deps = null;
        }
      } catch (RuntimeException | Error e) {
        return failedAlone(run, path, e);
      }
    }
    if (deps != null) {
      run.protect(path);
      parent.childMemoHit(deps);
      countMemoized(run, deps);
      return CompletableFuture.completedFuture(true);
    }
    ComponentContext child = parent.memoChild(path, fingerprint, rec);
    child.recordedWithout(absent);
    return start(child, c -> {
      body.accept(c);
      return null;
    });
  }

  /** Fails a memoized child before its body runs, its tracking kept; its future completes. */
  private static CompletableFuture<Boolean> failedAlone(Run run, TargetPath path, Throwable e) {
    run.protect(path);
    run.stats.componentMounted();
    run.fail(path, e);
    run.stats.componentFinished();
    return CompletableFuture.completedFuture(false);
  }

  /**
   * Whether the memo recorded for {@code rec} is for this {@code fingerprint}; whether it still
   * holds then depends on its containers ({@link MemoDependencies#missedFor}).
   */
  static boolean memoMatches(Run run, ComponentRecord rec, byte[] fingerprint) {
    return !run.fullReprocess
        && rec != null
        && rec.memoFingerprint() != null
        && Arrays.equals(rec.memoFingerprint(), fingerprint);
  }

  static void countMemoized(Run run, List<MemoDependencies.Dependency> deps) {
    run.stats.componentMounted();
    run.stats.componentMemoized();
    run.stats.componentFinished();
    for (MemoDependencies.Dependency d : deps) {
      if (d.isAbsent()) {
        continue;
      }
      run.stats.unchanged(d.provider(), d.states());
    }
  }
}
