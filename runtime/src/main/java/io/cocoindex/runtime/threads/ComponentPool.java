package io.cocoindex.runtime.threads;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fork-join pool an app's components run on, which tells the runs using it when one of its
 * workers died.
 *
 * <p>A worker dies when something it runs throws past the task that ran it: a plain task that
 * threw, or a completion stage whose own failure handling failed (under an {@link
 * OutOfMemoryError}, completing a future exceptionally allocates, and can throw again). The
 * future that task would have completed never is, and a run waiting for it would wait for good
 * (a chain of 4,000 components on a 96 MB heap did). The pool replaces the worker; the runs
 * watching it ({@link #watch}) stop instead of waiting.
 */
public final class ComponentPool extends ForkJoinPool {
  private static final Logger log = LoggerFactory.getLogger(ComponentPool.class);

  private final Set<Consumer<Throwable>> watchers = ConcurrentHashMap.newKeySet();
  /** The last error a worker died of, or null. */
  private volatile Throwable workerDied;

  ComponentPool(String app, int parallelism) {
    // As the four-argument constructor, with SharedThreads' keep-alive and a handler that hears
    // of each worker that dies.
    super(parallelism, workerFactory(app), ComponentPool::workerDied, false, 0, 0x7fff, 1, null,
        SharedThreads.KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
  }

  /** Daemon workers named {@code cocoindex-<app>-component-N}, numbered as they start. */
  private static ForkJoinWorkerThreadFactory workerFactory(String app) {
    AtomicInteger workers = new AtomicInteger();
    return pool -> {
      ForkJoinWorkerThread t = defaultForkJoinWorkerThreadFactory.newThread(pool);
      t.setName("cocoindex-" + app + "-component-" + workers.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void workerDied(Thread worker, Throwable error) {
    if (worker instanceof ForkJoinWorkerThread w && w.getPool() instanceof ComponentPool pool) {
      pool.died(worker, error);
    }
  }

  /**
   * Tells every watcher first, and logs after: with the heap exhausted, the log line is what
   * may fail to allocate.
   */
  private void died(Thread worker, Throwable error) {
    workerDied = error;
    for (Consumer<Throwable> w : watchers) {
      try {
        w.accept(error);
      } catch (Throwable ignored) {
        // a watcher that cannot hear of it has its own waits to end; the next is told all the same
      }
    }
    try {
      log.error("component worker {} died; the task it ran is lost", worker.getName(), error);
    } catch (Throwable ignored) {
      // out of memory, say: the watchers know
    }
  }

  /** Calls {@code watcher} with the error of each worker that dies, until {@link #unwatch}. */
  public void watch(Consumer<Throwable> watcher) {
    watchers.add(watcher);
  }

  /** Stops calling {@code watcher}. */
  public void unwatch(Consumer<Throwable> watcher) {
    watchers.remove(watcher);
  }

  /** Whether a worker of this pool has died since it started (its tasks then may be lost). */
  public boolean hadWorkerDie() {
    return workerDied != null;
  }
}
