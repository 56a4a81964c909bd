package io.cocoindex.runtime.state;

import io.cocoindex.runtime.codec.KeyEncoding;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Comparator;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The SQL of the state tables, shared by the JDBC stores (SQLite, PostgreSQL): reads, the
 * application of a write batch inside the caller's transaction, run versions. Both dialects speak
 * {@code INSERT ... ON CONFLICT DO UPDATE} and compare byte strings bytewise, so paths scan in
 * key order and a container's descendants are one range.
 *
 * <p>Tables: {@code <prefix>app(name, next_version)}, {@code <prefix>target_state(app, path,
 * owner, records, child_gen, child_epoch, parent_gen, parent_epoch)} keyed by (app, path) with an
 * index on (app, owner), {@code <prefix>component(app, path, memo_fp, memo_deps, memo_values,
 * state_count)}, and for a store that records settled runs {@code <prefix>settled_run(app,
 * first, last)}: every row read is resolved against those runs ({@link SettledRuns}).
 */
public class JdbcStateTables {
  static final String STATE_COLUMNS =
      "path, owner, records, child_gen, child_epoch, parent_gen, parent_epoch";
  /** Bits per lineage number in {@link #LINEAGE_SELECT}'s packed column. */
  private static final int LINEAGE_BITS = 15;
  private static final long LINEAGE_MASK = (1L << LINEAGE_BITS) - 1;
  /**
   * A state's lineage as read: the four numbers packed in one column when each fits in {@link
   * #LINEAGE_BITS} bits (they are bumped only when a container is recreated or loses data), or
   * -1, and then the four columns. The SQLite driver makes a native call per column read, and
   * these were a sixth of a warm run's CPU. (Their bitwise or is within the bound exactly when
   * each of the four is.)
   */
  private static final String LINEAGE_SELECT =
      "CASE WHEN (child_gen | child_epoch | parent_gen | parent_epoch) BETWEEN 0 AND "
          + LINEAGE_MASK + " THEN child_gen | (child_epoch << " + LINEAGE_BITS
          + ") | (parent_gen << " + 2 * LINEAGE_BITS + ") | (parent_epoch << "
          + 3 * LINEAGE_BITS + ") ELSE -1 END, child_gen, child_epoch, parent_gen, parent_epoch";
  /** The columns of a state row as {@link #state} reads them. */
  private static final String STATE_SELECT = "path, owner, records, " + LINEAGE_SELECT;
  /** {@link #STATE_SELECT} without the owner, for a caller that knows it. */
  static final String STATE_SELECT_WITHOUT_OWNER = "path, records, " + LINEAGE_SELECT;
  /** How many columns {@link #STATE_SELECT_WITHOUT_OWNER} has. */
  static final int STATE_COLUMNS_WITHOUT_OWNER = 7;
  static final String COMPONENT_COLUMNS =
      "path, memo_fp, memo_deps, memo_values, state_count";

  private final String apps;
  private final String states;
  private final String components;
  private final String forUpdate;
  // The statements of apply(), built once: StatementBatches looks them up per write.
  private final String putState;
  /** Creates a row, failing if it exists (see {@link #createdMeanwhile}). */
  private final String insertState;
  private final String setRecords;
  private final String deleteState;
  private final String deleteTree;
  /** {@link #deleteTree} of the states of some owners only (see {@link StateWrite.DeleteBelow}). */
  private final String deleteRangeOfOwners;
  private final String putComponent;
  private final String deleteComponent;
  private final String forgetMemo;
  private final String invalidateMemo;
  /** Whether {@link #forgetMemo} leaves a mark with a version (see {@link StateWrite.ForgetMemo}). */
  private final boolean marksForgottenMemos;
  /** A forgotten memo's mark: 0xFF, then a run version, big-endian (never a fingerprint's 16). */
  static final int FORGOTTEN_MEMO_LENGTH = 1 + Long.BYTES;
  // The reads made for every component.
  private final String componentSql;
  private final String ownedWindowSql;

  /**
   * Whether a group's statements on disjoint rows are batched by statement, out of their order
   * (see {@link StatementBatches}): on the shared store, where each batch is a round trip.
   */
  private final boolean reorderStatements;
  /** Whether precommits and settles are resolved against the rows the engine loaded. */
  private final boolean trustLoadedRows;
  /** The table of settled runs, or null when this store settles every state by itself. */
  private final String settledRunsTable;
  /** The per-component reads' statements, kept per connection; null: prepared each time. */
  private final StatementCache statements;
  /** Per app, its settled runs as last read or written (reads resolve rows against them). */
  private final Map<String, SettledRuns> settled = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * The statements of the tables named with {@code prefix}, with neither a table of settled runs
   * nor a statement cache.
   *
   * @param prefix prepended to the table names ({@code ""} or {@code "cocoindex_"})
   * @param lockRowsForUpdate read rows {@code FOR UPDATE} before rewriting them (PostgreSQL,
   *     where several workers write concurrently)
   * @param trustLoadedRows the app has one writer while it is locked (the embedded store): the
   *     rows the engine loaded in this run are current, so precommits and settles are resolved
   *     against them instead of reading every row again inside the write transaction
   */
  public JdbcStateTables(String prefix, boolean lockRowsForUpdate, boolean trustLoadedRows) {
    this(prefix, lockRowsForUpdate, trustLoadedRows, false, false);
  }

