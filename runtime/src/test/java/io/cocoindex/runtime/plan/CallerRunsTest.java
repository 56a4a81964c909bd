package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The waiting thread runs its component's stages: those that other threads (the store's writer,
 * a sink) hand over while it waits, and those chained onto what is already done; after it has its
 * result, the pool takes the rest.
 */
class CallerRunsTest {
  private final ForkJoinPool pool = new ForkJoinPool(1);
  private final ExecutorService writer = Executors.newSingleThreadExecutor();

  @AfterEach
  void shutDown() {
    pool.shutdownNow();
    writer.shutdownNow();
  }

  @Test
  void stagesAfterAnotherThreadsWorkRunOnTheWaitingThread() {
    CallerRuns own = new CallerRuns(pool, new CompletableFuture<>());
    List<String> ranOn = new CopyOnWriteArrayList<>();
    Thread me = Thread.currentThread();
    CompletableFuture<String> written = CompletableFuture.supplyAsync(() -> "written", writer);

    CompletableFuture<String> committed = PoolStages.then(written, w -> {
      ranOn.add(Thread.currentThread() == me ? "waiting thread" : Thread.currentThread().getName());
      return CompletableFuture.supplyAsync(() -> w + ", settled", writer);
    }, own).thenCompose(s -> PoolStages.then(CompletableFuture.completedFuture(s), t -> {
      ranOn.add(Thread.currentThread() == me ? "waiting thread" : Thread.currentThread().getName());
      return CompletableFuture.completedFuture(t + ", committed");
    }, own));

    assertThat(own.join(committed)).isEqualTo("written, settled, committed");
    assertThat(ranOn).containsExactly("waiting thread", "waiting thread");
  }

  @Test
  void aStageChainedOntoADoneFutureByTheWaitingThreadRunsAtOnce() {
    CallerRuns own = new CallerRuns(pool, new CompletableFuture<>());
    AtomicReference<Thread> ranOn = new AtomicReference<>();

    CompletableFuture<String> next = PoolStages.then(CompletableFuture.completedFuture("x"), v -> {
      ranOn.set(Thread.currentThread());
      return CompletableFuture.completedFuture(v + "y");
    }, own);

    assertThat(next).isCompletedWithValue("xy");
    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
  }

  @Test
  void onceTheWaitingThreadHasItsResultThePoolTakesLaterStages() throws Exception {
    CallerRuns own = new CallerRuns(pool, new CompletableFuture<>());
    own.join(CompletableFuture.completedFuture("done"));
    AtomicReference<Thread> ranOn = new AtomicReference<>();

    CompletableFuture.runAsync(() -> { }, writer)
        .thenRunAsync(() -> ranOn.set(Thread.currentThread()), own)
        .get(10, TimeUnit.SECONDS);

    assertThat(ranOn.get()).isInstanceOf(ForkJoinWorkerThread.class);
    assertThat(((ForkJoinWorkerThread) ranOn.get()).getPool()).isSameAs(pool);
  }

  @Test
  void aFailedStageFailsTheResultAsJoinDoes() {
    CallerRuns own = new CallerRuns(pool, new CompletableFuture<>());
    CompletableFuture<String> failed = CompletableFuture.supplyAsync(() -> "x", writer)
        .thenApplyAsync(x -> {
          throw new IllegalStateException("the sink refused " + x);
        }, own);

    assertThatThrownBy(() -> own.join(failed))
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasRootCauseMessage("the sink refused x");
  }

  @Test
  void aStageThatThrowsEndsTheWaitAndLeavesTheStagesQueuedBehindItToThePool() throws Exception {
    CallerRuns own = new CallerRuns(pool, new CompletableFuture<>());
    CompletableFuture<Thread> later = new CompletableFuture<>();
    own.execute(() -> {
      throw new IllegalStateException("a stage that is not a future's");
    });
    own.execute(() -> later.complete(Thread.currentThread()));

    assertThatThrownBy(() -> own.join(new CompletableFuture<>()))
        .hasMessage("a stage that is not a future's");
    assertThat(later.get(10, TimeUnit.SECONDS)).isInstanceOf(ForkJoinWorkerThread.class);
  }

  @Test
  void anInterruptDoesNotEndTheWaitAndIsKept() throws Exception {
    AtomicReference<String> result = new AtomicReference<>();
    AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
    CompletableFuture<String> slow = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      CallerRuns own = new CallerRuns(pool, new CompletableFuture<>());
      result.set(own.join(slow.thenApplyAsync(s -> s + "!", own)));
      stillInterrupted.set(Thread.currentThread().isInterrupted());
    });
    waiter.start();
    waiter.interrupt();
    Thread.sleep(50);
    assertThat(waiter.isAlive()).isTrue();

    slow.complete("late");
    waiter.join(10_000);

    assertThat(result.get()).isEqualTo("late!");
    assertThat(stillInterrupted.get()).isTrue();
  }

  @Test
  void aStageDoesNotSeeTheWaitingThreadsInterrupt() {
    CallerRuns own = new CallerRuns(pool, new CompletableFuture<>());
    AtomicReference<Boolean> stageSawInterrupt = new AtomicReference<>();
    CompletableFuture<String> stage = CompletableFuture.supplyAsync(() -> "x", writer)
        .thenApplyAsync(x -> {
          stageSawInterrupt.set(Thread.currentThread().isInterrupted());
          return x;
        }, own);
    Thread.currentThread().interrupt();
    try {
      assertThat(own.join(stage)).isEqualTo("x");
      assertThat(stageSawInterrupt.get()).isFalse();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void onlyTheThreadThatMadeItWaitsWithIt() throws Exception {
    CallerRuns own = new CallerRuns(pool, new CompletableFuture<>());
    CompletableFuture<Throwable> refused = CompletableFuture.supplyAsync(() -> {
      try {
        own.join(CompletableFuture.completedFuture(1));
        return null;
      } catch (IllegalStateException e) {
        return e;
      }
    }, writer);

    assertThat(refused.get(10, TimeUnit.SECONDS))
        .hasMessage("only " + Thread.currentThread().getName() + " runs its own stages");
  }
}
