package io.cocoindex.runtime.state;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a {@link PostgresStateStore}'s lease sessions, on which its runs hold their locks, are
 * still there: the other workers take a run whose lock no session holds for dead once their
 * grace has passed ({@link PostgresRuns}), and may then take over or change what it writes,
 * while a process whose sessions ended (an idle-session timeout, a network cut, {@code
 * pg_terminate_backend}) lives on. So a run of this store starts a sink call only while its
 * sessions were confirmed there within half the grace ({@link #check}): by a statement at its
 * start, then by a probe ({@code SELECT 1} on each lease session) every eighth of the grace
 * while a run is going. A lease statement that fails on a session that ended, or a probe that
 * fails, marks the sessions lost for good: the store opens no new ones.
 *
 * <p>The bound, and what it does not cover: a worker whose sessions end may start sink calls
 * until its next probe (an eighth of the grace) or, if the probe hangs, until its last
 * confirmation is half the grace old; a call it started before goes on, and one that outlasts
 * the rest of the grace may land after another worker changed what it writes. The grace should
 * be at least twice the slowest sink call. A pause of the whole process (a long garbage
 * collection) between the check and the call is not bounded either. With no grace, nothing is
 * probed: a run stops only when a lease statement of its own fails.
 */
final class PostgresSessionWatch implements AutoCloseable {
  // The store's logger: its warnings keep the name they were configured by.
  private static final Logger log = LoggerFactory.getLogger(PostgresStateStore.class);

  private final Connection[] leaseConnections;
  private final String description;
  private final long graceNanos;
  /** Whether a run of the store is going: the sessions are probed only then. */
  private final BooleanSupplier runsGoing;
  /** When the sessions were last confirmed there: the moment before the statements were sent. */
  private volatile long confirmedNanos = System.nanoTime();
  /** The error that told the sessions lost, or null. */
  private volatile Throwable lostBy;
  private ScheduledExecutorService prober;

  PostgresSessionWatch(Connection[] leaseConnections, String description, long graceNanos,
      BooleanSupplier runsGoing) {
    this.leaseConnections = leaseConnections;
    this.description = description;
    this.graceNanos = graceNanos;
    this.runsGoing = runsGoing;
  }

  /** The sessions were all there at {@code sentNanos}: they answered a statement sent then. */
  void confirmed(long sentNanos) {
    synchronized (this) {
      if (sentNanos - confirmedNanos > 0) {
        confirmedNanos = sentNanos;
      }
      if (prober == null && graceNanos > 0) {
        prober = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "cocoindex-pg-session-probe");
          t.setDaemon(true);
          return t;
        });
        long every = Math.max(1, graceNanos / 8);
        prober.scheduleWithFixedDelay(this::probe, every, every, TimeUnit.NANOSECONDS);
      }
    }
  }

  /**
   * Notes a statement of {@code connection} that failed with {@code e}: if its session ended
   * (the connection closed by the driver, or a connection or shutdown error), the sessions are
   * lost. Other errors (a statement the server refused) leave the session as it was.
   */
  void failed(Connection connection, SQLException e) {
    String state = e.getSQLState();
    boolean ended = state != null && (state.startsWith("08") || state.startsWith("57P"));
    try {
      ended |= connection.isClosed();
    } catch (SQLException notTold) {
      ended = true;
    }
    if (ended && lostBy == null) {
      lostBy = e;
    }
  }

  /**
   * Throws unless the sessions of run {@code version} of {@code app} may still be taken for
   * alive by the other workers: none was lost, and (with a grace) they were confirmed within
   * half of it.
   *
   * @throws SessionsLostException saying so
   */
  void check(String app, long version) {
    Throwable lost = lostBy;
    if (lost != null) {
      throw lost(app, version, "were lost (" + lost.getMessage() + ")", lost);
    }
    if (graceNanos > 0) {
      long age = System.nanoTime() - confirmedNanos;
      if (age > graceNanos / 2) {
        throw lost(app, version, "were not confirmed for " + TimeUnit.NANOSECONDS.toMillis(age)
            + " ms", null);
      }
    }
  }

  /** The store's own runs are refused once its sessions were lost. */
  Throwable lostBy() {
    return lostBy;
  }

  private SessionsLostException lost(String app, long version, String what, Throwable cause) {
    String dead = graceNanos == 0 ? "at once"
        : "once " + TimeUnit.NANOSECONDS.toMillis(graceNanos) + " ms have passed without its lock";
    return new SessionsLostException("state store " + description + ": the database sessions"
        + " on which run " + version + " of app '" + app + "' holds its lock " + what
        + ": the other workers take the run for dead " + dead + ", so it stops and starts no"
        + " further sink call; close the store and open it again", cause);
  }

  /** {@code SELECT 1} on each lease session, while a run is going. */
  private void probe() {
    if (lostBy != null || !runsGoing.getAsBoolean()) {
      return;
    }
    long sent = System.nanoTime();
    int timeoutMillis = (int) Math.min(Integer.MAX_VALUE,
        Math.max(1000, TimeUnit.NANOSECONDS.toMillis(graceNanos)));
    for (Connection c : leaseConnections) {
      synchronized (c) {
        try {
          probe(c, timeoutMillis);
        } catch (SQLException | RuntimeException e) {
          if (lostBy == null) {
            lostBy = e;
          }
          log.warn("state store {}: a lease session is lost; the runs of this store stop",
              description, e);
          return;
        }
      }
    }
    confirmed(sent);
  }

  /** One probe of one session, answered within {@code timeoutMillis} or failed. */
  private static void probe(Connection c, int timeoutMillis) throws SQLException {
    if (c.isClosed()) {
      throw new SQLException("the lease session is closed", "08003");
    }
    int before = c.getNetworkTimeout();
    c.setNetworkTimeout(Runnable::run, timeoutMillis);
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    } finally {
      if (!c.isClosed()) {
        c.setNetworkTimeout(Runnable::run, before);
      }
    }
  }

  @Override
  public void close() {
    ScheduledExecutorService p;
    synchronized (this) {
      p = prober;
      prober = null;
    }
    if (p != null) {
      p.shutdownNow();
    }
  }
}
