package io.cocoindex.runtime.apply;

import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.runtime.plan.RunAborted;
import io.cocoindex.runtime.threads.DrainingQueue;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies actions in batches, one call per sink identity: while a sink applies a batch, the
 * actions that components submit meanwhile queue up and go out together in the next call.
 *
 * <p>When a merged batch fails, it is retried split along submission (component) boundaries, in
 * halves, recursively, so only the components whose actions really fail see the failure. One
 * submission is never split.
 */
public final class SinkBatcher {
  private static final Logger log = LoggerFactory.getLogger(SinkBatcher.class);

  private final Executor executor;
  private final Map<TargetActionSink<?>, SinkQueue> queues = new IdentityHashMap<>();
  /** The submissions not completed yet: {@link #stop} fails them. */
  private final Set<Submission> outstanding = ConcurrentHashMap.newKeySet();
  /** Why the run stopped early ({@link #stop}), or null: no sink call starts after it. */
  private volatile Throwable stopped;
  /**
   * Sink calls under way: {@link #stop} fails their submissions at once, but the calls go on
   * until the sinks return ({@link #callsUnderWay}).
   */
  private final java.util.concurrent.atomic.AtomicInteger callsUnderWay =
      new java.util.concurrent.atomic.AtomicInteger();
  /** Checked before each sink call ({@link #checkBeforeEachCall}), or null. */
  private volatile Runnable beforeEachCall;

  /**
   * Applies each sink's batches on {@code executor}, off the components' threads.
   *
   * @param executor runs the sink calls
   */
  public SinkBatcher(Executor executor) {
    this.executor = executor;
  }

  /**
   * Submits one component's actions for one sink.
   *
   * @param <A> the type of the sink's actions
   * @param sink the sink that applies them; submissions to one sink (by identity) are batched
   * @param actions the actions, copied; they go to the sink in one call, never split
   * @param owner the submitting component (its path), for logs: rendered only if logged (a
   *     deep component's path renders in time proportional to its depth, and rendering one for
   *     each submission made a chain of components quadratic in its depth)
   * @return completes when applied, exceptionally with the sink's error
   */
  public <A> CompletableFuture<Void> submit(
      TargetActionSink<A> sink, Object owner, List<TargetAction<A>> actions) {
    return submit(sink, owner, actions, null);
  }

  /**
   * Submits one component's actions for one sink, saying what they are should the sink fail.
   *
   * @param <A> the type of the sink's actions
   * @param sink the sink that applies them; submissions to one sink (by identity) are batched
   * @param owner the submitting component (see {@link #submit(TargetActionSink, Object, List)})
   * @param actions the actions, copied; they go to the sink in one call, never split
   * @param context what the sink applies for this submission ({@link SinkFailure#work}),
   *     rendered only if the sink fails on them; null: the sink's error as it is
   * @return completes when applied; exceptionally with a {@link SinkFailure} whose cause is the
   *     sink's own exception (thrown by a call with this submission's actions alone, when a
   *     merged batch failed), or with that exception itself when {@code context} is null, or
   *     when the error is fatal ({@link RunAborted#fatalIn}) and the batch was merged (it is
   *     not split then) or no memory was left to describe it
   */
  public <A> CompletableFuture<Void> submit(TargetActionSink<A> sink, Object owner,
      List<TargetAction<A>> actions, Supplier<SinkWork> context) {
    SinkQueue queue;
    synchronized (queues) {
      queue = queues.computeIfAbsent(sink, SinkQueue::new);
    }
    Submission s = new Submission(owner, List.copyOf(actions), context, new CompletableFuture<>());
    outstanding.add(s);
    Throwable why = stopped;
    if (why != null) { // after stop's pass over the outstanding ones, or before it
      fail(s, why);
      return s.done;
    }
    queue.add(s);
    return s.done;
  }

  /**
   * Stops the batcher as its run stops early ({@link io.cocoindex.runtime.plan.Run#abort}): every
   * submission not applied yet fails with {@code error} at once, without its sink call, and so
   * does every later one. A wait for a sink call that a lost task held (a sink thread died)
   * ends then too: the orphan sweep waits for its deletions on the caller's thread.
   *
   * @param error what the submissions fail with
   */
  public void stop(Throwable error) {
    stopped = error;
    for (Submission s : outstanding) {
      fail(s, error);
    }
  }

