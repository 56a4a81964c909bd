package io.cocoindex.runtime.component;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A worker waiting for a future whose next stage it queued on itself: on a pool that cannot add
 * a worker to make up for the waiting one (at most one thread, and blocking allowed without
 * compensation), only the waiter itself can run that stage.
 */
class OwnTasksTest {

  @Test
  void aWorkerWaitingOnAStageItQueuedRunsItWhenThePoolCannotCompensate() throws Exception {
    ForkJoinPool pool = new ForkJoinPool(1, ForkJoinPool.defaultForkJoinWorkerThreadFactory,
        null, false, 0, 1, 1, p -> true, 60, TimeUnit.SECONDS);
    try {
      CompletableFuture<String> outer = CompletableFuture.supplyAsync(() -> {
        // Chained onto a completed future from the worker: queued on that worker's own queue.
        CompletableFuture<String> stage =
            CompletableFuture.completedFuture("a").thenApplyAsync(s -> s + "b", pool);
        return OwnTasks.join(
            stage.thenApplyAsync(s -> s + "c", pool), new CompletableFuture<>(), 0);
      }, pool);
      assertThat(outer.get(10, TimeUnit.SECONDS)).isEqualTo("abc");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void offAPoolItIsAPlainJoin() {
    assertThat(OwnTasks.join(
        CompletableFuture.supplyAsync(() -> 42), new CompletableFuture<>(), 0)).isEqualTo(42);
  }
}
