package io.cocoindex.runtime.threads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Items that queue up while a batch of earlier ones is processed, and go out together in the
 * next batch: one task on an executor drains the queue while it is not empty, so no caller
 * thread blocks and a slow consumer (a round trip, a sink's transaction) sees larger batches as
 * the load grows.
 *
 * <p>Every item added reaches either the consumer or {@code fail}: when the executor refuses the
 * draining task (shut down, or no thread to be had), or the consumer throws, the items it would
 * have taken are failed with that error rather than left waiting for a drain that never runs.
 *
 * @param <T> an item, typically carrying the future its caller waits on
 */
public final class DrainingQueue<T> {
  private final Executor executor;
  private final int maxBatch;
  private final Consumer<List<T>> consumer;
  private final BiConsumer<T, Throwable> fail;
  private final List<T> pending = new ArrayList<>();
  private boolean draining;

  /**
   * A queue whose items are handed to {@code consumer} in batches, by one draining task at a time.
   *
   * @param executor runs the draining task
   * @param maxBatch the most items one batch takes (a larger backlog goes in several)
   * @param consumer processes one batch, on the executor
   * @param fail completes an item that cannot be processed with the error
   * @throws IllegalArgumentException if {@code maxBatch} is below 1
   */
  public DrainingQueue(Executor executor, int maxBatch, Consumer<List<T>> consumer,
      BiConsumer<T, Throwable> fail) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch " + maxBatch);
    }
    this.executor = executor;
    this.maxBatch = maxBatch;
    this.consumer = consumer;
    this.fail = fail;
  }

  /**
   * Queues {@code item}, starting a draining task unless one is running.
   *
   * @param item what to hand to the consumer, in a batch with others queued meanwhile
   */
  public void add(T item) {
    synchronized (this) {
      pending.add(item);
      if (draining) {
        return;
      }
      draining = true;
    }
    try {
      executor.execute(this::drain);
    } catch (RuntimeException | Error e) {
      List<T> refused;
      synchronized (this) {
        draining = false;
        refused = take(pending.size());
      }
      refused.forEach(i -> fail.accept(i, e));
    }
  }

  private void drain() {
    while (true) {
      List<T> batch;
      synchronized (this) {
        if (pending.isEmpty()) {
          draining = false;
          return;
        }
        batch = take(Math.min(pending.size(), maxBatch));
      }
      try {
        consumer.accept(batch);
      } catch (RuntimeException | Error e) {
        batch.forEach(i -> fail.accept(i, e));
      }
    }
  }

  private List<T> take(int n) {
    List<T> batch = new ArrayList<>(pending.subList(0, n));
    pending.subList(0, n).clear();
    return batch;
  }
}
