package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.StateStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Every component record of an app, read once for a run in path order, and handed out as the
 * components ask (each once): on a store that is its app's only writer while the run holds its
 * lock, one scan replaces a query per component (a quarter of a memoized rerun's time was those
 * queries). Nobody else changes the records meanwhile, and a component reads its own record
 * before its commit writes it.
 *
 * <p>A component whose path the scan has passed takes its record at once; one further on waits
 * for the scan to pass it, not to end. The components of a run ask in about path order, so they
 * go on while the scan does: 10,000 components had waited about 5 ms for its end.
 *
 * <p>A component that a thread waits for alone (a foreground mount) reads its own record by path
 * while the scan has not passed it, so that the scan is not on the mount's path; the scan then
 * leaves that record out. A record handed out is let go of, so what the run holds shrinks as its
 * components run. Waits are on this object's monitor: a pool worker waiting on a future would
 * make the pool start a spare worker.
 */
final class ComponentScan {
  /**
   * Records read between wake-ups of the components waiting for the scan: every 16 woke them so
   * often that a memoized rerun of 1,000 components ran 5-7% slower.
   */
  private static final int NOTIFY_EVERY = 128;

  private final StateStore store;
  private final String app;
  private final Map<ByteKey, ComponentRecord> records = new ConcurrentHashMap<>();
  private final AtomicBoolean claimed = new AtomicBoolean();
  /**
   * Every path the scan read, in path order (the scan's thread appends; read once it is done):
   * the records are let go of as they are taken, their paths are kept for {@link #pathsBelow}.
   */
  private final List<byte[]> paths = new ArrayList<>();
  /** Paths read alone before the scan passed them (under this object's lock). */
  private final List<ByteKey> readAlone = new ArrayList<>();
  /** The last path the scan put in {@link #records}; null before the first. */
  private volatile byte[] passed;
  private volatile boolean done;
  /** Why the scan stopped before its end, if it did (set before {@link #done}). */
  private volatile RuntimeException failure;
  /** Components waiting for the scan to pass them (changed under this object's lock). */
  private volatile int waiting;

  ComponentScan(StateStore store, String app) {
    this.store = store;
    this.app = app;
  }

  /**
   * Reads the records unless another thread has taken the scan (then returns at once). The
   * run's pool calls this as the run starts; a component that finds it not yet begun calls it too.
   */
  void run() {
    if (!claimed.compareAndSet(false, true)) {
      return;
    }
    int[] read = {0};
    try {
      store.componentsInOrder(app, c -> {
        records.put(ByteKey.of(c.path()), c);
        paths.add(c.path());
        passed = c.path();
        if (++read[0] % NOTIFY_EVERY == 0) {
          wakeWaiting();
        }
      });
    } catch (RuntimeException e) {
      failure = e;
    } catch (Error e) {
      // The askers report it (out of memory stops the run: Run#fail); left to fly, it would end
      // the scan as if every record had been read, and the askers would take "no record".
      failure = new IllegalStateException("reading the component records failed: " + e, e);
    } finally {
      synchronized (this) {
        try {
          for (ByteKey alone : readAlone) {
            records.remove(alone); // written since by its commit, perhaps: no longer "at start"
          }
        } finally {
          // Allocates nothing, so it happens even out of memory: the run's end waits for it.
          done = true;
          notifyAll();
        }
      }
    }
  }

  /** The record {@code component} had at the run's start, once the scan has passed it. */
  Optional<ComponentRecord> take(TargetPath component) {
    awaitPassed(component.encodedUnsafe());
    return Optional.ofNullable(records.remove(component.key()));
  }

  /**
   * As {@link #take}, for a component a thread waits for alone: read by path if the scan has not
   * passed it yet.
   */
  Optional<ComponentRecord> takeAlone(TargetPath component) {
    boolean alone;
    synchronized (this) { // against the scan's end, which leaves out what was read alone
      alone = !hasPassed(component.encodedUnsafe());
      if (alone) {
        readAlone.add(component.key());
      }
    }
    return alone ? store.component(app, component.encoded()) : take(component);
  }

  /** The records no component asked for, once the scan has ended (the orphan sweep's). */
  Collection<ComponentRecord> notAskedFor() {
    awaitEnd();
    return records.values();
  }

  /**
   * The paths of the records strictly below {@code prefix} at the run's start, in path order, once
   * the scan has ended (asked for or not: the caller tells which components the run visited).
   */
  List<byte[]> pathsBelow(byte[] prefix) {
    awaitEnd();
    int i = Collections.binarySearch(paths, prefix, Arrays::compareUnsigned);
    int from = i >= 0 ? i + 1 : -i - 1;
    int to = from;
    while (to < paths.size() && startsWith(paths.get(to), prefix)) {
      to++;
    }
    return List.copyOf(paths.subList(from, to));
  }

  private static boolean startsWith(byte[] path, byte[] prefix) {
    return path.length > prefix.length
        && Arrays.equals(path, 0, prefix.length, prefix, 0, prefix.length);
  }

  /**
   * Makes a scan not yet begun never begin, waits for one under way, and lets go of what it held
   * (the run ends).
   */
  void close() {
    if (claimed.compareAndSet(false, true)) {
      synchronized (this) {
        done = true;
        notifyAll();
      }
    } else {
      awaitDone();
    }
    records.clear();
    paths.clear();
  }

  private boolean hasPassed(byte[] path) {
    byte[] last = passed;
    return done || (last != null && Arrays.compareUnsigned(last, path) >= 0);
  }

  private void awaitPassed(byte[] path) {
    if (hasPassed(path)) {
      checkRead(path);
      return;
    }
    run(); // not begun (the pool has not reached it): read here rather than wait for a worker
    boolean interrupted = false;
    synchronized (this) {
      waiting++;
      try {
        while (!hasPassed(path)) {
          try {
            wait();
          } catch (InterruptedException e) {
            interrupted = true; // waited for all the same: the read is short
          }
        }
      } finally {
        waiting--;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    checkRead(path);
  }

  private void awaitEnd() {
    run();
    awaitDone();
    if (failure != null) {
      throw failure;
    }
  }

  private void awaitDone() {
    boolean interrupted = false;
    synchronized (this) {
      while (!done) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true; // waited for all the same: the read is short
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Fails the asker whose record the scan did not reach, with the store's own exception. */
  private void checkRead(byte[] path) {
    RuntimeException f = failure;
    if (f != null) {
      byte[] last = passed;
      if (last == null || Arrays.compareUnsigned(last, path) < 0) {
        throw f;
      }
    }
  }

  private void wakeWaiting() {
    if (waiting > 0) {
      synchronized (this) {
        notifyAll();
      }
    }
  }
}