  /**
   * The statements of the tables named with {@code prefix}, for the given dialect's needs.
   *
   * @param prefix prepended to the table names ({@code ""} or {@code "cocoindex_"})
   * @param lockRowsForUpdate read rows {@code FOR UPDATE} before rewriting them, and mark a
   *     forgotten memo with a version (PostgreSQL, where several workers write concurrently)
   * @param trustLoadedRows the app has one writer while it is locked: precommits and settles are
   *     resolved against the rows the engine loaded in this run
   * @param recordSettledRuns keep a table of settled runs ({@code <prefix>settled_run}), so that
   *     a state applied by a run that completes needs no settle of its own (see {@link
   *     SettledRuns})
   * @param cacheStatements keep the per-component reads' statements prepared on each connection
   *     (for a driver without a statement cache of its own, such as SQLite's)
   */
  public JdbcStateTables(String prefix, boolean lockRowsForUpdate, boolean trustLoadedRows,
      boolean recordSettledRuns, boolean cacheStatements) {
    this.trustLoadedRows = trustLoadedRows;
    this.reorderStatements = lockRowsForUpdate;
    this.statements = cacheStatements ? new StatementCache() : null;
    this.settledRunsTable = recordSettledRuns ? prefix + "settled_run" : null;
    this.apps = prefix + "app";
    this.states = prefix + "target_state";
    this.components = prefix + "component";
    this.forUpdate = lockRowsForUpdate ? " FOR UPDATE" : "";
    this.putState = "INSERT INTO " + states + "(app, " + STATE_COLUMNS
        + ") VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(app, path) DO UPDATE SET"
        + " owner=excluded.owner, records=excluded.records, child_gen=excluded.child_gen,"
        + " child_epoch=excluded.child_epoch, parent_gen=excluded.parent_gen,"
        + " parent_epoch=excluded.parent_epoch";
    this.insertState = "INSERT INTO " + states + "(app, " + STATE_COLUMNS
        + ") VALUES(?,?,?,?,?,?,?,?)";
    this.setRecords = "UPDATE " + states + " SET records=?, child_gen=?, child_epoch=?,"
        + " parent_gen=?, parent_epoch=? WHERE app=? AND path=?";
    this.deleteState = "DELETE FROM " + states + " WHERE app=? AND path=?";
    // A state and its descendants in one statement: a sweep's deletions then go out as one batch.
    this.deleteTree = "DELETE FROM " + states + " WHERE app=? AND path>=? AND path<?";
    // Only the shared store names owners (the sweep's, for the stale components it holds): read
    // by the range of paths or by the owners' index, it touches rows below the state or of those
    // owners, never every row of the app (FreshTablesPointReadsTest).
    // A container of theirs takes what is below it along, whoever owns it (see DeleteBelow):
    // found by the range below each such container, deleted by row address (joined, not as an
    // array, which a plan kept from small tables scanned whole).
    this.deleteRangeOfOwners = "WITH gone AS (DELETE FROM " + states + " WHERE app=? AND"
        + " path>=? AND path<? AND owner = ANY(?) RETURNING path, child_gen) DELETE FROM "
        + states + " s USING (SELECT d.id FROM gone g CROSS JOIN LATERAL (SELECT ctid AS id"
        + " FROM " + states + " WHERE app=? AND path >= g.path || decode('00','hex')"
        + " AND path < g.path || decode('ff','hex') OFFSET 0) d WHERE g.child_gen > 0) f"
        + " WHERE s.ctid = f.id";
    // A memo forgotten by a takeover is a mark (see ForgetMemo) that only a memo of a run begun
    // after it replaces: blobs compare byte by byte, so marks of one length compare as their
    // versions. No memo leaves the mark too, which keeps out the memos of earlier runs.
    this.putComponent = "INSERT INTO " + components + "(app, " + COMPONENT_COLUMNS
        + ") VALUES(?,?,?,?,?,?) ON CONFLICT(app, path) DO UPDATE SET"
        + " memo_fp=CASE WHEN length(" + components + ".memo_fp)=" + FORGOTTEN_MEMO_LENGTH
        + " AND (" + components + ".memo_fp>=? OR excluded.memo_fp IS NULL)"
        + " THEN " + components + ".memo_fp"
        + " ELSE excluded.memo_fp END, memo_deps=excluded.memo_deps,"
        + " memo_values=excluded.memo_values, state_count=excluded.state_count";
    this.deleteComponent = "DELETE FROM " + components + " WHERE app=? AND path=?";
    // Workers run concurrently only on PostgreSQL (the store that locks rows): there the mark
    // holds the newest version issued; one writer at a time needs no mark.
    this.forgetMemo = lockRowsForUpdate
        ? "UPDATE " + components + " SET memo_fp=decode('ff','hex') || int8send((SELECT"
            + " next_version FROM " + apps + " WHERE name=?) - 1) WHERE app=? AND path=?"
        : "UPDATE " + components + " SET memo_fp=NULL WHERE app=? AND path=?";
    this.marksForgottenMemos = lockRowsForUpdate;
    // A newer mark stays; a row already holding one as new is left as it is (it is locked all
    // the same, until the transaction ends).
    this.invalidateMemo = lockRowsForUpdate
        ? "INSERT INTO " + components + "(app, " + COMPONENT_COLUMNS
            + ") VALUES(?,?,?,NULL,NULL,0) ON CONFLICT(app, path) DO UPDATE SET"
            + " memo_fp=excluded.memo_fp WHERE " + components + ".memo_fp IS NULL"
            + " OR length(" + components + ".memo_fp)<>" + FORGOTTEN_MEMO_LENGTH
            + " OR " + components + ".memo_fp<excluded.memo_fp"
        : "UPDATE " + components + " SET memo_fp=NULL WHERE app=? AND path=?"
            + " AND memo_fp IS NOT NULL";
    this.componentSql =
        "SELECT " + COMPONENT_COLUMNS + " FROM " + components + " WHERE app=? AND path=?";
    // By the owner index alone: an order by path too would sort the whole rest of the range.
    this.ownedWindowSql = "SELECT " + STATE_SELECT + " FROM " + states
        + " WHERE app=? AND owner>=? AND owner<? ORDER BY owner LIMIT ?";
  }

  /**
   * The table of apps and their next run versions.
   *
   * @return its name, prefix included
   */
  public String appTable() {
    return apps;
  }

  /**
   * The table with a row per tracked target state.
   *
   * @return its name, prefix included
   */
  public String stateTable() {
    return states;
  }

  /**
   * The table with a row per component record.
   *
   * @return its name, prefix included
   */
  public String componentTable() {
    return components;
  }

  /**
   * The table of settled runs, or null when the store does not record them.
   *
   * @return its name, prefix included, or null
   */
  public String settledRunsTable() {
    return settledRunsTable;
  }

  /** The settled runs of {@code app}, read once and then kept up to date by this store. */
  final SettledRuns settledRuns(Connection c, String app) throws SQLException {
    if (settledRunsTable == null) {
      return SettledRuns.NONE;
    }
    SettledRuns known = settled.get(app);
    return known != null ? known : readSettledRuns(c, app);
  }

