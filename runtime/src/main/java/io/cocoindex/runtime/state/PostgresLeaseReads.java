package io.cocoindex.runtime.state;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The read that follows a lease statement in its round trip ({@link
 * PostgresStateStore#leaseComponentsReading}): the records of the components it granted that ask
 * for theirs, and the states owned by those with the fewest states by their records, as many as
 * their counts add up to at most a bound. One statement after the lease's, sent with it and
 * answered together (one {@code Sync}).
 *
 * <p>It follows the lease statement rather than joins it: a statement reads the snapshot taken as
 * it starts, and the lease statement's predates the locks it takes, so a worker that wrote a
 * component and gave its lock back meanwhile would be read as it was before its write. This one
 * starts once the lease statement has ended, its locks held, and takes a snapshot of its own: the
 * lease sessions read committed ({@code PostgresStateStore#leaseConnect}), so that it does not
 * read the snapshot of the implicit transaction both run in, as it would under repeatable read.
 *
 * <p>Which components the lease statement granted, the read tells by the claims: a component
 * granted is claimed for this run, by a claim not yet marked finished, written in this
 * transaction and so locked by it until the read ends; the read may also find a component of this
 * run claimed earlier, unfinished (asked twice in a run, and refused), whose rows the caller
 * leaves. Each component is looked up on its own by key in a lateral subquery kept apart by its
 * {@code OFFSET 0}, as the point reads are ({@code JdbcStateTables#selectAny}): on tables without
 * statistics the planner keeps the lookups by key. The claims and records are read once, for both
 * the records returned and the choice of whose states to read (two statements reading each took
 * the server a third more than the two reads they replaced).
 */
final class PostgresLeaseReads implements PostgresClaims.Then {
  /**
   * A component asked for ({@code k.v}) that the lease statement granted: claimed for this run
   * (parameters: the app, the run's version), and not finished.
   */
  private static final String GRANTED = " EXISTS (SELECT 1 FROM cocoindex_claim m"
      + " WHERE m.app=? AND m.path=k.v AND m.run_version=? AND m.run_claimed_at=m.claimed_at"
      + " AND m.run_finished_at IS NULL)";

  /** The first column of a state in a row of {@link #sql}, after the record's. */
  private static final int STATE_AT = 6;

  /**
   * The statement's SQL, after the lease's, for the tables of a store. Parameters: the paths, the
   * app, the app and run version ({@link #GRANTED}), the bound, the app. A row per record read
   * (its columns first, the state's null), a row per state read (the owner first, the record's
   * columns null, then the state's from {@link #STATE_AT}), and one for an owner read without
   * states (the state's columns null too); by owner, each owner's states in path order before
   * its record.
   */
  static String sql(JdbcStateTables tables) {
    String nulls = ", NULL::bytea".repeat(2)
        + ", NULL::bigint".repeat(JdbcStateTables.STATE_COLUMNS_WITHOUT_OWNER - 2);
    return "; WITH r AS MATERIALIZED (SELECT c.*, k.i FROM unnest((SELECT ?::bytea[]))"
        + " WITH ORDINALITY AS k(v, i) CROSS JOIN LATERAL (SELECT "
        + JdbcStateTables.COMPONENT_COLUMNS + " FROM " + tables.componentTable()
        + " WHERE app=? AND path=k.v AND" + GRANTED + " OFFSET 0) c),"
        + " o AS (SELECT w.path FROM (SELECT path, sum(state_count) OVER (ORDER BY state_count, i"
        + " ROWS UNBOUNDED PRECEDING) AS upto FROM r) w WHERE w.upto <= ?)"
        + " SELECT " + JdbcStateTables.COMPONENT_COLUMNS + nulls + " FROM r"
        + " UNION ALL SELECT o.path, NULL, NULL, NULL, NULL, s.* FROM o LEFT JOIN LATERAL"
        + " (SELECT " + JdbcStateTables.STATE_SELECT_WITHOUT_OWNER + " FROM "
        + tables.stateTable() + " WHERE app=? AND owner=o.path OFFSET 0) s ON true"
        + " ORDER BY 1, " + STATE_AT;
  }

  private final String sql;
  private final String app;
  private final byte[][] asked;
  private final long runVersion;
  private final long maxStates;
  private final SettledRuns settledRuns;
  /** The records found, by path. */
  final Map<ByteKey, ComponentRecord> records = new HashMap<>();
  /** The states of the components whose states were read (empty lists included), by path. */
  final Map<ByteKey, List<TrackedState>> states = new HashMap<>();

  /**
   * The reads of one lease statement.
   *
   * @param sql {@link #sql} of the store's tables
   * @param app the app's name
   * @param asked the components whose records to read, if granted
   * @param runVersion the version of the run the lease statement claims for
   * @param maxStates the most states to read, by the counts in the records
   * @param settledRuns what the rows read are resolved against
   */
  PostgresLeaseReads(String sql, String app, byte[][] asked, long runVersion, long maxStates,
      SettledRuns settledRuns) {
    this.sql = sql;
    this.app = app;
    this.asked = asked;
    this.runVersion = runVersion;
    this.maxStates = maxStates;
    this.settledRuns = settledRuns;
  }

  @Override
  public String sql() {
    return sql;
  }

  @Override
  public void bind(PreparedStatement ps, int at) throws SQLException {
    ps.setArray(at++, ps.getConnection().createArrayOf("bytea", asked));
    ps.setString(at++, app);
    ps.setString(at++, app);
    ps.setLong(at++, runVersion);
    ps.setLong(at++, maxStates);
    ps.setString(at, app);
  }

  @Override
  public void read(Statement ps) throws SQLException {
    if (!ps.getMoreResults()) {
      throw new SQLException("a lease statement's read returned no rows to read");
    }
    try (ResultSet rs = ps.getResultSet()) {
      while (rs.next()) {
        rs.getLong(5);
        if (!rs.wasNull()) { // the record's state count: a record's row
          ComponentRecord r = JdbcStateTables.component(rs, settledRuns);
          records.put(ByteKey.of(r.path()), r);
          continue;
        }
        byte[] owner = rs.getBytes(1);
        List<TrackedState> owned =
            states.computeIfAbsent(ByteKey.of(owner), o -> new ArrayList<>());
        if (rs.getBytes(STATE_AT) != null) {
          owned.add(JdbcStateTables.state(rs, STATE_AT, settledRuns, owner));
        }
      }
    }
  }

  /** The states read, by the counts in the records of their owners. */
  long statesRead() {
    long n = 0;
    for (ByteKey owner : states.keySet()) {
      ComponentRecord r = records.get(owner);
      n += r == null ? 0 : r.stateCount();
    }
    return n;
  }
}
