package io.cocoindex.runtime.plan;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.Function;

/**
 * Chains a component's next stage onto where its stages run (the component pool, or the thread
 * that waits for the component: {@link CallerRuns}) without a needless hop. A stage chained onto
 * a future that is already complete, by a thread that runs such stages (one of the pool's own
 * workers, or the waiting thread), runs at once on it; any other stage is handed to the pool or
 * the waiting thread, so that work never runs on the store's writer thread or a sink's thread,
 * which complete the futures it waits for.
 *
 * <p>Each hop queues a task and often wakes a worker (a fraction of a millisecond on a busy
 * machine): a component that declared nothing new made three of them, and a run of a thousand
 * components three thousand.
 */
public final class PoolStages {
  private PoolStages() {}

  /**
   * {@code f.thenCompose(next)}: now on this thread if it may (a worker of {@code pool}, or the
   * owner of a {@link CallerRuns}), else on {@code pool}.
   *
   * @param <T> what {@code f} completes with
   * @param <U> what the next stage completes with
   * @param f the stage to chain onto
   * @param next the next stage, given what {@code f} completed with
   * @param pool where the component's stages run: its pool, or a {@link CallerRuns}
   * @return completes as the stage {@code next} returns completes, or exceptionally as {@code f}
   */
  public static <T, U> CompletableFuture<U> then(
      CompletableFuture<T> f, Function<? super T, ? extends CompletionStage<U>> next,
      Executor pool) {
    if (f.isDone() && (onPool(pool) || pool instanceof CallerRuns own && own.isOwner())) {
      return f.thenCompose(next);
    }
    return f.thenComposeAsync(next, pool);
  }

  private static boolean onPool(Executor pool) {
    return Thread.currentThread() instanceof ForkJoinWorkerThread w
        && pool instanceof ForkJoinPool && w.getPool() == pool;
  }
}
