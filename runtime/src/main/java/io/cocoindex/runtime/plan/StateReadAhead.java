package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.OwnedStates;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's reads of its components' tracked states, ahead of the components that ask in path
 * order (as children mounted in a loop over sorted keys do): one read returns the states of the
 * next components too, and they take them from here. On the embedded store a read of one
 * component's states was about a fifth of a rerun with nothing changed, much of it the cost of
 * a query, not of the bytes (BENCHMARKS.md, fifteenth session).
 *
 * <p>Only for a store that is the app's only writer while the run holds its lock. A component
 * may then find its states as they were a little before it asked, which is a read any schedule
 * of the run's components could have made: what another component took over since is claimed
 * by it (the orphan checks skip claimed paths and read each candidate's owner again), and a
 * component's own states change only with its own commit, after its one read.
 *
 * <p>The pool finishes components in runs of ascending paths rather than strictly in order (a
 * block from here, then one from further back). So the ranges of paths already read are kept:
 * a window starts at the component that asks and stops before the next range read, and a
 * component inside a range that finds nothing held owns nothing or was let go of, and is read
 * alone. No state is read twice unless what was held, or the ranges, were let go of.
 *
 * <p>The window adapts: it doubles when, since the last read, components took at least as many
 * of what was read ahead as half of what the last read brought, and halves otherwise. What is
 * held is bounded (about two windows), and let go of when it would grow past that without
 * being taken.
 */
final class StateReadAhead {
  private static final Logger log = LoggerFactory.getLogger(StateReadAhead.class);
  /** The most chunks one read asks for (a chunk is at most about 64 KB). */
  static final int MAX_WINDOW = 64;
  /** Owners held but not yet asked for, past which they are let go of. */
  private static final int MAX_HELD = 2 * MAX_WINDOW;
  /** Ranges read that are remembered, past which they are forgotten. */
  private static final int MAX_RANGES = 4096;

  private final StateStore store;
  private final String app;
  /** Read for components that have not asked yet, still encoded: each decodes its own. */
  private final Map<ByteKey, OwnedStates> ahead = new ConcurrentHashMap<>();
  private final Object reading = new Object();
  /** Components that took what was read ahead since the last read. */
  private final AtomicInteger takenSinceRead = new AtomicInteger();
  // Guarded by reading.
  private int window = 1;
  /** How many other components' states the last read brought. */
  private int lastReadAhead;
  /** The ranges of components read, in full: encoded first to encoded last, disjoint. */
  private final TreeMap<byte[], byte[]> readRanges = new TreeMap<>(Arrays::compareUnsigned);
  /** For the log line at the run's end: reads of a window, reads of one component alone. */
  private int windowReads;
  private int aloneReads;
  private final AtomicInteger taken = new AtomicInteger();

  StateReadAhead(StateStore store, String app) {
    this.store = store;
    this.app = app;
  }

  /** Every state {@code component} owns; asked at most once per component and run. */
  List<TrackedState> ownedBy(TargetPath component) {
    ByteKey key = component.key();
    OwnedStates held = take(key);
    if (held == null) {
      held = read(component, key);
    }
    return held.get(); // decoded here, outside the lock, on this component's thread
  }

  private OwnedStates read(TargetPath component, ByteKey key) {
    // One read at a time: a component waiting here is often in the window being read.
    synchronized (reading) {
      OwnedStates held = take(key);
      if (held != null) {
        return held;
      }
      byte[] encoded = component.encodedUnsafe();
      Map.Entry<byte[], byte[]> range = readRanges.floorEntry(encoded);
      if (range != null && Arrays.compareUnsigned(encoded, range.getValue()) <= 0) {
        aloneReads++;
        // Read before: it owns nothing, or was let go of.
        return OwnedStates.of(store.ownedBy(app, encoded));
      }
      int tookSince = takenSinceRead.getAndSet(0);
      window = 2 * tookSince >= lastReadAhead
          ? Math.min(2 * window, MAX_WINDOW) : Math.max(1, window / 2);
      byte[] next = readRanges.higherKey(encoded);
      Map<ByteKey, OwnedStates> read = store.ownedByFrom(app, encoded, next, window);
      windowReads++;
      OwnedStates own = read.remove(key);
      if (ahead.size() + read.size() > MAX_HELD) {
        ahead.clear(); // asked for in another order, or not at all in this run
      }
      ahead.putAll(read);
      lastReadAhead = read.size();
      byte[] last = encoded;
      for (ByteKey k : read.keySet()) { // in path order
        last = k.bytes();
      }
      if (readRanges.size() == MAX_RANGES) {
        readRanges.clear(); // asked in no useful order: forgetting costs some reads twice
      }
      readRanges.put(encoded, last); // ends before the next range: the read stopped there
      return own != null ? own : OwnedStates.of(List.of());
    }
  }

  private OwnedStates take(ByteKey key) {
    OwnedStates held = ahead.remove(key);
    if (held != null) {
      takenSinceRead.incrementAndGet();
      taken.incrementAndGet();
    }
    return held;
  }

  /** Lets go of what was read ahead and not taken (the run ends). */
  void clear() {
    synchronized (reading) {
      if (windowReads + aloneReads > 0) {
        log.debug("app '{}': components' tracked states read in {} windows and {} reads alone;"
            + " {} components took theirs from a window read for another, {} were not taken",
            app, windowReads, aloneReads, taken.get(), ahead.size());
      }
    }
    ahead.clear();
  }
}
