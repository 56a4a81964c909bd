package io.cocoindex.runtime.component;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * Waits for a future on a fork-join worker that may itself hold the future's next stages: a
 * stage chained with an executor onto a future that is already complete is queued on the
 * worker that chained it. Waiting with {@code join()} alone then leaves progress to the pool
 * starting another worker to take that stage, which three test runs saw it not do (the run
 * never ended). So the worker first runs what it queued on itself, then waits.
 *
 * <p>A subclass of {@link ForkJoinTask} only to reach its {@code pollTask}; never instantiated.
 */
final class OwnTasks extends ForkJoinTask<Void> {
  private static final long serialVersionUID = 1L;

  private OwnTasks() {}

  /** {@code f}'s result, once the current worker's queued tasks have run or {@code f} is done. */
  static <T> T join(CompletableFuture<T> f) {
    if (Thread.currentThread() instanceof ForkJoinWorkerThread) {
      // Only this thread adds to its own queue, so once it is empty nothing lands there while
      // the thread waits: every later stage is queued by whichever thread completes the one
      // before, and that is not this one.
      while (!f.isDone() && getQueuedTaskCount() > 0) {
        ForkJoinTask<?> next = pollTask();
        if (next == null) {
          break;
        }
        run(next);
      }
    }
    return f.join();
  }

  /**
   * Runs a task taken off the queue. A completion stage's task is run as the {@link Runnable} it
   * is: as a fork-join task it never reports itself done, so invoking it would wait forever.
   * The engine queues nothing else but tasks that wrap a {@code Runnable} given to {@code
   * execute}, which report themselves done.
   */
  private static void run(ForkJoinTask<?> task) {
    if (task instanceof Runnable r) {
      r.run();
    } else {
      task.quietlyInvoke();
    }
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
