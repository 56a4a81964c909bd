package io.cocoindex.runtime.state;

import io.cocoindex.runtime.state.PostgresRuns.RunStart;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The claims of components for a run ({@code cocoindex_claim}), which share a round's work among
 * the workers of a {@link PostgresStateStore}. A worker that takes a component's lock claims the
 * component for its run; another worker in the same round then skips it, unless the run that
 * claimed it is dead ({@link PostgresRuns}: its lock gone, its end not recorded, and its grace
 * passed) and did not mark it finished, in which case the component is taken over. A run marks
 * a claim finished in the transaction of the component's commit ({@link
 * StateWrite.ComponentDone}), and as it gives the component's lock back ({@link
 * PostgresLeaseReleaser}) unless the run was stopped early: the commit's mark is there when a
 * worker dies before the give-back, the give-back's for a component whose commit had nothing to
 * write.
 *
 * <p>Claims are written on a lease session, by the caller holding that connection's monitor, in
 * the same statement as the locks (a batch) or right after the lock (a foreground component).
 */
final class PostgresClaims {
  /**
   * The runs of an app alive now, by the low 32 bits of their versions: the shared locks held on
   * the app's run keys ({@link PostgresRuns#lockKey}). Parameter: the keys' high 32 bits. Read
   * only when a claim in the round is met (a CTE is evaluated when first read), and only to tell
   * whether the runs should be read again (see {@link #BATCH_LEASE_SQL}): it is read after the
   * statement's snapshot was taken, so a run that records its end and gives its lock back in
   * between looks dead to it. Read by each batch that meets such a claim, not kept from one batch
   * to the next: a run an earlier batch saw alive may have died since, and its claims would stand
   * for the round, their components processed by no worker until the next.
   */
  private static final String LIVE_RUNS = "live AS MATERIALIZED (SELECT objid::bigint AS low"
      + " FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted"
      + " AND classid::bigint = ?"
      + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))";

  /**
   * The end of a claim's insert, for this run's version: it takes the component unless claimed
   * at or after the first parameter's time (null: whatever the claim) by another run not known
   * dead: one whose version is not among the second parameter's, the runs {@link
   * PostgresRuns#ended} told ended before this statement began (their locks gone, and their ends
   * recorded or their grace passed), or that ended after all ({@code cocoindex_run_end}, read in
   * this statement's snapshot, which follows that read: a run gives its lock back only once its
   * end is recorded), or that marked the claim finished (copied its claimed_at to
   * run_finished_at with its commit, or as it gave the component back). A claim of a run that
   * died (its worker killed, its sessions gone for longer than the grace) or was stopped early
   * (no end recorded), and that it did not mark finished, is taken over: no other live worker
   * will process that component in the round. Within the grace it stands, as a live run's: the
   * run's process may still be applying the component's actions. A finished one stands: that
   * run's input may be newer than this one's. A claim written before claims named their run is
   * kept as it was, and so is one a worker of that version moved since (its claimed_at no longer
   * the one written with the run: the run named is then an earlier round's, not the claimer's).
   */
  private static final String UNLESS_CLAIMED_SINCE =
      " ON CONFLICT(app, path) DO UPDATE SET claimed_at = excluded.claimed_at,"
          + " run_version = excluded.run_version, run_claimed_at = excluded.run_claimed_at,"
          + " run_finished_at = NULL"
          + " WHERE cocoindex_claim.claimed_at < COALESCE(CAST(? AS TIMESTAMPTZ), 'infinity')"
          + " OR (cocoindex_claim.run_claimed_at = cocoindex_claim.claimed_at"
          + " AND cocoindex_claim.run_version <> excluded.run_version"
          + " AND cocoindex_claim.run_version = ANY(CAST(? AS BIGINT[]))"
          + " AND cocoindex_claim.run_finished_at IS DISTINCT FROM cocoindex_claim.claimed_at"
          + " AND NOT EXISTS (SELECT 1 FROM cocoindex_run_end e"
          + " WHERE e.app = cocoindex_claim.app AND e.version = cocoindex_claim.run_version))";

  /**
   * Leases background components in one round trip. Parameters: the app's run keys' high bits,
   * the components' paths (bytea[]), their lock keys (bigint[]), the app, this worker's run
   * version and start, the runs known ended ({@link #UNLESS_CLAIMED_SINCE}), then the app, this
   * worker's run version and start again. Returns one row per lock taken: (path, claimed for this
   * run, and null, or the unlock's result where another worker claimed it in this round, whose
   * lock is given back at once, and the version of that claim's run if it looks dead now: its
   * lock held by none ({@link #LIVE_RUNS}) and its end not recorded; the caller then asks whether
   * that run is dead ({@link PostgresRuns#ended}) and, if it is, tries the component once more).
   * The CTEs are materialized so that each lock is tried once.
   */
  private static final String BATCH_LEASE_SQL =
      "WITH " + LIVE_RUNS + ","
          + " req AS MATERIALIZED (SELECT r.path, r.key FROM unnest(?::bytea[], ?::bigint[])"
          + " AS r(path, key)),"
          + " locked AS MATERIALIZED (SELECT path, key FROM req WHERE pg_try_advisory_lock(key)),"
          + " claimed AS (INSERT INTO cocoindex_claim(app, path, claimed_at, run_version,"
          + " run_claimed_at) SELECT ?, path, t, ?, t FROM (SELECT path, clock_timestamp() AS t"
          + " FROM locked OFFSET 0) n"
          + UNLESS_CLAIMED_SINCE + " RETURNING path)"
          + " SELECT l.path, c.path IS NOT NULL,"
          + " CASE WHEN c.path IS NULL THEN pg_advisory_unlock(l.key) END,"
          + " (SELECT k.run_version FROM cocoindex_claim k WHERE c.path IS NULL"
          + " AND k.app = ? AND k.path = l.path AND k.run_claimed_at = k.claimed_at"
          + " AND k.run_version <> ? AND k.claimed_at >= ?"
          + " AND k.run_finished_at IS DISTINCT FROM k.claimed_at"
          + " AND NOT EXISTS (SELECT 1 FROM live WHERE live.low = k.run_version & 4294967295)"
          + " AND NOT EXISTS (SELECT 1 FROM cocoindex_run_end e"
          + " WHERE e.app = k.app AND e.version = k.run_version))"
          + " FROM locked l LEFT JOIN claimed c ON c.path = l.path";

  /**
   * Marks claims finished (parameters: their paths as a bytea[], their app and their run
   * version): copies each claim's claimed_at to run_finished_at where the run's claim still
   * stands, by the time it was written (a boolean would outlive a later claim written by a
   * worker of the version before, which leaves the column as it was). A claim already marked is
   * not written again: a component whose commit marked it is marked again as its lease is given
   * back.
   *
   * <p>One statement for the claims of a run. Each claim is looked up on its own by its primary
   * key, in a lateral subquery (kept apart by its {@code OFFSET 0}) that has only that lookup to
   * choose, and updated by its row's address. On a table without statistics (a store's first
   * run), planned while it held a few claims, both {@code app = ? AND path = ANY(?)} and a join
   * of the claims with the array became a scan of every claim of the app (the array a filter),
   * and the server keeps such a plan for the prepared statement ({@code
   * FreshTablesPointReadsTest}); a statement per claim was then the way out, 20,000 of them in a
   * warm run of 20,000 components. The row found is the one updated: the caller holds the
   * component's lease, and only a holder of it writes its claim.
   */
  static final String MARK_FINISHED_SQL = "UPDATE cocoindex_claim c"
      + " SET run_finished_at = c.claimed_at FROM (SELECT s.id FROM"
      + " unnest((SELECT ?::bytea[])) AS k(v) CROSS JOIN LATERAL (SELECT ctid AS id"
      + " FROM cocoindex_claim WHERE app = ? AND path = k.v AND run_version = ?"
      + " AND run_claimed_at = claimed_at AND run_finished_at IS DISTINCT FROM claimed_at"
      + " OFFSET 0) s) f WHERE c.ctid = f.id";

  /** The most claims one mark statement names (bounds its array parameter). */
  private static final int MARKS_PER_STATEMENT = 1_000;

  /** A claim of run {@code version} to mark finished. */
  record Finished(String app, byte[] path, long version) {}

  /** The runs claims are made for, and whose lock keys tell which are alive. */
  private final PostgresRuns runs;

  PostgresClaims(PostgresRuns runs) {
    this.runs = runs;
  }

  /**
   * Statements sent after a lease statement in its round trip, which run once it has ended (its
   * locks held), in its implicit transaction, each with a snapshot of its own.
   */
  interface Then {
    /** Their SQL, each statement after a {@code ;}. */
    String sql();

    /** Sets their parameters, from {@code at} on. */
    void bind(PreparedStatement ps, int at) throws SQLException;

    /** Reads their results, after the lease statement's ({@link Statement#getMoreResults}). */
    void read(Statement ps) throws SQLException;
  }

  /**
   * Runs {@link #BATCH_LEASE_SQL} once on {@code leaseConnection}, taking over the claims of the
   * runs in {@code ended} (none: no claim is taken over), followed in its round trip by {@code
   * then} (null: nothing); adds to {@code granted} the components leased, and to {@code
   * lookDead} those refused for a claim whose run looks dead now, with that run's version, once
   * {@code then} has read its results too. When {@code then} fails on the server, the implicit
   * transaction it shares with the lease statement is rolled back, claims included, but the
   * locks the lease statement took stay held (session locks are not transactional): the caller
   * gives them back.
   */
  void leaseBatch(Connection leaseConnection, String app, byte[][] paths, Long[] keys,
      RunStart run, Set<Long> ended, Set<ByteKey> granted, Map<ByteKey, Long> lookDead,
      Then then) throws SQLException {
    String sql = then == null ? BATCH_LEASE_SQL : BATCH_LEASE_SQL + then.sql();
    try (PreparedStatement ps = leaseConnection.prepareStatement(sql)) {
      ps.setLong(1, runs.lockKey(app, 0) >>> 32);
      ps.setArray(2, leaseConnection.createArrayOf("bytea", paths));
      ps.setArray(3, leaseConnection.createArrayOf("bigint", keys));
      ps.setString(4, app);
      int next = setClaimant(ps, 5, run, ended);
      ps.setString(next, app);
      setClaimant(ps, next + 1, run);
      if (then != null) {
        then.bind(ps, next + 3);
      }
      // Read whole before the caller learns of any: a failure of then's fails them all.
      Set<ByteKey> grantedHere = new HashSet<>();
      Map<ByteKey, Long> lookDeadHere = new HashMap<>();
      ps.execute();
      try (ResultSet rs = ps.getResultSet()) {
        while (rs.next()) {
          if (rs.getBoolean(2)) {
            grantedHere.add(ByteKey.of(rs.getBytes(1)));
          } else {
            long version = rs.getLong(4);
            if (!rs.wasNull()) {
              lookDeadHere.put(ByteKey.of(rs.getBytes(1)), version);
            }
          }
        }
      }
      if (then != null) {
        then.read(ps);
      }
      granted.addAll(grantedHere);
      lookDead.putAll(lookDeadHere);
    }
  }

  /**
   * Claims the component for this run over any claim: a foreground component is processed
   * whatever its claim says (its parent needs its result), and claimed so that an older run's
   * sweep leaves it.
   */
  void claimOverAny(Connection leaseConnection, String app, byte[] componentPath)
      throws SQLException {
    try (PreparedStatement ps = leaseConnection.prepareStatement(
        "INSERT INTO cocoindex_claim(app, path, claimed_at, run_version, run_claimed_at)"
        + " SELECT ?, ?, t, ?, t FROM (SELECT clock_timestamp() AS t) n"
        + " ON CONFLICT(app, path) DO UPDATE SET claimed_at = excluded.claimed_at,"
        + " run_version = excluded.run_version, run_claimed_at = excluded.run_claimed_at,"
        + " run_finished_at = NULL")) {
      ps.setString(1, app);
      ps.setBytes(2, componentPath);
      setRunVersion(ps, 3, runs.current(app));
      ps.executeUpdate();
    }
  }

  /**
   * Marks {@code claims} finished ({@link #MARK_FINISHED_SQL}) on {@code c}, in one round trip:
   * in the transaction of the components' commits, so that a worker dying before it gives their
   * leases back leaves them finished, or as their leases are given back. A statement per run
   * (and per {@link #MARKS_PER_STATEMENT} claims), the statements one JDBC batch.
   */
  static void markFinished(Connection c, List<Finished> claims) throws SQLException {
    Map<RunOfApp, List<byte[]>> byRun = new LinkedHashMap<>();
    for (Finished f : claims) {
      byRun.computeIfAbsent(new RunOfApp(f.app(), f.version()), r -> new ArrayList<>())
          .add(f.path());
    }
    try (PreparedStatement ps = c.prepareStatement(MARK_FINISHED_SQL)) {
      for (Map.Entry<RunOfApp, List<byte[]>> e : byRun.entrySet()) {
        List<byte[]> paths = e.getValue();
        for (int from = 0; from < paths.size(); from += MARKS_PER_STATEMENT) {
          List<byte[]> part = paths.subList(from,
              Math.min(paths.size(), from + MARKS_PER_STATEMENT));
          ps.setArray(1, c.createArrayOf("bytea", part.toArray(new byte[0][])));
          ps.setString(2, e.getKey().app());
          ps.setLong(3, e.getKey().version());
          ps.addBatch();
        }
      }
      ps.executeBatch();
    }
  }

  /** The claims of one run of one app: what one mark statement names. */
  private record RunOfApp(String app, long version) {}

  /** Sets a claim's run version at {@code at}: {@code run}'s, or none outside a run. */
  private static void setRunVersion(PreparedStatement ps, int at, RunStart run)
      throws SQLException {
    if (run == null) {
      ps.setNull(at, Types.BIGINT);
    } else {
      ps.setLong(at, run.version());
    }
  }

  /**
   * Sets a claim's run version at {@code at} and, after it, the time since which another run's
   * claim stands: the run's start (none, outside a run: over any claim).
   */
  private static void setClaimant(PreparedStatement ps, int at, RunStart run)
      throws SQLException {
    setRunVersion(ps, at, run);
    ps.setTimestamp(at + 1, run == null ? null : run.at());
  }

  /**
   * {@link #setClaimant(PreparedStatement, int, RunStart)}, then the runs known ended ({@code
   * ended}; null: none) for {@link #UNLESS_CLAIMED_SINCE}; the index of the next parameter.
   */
  private static int setClaimant(PreparedStatement ps, int at, RunStart run, Set<Long> ended)
      throws SQLException {
    setClaimant(ps, at, run);
    ps.setArray(at + 2, ps.getConnection().createArrayOf("bigint",
        ended == null ? new Long[0] : ended.toArray(new Long[0])));
    return at + 3;
  }
}
