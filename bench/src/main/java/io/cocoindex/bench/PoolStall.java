package io.cocoindex.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * Shows the JDK fault that {@code ComponentPool#worn} guards against: on JDK 17 before 17.0.17
 * (JDK-8351933), each time a fork-join pool with all its workers started lets one end after its
 * keep-alive, its count of active workers drops by one too many, and once the count wraps around
 * (about 32,000 such ends) the pool never wakes a worker again. Each round starts both workers of
 * a two-worker pool built as the component pool is (its keep-alive cut to the least the JDK
 * takes, so that a round lasts milliseconds, not 30 s), then waits until both have ended; it
 * stops at the first round whose two tasks do not both start within 5 s.
 *
 * <pre>java -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.PoolStall [rounds]</pre>
 *
 * On 17.0.15 the pool stalled in round 32,768, after 64 s: neither task of that round ever
 * started. JDK 25 counts right (it ran 5,000 rounds without a stall, each slower: its pool keeps
 * an idle worker longer). An app renews its pool long before: after {@code
 * ComponentPool.RENEW_AFTER_WORKERS} worker starts, and every end counted here is a worker
 * started.
 */
public final class PoolStall {
  private PoolStall() {}

  /**
   * Runs the rounds and prints where the pool stalled, if it did.
   *
   * @param args the most rounds to run (40,000 by default)
   * @throws InterruptedException if interrupted while waiting
   */
  public static void main(String[] args) throws InterruptedException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40_000;
    System.out.println("JDK " + Runtime.version() + ": up to " + rounds + " rounds");
    ForkJoinPool pool = new ForkJoinPool(2, ForkJoinPool.defaultForkJoinWorkerThreadFactory,
        null, false, 0, 0x7fff, 1, null, 1, TimeUnit.MILLISECONDS);
    long start = System.nanoTime();
    try {
      for (int round = 1; round <= rounds; round++) {
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < 2; i++) {
          pool.execute(() -> {
            started.countDown();
            try {
              go.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
        }
        boolean both = started.await(5, TimeUnit.SECONDS);
        go.countDown();
        if (!both) {
          System.out.printf(
              "stalled in round %,d after %.0f s: of two tasks submitted, %d started%n",
              round, (System.nanoTime() - start) / 1e9, 2 - started.getCount());
          return;
        }
        // Both workers end: the ends the JDK miscounts. Once the count has wrapped around, the
        // pool takes its idle workers for busy ones and lets none end: the next round shows it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (pool.getPoolSize() > 0 && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        if (round % 5_000 == 0) {
          System.out.printf("round %,d: no stall (%.0f s)%n", round,
              (System.nanoTime() - start) / 1e9);
        }
      }
      System.out.printf("no stall in %,d rounds%n", rounds);
    } finally {
      pool.shutdownNow();
    }
  }
}
