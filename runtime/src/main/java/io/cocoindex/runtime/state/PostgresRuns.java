package io.cocoindex.runtime.state;

import io.cocoindex.Fingerprint;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs of a {@link PostgresStateStore}'s apps, and whether they are alive. A run holds a
 * shared advisory lock on its run key, on every lease session, from before its version commits
 * until it ends, and records its end before giving that lock back. A version below the app's
 * next one whose lock no session holds has ended if its end is recorded; if not, it died or was
 * stopped early, or its sessions ended while its process lives on and may still be in a sink
 * call. Such a run is taken for alive for a grace ({@link
 * PostgresStateStore#DEAD_RUN_GRACE_PROPERTY}) from the moment a worker first saw its lock
 * missing (recorded in the store, in the server's clock), and for dead after: the workers still
 * in the round then take over its unfinished claims ({@link PostgresClaims}), and its
 * precommitted writes are no longer in flight. A worker whose sessions end stops its run within
 * a fraction of that grace ({@link PostgresSessionWatch}).
 *
 * <p>It keeps this store's own runs (their starts and locks) and the runs of each app known
 * ended. It writes in the store's transactions on its write connection and reads (and records a
 * lock first seen missing) on the store's read connections; the run locks live on the store's
 * lease sessions.
 */
final class PostgresRuns {
  // The store's logger: its warnings keep the name they were configured by.
  private static final Logger log = LoggerFactory.getLogger(PostgresStateStore.class);
  /** How long the end of a run is recorded ({@link #recordEnd}). */
  private static final String RUN_ENDS_KEPT = "7 days";

  /** The store's lease sessions: a run's lock is held on each of them. */
  private final Connection[] leaseConnections;
  /** The schema of the store's tables: part of the runs' lock keys. */
  private final String schemaName;
  /** The store's tables: the apps' next versions. */
  private final JdbcStateTables tables;
  /** The store's transactions on its write connection. */
  private final Transactions writes;
  /** The store's reads on its read connections. */
  private final Reads reads;
  /** Per app, this store's run going on (or the last one). */
  private final Map<String, RunStart> runStarts = new ConcurrentHashMap<>();
  /**
   * The locks of this store's runs still going, by run (see {@link PostgresStateStore#endedRuns}).
   */
  private final Map<RunId, Long> runLocks = new ConcurrentHashMap<>();
  /** Per app, the versions known ended (their ends recorded) or dead (their grace passed). */
  private final Map<String, Set<Long>> endedKnown = new ConcurrentHashMap<>();
  /** How long a run whose lock went is still taken for alive (0: dead at once). */
  private final long graceMicros;

  /** Runs work in one transaction of the store's write connection. */
  interface Transactions {
    void inTransaction(JdbcStateStore.TransactionWork work) throws SQLException;
  }

  /** Runs a read on one of the store's read connections, failing as the store does. */
  interface Reads {
    <T> T read(String what, ReadConnections.Read<T> op);
  }

  PostgresRuns(Connection[] leaseConnections, String schemaName, JdbcStateTables tables,
      Transactions writes, Reads reads, long graceMicros) {
    this.graceMicros = graceMicros;
    this.leaseConnections = leaseConnections;
    this.schemaName = schemaName;
    this.tables = tables;
    this.writes = writes;
    this.reads = reads;
  }

  /**
   * A run of this store: when it started, in the server's clock, and its version; {@code
   * aborted} once it was stopped early ({@link PostgresStateStore#runAborted}).
   */
  record RunStart(Timestamp at, long version, AtomicBoolean aborted) {
    RunStart(Timestamp at, long version) {
      this(at, version, new AtomicBoolean());
    }
  }

  private record RunId(String app, long version) {}

  /** The server's clock now: claims are compared by it, never by this host's. */
  private static Timestamp serverClock(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
      rs.next();
      return rs.getTimestamp(1);
    }
  }

  /**
   * A run's lock key: 32 bits of the app (and schema: each schema numbers its runs from 1), then
   * the version's low 32 bits.
   */
  long lockKey(String app, long version) {
    byte[] fp = Fingerprint.of(Arrays.asList(schemaName, app, "run")).bytes();
    return ((long) ByteBuffer.wrap(fp).getInt() << 32) | (version & 0xFFFFFFFFL);
  }

  /**
   * A run's lock: shared (two runs whose keys collide do not wait for each other, and both look
   * alive, which only keeps records longer), on every lease connection, so that the run looks
   * dead (its claims taken over, see {@link PostgresClaims#UNLESS_CLAIMED_SINCE}) only once all
   * of them are gone, as with its process: one session dropped while the worker goes on is not
   * its death.
   */
  private void takeLock(long key) throws SQLException {
    for (Connection connection : leaseConnections) {
      synchronized (connection) {
        try (PreparedStatement ps =
            connection.prepareStatement("SELECT pg_try_advisory_lock_shared(?)")) {
          ps.setLong(1, key);
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next() || !rs.getBoolean(1)) {
              throw new SQLException(
                  "the lock of a new run is held exclusively by another session");
            }
          }
        }
      }
    }
  }

  /** Gives a run's lock back on every lease connection that holds it (each one tried). */
  void unlock(long key) throws SQLException {
    SQLException failure = null;
    for (Connection connection : leaseConnections) {
      synchronized (connection) {
        try {
          if (connection.isClosed()) {
            continue;
          }
          // Not held (its taking failed before this one): false, and a warning of the server.
          try (PreparedStatement ps =
              connection.prepareStatement("SELECT pg_advisory_unlock_shared(?)")) {
            ps.setLong(1, key);
            ps.execute();
          }
        } catch (SQLException e) {
          failure = PostgresStateStore.firstWithRest(failure, e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Starts a run of {@code app} ({@link PostgresStateStore#nextVersion}): allocates its version
   * in one transaction, in which it reads the server's clock and takes the run's lock; its
   * version.
   */
  long start(String app) throws SQLException {
    long[] version = new long[1];
    Timestamp[] started = new Timestamp[1];
    Long[] locked = new Long[1];
    try {
      writes.inTransaction(c -> {
        version[0] = tables.nextVersion(c, app);
        started[0] = serverClock(c);
        long key = lockKey(app, version[0]);
        locked[0] = key; // given back below if taking it fails half-way (some sessions hold it)
        takeLock(key);
      });
    } catch (SQLException | RuntimeException e) {
      if (locked[0] != null) {
        try {
          unlock(locked[0]); // the version was not allocated: a later run gets it
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    runLocks.put(new RunId(app, version[0]), locked[0]);
    runStarts.put(app, new RunStart(started[0], version[0]));
    return version[0];
  }

  /** This store's run of {@code app} going on (or the last one), or null. */
  RunStart current(String app) {
    return runStarts.get(app);
  }

  /** This store's run {@code version} of {@code app}, if it is the last one it started. */
  RunStart runStart(String app, long version) {
    RunStart run = runStarts.get(app);
    return run != null && run.version() == version ? run : null;
  }

  /**
   * Whether {@code run} was stopped early ({@link PostgresStateStore#runAborted}): it claims
   * nothing more.
   */
  static boolean stopped(RunStart run) {
    return run != null && run.aborted().get();
  }

  /**
   * Marks run {@code version} of {@code app} stopped early ({@link PostgresStateStore#runAborted})
   * if it is this store's last run of the app and still going.
   */
  void aborted(String app, long version) {
    RunStart run = runStart(app, version);
    if (run != null && runLocks.containsKey(new RunId(app, version))) {
      run.aborted().set(true);
    }
  }

  /** Forgets the lock of run {@code version} of {@code app} as it ends: its key, or null. */
  Long forgetLock(String app, long version) {
    return runLocks.remove(new RunId(app, version));
  }

  /**
   * Records that a run ended, before its lock is given back: a claim of a run whose lock no
   * session holds is taken over unless the run is recorded here (it died otherwise). Records
   * older than {@link #RUN_ENDS_KEPT} go: a run going on longer than that may take over a
   * component a run that ended had finished, which costs that component's work twice, no more.
   */
  void recordEnd(String app, long version) {
    try {
      writes.inTransaction(c -> {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO cocoindex_run_end(app,"
            + " version, ended_at) VALUES(?, ?, clock_timestamp()) ON CONFLICT DO NOTHING")) {
          ps.setString(1, app);
          ps.setLong(2, version);
          ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM cocoindex_run_end"
            + " WHERE app = ? AND ended_at < clock_timestamp() - CAST(? AS INTERVAL)")) {
          ps.setString(1, app);
          ps.setString(2, RUN_ENDS_KEPT);
          ps.executeUpdate();
        }
      });
    } catch (SQLException | RuntimeException e) {
      // Then the run looks dead once its lock is given back: what it claimed in the round may
      // be processed again by another worker, which is safe.
      log.warn("recording the end of run {} of app '{}' failed", version, app, e);
    }
  }

  /** Deletes the ends recorded for {@code app}'s runs (see {@link PostgresStateStore#clear}). */
  void deleteEnds(String app) throws SQLException {
    writes.inTransaction(c -> {
      try (PreparedStatement ps =
          c.prepareStatement("DELETE FROM cocoindex_run_end WHERE app = ?")) {
        ps.setString(1, app);
        ps.executeUpdate();
      }
    });
  }

  /**
   * Which of {@code versions} of {@code app} ended ({@link PostgresStateStore#endedRuns}): those
   * whose lock no session holds, and whose end is recorded or whose grace has passed since a
   * worker first saw the lock missing (with no grace: whose lock no session holds). An answer
   * "ended" is kept for good, unless {@code fresh}: then every version is read again, and one
   * seen alive is forgotten as ended (another worker's {@code dropState} allocates versions from
   * 1 again). The others are read again each time, in one query.
   */
  Set<Long> ended(String app, Collection<Long> versions, boolean fresh) {
    Set<Long> known = endedKnown.computeIfAbsent(app, a -> ConcurrentHashMap.newKeySet());
    List<Long> asked = new ArrayList<>();
    for (long v : versions) {
      if (fresh || !known.contains(v)) {
        asked.add(v);
      }
    }
    if (!asked.isEmpty()) {
      RunsRead read = reads.read("read which runs are alive", c -> readRuns(c, app, asked));
      for (long v : asked) {
        if (!read.lockMissing(v)) {
          known.remove(v);
        } else if (graceMicros == 0 || read.endsRecorded().contains(v)
            || read.atMicros() - read.missingSince().get(v) >= graceMicros) {
          known.add(v);
        }
      }
    }
    Set<Long> ended = new HashSet<>();
    for (long v : versions) {
      if (known.contains(v)) {
        ended.add(v);
      }
    }
    return ended;
  }

  /**
   * What one read of an app's runs told: its next version, the low 32 bits of the versions whose
   * locks were held, the server's clock, which of the versions asked had their ends recorded, and
   * since when (in microseconds of the server's clock) the locks of the others were missing, as
   * first seen by any worker.
   */
  private record RunsRead(long below, Set<Long> aliveLowBits, long atMicros,
      Set<Long> endsRecorded, Map<Long, Long> missingSince) {
    boolean lockMissing(long version) {
      return version < below && !aliveLowBits.contains(version & 0xFFFFFFFFL);
    }
  }

  /**
   * One read of {@code app}'s runs: its next version, then the run locks held, the server's
   * clock, and, with a grace, the ends recorded of {@code asked} and when their locks were first
   * seen missing. A worker that first sees a lock missing, its run's end not recorded, records
   * when (in {@code cocoindex_run_end}, at the version's negation: no run has a version below 1),
   * so that every worker counts that run's grace from the same moment, a worker started since
   * too.
   */
  private RunsRead readRuns(Connection c, String app, List<Long> asked) throws SQLException {
    List<Long> both = new ArrayList<>();
    if (graceMicros > 0) {
      for (long v : asked) {
        both.add(v);
        both.add(-v);
      }
    }
    RunsRead read;
    try (PreparedStatement ps = c.prepareStatement("SELECT (SELECT next_version FROM "
        + tables.appTable() + " WHERE name = ?), ARRAY(SELECT objid::bigint FROM pg_locks"
        + " WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND classid::bigint = ?"
        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())),"
        + " " + micros("clock_timestamp()") + ","
        + " ARRAY(SELECT ARRAY[version, " + micros("ended_at") + "] FROM cocoindex_run_end"
        + " WHERE app = ? AND version = ANY(CAST(? AS BIGINT[])))")) {
      ps.setString(1, app);
      ps.setLong(2, lockKey(app, 0) >>> 32);
      ps.setString(3, app);
      ps.setArray(4, c.createArrayOf("bigint", both.toArray(new Long[0])));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long below = rs.getLong(1); // the statement's snapshot predates its read of the locks
        Set<Long> alive = new HashSet<>(Arrays.asList((Long[]) rs.getArray(2).getArray()));
        Set<Long> ends = new HashSet<>();
        Map<Long, Long> since = new HashMap<>();
        for (Object pair : (Object[]) rs.getArray(4).getArray()) {
          Long[] row = (Long[]) pair; // version, then ended_at
          if (row[0] > 0) {
            ends.add(row[0]);
          } else {
            since.put(-row[0], row[1]);
          }
        }
        read = new RunsRead(below, alive, rs.getLong(3), ends, since);
      }
    }
    List<Long> firstSeen = new ArrayList<>();
    for (long v : asked) {
      if (graceMicros > 0 && read.lockMissing(v) && !read.endsRecorded().contains(v)
          && !read.missingSince().containsKey(v)) {
        firstSeen.add(-v);
        read.missingSince().put(v, read.atMicros()); // or a little later than another's
      }
    }
    if (!firstSeen.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO cocoindex_run_end(app, version,"
          + " ended_at) SELECT ?, v, clock_timestamp() FROM unnest(CAST(? AS BIGINT[])) AS v"
          + " ON CONFLICT DO NOTHING")) {
        ps.setString(1, app);
        ps.setArray(2, c.createArrayOf("bigint", firstSeen.toArray(new Long[0])));
        ps.executeUpdate();
      }
    }
    return read;
  }

  /** The timestamp {@code expression} in microseconds since the epoch, in SQL. */
  private static String micros(String expression) {
    return "CAST(1000000 * EXTRACT(EPOCH FROM " + expression + ") AS BIGINT)";
  }

  /** Forgets what was read of {@code app}'s runs: its versions start again at 1. */
  void forgetSeen(String app) {
    endedKnown.remove(app);
  }

  /** Whether a run of this store is going: its sessions are watched meanwhile. */
  boolean anyGoing() {
    return !runLocks.isEmpty();
  }
}
