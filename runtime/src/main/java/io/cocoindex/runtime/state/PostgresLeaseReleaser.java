package io.cocoindex.runtime.state;

import io.cocoindex.runtime.state.PostgresRuns.RunStart;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives advisory locks back on a thread of its own, all those released meanwhile in one
 * statement per connection (after one marking the claims to mark, if any): a component's commit
 * completes on the state writer's thread, which must not spend a round trip per component on
 * unlocking.
 *
 * <p>It hands out the leases of a {@link PostgresStateStore} and keeps count of those held, per
 * app, until they are closed: a lease a lost task holds is never closed, and the app's next run
 * on the store is refused while one is held ({@link #refuseRunWhileLostLeasesHeld}).
 */
final class PostgresLeaseReleaser implements AutoCloseable {
  // The store's logger: its warnings keep the name they were configured by.
  private static final Logger log = LoggerFactory.getLogger(PostgresStateStore.class);

  /**
   * An advisory lock held on one lease connection, with the claim its giving back marks finished
   * (or null), or (with {@code given}) a marker completed once every lock queued before it was
   * given back.
   */
  private record HeldLock(Connection connection, long key, PostgresClaims.Finished finished,
      CompletableFuture<Void> given) {}

  /** A claim of a run, as its commit marked it finished. */
  private record Marked(String app, ByteKey path, long version) {}

  /**
   * The claims the commits of components still leased marked finished ({@link
   * #markedWithCommit}): their give-back has nothing to mark (in a cold run, every component's).
   */
  private final Set<Marked> markedByCommit = ConcurrentHashMap.newKeySet();
  /** The leases this store holds, by app: taken and not yet closed. */
  private final Map<String, AtomicInteger> heldLeases = new ConcurrentHashMap<>();
  /**
   * Apps a run of which lost a task ({@link PostgresStateStore#runLostATask}), until none of
   * their leases is held.
   */
  private final Set<String> lostATask = ConcurrentHashMap.newKeySet();
  private final LinkedBlockingQueue<HeldLock> queue = new LinkedBlockingQueue<>();
  private final HeldLock stop = new HeldLock(null, 0, null, null);
  private final Thread thread = new Thread(this::loop, "cocoindex-pg-lease-release");

  PostgresLeaseReleaser() {
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * A lease of {@code app} whose close gives the lock back (once, however often it is closed),
   * counted in {@link #heldLeases} until then. The lease of a component claimed for {@code
   * run} ({@code claimed} not null) marks that claim finished as it gives the lock back,
   * unless the run was stopped early before the close: the engine closes a component's lease
   * once the component is done (committed, or failed), so a worker dying later has its
   * claim stand; one left half done by a run stopped early is taken over as a dead run's. (A
   * component whose commit wrote something was marked by it already, in case the worker dies
   * before this: see {@link PostgresClaims}.)
   */
  AutoCloseable lease(Connection connection, long key, String app, byte[] claimed,
      RunStart run) {
    AtomicBoolean released = new AtomicBoolean();
    AtomicInteger held = heldLeases.computeIfAbsent(app, a -> new AtomicInteger());
    held.incrementAndGet();
    return () -> {
      if (released.compareAndSet(false, true)) {
        held.decrementAndGet();
        boolean marked = claimed != null && run != null
            && markedByCommit.remove(new Marked(app, ByteKey.of(claimed), run.version()));
        PostgresClaims.Finished finished =
            claimed == null || run == null || marked || run.aborted().get() ? null
                : new PostgresClaims.Finished(app, claimed, run.version());
        queue.add(new HeldLock(connection, key, finished, null));
      }
    };
  }

  /**
   * Notes claims a committed transaction marked finished: the give-back of their leases marks
   * nothing (it would find them marked). The engine commits a component while it holds its
   * lease and closes the lease once the commit has landed, so the note comes first.
   */
  void markedWithCommit(List<PostgresClaims.Finished> claims) {
    for (PostgresClaims.Finished f : claims) {
      markedByCommit.add(new Marked(f.app(), ByteKey.of(f.path()), f.version()));
    }
  }

  /**
   * Forgets the claims of run {@code version} of {@code app} noted as marked whose leases were
   * not closed after the note (a commit retried alone after its lease was closed, say).
   */
  void forgetMarked(String app, long version) {
    if (!markedByCommit.isEmpty()) {
      markedByCommit.removeIf(m -> m.version() == version && m.app().equals(app));
    }
  }

  /** Remembers that a run of {@code app} lost a task, whose leases may never be closed. */
  void runLostATask(String app) {
    lostATask.add(app);
  }

  /**
   * Refuses a run of {@code app} if a run of it lost a task and the app still holds leases (the
   * lost task's are never closed: only closing the store gives them back); once it holds none,
   * the loss is forgotten.
   */
  void refuseRunWhileLostLeasesHeld(String app) {
    if (lostATask.contains(app)) {
      AtomicInteger held = heldLeases.get(app);
      if (held != null && held.get() > 0) {
        throw new StateStoreException("app '" + app + "' cannot run on this state store: a run"
            + " of it in this process lost a task (one threw past itself) that holds "
            + held.get() + " of its leases, which only closing the store gives back (they would"
            + " have its runs skip those components for good, as another worker's). Close the"
            + " store and open it again, best in a new process; the next run finishes what that"
            + " one left, as after a crash");
      }
      lostATask.remove(app);
    }
  }

  private void loop() {
    List<HeldLock> group = new ArrayList<>();
    while (true) {
      group.clear();
      try {
        group.add(queue.take());
      } catch (InterruptedException e) {
        return;
      }
      queue.drainTo(group);
      boolean stopping = group.remove(stop);
      Map<Connection, List<HeldLock>> byConnection = new IdentityHashMap<>();
      List<CompletableFuture<Void>> markers = new ArrayList<>();
      for (HeldLock h : group) {
        if (h.given() != null) {
          markers.add(h.given());
        } else {
          byConnection.computeIfAbsent(h.connection(), c -> new ArrayList<>()).add(h);
        }
      }
      byConnection.forEach(this::giveBack);
      markers.forEach(m -> m.complete(null));
      if (stopping) {
        return;
      }
    }
  }

  /** Gives back {@code held}'s locks, marking the claims they finished. */
  private void giveBack(Connection connection, List<HeldLock> held) {
    Long[] keys = new Long[held.size()];
    List<PostgresClaims.Finished> finished = new ArrayList<>();
    for (int i = 0; i < keys.length; i++) {
      keys[i] = held.get(i).key();
      if (held.get(i).finished() != null) {
        finished.add(held.get(i).finished());
      }
    }
    synchronized (connection) {
      try {
        if (connection.isClosed()) {
          return; // the server released its locks with the session
        }
        if (!finished.isEmpty()) {
          // The marks first, committed before the locks go back (the session commits each round
          // trip): a worker that takes a lock then finds its claim marked. If they fail, the locks
          // are given back all the same, once (a lock is re-entrant: given back twice, it would
          // drop another hold of it).
          try {
            PostgresClaims.markFinished(connection, finished);
          } catch (SQLException e) {
            // Those claims then look unfinished once this run is gone: taken over, processed
            // twice. The locks are still given back.
            log.warn("marking {} claims finished failed", finished.size(), e);
          }
        }
        try (PreparedStatement ps = connection.prepareStatement(
            "SELECT pg_advisory_unlock(k) FROM unnest(?::bigint[]) AS k")) {
          ps.setArray(1, connection.createArrayOf("bigint", keys));
          ps.execute();
        }
      } catch (SQLException e) {
        // The locks stay until the connection closes (at the latest when this store does).
        log.warn("giving back {} component leases failed", keys.length, e);
      }
    }
  }

  /**
   * Waits until every lease released so far was given back. A run starts with it: a lock its
   * predecessor in this process released but had not yet given back would otherwise look held
   * by another worker (each lease connection is a session of its own), and the component
   * would be skipped.
   */
  void awaitGivenBack() {
    CompletableFuture<Void> given = new CompletableFuture<>();
    queue.add(new HeldLock(null, 0, null, given));
    try {
      given.get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateStoreException("interrupted while giving back component leases");
    } catch (ExecutionException | TimeoutException e) {
      throw new StateStoreException("component leases were not given back: " + e, e);
    }
  }

  /** Gives back what was released so far, then stops. */
  @Override
  public void close() {
    queue.add(stop);
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
