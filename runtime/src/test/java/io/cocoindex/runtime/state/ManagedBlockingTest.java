package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Store waits on the component pool add spare threads, but never more than the bound. */
class ManagedBlockingTest {
  static final int PARALLELISM = 2;
  static final int BOUND = 10; // 2 core threads + at least 8 spares
  static final int WAITERS = 60;

  final ForkJoinPool pool = new ForkJoinPool(PARALLELISM);

  @AfterEach
  void shutdown() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void blockedRoundTripsAddSparesUpToTheBoundAndAllFinish() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger blocked = new AtomicInteger();
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < WAITERS; i++) {
      int n = i;
      calls.add(CompletableFuture.supplyAsync(() -> ManagedBlocking.run(() -> {
        blocked.incrementAndGet();
        awaitQuietly(release);
        return "call " + n;
      }, "waiting in a test"), pool));
    }
    // Every thread the pool has is blocked: the core threads and the spares it was allowed.
    int settled = awaitSparesSettled(blocked);
    assertThat(settled).isLessThanOrEqualTo(BOUND);

    release.countDown();
    for (int i = 0; i < WAITERS; i++) {
      assertThat(calls.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("call " + i);
    }
    assertThat(pool.getPoolSize()).isLessThanOrEqualTo(BOUND);
  }

  @Test
  void waitsForFuturesCompletedElsewhereAddNoMoreThanTheBound() throws Exception {
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    List<CompletableFuture<Integer>> waits = new ArrayList<>();
    AtomicInteger waiting = new AtomicInteger();
    for (int i = 0; i < WAITERS; i++) {
      CompletableFuture<Integer> result = new CompletableFuture<>();
      results.add(result);
      waits.add(CompletableFuture.supplyAsync(() -> {
        waiting.incrementAndGet();
        try {
          ManagedBlocking.awaitDone(result);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return result.join() * 2;
      }, pool));
    }
    int settled = awaitSparesSettled(waiting);
    assertThat(settled).isLessThanOrEqualTo(BOUND);

    for (int i = 0; i < WAITERS; i++) {
      results.get(i).complete(i);
    }
    for (int i = 0; i < WAITERS; i++) {
      assertThat(waits.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(2 * i);
    }
    assertThat(pool.getPoolSize()).isLessThanOrEqualTo(BOUND);
  }

  @Test
  void offThePoolACallSimplyRuns() throws Exception {
    assertThat(ManagedBlocking.run(() -> Thread.currentThread().getName(), "a test"))
        .isEqualTo(Thread.currentThread().getName());
    CompletableFuture<String> done = CompletableFuture.completedFuture("x");
    ManagedBlocking.awaitDone(done);
    assertThat(done).isCompletedWithValue("x");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Waits until the pool has added spares (more tasks blocked than its parallelism), every
   * thread it has is blocked, and neither count moved for 300 ms; returns the count. A pool that
   * never adds one fails after 30 seconds (a spare can take a while to start on a loaded
   * machine, so no shorter plateau is taken for the end).
   */
  private int awaitSparesSettled(AtomicInteger blocked) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int last = -1;
    int lastThreads = -1;
    while (System.nanoTime() < deadline) {
      int now = blocked.get();
      int threads = pool.getPoolSize();
      if (now == last && threads == lastThreads && now > PARALLELISM && now == threads) {
        return now;
      }
      last = now;
      lastThreads = threads;
      Thread.sleep(300);
    }
    throw new AssertionError("the pool did not settle with spares: " + blocked.get()
        + " tasks blocked on " + pool.getPoolSize() + " threads, parallelism " + PARALLELISM);
  }
}