  /**
   * Runs {@code check} before each sink call from now on: if it throws, the call does not start,
   * and its submissions fail with the error the run stopped with ({@link #stop}), or with what
   * {@code check} threw. A submission may wait for its call behind another that is under way: a
   * check when it was submitted may no longer hold when its call would start.
   *
   * @param check throws when no sink call may start (the run's sessions with a store shared by
   *     workers lost, say), stopping the run first
   */
  public void checkBeforeEachCall(Runnable check) {
    this.beforeEachCall = check;
  }

  /**
   * How many sink calls are under way. Once the run is stopped no call starts, so this only goes
   * down: a stopped run on a store shared by workers waits for it to reach 0 before its lock
   * goes, so that a worker taking over one of its components writes after the calls it had
   * under way, not before them (see {@code App}).
   *
   * @return the number of sink calls started that have not returned
   */
  public int callsUnderWay() {
    return callsUnderWay.get();
  }

  private void complete(Submission s) {
    s.done.complete(null);
    outstanding.remove(s);
  }

  private void fail(Submission s, Throwable error) {
    s.done.completeExceptionally(error);
    outstanding.remove(s);
  }

  /** {@code error}, which the sink threw on {@code s}'s actions alone, with what they were. */
  private static Throwable sinkFailure(Submission s, Throwable error) {
    SinkWork work;
    try {
      work = s.context.get();
    } catch (RuntimeException e) { // a description must not hide the sink's error
      work = new SinkWork("the sink", s.actions.size() + " actions");
    }
    return new SinkFailure(work, error);
  }

  /** One component's actions for one sink; an identity (its actions are not compared). */
  private static final class Submission {
    final Object owner;
    final List<TargetAction<?>> actions;
    final Supplier<SinkWork> context;
    final CompletableFuture<Void> done;

    Submission(Object owner, List<TargetAction<?>> actions, Supplier<SinkWork> context,
        CompletableFuture<Void> done) {
      this.owner = owner;
      this.actions = actions;
      this.context = context;
      this.done = done;
    }
  }

  private final class SinkQueue {
    private final TargetActionSink<?> sink;
    /** No bound on a batch: one sink call takes every submission that queued meanwhile. */
    private final DrainingQueue<Submission> pending = new DrainingQueue<>(executor,
        Integer.MAX_VALUE, this::applySplitting, SinkBatcher.this::fail);

    SinkQueue(TargetActionSink<?> sink) {
      this.sink = sink;
    }

    void add(Submission s) {
      pending.add(s);
    }

    private void applySplitting(List<Submission> batch) {
      Throwable why = stopped;
      Runnable check = beforeEachCall;
      if (why == null && check != null) {
        try {
          check.run();
        } catch (RuntimeException e) {
          why = stopped != null ? stopped : e;
        }
      }
      if (why != null) {
        Throwable stop = why;
        batch.forEach(s -> fail(s, stop)); // the run stopped early: nothing more is applied
        return;
      }
      Throwable error = applyOnce(batch);
      if (error == null) {
        batch.forEach(SinkBatcher.this::complete);
        return;
      }
      if (RunAborted.fatalIn(error) != null) {
        // Out of memory stops the run: its batch is not retried, in parts or at all. One
        // submission's actions alone are told with it, to say where the run stopped.
        Throwable told = error;
        if (batch.size() == 1 && batch.get(0).context != null) {
          try {
            told = sinkFailure(batch.get(0), error);
          } catch (VirtualMachineError stillOut) {
            // no memory to say it: the sink's error as it is
          }
        }
        Throwable each = told;
        batch.forEach(s -> fail(s, each));
        return;
      }
      if (batch.size() == 1) {
        // Its own actions' error: told with what they were, for the component to report.
        Submission s = batch.get(0);
        fail(s, s.context == null ? error : sinkFailure(s, error));
        return;
      }
      log.debug("a batch of {} submissions to {} failed; retrying it split", batch.size(), sink,
          error);
      int mid = batch.size() / 2;
      applySplitting(batch.subList(0, mid));
      applySplitting(batch.subList(mid, batch.size()));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Throwable applyOnce(List<Submission> batch) {
      List<TargetAction<?>> all = new ArrayList<>();
      for (Submission s : batch) {
        all.addAll(s.actions);
      }
      callsUnderWay.incrementAndGet();
      try {
        ((TargetActionSink) sink).applyAsync(List.copyOf(all)).toCompletableFuture().join();
        return null;
      } catch (CompletionException e) {
        return e.getCause() != null ? e.getCause() : e;
      } catch (RuntimeException | Error e) {
        return e;
      } finally {
        callsUnderWay.decrementAndGet();
      }
    }
  }
}
