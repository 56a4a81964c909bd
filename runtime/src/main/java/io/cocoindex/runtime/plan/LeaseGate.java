package io.cocoindex.runtime.plan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

/**
 * An asynchronous counting gate: bounds how many components hold a slot at once without
 * blocking any thread while they wait (a component waiting for a slot is a pending future, so
 * the bounded pool keeps running the components that hold one).
 *
 * <p>The bound can follow the components' size, between {@code minSlots} and {@code
 * maxSlots}: the gate admits as many as hold about a budget, by the running mean of the sizes
 * reported to {@link #reportSize}. The run's gates of components in flight (one per nesting
 * level, {@code Run#inFlight}) count declared states, which a slot holds in memory; the run
 * reports the components that changed something (a container's refresh does not count): small
 * ones (a row changed in each of many) then go through the sink and the store in larger
 * batches, which was about 9% of a cold run and 9-13% of a change of one row per component
 * (BENCHMARKS.md, twenty-fourth session), and large ones stay at {@code minSlots}. On a shared
 * store, the gate of components leased ahead of their start counts the time their bodies hold a
 * thread ({@code Run#leasedAhead}). A gate starts at {@code minSlots}, before any component has
 * reported, and stays there until one does.
 *
 * <p>A component's size is known only once it has run, and slots are not taken back: where
 * large components follow many small ones, up to {@code maxSlots} of them may be admitted before
 * the first reports, and each report moves the mean an eighth of the way to its size (one of
 * 10,000 states after components of 100 brings the bound of 256 down to 64).
 */
public final class LeaseGate {
  /** Weight of each reported component in the running mean of the sizes reported. */
  private static final double MEAN_WEIGHT = 1.0 / 8;

  private final Queue<CompletableFuture<Void>> waiting = new ArrayDeque<>();
  private final int minSlots;
  private final int maxSlots;
  private final long budget;
  private int slots;
  private int taken;
  /** The running mean of the sizes reported; negative before the first. */
  private double meanSize = -1;
  /** Slots added by components skipped since one was last taken ({@link #reportSkipped}). */
  private int widenedBy;

  /**
   * A gate of a fixed number of slots.
   *
   * @param slots how many components may hold a slot at once; at least 1
   * @throws IllegalArgumentException if {@code slots} is below 1
   */
  public LeaseGate(int slots) {
    this(slots, slots, 0);
  }

  /**
   * A gate of {@code minSlots} to {@code maxSlots} slots, as many as hold about {@code budget}
   * by the running mean of the components' sizes ({@link #reportSize}): declared states, say.
   *
   * @param minSlots the fewest slots, which the gate starts with; at least 1
   * @param maxSlots the most slots; at least {@code minSlots}
   * @param budget the total size the components holding slots should about add up to
   * @throws IllegalArgumentException if the bounds are out of order or {@code budget} negative
   */
  public LeaseGate(int minSlots, int maxSlots, long budget) {
    if (minSlots < 1 || maxSlots < minSlots || budget < 0) {
      throw new IllegalArgumentException("slots " + minSlots + ".." + maxSlots + ", budget "
          + budget);
    }
    this.minSlots = minSlots;
    this.maxSlots = maxSlots;
    this.budget = budget;
    this.slots = minSlots;
  }

  /**
   * Completes when a slot is taken for the caller.
   *
   * @return a future completed (at once when a slot is free) once the caller holds a slot, which
   *     it gives back with {@link #release}
   */
  public synchronized CompletableFuture<Void> acquire() {
    if (taken < slots) {
      taken++;
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> f = new CompletableFuture<>();
    waiting.add(f);
    return f;
  }

  /** Gives a slot back; the longest waiters take what is free. */
  public void release() {
    List<CompletableFuture<Void>> admitted;
    synchronized (this) {
      taken--;
      admitted = admit();
    }
    admitted.forEach(f -> f.complete(null));
  }

  /**
   * Notes a component's size (what it declared, say); the number of slots follows the mean (a
   * gate of fixed size ignores it). Slots taken beyond a lowered bound are not taken back: new
   * components wait until enough return.
   *
   * @param size the component's size, in the unit of the budget
   */
  public void reportSize(long size) {
    if (minSlots == maxSlots) {
      return;
    }
    List<CompletableFuture<Void>> admitted;
    synchronized (this) {
      meanSize = meanSize < 0 ? size : meanSize + (size - meanSize) * MEAN_WEIGHT;
      admitted = resize();
    }
    admitted.forEach(f -> f.complete(null));
  }

  /**
   * Notes a component that gave its slot back at once, having nothing to do here (another
   * worker's, skipped): the gate widens by a slot, up to {@code maxSlots}, until a component is
   * taken ({@link #reportTaken}). A worker going through components another has claimed then
   * asks for twice as many each round trip, rather than as many as its own bodies' time admits
   * (two per thread before any has run), at which it skipped no faster than the other processed
   * quick ones and got none of them. Reported as a size of 0, skips had widened the gate for
   * good: two workers started together on slow components then split 60 of them 1 to 59.
   */
  public void reportSkipped() {
    if (minSlots == maxSlots) {
      return;
    }
    List<CompletableFuture<Void>> admitted;
    synchronized (this) {
      widenedBy = Math.min(maxSlots, widenedBy + 1);
      admitted = resize();
    }
    admitted.forEach(f -> f.complete(null));
  }

  /**
   * Notes a component that took its slot to stay (its body is to run here): the gate is back to
   * what the sizes reported admit ({@link #reportSkipped}). Slots taken beyond it are not taken
   * back.
   */
  public void reportTaken() {
    if (minSlots == maxSlots) {
      return;
    }
    List<CompletableFuture<Void>> admitted;
    synchronized (this) {
      if (widenedBy == 0) {
        return;
      }
      widenedBy = 0;
      admitted = resize(); // none: the slots only narrow, but every resize hands out its own
    }
    admitted.forEach(f -> f.complete(null));
  }

  /**
   * Sets the slots from the mean size and the skips, and takes the free ones for the waiters.
   */
  private List<CompletableFuture<Void>> resize() {
    double fit = meanSize < 0 ? minSlots : budget / Math.max(1.0, meanSize);
    slots = (int) Math.max(minSlots, Math.min(maxSlots, fit + widenedBy));
    return admit();
  }

  /**
   * How many slots the gate has now (for tests and logs).
   *
   * @return the current bound on slots taken at once
   */
  public synchronized int slots() {
    return slots;
  }

  /** Takes the free slots for the longest waiters; they are completed outside the lock. */
  private List<CompletableFuture<Void>> admit() {
    if (waiting.isEmpty() || taken >= slots) {
      return List.of();
    }
    List<CompletableFuture<Void>> admitted =
        new ArrayList<>(Math.min(waiting.size(), slots - taken));
    while (taken < slots && !waiting.isEmpty()) {
      taken++;
      admitted.add(waiting.poll());
    }
    return admitted;
  }
}
