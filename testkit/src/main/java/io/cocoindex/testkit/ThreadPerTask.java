package io.cocoindex.testkit;

import java.util.concurrent.Executor;

/**
 * Runs each task on a new daemon thread of its own: the executor for a test that starts blocking
 * work beside other such work, such as two workers' updates of which one waits for the other.
 *
 * <p>{@code CompletableFuture}'s async methods without an executor run on the common pool, whose
 * parallelism is one less than the processors: on JDK 25 with two of them, one task blocked there
 * holds back every other async task of the process, so two updates that wait for each other hang.
 * (JDK 17 gave each task a thread of its own when that parallelism was 1.) Pass this instead:
 * {@code CompletableFuture.supplyAsync(app::update, ThreadPerTask.INSTANCE)}.
 */
public final class ThreadPerTask implements Executor {
  /** Names its threads {@code cocoindex-test-task}. */
  public static final ThreadPerTask INSTANCE = new ThreadPerTask();

  private ThreadPerTask() {}

  /**
   * Starts {@code task} on a new daemon thread.
   *
   * @param task what the thread runs
   */
  @Override
  public void execute(Runnable task) {
    Thread thread = new Thread(task, "cocoindex-test-task");
    thread.setDaemon(true);
    thread.start();
  }
}
