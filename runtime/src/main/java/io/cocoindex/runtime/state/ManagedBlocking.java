package io.cocoindex.runtime.state;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Blocking store I/O as a fork-join managed block: on the engine's component pool, which has a
 * thread per core, the pool may add a spare thread while a round trip to a shared store is in
 * flight instead of stalling every component behind it. Elsewhere the call simply runs.
 *
 * <p>Spares are bounded ({@link #spareThreads}): a fork-join pool starts one for every managed
 * block it is asked to compensate, and with hundreds of components waiting on a shared store's
 * round trips a worker's pool grew past a hundred threads. Once the bound is reached a round
 * trip blocks its thread plainly; that is always safe here, since the I/O never waits for
 * another component's task.
 */
public final class ManagedBlocking {
  /** Managed blocks in flight per pool: each may hold a spare thread. */
  private static final Map<ForkJoinPool, AtomicInteger> SPARES_IN_USE =
      Collections.synchronizedMap(new WeakHashMap<>());

  private ManagedBlocking() {}

  /**
   * Spare threads store I/O may add to a pool of {@code parallelism}: 4 per core, 8 or more.
   *
   * @param parallelism the pool's number of workers
   * @return the most managed blocks of the pool in flight at once
   */
  public static int spareThreads(int parallelism) {
    return Math.max(8, 4 * parallelism);
  }

  /**
   * Blocks with {@code blocker}: as a fork-join managed block on a pool worker while fewer than
   * {@link #spareThreads} of its pool's managed blocks are in flight, plainly otherwise.
   *
   * @param blocker the wait; called until it is releasable or its {@code block} returns true
   * @throws InterruptedException if {@code blocker} throws it
   */
  public static void block(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
    AtomicInteger inUse = reserveSpare();
    if (inUse == null) {
      while (!blocker.isReleasable() && !blocker.block()) {
        // block() returned early; ask again
      }
      return;
    }
    try {
      ForkJoinPool.managedBlock(blocker);
    } finally {
      inUse.decrementAndGet();
    }
  }

  /**
   * Waits until {@code f} is done, through {@link #block}. The wait parks the thread itself:
   * {@link CompletableFuture#get} on a pool worker is a managed block of its own, which would
   * add a spare past the bound.
   *
   * @param f the future to wait for; its outcome is left to the caller
   * @throws InterruptedException if the thread is interrupted while it waits
   */
  public static void awaitDone(CompletableFuture<?> f) throws InterruptedException {
    if (f.isDone()) {
      return;
    }
    Thread waiter = Thread.currentThread();
    f.whenComplete((v, e) -> LockSupport.unpark(waiter));
    block(new ForkJoinPool.ManagedBlocker() {
      @Override
      public boolean block() throws InterruptedException {
        LockSupport.park(f);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        return f.isDone();
      }

      @Override
      public boolean isReleasable() {
        return f.isDone();
      }
    });
  }

  private static AtomicInteger reserveSpare() {
    if (!(Thread.currentThread() instanceof ForkJoinWorkerThread worker)) {
      return null;
    }
    ForkJoinPool pool = worker.getPool();
    AtomicInteger inUse = SPARES_IN_USE.computeIfAbsent(pool, p -> new AtomicInteger());
    if (inUse.incrementAndGet() <= spareThreads(pool.getParallelism())) {
      return inUse;
    }
    inUse.decrementAndGet();
    return null;
  }

  /**
   * Work that may throw a checked exception.
   *
   * @param <T> what the work returns
   * @param <E> the checked exception it may throw
   */
  @FunctionalInterface
  public interface Call<T, E extends Exception> {
    /**
     * Does the work.
     *
     * @return its result
     * @throws E if the work fails
     */
    T call() throws E;
  }

  /**
   * Runs {@code call}, as a managed block while the pool may add a spare, and returns its
   * result, rethrowing what it threw.
   *
   * @param <T> what {@code call} returns
   * @param <E> the checked exception {@code call} may throw
   * @param call the blocking work
   * @param what what the call does, for the error when the wait is interrupted
   * @return what {@code call} returned
   * @throws E what {@code call} threw (a runtime exception too, as it was)
   * @throws StateStoreException if the thread is interrupted while it waits; its interrupt flag
   *     is set again
   */
  public static <T, E extends Exception> T run(Call<T, E> call, String what) throws E {
    Object[] result = new Object[1];
    Exception[] failure = new Exception[1];
    try {
      block(new ForkJoinPool.ManagedBlocker() {
        private boolean done;

        @Override
        public boolean block() {
          try {
            result[0] = call.call();
          } catch (Exception e) {
            failure[0] = e;
          }
          done = true;
          return true;
        }

        @Override
        public boolean isReleasable() {
          return done;
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateStoreException("interrupted while " + what);
    }
    if (failure[0] instanceof RuntimeException r) {
      throw r;
    }
    if (failure[0] != null) {
      @SuppressWarnings("unchecked")
      E e = (E) failure[0];
      throw e;
    }
    @SuppressWarnings("unchecked")
    T t = (T) result[0];
    return t;
  }
}
