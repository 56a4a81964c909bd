package io.cocoindex.runtime.plan;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

/**
 * An asynchronous counting gate: bounds how many components hold a lease at once without
 * blocking any thread while they wait (a component waiting for a slot is a pending future, so
 * the bounded pool keeps running the components that hold one).
 */
public final class LeaseGate {
  private final Queue<CompletableFuture<Void>> waiting = new ArrayDeque<>();
  private int free;

  public LeaseGate(int slots) {
    this.free = slots;
  }

  /** Completes when a slot is taken for the caller. */
  public synchronized CompletableFuture<Void> acquire() {
    if (free > 0) {
      free--;
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> f = new CompletableFuture<>();
    waiting.add(f);
    return f;
  }

  /** Gives a slot back, to the longest waiter if any. */
  public void release() {
    CompletableFuture<Void> next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        free++;
        return;
      }
    }
    next.complete(null);
  }
}
