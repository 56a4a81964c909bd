package io.cocoindex.runtime.threads;

import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Daemon threads shared by the whole process and kept for reuse once their task ends: a state
 * store's writer and an app's sink calls each take one when they start instead of starting a
 * thread of their own. A thread started while both cores of a two-core machine were busy took
 * 0.3-1 ms to get going, on the critical path of the run that needed it (a store's first write,
 * a table's first sink call); a JVM that opens an app for each update paid that on every one.
 *
 * <p>While it runs a task a thread carries the task's name, so a thread dump still tells a
 * store's writer from an app's sink; idle, it is {@value #IDLE_NAME}, and it ends after
 * {@value #KEEP_ALIVE_SECONDS} seconds without work.
 *
 * <p>Apps of one name that take turns on a store also take their component pool from here
 * ({@link #acquireComponentPool}), for the same reason: a new pool started its workers within every
 * run, the first on the thread that mounts the components.
 */
public final class SharedThreads {
  /** The name of a shared thread that runs no task. */
  public static final String IDLE_NAME = "cocoindex-idle";

  /**
   * How long a shared thread waits for work before it ends; an idle component pool lets a worker
   * go each time this passes.
   */
  public static final long KEEP_ALIVE_SECONDS = 30;

  private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(
      0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
      r -> {
        Thread t = new Thread(r, IDLE_NAME);
        t.setDaemon(true);
        return t;
      });

  /**
   * One daemon thread for the process's periodic chores (a long run's progress lines), started
   * with the first and ended {@value #KEEP_ALIVE_SECONDS} seconds after the last is cancelled.
   */
  private static final ScheduledThreadPoolExecutor TIMER = newTimer();

  private static ScheduledThreadPoolExecutor newTimer() {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "cocoindex-timer");
      t.setDaemon(true);
      return t;
    });
    timer.setKeepAliveTime(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true);
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /**
   * Runs {@code task} every {@code periodMillis}, the first time one period from now, on the
   * process's timer thread, until the returned future is cancelled. The task must be short: the
   * process's other chores wait for it. One that throws is not run again.
   *
   * @param periodMillis the time between two runs, in milliseconds (at least 1)
   * @param task what to run
   * @return cancel it to stop the runs
   */
  public static ScheduledFuture<?> repeat(long periodMillis, Runnable task) {
    return TIMER.scheduleAtFixedRate(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** How many component pools no app uses are kept for the next app of their name. */
  public static final int IDLE_POOLS_KEPT = 16;

  /**
   * The current component pool of each app name, store and parallelism, least recently used
   * first; guarded by itself. A process that opens apps of ever new names keeps only {@link
   * #IDLE_POOLS_KEPT} of those no app uses.
   */
  private static final Map<PoolKey, SharedPool> COMPONENT_POOLS =
      new LinkedHashMap<>(16, 0.75f, true);
  /**
   * Every pool given out and not shut down, current or retired ({@link #renewComponentPool}), by
   * identity; guarded by {@link #COMPONENT_POOLS}.
   */
  private static final Map<ComponentPool, SharedPool> GIVEN = new IdentityHashMap<>();

  private record PoolKey(String app, String store, int parallelism) {}

  /** A shared component pool and how many open apps use it. */
  private static final class SharedPool {
    final PoolKey key;
    final ComponentPool pool;
    int users;
    /** No longer given to apps: shut down once the last app using it lets it go. */
    boolean retired;

    SharedPool(PoolKey key, ComponentPool pool) {
      this.key = key;
      this.pool = pool;
    }
  }

  private SharedThreads() {}

  /**
   * The component pool of the apps named {@code app} on {@code store} with {@code parallelism}
   * workers, for apps that take turns (each on a store it is the only writer of while it
   * updates): one pool, which an app of that name opened for each update finds with its workers
   * started, and which apps of other names, or of that name on another store (another tenant's,
   * updating meanwhile), never share. Once it is idle, a worker ends every {@value
   * #KEEP_ALIVE_SECONDS} seconds. A pool that is {@link ComponentPool#worn} is retired for a new
   * one. Each call must be matched by {@link #releaseComponentPool} (or {@link
   * #renewComponentPool}) when the app is done with the pool.
   *
   * @param app the app's name
   * @param store what tells the store apart from others ({@link
   *     io.cocoindex.runtime.state.StateStore#identity}): equal for two objects open on one store
   * @param parallelism the pool's number of workers
   * @return the shared pool of that name, store and parallelism, new if none was kept
   */
  public static ComponentPool acquireComponentPool(String app, String store, int parallelism) {
    synchronized (COMPONENT_POOLS) {
      PoolKey key = new PoolKey(app, store, parallelism);
      SharedPool shared = COMPONENT_POOLS.get(key);
      if (shared != null && shared.users == 0 && shared.pool.lostATask()) {
        // A task was lost in an earlier run: another of that run's may still hold a worker,
        // waiting for a future the lost one was to complete. The next app starts afresh.
        retire(shared);
        shared = null;
      }
      if (shared != null && shared.pool.worn()) {
        retire(shared); // the apps still using it keep it until they renew or close
        shared = null;
      }
      if (shared == null) {
        shared = new SharedPool(key, newComponentPool(app, parallelism));
        COMPONENT_POOLS.put(key, shared);
        GIVEN.put(shared.pool, shared);
      }
      shared.users++;
      return shared.pool;
    }
  }

  /**
   * An app is done with a pool {@link #acquireComponentPool} gave it. The pool is kept for the
   * next app of its name, unless more than {@link #IDLE_POOLS_KEPT} pools are unused: then the
   * least recently used of them are shut down (their idle workers end) and forgotten. A retired
   * pool is shut down once no app uses it.
   *
   * @param pool the pool the app was given
   * @throws IllegalStateException if no app holds {@code pool}
   */
  public static void releaseComponentPool(ComponentPool pool) {
    synchronized (COMPONENT_POOLS) {
      SharedPool shared = GIVEN.get(pool);
      if (shared == null || shared.users == 0) {
        throw notHeld(pool);
      }
      shared.users--;
      if (shared.retired) {
        if (shared.users == 0) {
          shutDown(shared);
        }
        return;
      }
      int idle = 0;
      for (SharedPool p : COMPONENT_POOLS.values()) {
        idle += p.users == 0 ? 1 : 0;
      }
      for (Iterator<SharedPool> it = COMPONENT_POOLS.values().iterator();
          idle > IDLE_POOLS_KEPT && it.hasNext(); ) {
        SharedPool p = it.next();
        if (p.users == 0) {
          it.remove();
          shutDown(p);
          idle--;
        }
      }
    }
  }

  /**
   * Lets {@code worn} go ({@link #releaseComponentPool}) and returns the current pool of its
   * apps, a new one if {@code worn} was still current ({@link ComponentPool#worn}).
   *
   * @param worn a pool an app holds, to be renewed
   * @return the pool the app uses from now on, to be released in its turn
   * @throws IllegalStateException if no app holds {@code worn}
   */
  public static ComponentPool renewComponentPool(ComponentPool worn) {
    synchronized (COMPONENT_POOLS) {
      SharedPool shared = GIVEN.get(worn);
      if (shared == null) {
        throw notHeld(worn);
      }
      PoolKey key = shared.key;
      releaseComponentPool(worn);
      return acquireComponentPool(key.app(), key.store(), key.parallelism());
    }
  }

  private static IllegalStateException notHeld(ComponentPool pool) {
    return new IllegalStateException("no app named '" + pool.app + "' holds this component pool");
  }

  /** No app gets {@code shared} from now on; shut down now if none uses it. */
  private static void retire(SharedPool shared) {
    COMPONENT_POOLS.remove(shared.key);
    shared.retired = true;
    if (shared.users == 0) {
      shutDown(shared);
    }
  }

  private static void shutDown(SharedPool shared) {
    shared.pool.shutdown();
    GIVEN.remove(shared.pool);
  }

  /**
   * A new component pool for an app named {@code app}: daemon workers named {@code
   * cocoindex-<app>-component-N}; once the pool is idle, one ends every {@value
   * #KEEP_ALIVE_SECONDS} seconds (as a fork-join pool trims its workers).
   *
   * @param app the app's name, in its workers' names
   * @param parallelism the pool's number of workers
   * @return a pool of the caller's alone, which it shuts down when done
   */
  public static ComponentPool newComponentPool(String app, int parallelism) {
    return new ComponentPool(app, parallelism);
  }

  /** Told of each task of a shared thread that threw past itself: see {@link #watchDeaths}. */
  private static final Set<Consumer<Throwable>> DEATH_WATCHERS = ConcurrentHashMap.newKeySet();

  /**
   * Calls {@code watcher} with what a task run by {@link #execute} threw, for each one that
   * throws, until {@link #unwatchDeaths}. Such a task is a store's writer or the draining of an
   * app's sink calls, which fail what they were given when it fails; one that throws past itself
   * failed in its own steps (out of memory, say), and what it held may never be completed. The
   * threads serve every app of the process, so every run is told.
   *
   * @param watcher given each error; one that throws does not keep the others from being told
   */
  public static void watchDeaths(Consumer<Throwable> watcher) {
    DEATH_WATCHERS.add(watcher);
  }

  /**
   * Stops calling {@code watcher}.
   *
   * @param watcher as given to {@link #watchDeaths}
   */
  public static void unwatchDeaths(Consumer<Throwable> watcher) {
    DEATH_WATCHERS.remove(watcher);
  }

  private static void taskDied(Throwable error) {
    for (Consumer<Throwable> w : DEATH_WATCHERS) {
      try {
        w.accept(error);
      } catch (Throwable ignored) {
        // the next watcher is told all the same
      }
    }
  }

  /**
   * Runs {@code task} on an idle shared thread, or a new one, named {@code name} while it runs.
   *
   * @param name the thread's name while the task runs
   * @param task the task
   * @return completes once the task has ended and its thread carries the idle name again
   *     (exceptionally with what the task threw, which also reaches the thread's handler)
   * @throws java.util.concurrent.RejectedExecutionException if no thread can be started
   */
  public static CompletableFuture<Void> execute(String name, Runnable task) {
    CompletableFuture<Void> ended = new CompletableFuture<>();
    POOL.execute(() -> {
      Thread me = Thread.currentThread();
      me.setName(name);
      try {
        task.run();
      } catch (Throwable t) {
        taskDied(t);
        me.setName(IDLE_NAME);
        ended.completeExceptionally(t);
        throw t; // reported by the thread's uncaught-exception handler, as before sharing
      }
      me.setName(IDLE_NAME);
      ended.complete(null);
    });
    return ended;
  }
}
