package io.cocoindex.runtime.component;

import io.cocoindex.runtime.plan.RunAborted;
import io.cocoindex.runtime.threads.ComponentPool;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * Waits for a future on a fork-join worker that may itself hold the future's next stages: a
 * stage chained with an executor onto a future that is already complete is queued on the
 * worker that chained it. Waiting with {@code join()} alone then leaves progress to the pool
 * starting another worker to take that stage, which three test runs saw it not do (the run
 * never ended). So the worker first runs the stages it queued on itself, then waits.
 *
 * <p>Only completion stages: a component body's parallel stream forks its tasks into the pool
 * the body runs on, this one, and a stream task run here may wait on a sibling that another
 * worker, itself waiting here, holds (forty {@code useMount}s from a parallel stream hung the
 * update for good). Such a task is left for the pool; so is whatever lies below it.
 *
 * <p>Nor the start of the body of a component nearer the root than the waiting one's children
 * ({@link ComponentPool#mayRunNested}): a worker's stack then holds background components of
 * ever deeper levels, one of each at most.
 *
 * <p>A completion stage's task is run as the {@link Runnable} it is: as a fork-join task it never
 * reports itself done, so invoking it would wait forever.
 *
 * <p>A subclass of {@link ForkJoinTask} only to reach its {@code peekNextLocalTask} and {@code
 * pollNextLocalTask}; never instantiated.
 */
final class OwnTasks extends ForkJoinTask<Void> {
  private static final long serialVersionUID = 1L;

  private OwnTasks() {}

  /**
   * {@code f}'s result, once the current worker's queued tasks it may run have run or {@code f}
   * is done.
   *
   * @param abort completes when the run stops early ({@link
   *     io.cocoindex.runtime.plan.Run#abortion})
   * @param levelsHeld how many levels of gates of components in flight the waiting component and
   *     its ancestors hold a slot of: bodies of components nearer the root than that are left to
   *     the pool ({@link ComponentPool#mayRunNested})
   * @throws RunAborted when the run stops before {@code f} is done (a lost task may never
   *     complete it)
   */
  static <T> T join(CompletableFuture<T> f, CompletableFuture<Throwable> abort, int levelsHeld) {
    if (Thread.currentThread() instanceof ForkJoinWorkerThread) {
      // Only this thread adds to its own queue, so once it is empty nothing lands there while
      // the thread waits: every later stage is queued by whichever thread completes the one
      // before, and that is not this one.
      while (!f.isDone() && ComponentPool.mayRunNested(peekNextLocalTask(), levelsHeld)) {
        ForkJoinTask<?> next = pollNextLocalTask();
        if (next == null) {
          break;
        }
        if (!ComponentPool.mayRunNested(next, levelsHeld)) {
          next.fork(); // the peeked stage was stolen meanwhile: this one goes back, for the pool
          break;
        }
        ((Runnable) next).run();
      }
    }
    if (!f.isDone()) {
      CompletableFuture.anyOf(f, abort).join();
      if (!f.isDone()) {
        throw new RunAborted(abort.join());
      }
    }
    return f.join();
  }

  @Override
  public Void getRawResult() {
    return null;
  }

  @Override
  protected void setRawResult(Void value) {}

  @Override
  protected boolean exec() {
    return true;
  }
}
