package io.cocoindex.runtime.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The component pool tells its watchers of each task that throws past itself. */
class ComponentPoolTest {
  final ComponentPool pool = SharedThreads.newComponentPool("pool-test", 2);
  final List<Throwable> heard = new CopyOnWriteArrayList<>();
  final CountDownLatch told = new CountDownLatch(1);
  final Consumer<Throwable> watcher = t -> {
    heard.add(t);
    told.countDown();
  };

  @AfterEach
  void shutDown() {
    pool.shutdownNow();
  }

  /** Stands for a completion stage whose own failure handling threw (out of memory again). */
  static final class ThrowingStage extends ForkJoinTask<Void>
      implements Runnable, CompletableFuture.AsynchronousCompletionTask {
    private static final long serialVersionUID = 1L;

    @Override
    public void run() {
      throw new OutOfMemoryError("test: a stage's failure handling");
    }

    @Override
    protected boolean exec() {
      run();
      return false;
    }

    @Override
    public Void getRawResult() {
      return null;
    }

    @Override
    protected void setRawResult(Void value) {}
  }

  @Test
  void aCompletionStageThatThrowsPastItselfIsHeardOf() throws Exception {
    // Run as the pool's own task, what it throws is recorded on the task, and no one hears.
    pool.watch(watcher);
    pool.execute((Runnable) new ThrowingStage());
    assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(heard).extracting(Throwable::getMessage)
        .containsExactly("test: a stage's failure handling");
    assertThat(pool.lostATask()).isTrue();
  }

  @Test
  void aPlainTaskThatThrowsIsHeardOf() throws Exception {
    pool.watch(watcher);
    pool.execute(() -> {
      throw new IllegalStateException("test: a plain task");
    });
    assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(heard).extracting(Throwable::getMessage).containsExactly("test: a plain task");
  }

  @Test
  void stagesRunAndFailAsTheirOwnWithNothingHeard() {
    pool.watch(watcher);
    CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> 41, pool)
        .thenApplyAsync(x -> x + 1, pool);
    assertThat(f.join()).isEqualTo(42);
    CompletableFuture<Integer> failed = CompletableFuture.supplyAsync(() -> {
      throw new IllegalStateException("a stage's own failure");
    }, pool);
    assertThat(failed).failsWithin(10, TimeUnit.SECONDS);
    assertThat(heard).isEmpty();
    assertThat(pool.lostATask()).isFalse();
  }

  @Test
  void anUnwatchedPoolTellsNoOne() throws Exception {
    pool.watch(watcher);
    pool.unwatch(watcher);
    pool.execute(() -> {
      throw new IllegalStateException("test: after unwatch");
    });
    assertThat(told.await(300, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(heard).isEmpty();
  }

  @Test
  void aPoolIsWornOnceItHasStartedItsShareOfWorkers() throws Exception {
    System.setProperty(ComponentPool.RENEW_AFTER_PROPERTY, "3");
    ComponentPool small;
    try {
      small = SharedThreads.newComponentPool("pool-test-small", 3);
    } finally {
      System.clearProperty(ComponentPool.RENEW_AFTER_PROPERTY);
    }
    try {
      startWorkers(small, 1);
      assertThat(small.worn()).as("fewer workers than three").isFalse();
      startWorkers(small, 3);
      assertThat(small.worn()).isTrue();
    } finally {
      small.shutdownNow();
    }
    startWorkers(pool, 2);
    assertThat(pool.worn()).as("two workers of " + ComponentPool.RENEW_AFTER_WORKERS).isFalse();
  }

  /** Runs {@code n} tasks on {@code pool} that each wait until all have started. */
  static void startWorkers(ComponentPool pool, int n) throws InterruptedException {
    CountDownLatch started = new CountDownLatch(n);
    CountDownLatch done = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      pool.execute(() -> {
        started.countDown();
        try {
          started.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        done.countDown();
      });
    }
    assertThat(done.await(10, TimeUnit.SECONDS)).as(n + " tasks running at once").isTrue();
  }
}
