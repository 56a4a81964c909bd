package io.cocoindex.runtime.plan;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs a component's stages on the thread that waits for the component, while it waits: the
 * app's calling thread, which runs the root and the root's foreground mounts, would otherwise
 * hand each stage to a pool worker and sleep. A table's mount, the first thing a run does, then
 * no longer waits for the pool's first worker to start (about a millisecond here), and the root's
 * commit takes no hop. Once the waiting thread has its result, anything still handed here goes
 * to the pool.
 *
 * <p>The stages run here as they would on a worker: they never wait for another stage of the
 * same component, only for the store and the sinks, which complete on their own threads. They
 * are a {@link CompletableFuture}'s tasks, which report their own failures; the waiting thread's
 * interrupt is kept for it, not seen by them.
 */
public final class CallerRuns implements Executor {
  private final Thread owner = Thread.currentThread();
  private final Executor pool;
  private final CompletableFuture<Throwable> abort;
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private boolean released;

  /**
   * An executor for the calling thread's stages; {@code pool} takes those after it is done.
   *
   * @param pool runs the stages handed here once {@link #join} has returned
   * @param abort completes when the run stops early ({@link Run#abortion}): the wait ends then,
   *     as the future waited for may never complete
   */
  public CallerRuns(Executor pool, CompletableFuture<Throwable> abort) {
    this.pool = pool;
    this.abort = abort;
  }

  @Override
  public void execute(Runnable stage) {
    synchronized (this) {
      if (!released) {
        queue.add(stage);
        notifyAll();
        return;
      }
    }
    pool.execute(stage);
  }

  /** Whether the calling thread is the one that runs these stages. */
  boolean isOwner() {
    return Thread.currentThread() == owner;
  }

  /**
   * Runs the stages handed here until {@code f} is done, then returns its result (as {@code
   * join} does). Only the thread that created this executor may call it, once.
   *
   * @param <T> what {@code f} completes with
   * @param f the future to wait for
   * @return what {@code f} completed with
   * @throws java.util.concurrent.CompletionException if {@code f} completed exceptionally
   * @throws IllegalStateException if called by another thread than the one that created this
   * @throws RunAborted when the run stops before {@code f} is done
   */
  public <T> T join(CompletableFuture<T> f) {
    if (!isOwner()) {
      throw new IllegalStateException("only " + owner.getName() + " runs its own stages");
    }
    Runnable wake = () -> {
      synchronized (this) {
        notifyAll();
      }
    };
    f.whenComplete((v, e) -> wake.run());
    abort.whenComplete((v, e) -> wake.run());
    boolean interrupted = false;
    try {
      while (true) {
        Runnable next;
        synchronized (this) {
          while (queue.isEmpty() && !f.isDone() && !abort.isDone()) {
            try {
              wait();
            } catch (InterruptedException e) {
              interrupted = true; // as join: the wait goes on, the flag is kept
            }
          }
          next = queue.poll();
          if (next == null) {
            break;
          }
        }
        interrupted |= Thread.interrupted(); // the caller's, not the stage's
        next.run();
      }
    } finally {
      release();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (!f.isDone()) {
      throw new RunAborted(abort.join());
    }
    return f.join();
  }

  /**
   * From now on the pool takes every stage, and those still queued (a stage threw); a pool that
   * refuses one (out of threads) leaves it to run here.
   */
  private void release() {
    ArrayDeque<Runnable> left;
    synchronized (this) {
      released = true;
      left = new ArrayDeque<>(queue);
      queue.clear();
    }
    for (Runnable stage : left) {
      try {
        pool.execute(stage);
      } catch (RejectedExecutionException e) {
        stage.run();
      }
    }
  }
}
