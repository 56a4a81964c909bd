package io.cocoindex.runtime.threads;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletableFuture.AsynchronousCompletionTask;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fork-join pool an app's components run on, which tells the runs using it when a task
 * threw past itself, or a worker died.
 *
 * <p>The engine's tasks report their own failures; one that throws past itself failed in its own
 * steps (a plain task's, such as the run's scan of the component records, out of memory), and
 * the futures it was to complete never are: a run waiting for them waited for good (a chain of
 * 4,000 components on a 96 MB heap did). The pool hands such a throwable to its handler (on
 * JDK 17 the worker then goes on; one that dies is replaced), and the runs watching it ({@link
 * #watch}) stop instead of waiting. A stage of a {@link CompletableFuture} whose own failure
 * handling throws (completing a future exceptionally allocates) would be recorded by the pool
 * without a word: such stages run here through a guard that reports it ({@link #execute}).
 */
public final class ComponentPool extends ForkJoinPool {
  private static final Logger log = LoggerFactory.getLogger(ComponentPool.class);

  /** The level of a stage that starts no component's body. */
  private static final int NOT_A_BODY = -1;

  /**
   * How many workers a pool starts before it is {@link #worn}, unless the system property {@value
   * #RENEW_AFTER_PROPERTY} says otherwise: far below the about 32,000 idle workers' ends that
   * stall a pool on the JDKs {@link #worn} names, and a new pool for an app every few thousand
   * runs at most.
   */
  static final int RENEW_AFTER_WORKERS = 10_000;
  /** The system property that sets {@link #RENEW_AFTER_WORKERS} (tests make it small). */
  static final String RENEW_AFTER_PROPERTY = "cocoindex.componentPool.renewAfterWorkers";

  private final Set<Consumer<Throwable>> watchers = ConcurrentHashMap.newKeySet();
  /** The last throwable a task threw past itself, or null. */
  private volatile Throwable lost;
  /** The workers this pool has started, spares and those started again after an idle end. */
  private final AtomicInteger workersStarted;
  private final int renewAfterWorkers;
  /** The name of the app it was made for. */
  final String app;

  ComponentPool(String app, int parallelism) {
    this(app, parallelism, new AtomicInteger());
  }

  private ComponentPool(String app, int parallelism, AtomicInteger workersStarted) {
    // As the four-argument constructor, with SharedThreads' keep-alive and a handler that hears
    // of each task that throws past itself.
    super(parallelism, workerFactory(app, workersStarted), ComponentPool::uncaught, false, 0,
        0x7fff, 1, null, SharedThreads.KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
    this.workersStarted = workersStarted;
    this.app = app;
    this.renewAfterWorkers = Math.max(1, Integer.getInteger(RENEW_AFTER_PROPERTY,
        RENEW_AFTER_WORKERS));
  }

  /**
   * Whether this pool has started so many workers that an app should take a new one for its next
   * run (and leave this one to end once no app uses it).
   *
   * <p>On JDK 17 before 17.0.17 (JDK-8351933, reported as JDK-8330017), each time a worker of a
   * pool with all its workers started ends after its keep-alive without work, the pool's count
   * of active workers drops by one more than it should. After about 32,000 such ends the count
   * wraps around, and the pool believes every worker busy: it never wakes one again, and a run
   * submitting to it waits for good. A pool that an app keeps for its whole life and that goes
   * idle between runs loses a count per run or so: weeks of runs a minute apart. On 17.0.15, a
   * two-worker pool whose workers were made to start and end over and over stopped running
   * tasks in round 32,768 ({@code bench PoolStall}); on JDK 25 the count stayed right. Every
   * such end is a worker the pool started, so a pool renewed before it has started {@link
   * #RENEW_AFTER_WORKERS} workers never gets near the wrap, whatever the JDK.
   *
   * @return true once this pool has started its share of workers
   */
  public boolean worn() {
    return workersStarted.get() >= renewAfterWorkers;
  }

  /** Daemon workers named {@code cocoindex-<app>-component-N}, numbered as they start. */
  private static ForkJoinWorkerThreadFactory workerFactory(String app, AtomicInteger workers) {
    return pool -> {
      ForkJoinWorkerThread t = defaultForkJoinWorkerThreadFactory.newThread(pool);
      t.setName("cocoindex-" + app + "-component-" + workers.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void uncaught(Thread worker, Throwable error) {
    if (worker instanceof ForkJoinWorkerThread w && w.getPool() instanceof ComponentPool pool) {
      pool.lost(worker, error);
    }
  }

  /**
   * Tells every watcher first, and logs after: with the heap exhausted, the log line is what
   * may fail to allocate.
   */
  private void lost(Thread worker, Throwable error) {
    lost = error;
    for (Consumer<Throwable> w : watchers) {
      try {
        w.accept(error);
      } catch (Throwable ignored) {
        // a watcher that cannot hear of it has its own waits to end; the next is told all the same
      }
    }
    try {
      log.error("a task on component worker {} threw past itself; what it was to complete is"
          + " lost", worker.getName(), error);
    } catch (Throwable ignored) {
      // out of memory, say: the watchers know
    }
  }

  /**
   * Runs {@code task}; a {@link CompletableFuture}'s stage through a guard that reports what it
   * throws past itself, which the pool, running it as its own task, would keep to itself.
   */
  @Override
  public void execute(Runnable task) {
    if (task instanceof ForkJoinTask<?> && task instanceof AsynchronousCompletionTask) {
      super.execute((ForkJoinTask<?>) new GuardedStage(task, NOT_A_BODY));
    } else {
      super.execute(task);
    }
  }

  /**
   * Runs {@code stage}, which starts the body of a component holding a slot of the gate of
   * components in flight of {@code level}, as {@link #execute} runs a stage, marked with that
   * level for {@link #mayRunNested}.
   *
   * @param stage the completion stage that runs the body
   * @param level the level of the gate the component holds a slot of (0 for the root's children)
   */
  public void executeBody(Runnable stage, int level) {
    super.execute((ForkJoinTask<?>) new GuardedStage(stage, level));
  }

  /**
   * Whether a worker waiting in a component (for its foreground child, say) may run {@code task},
   * taken from its own queue, nested in that wait: a completion stage may, unless it starts the
   * body of a component nearer the root than {@code levelsHeld}, a sibling of one the worker is
   * running, say. Such a body, nested, would bury the slots that the components under it on the
   * stack hold, and wait, as components do, for slots of its children's level, which may be just
   * those: {@code InFlightLevelsTest}'s trees hung that way, a worker running 68 children's
   * bodies nested in its waits. A body deeper than every component the worker runs waits only
   * for slots deeper still, and the deepest components wait for none. Other tasks (a parallel
   * stream's) are left to the pool, see {@code OwnTasks}.
   *
   * @param task a task of the worker's own queue, or null
   * @param levelsHeld how many levels of gates the waiting component and its ancestors hold a slot
   *     of ({@code ComponentContext#slotsHeldAbove}): the level of its background children
   * @return whether the waiting worker may run it now
   */
  public static boolean mayRunNested(ForkJoinTask<?> task, int levelsHeld) {
    if (task instanceof GuardedStage g) {
      return g.bodyLevel == NOT_A_BODY || g.bodyLevel >= levelsHeld;
    }
    return task instanceof AsynchronousCompletionTask;
  }

  /**
   * A completion stage run through a guard; a completion stage itself, as {@link
   * io.cocoindex.runtime.component.OwnTasks} tells them from a parallel stream's tasks.
   */
  private final class GuardedStage extends ForkJoinTask<Void>
      implements Runnable, AsynchronousCompletionTask {
    private static final long serialVersionUID = 1L;
    private final transient Runnable stage;
    /** The level of the body it starts ({@link #executeBody}), or {@link #NOT_A_BODY}. */
    private final int bodyLevel;

    GuardedStage(Runnable stage, int bodyLevel) {
      this.stage = stage;
      this.bodyLevel = bodyLevel;
    }

    @Override
    public void run() {
      try {
        stage.run();
      } catch (Throwable t) {
        lost(Thread.currentThread(), t);
      }
    }

    @Override
    protected boolean exec() {
      run();
      return true;
    }

    @Override
    public Void getRawResult() {
      return null;
    }

    @Override
    protected void setRawResult(Void value) {}
  }

  /**
   * Calls {@code watcher} with what each task throws past itself, until {@link #unwatch}.
   *
   * @param watcher given each such error
   */
  public void watch(Consumer<Throwable> watcher) {
    watchers.add(watcher);
  }

  /**
   * Stops calling {@code watcher}.
   *
   * @param watcher as given to {@link #watch}
   */
  public void unwatch(Consumer<Throwable> watcher) {
    watchers.remove(watcher);
  }

  /**
   * Whether a task of this pool has thrown past itself since it started (something is lost).
   *
   * @return true once any task threw past itself; it stays true
   */
  public boolean lostATask() {
    return lost != null;
  }
}