  /** Reads the settled runs of {@code app} afresh (another process may have added some). */
  SettledRuns readSettledRuns(Connection c, String app) throws SQLException {
    if (settledRunsTable == null) {
      return SettledRuns.NONE;
    }
    List<long[]> intervals = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT first, last FROM " + settledRunsTable + " WHERE app=?")) {
      ps.setString(1, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          intervals.add(new long[] {rs.getLong(1), rs.getLong(2)});
        }
      }
    }
    SettledRuns runs = SettledRuns.of(intervals);
    settled.put(app, runs);
    return runs;
  }

  /**
   * Records, inside the caller's transaction, that run {@code version} of {@code app} settled.
   *
   * @return the settled runs to {@link #useSettledRuns use} once the transaction committed
   */
  SettledRuns addSettledRun(Connection c, String app, long version) throws SQLException {
    SettledRuns before = readSettledRuns(c, app);
    SettledRuns after = before.with(version);
    long[] merged = after.intervalOf(version);
    // The interval holding the version replaces the (at most two) intervals it absorbed.
    try (PreparedStatement del = c.prepareStatement("DELETE FROM " + settledRunsTable
            + " WHERE app=? AND first>=? AND first<=?");
        PreparedStatement ins = c.prepareStatement(
            "INSERT INTO " + settledRunsTable + "(app, first, last) VALUES(?,?,?)")) {
      del.setString(1, app);
      del.setLong(2, merged[0]);
      del.setLong(3, merged[1]);
      del.executeUpdate();
      ins.setString(1, app);
      ins.setLong(2, merged[0]);
      ins.setLong(3, merged[1]);
      ins.executeUpdate();
    }
    return after;
  }

  void useSettledRuns(String app, SettledRuns runs) {
    settled.put(app, runs);
  }

  private static TrackedState state(ResultSet rs, SettledRuns settledRuns) throws SQLException {
    return state(rs, 1, settledRuns, null);
  }

  /**
   * A state from the columns of {@link #STATE_SELECT} from column {@code first} on, or of those
   * columns without {@code owner} ({@link #STATE_SELECT_WITHOUT_OWNER}) when the caller knows it
   * ({@code knownOwner}).
   */
  static TrackedState state(ResultSet rs, int first, SettledRuns settledRuns, byte[] knownOwner)
      throws SQLException {
    int at = first;
    byte[] path = rs.getBytes(at++);
    byte[] owner = knownOwner != null ? knownOwner : rs.getBytes(at++);
    List<PossibleRecord> records =
        settledRuns.resolve(RecordListEncoding.decode(rs.getBytes(at++)));
    long packed = rs.getLong(at++);
    if (packed >= 0) {
      return new TrackedState(path, owner, records, packed & LINEAGE_MASK,
          (packed >>> LINEAGE_BITS) & LINEAGE_MASK, (packed >>> 2 * LINEAGE_BITS) & LINEAGE_MASK,
          packed >>> 3 * LINEAGE_BITS);
    }
    return new TrackedState(path, owner, records,
        rs.getLong(at), rs.getLong(at + 1), rs.getLong(at + 2), rs.getLong(at + 3));
  }

  /** A component record as read, its memo resolved against the app's settled runs. */
  static ComponentRecord component(ResultSet rs, SettledRuns runs) throws SQLException {
    return new ComponentRecord(rs.getBytes(1), MemoStamp.resolve(rs.getBytes(2), runs),
        rs.getBytes(3), rs.getBytes(4), rs.getLong(5));
  }

  /**
   * Allocates the next run version of {@code app}; call inside a transaction.
   *
   * @param c a connection in a transaction, which keeps the app's row locked until it ends
   * @param app the app's name
   * @return the allocated version (1 for an app never run)
   * @throws SQLException if the database fails
   */
  public long nextVersion(Connection c, String app) throws SQLException {
    // Incremented first: the row stays locked until the transaction ends, so concurrent workers
    // each get their own version.
    try (PreparedStatement up = c.prepareStatement(
        "INSERT INTO " + apps + "(name, next_version) VALUES(?, 2) ON CONFLICT(name)"
            + " DO UPDATE SET next_version = " + apps + ".next_version + 1")) {
      up.setString(1, app);
      up.executeUpdate();
    }
    return peekNextVersion(c, app) - 1;
  }

  /**
   * The version {@link #nextVersion} would allocate for {@code app}, read without allocating it;
   * for a store that is the app's only writer, which stores it with {@link #takeVersionsBelow}
   * in the run's first write. Also reads the settled runs other processes recorded.
   *
   * @param c a connection
   * @param app the app's name
   * @return the version the next allocation would give (1 for an app never run)
   * @throws SQLException if the database fails
   */
  public long peekNextVersion(Connection c, String app) throws SQLException {
    readSettledRuns(c, app); // a run starts: take in what other processes settled
    try (PreparedStatement get =
        c.prepareStatement("SELECT next_version FROM " + apps + " WHERE name=?")) {
      get.setString(1, app);
      try (ResultSet rs = get.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 1;
      }
    }
  }

  /**
   * Records that every version of {@code app} below {@code next} is taken; call in a transaction.
   * A higher next version already stored stays.
   *
   * @param c a connection in a transaction
   * @param app the app's name
   * @param next the lowest version left to allocate
   * @throws SQLException if the database fails
   */
  public void takeVersionsBelow(Connection c, String app, long next) throws SQLException {
    try (PreparedStatement up = c.prepareStatement(
        "INSERT INTO " + apps + "(name, next_version) VALUES(?, ?) ON CONFLICT(name)"
            + " DO UPDATE SET next_version = excluded.next_version"
            + " WHERE " + apps + ".next_version < excluded.next_version")) {
      up.setString(1, app);
      up.setLong(2, next);
      up.executeUpdate();
    }
  }

  final StatementCache.Prepared prepare(Connection c, String sql) throws SQLException {
    return statements != null ? statements.prepare(c, sql) : StatementCache.uncached(c, sql);
  }

  /**
   * The state {@code app} tracks at {@code path}, resolved against its settled runs.
   *
   * @param c a connection
   * @param app the app's name
   * @param path the state's encoded path
   * @return the tracked state, or empty if none is tracked there
   * @throws SQLException if the database fails
   */
  public Optional<TrackedState> get(Connection c, String app, byte[] path) throws SQLException {
    return Optional.ofNullable(read(c, app, path, ""));
  }

  private TrackedState read(Connection c, String app, byte[] path, String suffix)
      throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + STATE_SELECT + " FROM " + states + " WHERE app=? AND path=?" + suffix)) {
      ps.setString(1, app);
      ps.setBytes(2, path);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? state(rs, runs) : null;
      }
    }
  }

  /**
   * Whether {@code app} tracks any target state.
   *
   * @param c a connection
   * @param app the app's name
   * @return true if at least one state row of the app exists
   * @throws SQLException if the database fails
   */
  public boolean hasStates(Connection c, String app) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM " + stateTables().get(0) + " WHERE app=? LIMIT 1")) {
      ps.setString(1, app);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /**
   * Every state {@code app} tracks at or below {@code path}, to {@code visitor} in path order.
   *
   * @param c a connection
   * @param app the app's name
   * @param path the encoded path of the subtree's top
   * @param visitor given each state, resolved against the app's settled runs
   * @throws SQLException if the database fails
   */
  public void scan(Connection c, String app, byte[] path, Consumer<TrackedState> visitor)
      throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    // PostgreSQL's driver reads a whole result into memory unless it is fetched in parts, which
    // it does only inside a transaction: a drop's scan of 500,000 states held them all at once.
    boolean autoCommit = c.getAutoCommit();
    if (autoCommit) {
      c.setAutoCommit(false);
    }
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + STATE_SELECT + " FROM " + states
            + " WHERE app=? AND path>=? AND path<? ORDER BY path")) {
      ps.setFetchSize(SCAN_FETCH_ROWS);
      ps.setString(1, app);
      ps.setBytes(2, path);
      ps.setBytes(3, KeyEncoding.descendantsEnd(path));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          visitor.accept(state(rs, runs));
        }
      }
    } finally {
      if (autoCommit) {
        c.setAutoCommit(true); // ends the read-only transaction
      }
    }
  }

  /** Rows a scan fetches at a time. */
  private static final int SCAN_FETCH_ROWS = 4_096;

  /**
   * The record of the component of {@code app} at {@code path}, its memo resolved against the
   * app's settled runs.
   *
   * @param c a connection
   * @param app the app's name
   * @param path the component's encoded path
   * @return its record, or empty if none is stored
   * @throws SQLException if the database fails
   */
  public Optional<ComponentRecord> component(Connection c, String app, byte[] path)
      throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    try (StatementCache.Prepared p = prepare(c, componentSql)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, app);
      ps.setBytes(2, path);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(component(rs, runs)) : Optional.empty();
      }
    }
  }

  /** The component records at {@code paths}, by path (PostgreSQL: one array parameter). */
  Map<ByteKey, ComponentRecord> componentsAt(Connection c, String app, List<byte[]> paths)
      throws SQLException {
    Map<ByteKey, ComponentRecord> out = new HashMap<>();
    SettledRuns runs = settledRuns(c, app);
    selectAny(c, app, COMPONENT_COLUMNS, components, "path", "", paths, rs -> {
      ComponentRecord r = component(rs, runs);
      out.put(ByteKey.of(r.path()), r);
    });
    return out;
  }

  /** The states at {@code paths}, by path (PostgreSQL: one array parameter). */
  Map<ByteKey, TrackedState> statesAt(Connection c, String app, List<byte[]> paths)
      throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    Map<ByteKey, TrackedState> out = new HashMap<>();
    selectAny(c, app, STATE_SELECT, states, "path", "", paths, rs -> {
      TrackedState t = state(rs, runs);
      out.put(ByteKey.of(t.path()), t);
    });
    return out;
  }

  /** The states owned by each of {@code owners}, by owner (PostgreSQL: one array parameter). */
  Map<ByteKey, List<TrackedState>> ownedByAny(Connection c, String app, List<byte[]> owners)
      throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    Map<ByteKey, List<TrackedState>> out = new HashMap<>();
    selectAny(c, app, STATE_SELECT, states, "owner", " ORDER BY s.owner, s.path", owners, rs -> {
      TrackedState t = state(rs, runs);
      out.computeIfAbsent(ByteKey.of(t.owner()), o -> new ArrayList<>()).add(t);
    });
    return out;
  }

  /**
   * What one read of a subtree's states returned ({@link StateStore#ownedInSubtree}): owners
   * whose states all came, in path order, and where the next read starts (null: none is left).
   */
  record OwnedWindow(Map<ByteKey, OwnedStates> owners, byte[] next) {}

  /** States one {@link #ownedWindow} reads, at most (but an owner's, whole). */
  static final int WINDOW_ROWS = 4096;

  /**
   * The states of the owners from {@code from} on and before {@code before}, up to about
   * {@link #WINDOW_ROWS}, in one range read of the owner index. The last owner read may go on
   * past the limit: it is left to the next window, or read whole when it is the only one.
   */
  OwnedWindow ownedWindow(Connection c, String app, byte[] from, byte[] before)
      throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    Map<ByteKey, List<TrackedState>> read = new LinkedHashMap<>();
    int rows = 0;
    byte[] last = null;
    try (StatementCache.Prepared p = prepare(c, ownedWindowSql)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, app);
      ps.setBytes(2, from);
      ps.setBytes(3, before);
      ps.setInt(4, WINDOW_ROWS + 1);
      try (ResultSet rs = ps.executeQuery()) {
        List<TrackedState> ofLast = null;
        while (rs.next()) {
          rows++;
          TrackedState t = state(rs, runs);
          if (last == null || !Arrays.equals(t.owner(), last)) {
            last = t.owner();
            ofLast = new ArrayList<>();
            read.put(ByteKey.of(last), ofLast);
          }
          ofLast.add(t);
        }
      }
    }
    Map<ByteKey, OwnedStates> owners = new LinkedHashMap<>();
    read.forEach((owner, states) -> owners.put(owner, OwnedStates.of(states)));
    return cutWindow(c, app, owners, rows > WINDOW_ROWS ? last : null);
  }

  /**
   * The window of {@code owners} as read, where {@code cut} (null: none) is the last owner read,
   * whose states may go on past the read: it is left to the next window, or read whole when it
   * is the only owner read.
   */
  final OwnedWindow cutWindow(Connection c, String app, Map<ByteKey, OwnedStates> owners,
      byte[] cut) throws SQLException {
    if (cut == null) {
      return new OwnedWindow(owners, null);
    }
    owners.remove(ByteKey.of(cut));
    if (!owners.isEmpty()) {
      return new OwnedWindow(owners, cut);
    }
    return new OwnedWindow(Map.of(ByteKey.of(cut), OwnedStates.of(ownedWhole(c, app, cut))),
        OwnerRanges.after(cut));
  }

  /** Every state {@code owner} owns, in one read (PostgreSQL: one array parameter). */
  List<TrackedState> ownedWhole(Connection c, String app, byte[] owner) throws SQLException {
    return ownedByAny(c, app, List.of(owner)).getOrDefault(ByteKey.of(owner), List.of());
  }

  private interface RowVisitor {
    void visit(ResultSet rs) throws SQLException;
  }

  /**
   * Visits the rows of {@code table} of {@code app} whose {@code column} is one of {@code values}
   * (each visited once however often its value is given), in the order {@code orderBy} gives
   * (an {@code ORDER BY} of the columns as {@code s.}, or nothing).
   *
   * <p>Each value is looked up on its own, by the index on {@code (app, column)}: a plain
   * {@code app=? AND column = ANY(?)} was planned, on tables without statistics yet (a store's
   * first run: the server analyzes them a minute later at the earliest), as a scan of every row
   * of the app with the array as a filter, and the server keeps such a plan for the prepared
   * statement: in a first run of 5,000 components each read of a few rows scanned up to all of
   * them, 0.5-1.7 ms each. A lateral subquery per value (kept apart by its {@code OFFSET 0})
   * has only the lookup by both columns to choose. The array comes through a subquery, so that
   * the plan's cost does not depend on its length: the server then keeps the plan (made once per
   * connection) rather than planning each read again for the length it was given (75 us a read).
   */
  private static void selectAny(Connection c, String app, String columns, String table,
      String column, String orderBy, List<byte[]> values, RowVisitor visitor)
      throws SQLException {
    Set<ByteKey> seen = new HashSet<>();
    List<byte[]> distinct = new ArrayList<>(values.size());
    for (byte[] v : values) {
      if (seen.add(ByteKey.of(v))) {
        distinct.add(v);
      }
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT s.* FROM unnest((SELECT ?::bytea[]))"
        + " AS k(v) CROSS JOIN LATERAL (SELECT " + columns + " FROM " + table + " WHERE app=? AND "
        + column + "=k.v OFFSET 0) s" + orderBy)) {
      ps.setArray(1, c.createArrayOf("bytea", distinct.toArray(new byte[0][])));
      ps.setString(2, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          visitor.visit(rs);
        }
      }
    }
  }

  /**
   * Every component record of {@code app}, in path order.
   *
   * @param c a connection
   * @param app the app's name
   * @return the records, their memos resolved against the app's settled runs
   * @throws SQLException if the database fails
   */
  public List<ComponentRecord> components(Connection c, String app) throws SQLException {
    List<ComponentRecord> out = new ArrayList<>();
    components(c, app, out::add);
    return out;
  }

  /**
   * Every component record of {@code app}, to {@code visitor} in path order as read.
   *
   * @param c a connection
   * @param app the app's name
   * @param visitor given each record, its memo resolved against the app's settled runs
   * @throws SQLException if the database fails
   */
  public void components(Connection c, String app, Consumer<ComponentRecord> visitor)
      throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + COMPONENT_COLUMNS + " FROM " + components + " WHERE app=? ORDER BY path")) {
      ps.setString(1, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          visitor.accept(component(rs, runs));
        }
      }
    }
  }

  /**
   * The paths of the component records strictly below {@code path}, in path order.
   *
   * @param c a connection
   * @param app the app's name
   * @param path the encoded path of a component
   * @return the encoded paths of its descendants' records, itself excluded
   * @throws SQLException if the database fails
   */
  public List<byte[]> componentPathsBelow(Connection c, String app, byte[] path)
      throws SQLException {
    List<byte[]> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT path FROM " + components + " WHERE app=? AND path>? AND path<? ORDER BY path")) {
      ps.setString(1, app);
      ps.setBytes(2, path);
      ps.setBytes(3, KeyEncoding.descendantsEnd(path));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getBytes(1));
        }
      }
    }
    return out;
  }

  /**
   * The apps that track a state or a component in these tables.
   *
   * @param c a connection
   * @return their names, sorted
   * @throws SQLException if the database fails
   */
  public List<String> apps(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT DISTINCT app FROM " + states
            + " UNION SELECT DISTINCT app FROM " + components + " ORDER BY 1")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /**
   * The tables holding target states (each with an {@code app} column), the first with a row
   * per tracked state.
   */
  List<String> stateTables() {
    return List.of(states);
  }

  /**
   * Forgets everything of {@code app}; call inside a transaction.
   *
   * @param c a connection in a transaction
   * @param app the app's name: its states, components, version and settled runs are deleted
   * @throws SQLException if the database fails
   */
  public void clear(Connection c, String app) throws SQLException {
    List<String> deletes = new ArrayList<>();
    for (String table : stateTables()) {
      deletes.add("DELETE FROM " + table + " WHERE app=?");
    }
    deletes.add("DELETE FROM " + components + " WHERE app=?");
    deletes.add("DELETE FROM " + apps + " WHERE name=?");
    if (settledRunsTable != null) {
      deletes.add("DELETE FROM " + settledRunsTable + " WHERE app=?");
    }
    for (String sql : deletes) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, app);
        ps.executeUpdate();
      }
    }
    settled.remove(app);
  }

  /**
   * Applies a group of write batches inside the caller's transaction. The rows that precommits
   * and settles rewrite are read first in a few queries (locked on PostgreSQL), the writes are
   * resolved against them in order, and consecutive statements of one kind go out as one JDBC
   * batch, across the batches of the group: a few round trips per group rather than two per write.
   */
  void apply(Connection c, List<GroupCommitter.Batch> group) throws SQLException {
    Map<String, Map<ByteKey, TrackedState>> read = trustLoadedRows ? null : readForGroup(c, group);
    try (StatementBatches out = new StatementBatches(c)) {
      for (GroupCommitter.Batch b : group) {
        Map<ByteKey, TrackedState> rows = read != null ? read.get(b.app())
            : rowsToResolve(b.writes());
        apply(out, b.app(), b.writes(), rows);
      }
    }
  }

  /**
   * Resolves {@code writes} against {@code rows} and batches the statements they amount to;
   * {@code rows} is updated with what each write leaves, so a later write (of this batch or a
   * later one of the group) sees it.
   */
  private void apply(StatementBatches out, String app, List<StateWrite> writes,
      Map<ByteKey, TrackedState> rows) throws SQLException {
    TrackedState[] before = new TrackedState[1];
    for (StateWrite w0 : writes) {
      before[0] = null;
      StateWrite w = StateWrites.resolve(
          w0, path -> before[0] = current(rows, path, w0), !trustLoadedRows);
      if (w == null) {
        continue;
      }
      if (w instanceof StateWrite.PutState ps) {
        TrackedState s = ps.state();
        rows.put(ByteKey.of(s.path()), s);
        if (w0 instanceof StateWrite.Settle && s.records().size() > 1) {
          forgetMemosOfUnsettled(out, app, s.owner());
        }
        if (before[0] != null && Arrays.equals(before[0].owner(), s.owner())) {
          setRecords(out, app, s);
          continue;
        }
        if (before[0] != null) {
          forgetMemosOfUnexpectedOwner(out, app, w0, before[0].owner(), s.owner());
        }
        // A precommit of a row that no write had when this transaction read it, on a store
        // shared by workers: another worker's transaction may be creating it right now (there
        // was no row to lock), and an upsert would replace its records once it commits.
        boolean create = before[0] == null && !trustLoadedRows
            && w0 instanceof StateWrite.Precommit;
        PreparedStatement put =
            out.use(create ? insertState : putState, states, app, s.path());
        put.setString(1, app);
        put.setBytes(2, s.path());
        put.setBytes(3, s.owner());
        bindRecordsAndGenerations(put, 4, s);
        put.addBatch();
      } else if (w instanceof StateWrite.DeleteState ds) {
        rows.put(ByteKey.of(ds.path()), null);
        deleteOne(out, app, ds.path());
      } else if (w instanceof StateWrite.DeleteTree dt) {
        rows.put(ByteKey.of(dt.path()), null);
        forgetBelow(rows, dt.path());
        deleteRange(out, app, dt.path(), KeyEncoding.descendantsEnd(dt.path()));
      } else if (w instanceof StateWrite.DeleteBelow db && db.owners() != null) {
        forgetBelowOf(rows, db);
        deleteRangeOfOwners(out, app, db);
      } else if (w instanceof StateWrite.DeleteBelow db) {
        forgetBelow(rows, db.path());
        deleteRange(out, app, KeyEncoding.descendantsStart(db.path()),
            KeyEncoding.descendantsEnd(db.path()));
      } else if (w instanceof StateWrite.ContainerUnchanged cu) {
        checkContainer(rows, cu);
      } else {
        writeComponent(out, app, w);
      }
    }
  }

  /**
   * Refuses the batch (the whole transaction rolls back) if its children's container has moved
   * past the generation they were resolved in. With one writer nothing else changes it.
   */
  private void checkContainer(Map<ByteKey, TrackedState> rows, StateWrite.ContainerUnchanged cu) {
    if (trustLoadedRows) {
      return;
    }
    TrackedState stored = current(rows, cu.path(), cu);
    if (!cu.heldBy(stored)) {
      throw ContainerChangedException.refused(
          cu.path(), new long[] {cu.generation(), cu.epoch()}, stored);
    }
  }

  /**
   * A precommit, settle or confirmation that takes a state from an owner the engine did not read
   * it with: on a store shared by workers that read the source at different moments, another
   * worker's component took the state over after this one read it as its own (or as nobody's). That
   * component's commit forgot this one's memo, but nothing forgets the other's: forget the memos
   * of {@code owner} and its ancestors up to {@code taker}, as the engine does for the owners it
   * takes states from ({@code ComponentCommit#forgetMemosOfPreviousOwners}). Otherwise a memo hit
   * of {@code owner} declares nothing, {@code taker} no longer declares the state once the source
   * is consistent again, and the orphan sweep deletes it for good.
   */
  private void forgetMemosOfUnexpectedOwner(StatementBatches out, String app, StateWrite w,
      byte[] owner, byte[] taker) throws SQLException {
    TrackedState loaded;
    if (w instanceof StateWrite.Precommit p) {
      loaded = p.loaded();
    } else if (w instanceof StateWrite.Confirm c) {
      loaded = c.loaded();
    } else if (w instanceof StateWrite.Settle st) {
      loaded = st.precommit() == null ? null : st.precommit().loaded();
    } else {
      return; // a row the engine writes as it is: no owner behind its back
    }
    if (loaded != null && Arrays.equals(loaded.owner(), owner)) {
      return; // a takeover the engine knows of: its commit forgets the owner's memos
    }
    forgetMemosUpFrom(out, app, owner, taker);
  }

  /**
   * A settle that keeps other records beside its own (another worker's write of the state may
   * land after its own) leaves the state unsettled: forget the memos of its owner and of the
   * owner's ancestors, or a hit would skip the state, and the target keep whichever write landed
   * last, for good. The mark a forgotten memo holds keeps the component's own record, written
   * after it in this run, from bringing the memo back (see {@link StateWrite.ForgetMemo}).
   */
  private void forgetMemosOfUnsettled(StatementBatches out, String app, byte[] owner)
      throws SQLException {
    forgetMemosUpFrom(out, app, owner, null);
  }

  /**
   * Forgets the memos of {@code owner} and of its ancestors up to the root, stopping below
   * {@code stopAt} (an ancestor whose memo stays: the taker, which holds the state), if given.
   */
  private void forgetMemosUpFrom(StatementBatches out, String app, byte[] owner, byte[] stopAt)
      throws SQLException {
    List<io.cocoindex.StableKey> keys = KeyEncoding.decodePath(owner);
    for (int depth = keys.size(); depth >= 0; depth--) {
      byte[] path = depth == keys.size() ? owner : KeyEncoding.encodePath(keys.subList(0, depth));
      if (stopAt != null && Arrays.equals(path, stopAt)) {
        break;
      }
      writeComponent(out, app, new StateWrite.ForgetMemo(path));
    }
  }

  /**
   * Batches a {@link StateWrite.PutComponent}, {@link StateWrite.DeleteComponent}, {@link
   * StateWrite.ForgetMemo} or {@link StateWrite.InvalidateMemo}; a {@link
   * StateWrite.ComponentDone} or {@link StateWrite.ContainerUnchanged} writes nothing here.
   */
  final void writeComponent(StatementBatches out, String app, StateWrite w) throws SQLException {
    if (w instanceof StateWrite.PutComponent pc) {
      ComponentRecord r = pc.component();
      PreparedStatement put = out.use(putComponent, components, app, r.path());
      put.setString(1, app);
      put.setBytes(2, r.path());
      put.setBytes(3, r.memoFingerprint());
      put.setBytes(4, r.memoDependencies());
      put.setBytes(5, r.memoValues());
      put.setLong(6, r.stateCount());
      put.setBytes(7, forgottenMemoMark(pc.runVersion()));
      put.addBatch();
    } else if (w instanceof StateWrite.DeleteComponent dc) {
      PreparedStatement del = out.use(deleteComponent, components, app, dc.path());
      del.setString(1, app);
      del.setBytes(2, dc.path());
      del.addBatch();
    } else if (w instanceof StateWrite.ForgetMemo fm) {
      PreparedStatement forget = out.use(forgetMemo, components, app, fm.path());
      int i = 1;
      if (marksForgottenMemos) {
        forget.setString(i++, app);
      }
      forget.setString(i++, app);
      forget.setBytes(i, fm.path());
      forget.addBatch();
    } else if (w instanceof StateWrite.InvalidateMemo im) {
      PreparedStatement invalidate = out.use(invalidateMemo, components, app, im.path());
      invalidate.setString(1, app);
      invalidate.setBytes(2, im.path());
      if (marksForgottenMemos) {
        invalidate.setBytes(3, forgottenMemoMark(im.runVersion() - 1));
      }
      invalidate.addBatch();
    } else if (w instanceof StateWrite.ComponentDone) {
      // The claims are the shared store's, which marks them in its own statement.
    } else if (w instanceof StateWrite.ContainerUnchanged) {
      // A condition, met on a store with one writer (the shared store checks it in apply).
    } else {
      throw new IllegalArgumentException("not a component write: " + w);
    }
  }

  /** The mark a memo forgotten at {@code version} holds (see {@link StateWrite.ForgetMemo}). */
  static byte[] forgottenMemoMark(long version) {
    return java.nio.ByteBuffer.allocate(FORGOTTEN_MEMO_LENGTH).put((byte) 0xFF).putLong(version)
        .array();
  }

  /**
   * A batch that may delete a state with its descendants (a settle of a container's deletion
   * resolves to that) keeps its rows sorted, to forget the descendants among them by a range:
   * scanning every row for each such deletion made a sweep of n states cost n squared (1.4 s of
   * the state writer for 10,000). Other batches hash.
   */
  private static boolean forgetsDescendants(List<StateWrite> writes) {
    for (StateWrite w : writes) {
      if (w instanceof StateWrite.DeleteTree || w instanceof StateWrite.DeleteBelow
          || (w instanceof StateWrite.Settle settle && settle.dropDescendants())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The map a batch resolves against when the engine's loaded rows are trusted: only what the
   * batch itself writes goes in it (see {@link #current}).
   */
  static Map<ByteKey, TrackedState> rowsToResolve(List<StateWrite> writes) {
    return forgetsDescendants(writes) ? new TreeMap<>(IN_PATH_ORDER)
        : new HashMap<>(writes.size() + writes.size() / 3 + 1); // a row per write, at most
  }

  /**
   * The current rows of every path that a precommit, settle or confirmation of the group
   * rewrites, per app, read (and locked, on PostgreSQL) in a few queries for the whole group, in
   * path order. Each batch resolves against its app's map, which the batches before it in the
   * group updated: reading per batch had cost two round trips per batch (a flush, then the read).
   */
  private Map<String, Map<ByteKey, TrackedState>> readForGroup(
      Connection c, List<GroupCommitter.Batch> group) throws SQLException {
    Map<String, List<byte[]>> paths = new LinkedHashMap<>();
    Map<String, List<byte[]>> containers = new HashMap<>();
    Map<String, Boolean> sorted = new HashMap<>();
    for (GroupCommitter.Batch b : group) {
      List<byte[]> ofApp = paths.computeIfAbsent(b.app(), a -> new ArrayList<>());
      for (StateWrite w : b.writes()) {
        if (w instanceof StateWrite.Precommit p) {
          ofApp.add(p.state().path());
        } else if (w instanceof StateWrite.Settle st) {
          ofApp.add(st.state().path());
        } else if (w instanceof StateWrite.Confirm cf) {
          ofApp.add(cf.state().path());
        } else if (w instanceof StateWrite.ContainerUnchanged cu) {
          containers.computeIfAbsent(b.app(), a -> new ArrayList<>()).add(cu.path());
        }
      }
      sorted.merge(b.app(), forgetsDescendants(b.writes()), Boolean::logicalOr);
    }
    Map<String, Map<ByteKey, TrackedState>> out = new HashMap<>();
    for (Map.Entry<String, List<byte[]>> e : paths.entrySet()) {
      List<byte[]> ofApp = e.getValue();
      // The rows are locked in path order, as every worker's group locks them (a deadlock that
      // the later writes of two groups can still cause is retried by the store).
      ofApp.sort(Arrays::compareUnsigned);
      List<byte[]> checked = containersNotWritten(containers.get(e.getKey()), ofApp);
      Map<ByteKey, TrackedState> rows = readMany(c, e.getKey(), distinct(ofApp), forUpdate,
          checked);
      if (sorted.get(e.getKey())) {
        Map<ByteKey, TrackedState> tree = new TreeMap<>(IN_PATH_ORDER);
        tree.putAll(rows);
        rows = tree;
      }
      out.put(e.getKey(), rows);
    }
    return out;
  }

  /**
   * The containers a group's children were resolved in ({@link StateWrite.ContainerUnchanged})
   * that it does not write itself (those it writes are read, and locked, for update already),
   * in path order without repeats.
   */
  private static List<byte[]> containersNotWritten(List<byte[]> containers, List<byte[]> written) {
    if (containers == null) {
      return List.of();
    }
    List<byte[]> out = new ArrayList<>(containers.size());
    for (byte[] p : containers) {
      boolean writtenToo = Collections.binarySearch(written, p, Arrays::compareUnsigned) >= 0;
      if (!writtenToo) {
        out.add(p);
      }
    }
    out.sort(Arrays::compareUnsigned);
    return distinct(out);
  }

  /** {@code sortedPaths} without repeats. */
  private static List<byte[]> distinct(List<byte[]> sortedPaths) {
    List<byte[]> out = new ArrayList<>(sortedPaths.size());
    for (byte[] p : sortedPaths) {
      if (out.isEmpty() || !Arrays.equals(out.get(out.size() - 1), p)) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * The current row of {@code path} for resolving {@code w}: as prefetched (or as an earlier
   * write of this batch left it), or, when the engine's rows are trusted, as the engine loaded
   * it. Deleted paths are kept as null values so that a later write sees them gone.
   */
  final TrackedState current(Map<ByteKey, TrackedState> rows, byte[] path, StateWrite w) {
    return current(rows, ByteKey.of(path), w);
  }

  /** As {@link #current(Map, byte[], StateWrite)}, for a path whose key is at hand. */
  final TrackedState current(Map<ByteKey, TrackedState> rows, ByteKey key, StateWrite w) {
    if (!trustLoadedRows || rows.containsKey(key)) {
      return rows.get(key);
    }
    if (w instanceof StateWrite.Precommit p) {
      return p.loaded();
    }
    if (w instanceof StateWrite.Confirm c) {
      return c.loaded();
    }
    if (w instanceof StateWrite.Settle s) {
      StateWrite.Precommit p = s.precommit();
      return ((StateWrite.PutState) StateWrites.resolve(p, at -> p.loaded())).state();
    }
    return null;
  }

  /**
   * The rows at {@code paths} (in path order, without repeats), with {@code suffix} ({@code FOR
   * UPDATE}, which then locks them in that order). Each path is looked up on its own, by the
   * primary key, as in {@link #selectAny}: a list of paths was planned, on tables without
   * statistics yet, as a scan of every row of the app.
   *
   * <p>With {@code containers}, the first statement also locks their rows {@code FOR SHARE} (and
   * reads them), before the rows it reads: a container's change by another worker (a precommit
   * that declares it without children, destroys its children or deletes it) waits until this
   * transaction's children are written, and a later one sees them; children written after such
   * a change find the container changed ({@link StateWrite.ContainerUnchanged}). The children of
   * one container, written by several workers, do not wait on each other. Containers are locked
   * first, as each sorts before its own children (a deadlock with a group locking in another
   * order is retried by the store). The two lookups are one statement, a {@code UNION ALL}:
   * {@code FOR SHARE} is not allowed in a {@code UNION} arm itself, but is inside a subquery of
   * one. With containers, that statement is sent even when there are no {@code paths}.
   *
   * @param containers encoded container paths, in path order without repeats, none of them
   *     among {@code paths}; empty for none
   */
  private Map<ByteKey, TrackedState> readMany(Connection c, String app, List<byte[]> paths,
      String suffix, List<byte[]> containers) throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    Map<ByteKey, TrackedState> rows = new HashMap<>();
    String lateral = " CROSS JOIN LATERAL (SELECT " + STATE_SELECT + " FROM " + states
        + " WHERE app=? AND path=k.p";
    String read = "SELECT s.* FROM unnest((SELECT ?::bytea[])) AS k(p)" + lateral + suffix
        + " OFFSET 0) s";
    for (int from = 0; from < paths.size() || (from == 0 && !containers.isEmpty());
        from += PREFETCH_CHUNK) {
      List<byte[]> chunk = paths.subList(from, Math.min(paths.size(), from + PREFETCH_CHUNK));
      boolean locking = from == 0 && !containers.isEmpty();
      try (PreparedStatement ps = c.prepareStatement(locking
          ? "SELECT * FROM (SELECT s.* FROM unnest((SELECT ?::bytea[])) AS k(p)" + lateral
              + " FOR SHARE OFFSET 0) s) shared UNION ALL SELECT * FROM (" + read + ") written"
          : read)) {
        int i = 1;
        if (locking) {
          ps.setArray(i++, c.createArrayOf("bytea", containers.toArray(new byte[0][])));
          ps.setString(i++, app);
        }
        ps.setArray(i++, c.createArrayOf("bytea", chunk.toArray(new byte[0][])));
        ps.setString(i, app);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            TrackedState t = state(rs, runs);
            rows.put(ByteKey.of(t.path()), t);
          }
        }
      }
    }
    return rows;
  }

  private static final int PREFETCH_CHUNK = 500;

  /** Encoded paths in their byte order: a path's descendants follow it, before its end. */
  static final Comparator<ByteKey> IN_PATH_ORDER =
      (a, b) -> Arrays.compareUnsigned(a.bytes(), b.bytes());

  /** Forgets the rows below {@code path}: by a range when {@link #apply} sorted them. */
  private static void forgetBelow(Map<ByteKey, TrackedState> rows, byte[] path) {
    byte[] end = KeyEncoding.descendantsEnd(path);
    if (rows instanceof NavigableMap<ByteKey, TrackedState> sorted) {
      sorted.subMap(ByteKey.of(path), false, ByteKey.of(end), false).clear();
      return;
    }
    rows.keySet().removeIf(k -> Arrays.compareUnsigned(k.bytes(), path) > 0
        && Arrays.compareUnsigned(k.bytes(), end) < 0);
  }

  /**
   * Marks deleted the rows of {@code rows} strictly below {@code db}'s path that one of its
   * owners owns, and those below such a row that is a container (a row already deleted stays
   * so).
   */
  private static void forgetBelowOf(Map<ByteKey, TrackedState> rows, StateWrite.DeleteBelow db) {
    byte[] path = db.path();
    byte[] end = KeyEncoding.descendantsEnd(path);
    Map<ByteKey, TrackedState> below = rows instanceof NavigableMap<ByteKey, TrackedState> sorted
        ? sorted.subMap(ByteKey.of(path), false, ByteKey.of(end), false) : rows;
    List<byte[]> containers = new ArrayList<>();
    for (Map.Entry<ByteKey, TrackedState> e : below.entrySet()) {
      byte[] at = e.getKey().bytes();
      TrackedState s = e.getValue();
      if (s != null && Arrays.compareUnsigned(at, path) > 0
          && Arrays.compareUnsigned(at, end) < 0 && db.covers(s.owner())) {
        if (s.childGeneration() > 0) {
          containers.add(at);
        }
        e.setValue(null);
      }
    }
    for (byte[] container : containers) {
      forgetBelow(rows, container);
    }
  }

  /**
   * Rewrites a row whose owner stays: unlike the upsert, it leaves the owner index alone (a
   * settle, and a precommit of a state its owner declares again).
   */
  private void setRecords(StatementBatches out, String app, TrackedState s) throws SQLException {
    PreparedStatement up = out.use(setRecords, states, app, s.path());
    bindRecordsAndGenerations(up, 1, s);
    up.setString(6, app);
    up.setBytes(7, s.path());
    up.addBatch();
  }

  /** Binds records, child_gen, child_epoch, parent_gen, parent_epoch from parameter {@code at}. */
  private static void bindRecordsAndGenerations(PreparedStatement ps, int at, TrackedState s)
      throws SQLException {
    ps.setBytes(at, RecordListEncoding.encode(s.records()));
    ps.setLong(at + 1, s.childGeneration());
    ps.setLong(at + 2, s.childEpoch());
    ps.setLong(at + 3, s.parentGeneration());
    ps.setLong(at + 4, s.parentEpoch());
  }

  private void deleteOne(StatementBatches out, String app, byte[] path) throws SQLException {
    PreparedStatement del = out.use(deleteState, states, app, path);
    del.setString(1, app);
    del.setBytes(2, path);
    del.addBatch();
  }

  /** Deletes the paths in {@code [from, to)}. */
  private void deleteRange(StatementBatches out, String app, byte[] from, byte[] to)
      throws SQLException {
    PreparedStatement del = out.useRange(deleteTree, states);
    del.setString(1, app);
    del.setBytes(2, from);
    del.setBytes(3, to);
    del.addBatch();
  }

  /** Deletes the paths strictly below {@code db}'s path owned by one of its owners. */
  private void deleteRangeOfOwners(StatementBatches out, String app, StateWrite.DeleteBelow db)
      throws SQLException {
    PreparedStatement del = out.useRange(deleteRangeOfOwners, states);
    del.setString(1, app);
    del.setBytes(2, KeyEncoding.descendantsStart(db.path()));
    del.setBytes(3, KeyEncoding.descendantsEnd(db.path()));
    del.setArray(4, del.getConnection().createArrayOf("bytea",
        db.owners().toArray(new byte[0][])));
    del.setString(5, app);
    del.addBatch();
  }

  /**
   * Checks what a batch of {@code sql} changed. An update of records must find its row: one that
   * did not would lose a state's tracking, so the whole transaction fails instead.
   */
  void checkExecuted(String sql, int[] counts) throws SQLException {
    if (sql == setRecords) {
      for (int n : counts) {
        if (n == 0) {
          throw new SQLException("a tracked row to update is missing from " + states
              + " (was the state store changed by another process?)");
        }
      }
    }
  }

  /** The failure of a batch of {@code sql}, said in the store's terms where it can be. */
  SQLException explainFailure(String sql, SQLException e) {
    if (insertState.equals(sql) && createdMeanwhile(e)) {
      return new SQLException("another worker's transaction created a target state that this"
          + " group precommits as new: the group is written again, against that row",
          "40001", e);
    }
    return e;
  }

  /**
   * Whether {@code e} (from a batch of {@link #insertState}) says a row to create exists: another
   * worker's transaction committed it after this one read the path and found nothing (PostgreSQL
   * lets an insert wait for that transaction). The group fails as a serialization failure, which
   * the shared store retries: read again, the row is found, and the precommit keeps its records
   * beside "may not exist" ({@link StateWrites#resolve}). An upsert had replaced them: the other
   * worker's settle then found its record gone and wrote nothing, and whichever write landed last,
   * the store named only this one's value.
   */
  private static boolean createdMeanwhile(SQLException e) {
    for (SQLException x = e; x != null; x = x.getNextException()) {
      if ("23505".equals(x.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Prepared statements batched: the effect is that of executing them one by one, in the order
   * they were added. Each pending batch goes to the database as one round trip. With {@link
   * JdbcStateTables#reorderStatements} (a store across the network, where that round trip is the cost), a
   * statement that writes rows no pending batch of another statement touches joins its own
   * statement's batch even when other statements came in between: a group's precommits, settles
   * and component records, which alternate batch by batch, then go out as a batch per statement
   * rather than a round trip per write (the group of a cold run, committed in turn on the writer's
   * thread, was a round trip per write). Statements on disjoint rows commute, so the order within
   * each batch is all that is kept; a statement on a row another batch touches, or one without
   * rows ({@link #use(String)}), executes everything pending first.
   */
  final class StatementBatches implements AutoCloseable {
    private final Connection c;
    // Keyed by identity: the SQL strings are the tables' constants. Kept prepared on the
    // connection across groups where the tables cache statements (preparing them was a tenth
    // of the SQLite writer's time).
    private final Map<String, StatementCache.Prepared> prepared =
        new java.util.IdentityHashMap<>();
    /**
     * The batches not executed yet, in the order they were begun; those of keyed writes touch
     * pairwise disjoint rows.
     */
    private final List<Pending> pending = new ArrayList<>(4);

    /** A batch not executed yet: its statement and, for keyed writes, the rows it writes. */
    private static final class Pending {
      final String sql;
      final PreparedStatement statement;
      /** The table its rows are in; null: rows not known (it commutes with nothing). */
      final String table;
      /** The rows its statements write, as app and path. */
      final Set<Row> rows = new HashSet<>();
      /** Whether it deletes a range of rows (it then commutes with nothing in its table). */
      boolean range;

      Pending(String sql, PreparedStatement statement, String table) {
        this.sql = sql;
        this.statement = statement;
        this.table = table;
      }
    }

    /** A row of a table, by app and path. */
    private record Row(String app, ByteKey path) {}

    StatementBatches(Connection c) {
      this.c = c;
    }

    /** Executes the pending batches, so that a read sees every write so far. */
    void flush() throws SQLException {
      try {
        for (Pending p : pending) {
          execute(p);
        }
      } finally {
        pending.clear();
      }
    }

    /** The statement {@code sql}, to bind and add to its batch, after every statement so far. */
    PreparedStatement use(String sql) throws SQLException {
      if (pending.size() == 1 && pending.get(0).sql == sql && pending.get(0).table == null) {
        return pending.get(0).statement;
      }
      flush();
      return begin(sql, null).statement;
    }

    /**
     * The statement {@code sql}, which writes the row {@code path} of {@code app} in {@code
     * table} and nothing else, to bind and add to its batch.
     */
    PreparedStatement use(String sql, String table, String app, byte[] path) throws SQLException {
      if (!reorderStatements) {
        return use(sql);
      }
      Row row = new Row(app, ByteKey.of(path));
      Pending batch = batchToJoin(sql, table, p -> p.range || p.rows.contains(row));
      batch.rows.add(row);
      return batch.statement;
    }

    /**
     * The statement {@code sql}, which writes a range of rows of {@code table}, to bind and add
     * to its batch: after everything pending in that table.
     */
    PreparedStatement useRange(String sql, String table) throws SQLException {
      if (!reorderStatements) {
        return use(sql);
      }
      Pending batch = batchToJoin(sql, table, p -> true);
      batch.range = true;
      return batch.statement;
    }

    /**
     * The pending batch of the keyed statement {@code sql}, or a new one: everything pending is
     * executed first if a batch of another statement writes rows not known, or rows of {@code
     * table} that {@code touches} says the new write touches.
     */
    private Pending batchToJoin(String sql, String table, Predicate<Pending> touches)
        throws SQLException {
      Pending same = null;
      for (Pending p : pending) {
        if (p.sql == sql && p.table != null) {
          same = p;
        } else if (p.table == null || (p.table.equals(table) && touches.test(p))) {
          flush();
          return begin(sql, table);
        }
      }
      return same != null ? same : begin(sql, table);
    }

    /** Begins a batch of {@code sql}, after those pending. */
    private Pending begin(String sql, String table) throws SQLException {
      StatementCache.Prepared p = prepared.get(sql);
      if (p == null) {
        p = prepare(c, sql);
        prepared.put(sql, p);
      }
      Pending batch = new Pending(sql, p.statement(), table);
      pending.add(batch);
      return batch;
    }

    private void execute(Pending p) throws SQLException {
      int[] counts;
      try {
        counts = p.statement.executeBatch();
      } catch (SQLException e) {
        throw explainFailure(p.sql, e);
      }
      checkExecuted(p.sql, counts);
    }

    @Override
    public void close() throws SQLException {
      SQLException failure = null;
      try {
        flush();
      } catch (SQLException e) {
        failure = e;
      } finally {
        for (StatementCache.Prepared p : prepared.values()) {
          try {
            // A batch left by a failure must not go out with the statement's next use.
            p.statement().clearBatch();
            p.close();
          } catch (SQLException e) {
            // The first failure is the one reported (the flush's, if it failed); any other
            // goes with it.
            if (failure == null) {
              failure = e;
            } else {
              failure.addSuppressed(e);
            }
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }
}
