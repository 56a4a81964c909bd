package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Where a component's next stage runs: on the chaining worker when it can, never elsewhere. */
class PoolStagesTest {
  private final ForkJoinPool pool = new ForkJoinPool(2);
  private final ForkJoinPool otherPool = new ForkJoinPool(1);

  @AfterEach
  void shutDown() {
    pool.shutdownNow();
    otherPool.shutdownNow();
  }

  @Test
  void aStageAfterACompleteFutureRunsAtOnceOnTheWorkerThatChainsIt() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    AtomicReference<Boolean> ranBeforeReturn = new AtomicReference<>();
    Thread chainer = pool.submit(() -> {
      CompletableFuture<String> next = PoolStages.then(CompletableFuture.completedFuture("x"),
          v -> {
            ranOn.set(Thread.currentThread());
            return CompletableFuture.completedFuture(v + "y");
          }, pool);
      ranBeforeReturn.set(next.isDone() && next.join().equals("xy"));
      return Thread.currentThread();
    }).get(10, TimeUnit.SECONDS);

    assertThat(ranOn.get()).isSameAs(chainer);
    assertThat(ranBeforeReturn.get()).isTrue();
  }

  @Test
  void aStageChainedOffThePoolRunsOnThePool() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();

    PoolStages.then(CompletableFuture.completedFuture(null), v -> {
      ranOn.set(Thread.currentThread());
      return CompletableFuture.completedFuture(null);
    }, pool).get(10, TimeUnit.SECONDS);

    assertThat(ranOn.get()).isInstanceOf(ForkJoinWorkerThread.class);
    assertThat(((ForkJoinWorkerThread) ranOn.get()).getPool()).isSameAs(pool);
  }

  @Test
  void aStageChainedByAnotherPoolsWorkerRunsOnThisPool() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();

    otherPool.submit(() -> PoolStages.then(CompletableFuture.completedFuture(null), v -> {
      ranOn.set(Thread.currentThread());
      return CompletableFuture.completedFuture(null);
    }, pool).join()).get(10, TimeUnit.SECONDS);

    assertThat(((ForkJoinWorkerThread) ranOn.get()).getPool()).isSameAs(pool);
  }

  @Test
  void aStageAfterAFutureCompletedLaterRunsOnThePoolNotOnTheCompletingThread() throws Exception {
    CompletableFuture<Void> written = new CompletableFuture<>();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    CompletableFuture<Void> next = pool.submit(() -> PoolStages.then(written, v -> {
      ranOn.set(Thread.currentThread());
      return CompletableFuture.<Void>completedFuture(null);
    }, pool)).get(10, TimeUnit.SECONDS);

    // As the state store's writer thread completes a precommit.
    Thread writer = new Thread(() -> written.complete(null), "writer");
    writer.start();
    writer.join();
    next.get(10, TimeUnit.SECONDS);

    assertThat(ranOn.get()).isNotSameAs(writer);
    assertThat(((ForkJoinWorkerThread) ranOn.get()).getPool()).isSameAs(pool);
  }

  @Test
  void aStageThatThrowsInlineFailsItsFutureRatherThanItsCaller() throws Exception {
    IllegalStateException boom = new IllegalStateException("boom");

    CompletableFuture<Object> next = pool.submit(() -> PoolStages.then(
        CompletableFuture.completedFuture(null), v -> {
          throw boom;
        }, pool)).get(10, TimeUnit.SECONDS);

    assertThat(next).failsWithin(10, TimeUnit.SECONDS)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCause(boom);
  }

  @Test
  void onAnExecutorThatIsNoForkJoinPoolTheStageIsAlwaysQueued() throws Exception {
    java.util.concurrent.ExecutorService plain =
        java.util.concurrent.Executors.newSingleThreadExecutor(r -> new Thread(r, "plain"));
    try {
      AtomicReference<Thread> ranOn = new AtomicReference<>();
      AtomicReference<Boolean> ranBeforeReturn = new AtomicReference<>();
      CompletableFuture<Void> next = plain.submit(() -> {
        CompletableFuture<Void> f = PoolStages.then(CompletableFuture.completedFuture(null), v -> {
          ranOn.set(Thread.currentThread());
          return CompletableFuture.<Void>completedFuture(null);
        }, plain);
        ranBeforeReturn.set(ranOn.get() != null);
        return f;
      }).get(10, TimeUnit.SECONDS);
      next.get(10, TimeUnit.SECONDS);

      // Queued behind the task that chained it, on the executor's one thread.
      assertThat(ranBeforeReturn.get()).isFalse();
      assertThat(ranOn.get().getName()).isEqualTo("plain");
    } finally {
      plain.shutdownNow();
    }
  }

  @Test
  void aFailureBeforeTheStageSkipsItOnEitherPath() throws Exception {
    IllegalStateException boom = new IllegalStateException("boom");
    AtomicReference<Boolean> ran = new AtomicReference<>(false);

    CompletableFuture<Object> inline = pool.submit(() -> PoolStages.then(
        CompletableFuture.failedFuture(boom), v -> {
          ran.set(true);
          return CompletableFuture.completedFuture(v);
        }, pool)).get(10, TimeUnit.SECONDS);
    CompletableFuture<Object> queued = PoolStages.then(CompletableFuture.failedFuture(boom), v -> {
      ran.set(true);
      return CompletableFuture.completedFuture(v);
    }, pool);

    for (CompletableFuture<Object> f : java.util.List.of(inline, queued)) {
      assertThat(f).failsWithin(10, TimeUnit.SECONDS)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCause(boom);
    }
    assertThat(ran.get()).isFalse();
  }
}
