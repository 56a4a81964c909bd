package io.cocoindex.runtime.state;

import io.cocoindex.Fingerprint;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import javax.sql.DataSource;

/**
 * A state store in PostgreSQL, shared by several worker processes running the same app.
 *
 * <p>Work sharing uses PostgreSQL session advisory locks, one per processing component: a worker
 * processes a component only while it holds the component's lock, and skips a component another
 * worker holds (waiting only for foreground components, whose result it needs). Advisory locks
 * need no table, cost no writes, and are released by the server the moment a worker's connection
 * drops: a worker killed with {@code kill -9} blocks nobody, and the components it claimed and
 * did not finish are taken over by the workers still in the round (a claim names its run, which
 * marks it finished with the component's commit, or as it gives the lock back), or finished by
 * whichever worker runs next.
 * Precommit and settle are read-modify-writes of locked rows ({@code SELECT ... FOR UPDATE}) in
 * one transaction, retried on deadlock or serialization failure.
 *
 * <p>Round trips are shared: the engine leases background components in batches (one statement
 * tries the locks and claims the components of a whole batch, see {@link #leaseComponents}),
 * leases are given back in batches on a thread of their own, and the point reads of components
 * finishing together are grouped into one query each ({@link GroupReads}). Needs PostgreSQL 12
 * or later ({@code MATERIALIZED} common table expressions).
 *
 * <pre>{@code
 * StateStore store = PostgresStateStore.open("jdbc:postgresql://db:5432/app?user=coco");
 * Environment env = Environment.builder().stateStore(store).build();
 * }</pre>
 *
 * <p>Tables ({@code cocoindex_*}) are created in the connection's current schema on first use,
 * and the schema version is checked. Needs the {@code org.postgresql:postgresql} driver.
 */
public final class PostgresStateStore extends JdbcStateStore {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(PostgresStateStore.class);
  static final int SCHEMA_VERSION = 1;
  private static final int LEASE_CONNECTIONS = 4;
  private static final int MAX_ATTEMPTS = 8;
  /** How long the end of a run is recorded ({@link #recordRunEnded}). */
  private static final String RUN_ENDS_KEPT = "7 days";
  /** Serializes schema creation across workers starting together. */
  private static final long SCHEMA_LOCK = 0x636f636f696e6465L;

  /** The single-key advisory locks held in this database, as the keys pg_advisory_lock took. */
  private static final String HELD_ADVISORY_LOCKS_SQL = "SELECT (classid::bigint << 32)"
      + " | objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted"
      + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";

  /** Tries one advisory lock per array element; a row per element, in order. */
  private static final String TRY_LOCKS_SQL = "SELECT pg_try_advisory_lock(k) FROM"
      + " unnest(?::bigint[]) WITH ORDINALITY AS t(k, i) ORDER BY i";

  /**
   * The runs of an app alive now, by the low 32 bits of their versions: the shared locks held on
   * the app's run keys ({@link #runLockKey}). Parameter: the keys' high 32 bits. Read only when
   * a claim in the round is met (a CTE is evaluated when first read), and only to tell whether
   * the runs should be read again (see {@link #BATCH_LEASE_SQL}): it is read after the
   * statement's snapshot was taken, so a run that records its end and gives its lock back in
   * between looks dead to it.
   */
  private static final String LIVE_RUNS = "live AS MATERIALIZED (SELECT objid::bigint AS low"
      + " FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted"
      + " AND classid::bigint = ?"
      + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))";

  /**
   * The end of a claim's insert, for this run's version: it takes the component unless claimed
   * at or after the first parameter's time (null: whatever the claim) by another run not known
   * dead: one that is at or above the second parameter (the app's next version) or among the
   * third's (the low 32 bits of the versions whose run locks were held), both as {@link
   * #readRunsSeen} read them before this statement began, or that ended ({@code
   * cocoindex_run_end}, read in this statement's snapshot, which follows that read: a run gives
   * its lock back only once its end is recorded), or that marked the claim finished (copied its
   * claimed_at to run_finished_at as it gave the component back). A claim of a run that died
   * (its worker killed, its sessions gone) or was stopped early (no end recorded), and that it
   * did not mark finished, is taken over: no other live worker will process that component in
   * the round. A finished one stands: that run's input may be newer than this one's. A claim
   * written before claims named their run is kept as it was, and so is one a worker of that
   * version moved since (its claimed_at no longer the one written with the run: the run named
   * is then an earlier round's, not the claimer's).
   */
  private static final String UNLESS_CLAIMED_SINCE =
      " ON CONFLICT(app, path) DO UPDATE SET claimed_at = excluded.claimed_at,"
          + " run_version = excluded.run_version, run_claimed_at = excluded.run_claimed_at,"
          + " run_finished_at = NULL"
          + " WHERE cocoindex_claim.claimed_at < COALESCE(CAST(? AS TIMESTAMPTZ), 'infinity')"
          + " OR (cocoindex_claim.run_claimed_at = cocoindex_claim.claimed_at"
          + " AND cocoindex_claim.run_version <> excluded.run_version"
          + " AND cocoindex_claim.run_version < ?"
          + " AND NOT (cocoindex_claim.run_version & 4294967295) = ANY(CAST(? AS BIGINT[]))"
          + " AND cocoindex_claim.run_finished_at IS DISTINCT FROM cocoindex_claim.claimed_at"
          + " AND NOT EXISTS (SELECT 1 FROM cocoindex_run_end e"
          + " WHERE e.app = cocoindex_claim.app AND e.version = cocoindex_claim.run_version))";

  /**
   * Leases background components in one round trip. Parameters: the app's run keys' high bits,
   * the components' paths (bytea[]), their lock keys (bigint[]), the app, this worker's run
   * version and start, the runs as last read ({@link #UNLESS_CLAIMED_SINCE}), then the app, this
   * worker's run version and start again. Returns one row per lock taken: (path, claimed for this
   * run, and null, or the unlock's result where another worker claimed it in this round, whose
   * lock is given back at once, and whether that claim's run looks dead now: its lock held by
   * none ({@link #LIVE_RUNS}) and its end not recorded; the runs are then read again and the
   * component tried once more). The CTEs are materialized so that each lock is tried once.
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
          + " c.path IS NULL AND EXISTS (SELECT 1 FROM cocoindex_claim k"
          + " WHERE k.app = ? AND k.path = l.path AND k.run_claimed_at = k.claimed_at"
          + " AND k.run_version <> ? AND k.claimed_at >= ?"
          + " AND k.run_finished_at IS DISTINCT FROM k.claimed_at"
          + " AND NOT EXISTS (SELECT 1 FROM live WHERE live.low = k.run_version & 4294967295)"
          + " AND NOT EXISTS (SELECT 1 FROM cocoindex_run_end e"
          + " WHERE e.app = k.app AND e.version = k.run_version))"
          + " FROM locked l LEFT JOIN claimed c ON c.path = l.path";

  private final DataSource dataSource;
  private final String description;
  /** Session advisory locks live on these; a key always uses the same one (it must unlock). */
  private final Connection[] leaseConnections;
  private final java.util.concurrent.atomic.AtomicInteger nextLeaseConnection =
      new java.util.concurrent.atomic.AtomicInteger();
  /**
   * The point reads every component makes (its record, the states it owns, the states it
   * declares for the first time), grouped across concurrently finishing components.
   */
  private final GroupReads<ComponentRecord> componentReads = new GroupReads<>(
      (app, paths) -> onReadConnection(c -> tables.componentsAt(c, app, paths)), null);
  private final GroupReads<List<TrackedState>> ownedReads = new GroupReads<>(
      (app, owners) -> onReadConnection(c -> tables.ownedByAny(c, app, owners)), List.of());
  private final GroupReads<TrackedState> stateReads = new GroupReads<>(
      (app, paths) -> onReadConnection(c -> tables.statesAt(c, app, paths)), null);
  /** Gives advisory locks back in batches, off the engine's threads. */
  private final LeaseReleaser releaser;
  /** Per app, this store's run going on (or the last one). */
  private final java.util.Map<String, RunStart> runStarts =
      new java.util.concurrent.ConcurrentHashMap<>();
  /** The locks of this store's runs still going, by run (see {@link #endedRuns}). */
  private final Map<RunId, Long> runLocks = new java.util.concurrent.ConcurrentHashMap<>();
  /** The schema of the store's tables, read once: part of the runs' lock keys. */
  private String schemaName = "";
  /** The database of the store's tables, read with {@link #schemaName}. */
  private String databaseName = "";
  /** See {@link #identity}. */
  private final String identity;
  /** Per app, what the last read of its runs told. */
  private final Map<String, RunsSeen> runsSeen = new java.util.concurrent.ConcurrentHashMap<>();

  /** Opens the store at a JDBC URL ({@code jdbc:postgresql://host:port/db?user=...}). */
  public static PostgresStateStore open(String jdbcUrl) {
    org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
    ds.setURL(jdbcUrl);
    String safe = jdbcUrl.replaceAll("password=[^&]*", "password=***");
    return new PostgresStateStore(ds, safe);
  }

  /** Opens the store on a data source (a pool of the application's, say). */
  public static PostgresStateStore open(DataSource dataSource) {
    return new PostgresStateStore(dataSource, dataSource.toString());
  }

  private PostgresStateStore(DataSource dataSource, String description) {
    super(new JdbcStateTables("cocoindex_", true, false), connect(dataSource, description));
    this.dataSource = dataSource;
    this.description = description;
    this.leaseConnections = new Connection[LEASE_CONNECTIONS];
    for (int i = 0; i < LEASE_CONNECTIONS; i++) {
      leaseConnections[i] = leaseConnect();
    }
    initSchema();
    this.identity = identity(writeConnection, databaseName, schemaName);
    this.releaser = new LeaseReleaser();
    start("cocoindex-pg-state-writer");
  }

  @Override
  protected Connection connect() {
    return connect(dataSource, description);
  }

  /**
   * A lease session: its writes (claims, and their marks as they are given back) commit without
   * waiting for the server's WAL flush. A claim or mark a server crash loses costs a component
   * processed twice, no more, and that crash ends every worker's sessions and runs anyway; a
   * flush per lease batch and per give-back would cost each round trip a disk sync.
   */
  private Connection leaseConnect() {
    Connection c = connect();
    try (Statement s = c.createStatement()) {
      s.execute("SET synchronous_commit TO OFF");
    } catch (SQLException e) {
      try {
        c.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw failure("set up a lease session", e);
    }
    return c;
  }

  @Override
  protected String description() {
    return description;
  }

  /**
   * The server as this process reaches it (the hosts and ports of the connection's URL, as
   * written there, without its parameters), the database and the schema of the tables, as a
   * JDBC URL: {@code jdbc:postgresql://db:5432/app?currentSchema=tenant1}. Stores in two
   * schemas of one database differ; a connection URL that names no server in the driver's
   * usual form, as through a wrapping driver, gives this object's own identity.
   */
  @Override
  public String identity() {
    return identity;
  }

  private String identity(Connection c, String database, String schema) {
    String hosts;
    try {
      hosts = hostsOf(c.getMetaData().getURL());
    } catch (SQLException e) {
      hosts = null;
    }
    return hosts == null
        ? getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(this))
        : "jdbc:postgresql://" + hosts + "/" + database + "?currentSchema=" + schema;
  }

  /**
   * The hosts and ports of a PostgreSQL JDBC URL as written (lower case), empty for one that
   * names none (the driver's default server); null for a URL of another form.
   */
  static String hostsOf(String jdbcUrl) {
    String scheme = "jdbc:postgresql:";
    if (jdbcUrl == null || !jdbcUrl.regionMatches(true, 0, scheme, 0, scheme.length())) {
      return null;
    }
    String rest = jdbcUrl.substring(scheme.length());
    if (!rest.startsWith("//")) {
      return ""; // jdbc:postgresql:db
    }
    rest = rest.substring(2);
    int end = rest.length();
    for (char stop : new char[] {'/', '?'}) {
      int at = rest.indexOf(stop);
      end = at < 0 ? end : Math.min(end, at);
    }
    return rest.substring(0, end).toLowerCase(java.util.Locale.ROOT);
  }

  private static Connection connect(DataSource dataSource, String description) {
    try {
      Connection c = dataSource.getConnection();
      c.setAutoCommit(true);
      return c;
    } catch (SQLException e) {
      throw new StateStoreException(
          "cannot connect to the PostgreSQL state store " + description + ": " + e.getMessage(),
          e);
    }
  }

  private void initSchema() {
    try {
      inTransaction(c -> {
        try (Statement s = c.createStatement()) {
          s.execute("SELECT pg_advisory_xact_lock(" + SCHEMA_LOCK + ")");
          try (ResultSet rs = s.executeQuery("SELECT current_schema(), current_database()")) {
            rs.next();
            schemaName = String.valueOf(rs.getString(1));
            databaseName = rs.getString(2);
          }
          s.execute("CREATE TABLE IF NOT EXISTS cocoindex_meta(key TEXT PRIMARY KEY,"
              + " value TEXT NOT NULL)");
          Integer stored = null;
          try (ResultSet rs = s.executeQuery(
              "SELECT value FROM cocoindex_meta WHERE key='schema_version'")) {
            if (rs.next()) {
              stored = Integer.parseInt(rs.getString(1));
            }
          }
          if (stored != null && stored > SCHEMA_VERSION) {
            throw new StateStoreException("the PostgreSQL state store " + description
                + " was written by a newer cocoindex (schema version " + stored
                + "; this version understands " + SCHEMA_VERSION + "): upgrade cocoindex");
          }
          s.execute("CREATE TABLE IF NOT EXISTS " + tables.appTable()
              + "(name TEXT PRIMARY KEY, next_version BIGINT NOT NULL)");
          s.execute("CREATE TABLE IF NOT EXISTS " + tables.stateTable()
              + "(app TEXT NOT NULL, path BYTEA NOT NULL, owner BYTEA NOT NULL,"
              + " records BYTEA NOT NULL, child_gen BIGINT NOT NULL, child_epoch BIGINT NOT NULL,"
              + " parent_gen BIGINT NOT NULL, parent_epoch BIGINT NOT NULL,"
              + " PRIMARY KEY(app, path))");
          s.execute("CREATE INDEX IF NOT EXISTS " + tables.stateTable() + "_owner ON "
              + tables.stateTable() + "(app, owner)");
          s.execute("CREATE TABLE IF NOT EXISTS cocoindex_claim(app TEXT NOT NULL,"
              + " path BYTEA NOT NULL, claimed_at TIMESTAMPTZ NOT NULL, run_version BIGINT,"
              + " run_claimed_at TIMESTAMPTZ, run_finished_at TIMESTAMPTZ,"
              + " PRIMARY KEY(app, path))");
          addClaimsRunColumn(s);
          s.execute("CREATE TABLE IF NOT EXISTS cocoindex_run_end(app TEXT NOT NULL,"
              + " version BIGINT NOT NULL, ended_at TIMESTAMPTZ NOT NULL,"
              + " PRIMARY KEY(app, version))");
          // Each run's end prunes the app's ends older than RUN_ENDS_KEPT by this index.
          s.execute("CREATE INDEX IF NOT EXISTS cocoindex_run_end_ended_at"
              + " ON cocoindex_run_end(app, ended_at)");
          s.execute("CREATE TABLE IF NOT EXISTS " + tables.componentTable()
              + "(app TEXT NOT NULL, path BYTEA NOT NULL, memo_fp BYTEA, memo_deps BYTEA,"
              + " memo_values BYTEA, state_count BIGINT NOT NULL, PRIMARY KEY(app, path))");
          if (stored == null) {
            s.execute("INSERT INTO cocoindex_meta(key, value) VALUES('schema_version', '"
                + SCHEMA_VERSION + "')");
          }
        }
      });
    } catch (SQLException e) {
      throw failure("create or check its tables", e);
    }
  }

  /**
   * Adds the run to the claims of a store made before claims named it: an older worker on the
   * store writes none there (its claims are kept as before: never taken over), and reads none.
   * An older worker claiming over a claim that names a run moves its claimed_at only: the run is
   * trusted only with the claimed_at written with it ({@code run_claimed_at}). A claim's run
   * marks it finished as it gives the component back, by copying its claimed_at to {@code
   * run_finished_at}: a worker of the version before, claiming over a claim so marked, leaves
   * the mark (it writes the other columns only), which then no longer matches its claim's time.
   * Looked up first, as the {@code ALTER} would wait for every claim being written.
   */
  private static void addClaimsRunColumn(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.columns"
        + " WHERE table_schema = current_schema() AND table_name = 'cocoindex_claim'"
        + " AND column_name IN ('run_version', 'run_claimed_at', 'run_finished_at')")) {
      rs.next();
      if (rs.getInt(1) == 3) {
        return;
      }
    }
    s.execute("ALTER TABLE cocoindex_claim ADD COLUMN IF NOT EXISTS run_version BIGINT,"
        + " ADD COLUMN IF NOT EXISTS run_claimed_at TIMESTAMPTZ,"
        + " ADD COLUMN IF NOT EXISTS run_finished_at TIMESTAMPTZ");
  }

  /**
   * Workers of one app run concurrently on this store, coordinated per component (see {@link
   * #leaseComponent}), so the app-level lock is not exclusive here.
   */
  @Override
  public AutoCloseable lockForUpdate(String app) {
    return NO_LEASE;
  }

  /**
   * The lease of a component: its advisory lock, and a claim for this run. A background
   * component ({@code wait} false) already claimed since this worker's run started was (or is
   * being) processed by another worker in this round, and is skipped, unless that worker's run
   * died (its sessions gone: see {@link #UNLESS_CLAIMED_SINCE}), whose component is taken over.
   * A foreground component is processed whatever its claim says (its parent needs its result),
   * and claims all the same: another worker whose run started earlier, and whose input no longer
   * mounts it, must find it processed in this round and leave it to this worker, not sweep what
   * this one declares there (see {@code OrphanSweep}). A run stopped early ({@link #runAborted})
   * claims nothing: its background leases are refused, and a foreground one takes the lock only.
   */
  @Override
  public AutoCloseable leaseComponent(String app, byte[] componentPath, boolean wait) {
    if (!wait) {
      // As in a batch: a claim of a run that looks dead is taken over once the runs are read.
      return leaseComponents(app, List.of(componentPath)).get(0);
    }
    return lease(app, lockKey(app, componentPath), componentPath, true, connection -> {
      if (!stopped(runStarts.get(app))) {
        claimOverAny(connection, app, componentPath);
      }
      return true;
    }, "a component lease");
  }

  /** The advisory lock of one target state (a key space apart from the components'). */
  @Override
  public AutoCloseable leaseState(String app, byte[] statePath) {
    return lease(app, stateLockKey(app, statePath), null, true, connection -> true,
        "a target state lease");
  }

  /**
   * Tries every lock at once, one statement per lease connection. If one is held elsewhere, the
   * locks after it (in path order) are given back and taken one by one, waiting: a holder then
   * only ever waits for a lock while holding locks before it, as {@link #leaseState} callers do.
   */
  @Override
  public List<AutoCloseable> leaseStates(String app, List<byte[]> statePaths) {
    int n = statePaths.size();
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = stateLockKey(app, statePaths.get(i));
    }
    boolean[] locked = tryLocks(keys);
    int firstHeld = 0;
    while (firstHeld < n && locked[firstHeld]) {
      firstHeld++;
    }
    List<AutoCloseable> leases = new java.util.ArrayList<>(n);
    try {
      for (int i = 0; i < firstHeld; i++) {
        leases.add(releaser.lease(leaseConnection(keys[i]), keys[i], app, null, null));
      }
      giveBack(keys, locked, firstHeld);
      for (int i = firstHeld; i < n; i++) {
        leases.add(leaseState(app, statePaths.get(i)));
      }
    } catch (SQLException e) {
      leases.forEach(PostgresStateStore::closeQuietly);
      throw failure("give back target state leases", e);
    } catch (RuntimeException e) {
      leases.forEach(PostgresStateStore::closeQuietly);
      throw e;
    }
    return leases;
  }

  /** Tries advisory locks {@code keys}, each on its lease connection; which ones it took. */
  private boolean[] tryLocks(long[] keys) {
    boolean[] locked = new boolean[keys.length];
    Map<Connection, List<Integer>> byConnection = new java.util.IdentityHashMap<>();
    for (int i = 0; i < keys.length; i++) {
      byConnection.computeIfAbsent(leaseConnection(keys[i]), c -> new java.util.ArrayList<>())
          .add(i);
    }
    try {
      for (Map.Entry<Connection, List<Integer>> e : byConnection.entrySet()) {
        Connection connection = e.getKey();
        List<Integer> at = e.getValue();
        Long[] ofConnection = new Long[at.size()];
        for (int j = 0; j < at.size(); j++) {
          ofConnection[j] = keys[at.get(j)];
        }
        synchronized (connection) {
          try (PreparedStatement ps = connection.prepareStatement(TRY_LOCKS_SQL)) {
            ps.setArray(1, connection.createArrayOf("bigint", ofConnection));
            try (ResultSet rs = ps.executeQuery()) {
              for (int j = 0; rs.next(); j++) {
                locked[at.get(j)] = rs.getBoolean(1);
              }
            }
          }
        }
      }
    } catch (SQLException e) {
      // Give back what the statements before the failure took: nobody would otherwise.
      try {
        giveBack(keys, locked, 0);
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw failure("take target state leases", e);
    }
    return locked;
  }

  /**
   * Gives back the locks in {@code locked} from {@code from} on, each on its own lease
   * connection. One failing does not stop the others: the locks left on a live connection would
   * be held until the store closes, blocking every other worker that wants those states.
   */
  private void giveBack(long[] keys, boolean[] locked, int from) throws SQLException {
    SQLException failure = null;
    for (int i = from; i < keys.length; i++) {
      if (locked[i]) {
        try {
          unlock(leaseConnection(keys[i]), keys[i]);
        } catch (SQLException e) {
          failure = firstWithRest(failure, e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** {@code e} if it is the first failure, else {@code failure} with {@code e} suppressed. */
  private static SQLException firstWithRest(SQLException failure, SQLException e) {
    if (failure == null) {
      return e;
    }
    failure.addSuppressed(e);
    return failure;
  }

  private Connection leaseConnection(long key) {
    return leaseConnections[(int) Math.floorMod(key, LEASE_CONNECTIONS)];
  }

  /**
   * A state's lease key. Advisory locks are database-wide: the schema is part of the key, so
   * that stores in two schemas of one database running apps of one name do not share leases.
   */
  private long stateLockKey(String app, byte[] statePath) {
    byte[] fp =
        Fingerprint.of(Arrays.asList(schemaName, app, "target state", statePath)).bytes();
    return ByteBuffer.wrap(fp).getLong();
  }

  private static void closeQuietly(AutoCloseable lease) {
    try {
      lease.close();
    } catch (Exception e) {
      log.warn("giving back a target state lease failed", e);
    }
  }

  /**
   * Polls the server's advisory locks (one query each time, on a lease connection) until none of
   * {@code componentPaths}' locks is held. A worker that dies gives its locks back with its
   * connection, so this waits only for live workers' components.
   */
  @Override
  public void awaitComponentsReleased(String app, Collection<byte[]> componentPaths) {
    Set<Long> waitingFor = new HashSet<>();
    for (byte[] path : componentPaths) {
      waitingFor.add(lockKey(app, path));
    }
    Connection connection = leaseConnections[0];
    try {
      while (!waitingFor.isEmpty()) {
        Set<Long> held = new HashSet<>();
        synchronized (connection) {
          try (Statement st = connection.createStatement();
              ResultSet rs = st.executeQuery(HELD_ADVISORY_LOCKS_SQL)) {
            while (rs.next()) {
              held.add(rs.getLong(1));
            }
          }
        }
        waitingFor.retainAll(held);
        if (!waitingFor.isEmpty()) {
          pauseBetweenTries();
        }
      }
    } catch (SQLException e) {
      throw failure("wait for other workers' components", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateStoreException("interrupted while waiting for other workers' components");
    }
  }

  /** What must hold once a lock is taken for the lease to be granted. */
  private interface LeaseCondition {
    boolean holds(Connection leaseConnection) throws SQLException;
  }

  /**
   * Takes advisory lock {@code key} on its lease connection, polling while another session holds
   * it if {@code wait}; gives the lock back at once when {@code condition} fails. The lease of a
   * component the condition claimed ({@code claimed}) marks the claim finished as it is given
   * back ({@link LeaseReleaser#lease}).
   *
   * @return the lease, or null when not granted
   */
  private AutoCloseable lease(String app, long key, byte[] claimed, boolean wait,
      LeaseCondition condition, String what) {
    Connection leaseConnection = leaseConnection(key);
    try {
      while (true) {
        synchronized (leaseConnection) {
          boolean locked;
          try (PreparedStatement ps =
              leaseConnection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              locked = rs.getBoolean(1);
            }
          }
          if (locked) {
            boolean holds;
            try {
              holds = condition.holds(leaseConnection);
            } catch (SQLException | RuntimeException e) {
              // Nobody else would give the lock back before the store closes.
              try {
                unlock(leaseConnection, key);
              } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
              }
              throw e;
            }
            if (holds) {
              return releaser.lease(leaseConnection, key, app, claimed, runStarts.get(app));
            }
            unlock(leaseConnection, key);
            return null;
          }
        }
        if (!wait) {
          return null;
        }
        pauseBetweenTries();
      }
    } catch (SQLException e) {
      throw failure("take " + what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateStoreException("interrupted while waiting for " + what);
    }
  }

  /**
   * Waits 20 ms before trying a lock another worker holds again. On a worker of the component
   * pool this is a managed block, with no bound on the spares it may cost: the holder may be a
   * component of another worker that waits, on its own pool, for a lease a component of this one
   * holds, and that component's next stage (its commit, which gives the lease back) may be
   * queued on this pool. A plain sleep kept the pool's threads (one per core) busy waiting with
   * such a stage in the queue: a worker of {@code PostgresCrashTest} (seed 4) never ended its run,
   * both threads of its pool polling for leases another worker held.
   */
  private static void pauseBetweenTries() throws InterruptedException {
    ForkJoinPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
      private boolean slept;

      @Override
      public boolean block() throws InterruptedException {
        Thread.sleep(20);
        slept = true;
        return true;
      }

      @Override
      public boolean isReleasable() {
        return slept;
      }
    });
  }

  /**
   * Leases several background components in one round trip: one statement tries each advisory
   * lock, claims the locked components for this run, and gives back at once the locks of those
   * another worker already claimed in this round.
   */
  @Override
  public List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
    return leaseComponents(app, componentPaths, true);
  }

  /**
   * As {@link #leaseComponents}, but a claim of a run that died is not taken over: that run,
   * whose input mounted the component, may have finished it, and its record is not this sweep's
   * to delete.
   */
  @Override
  public List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> componentPaths) {
    return leaseComponents(app, componentPaths, false);
  }

  private List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths,
      boolean takeOverTheDead) {
    int n = componentPaths.size();
    byte[][] paths = componentPaths.toArray(new byte[0][]);
    Long[] keys = new Long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = lockKey(app, paths[i]);
    }
    RunStart run = runStarts.get(app);
    if (stopped(run)) {
      // Nothing it leases now will be committed: a claim would stand over another worker's
      // (one that finished the component in the round, say), and, left unmarked, have it taken
      // over as a dead run's once this run ends.
      return java.util.Arrays.asList(new AutoCloseable[n]);
    }
    Connection leaseConnection =
        leaseConnections[Math.floorMod(nextLeaseConnection.getAndIncrement(), LEASE_CONNECTIONS)];
    java.util.Set<ByteKey> granted = new java.util.HashSet<>();
    java.util.Set<ByteKey> lookDead = new java.util.HashSet<>();
    Long[] trying = keys;
    try {
      synchronized (leaseConnection) {
        // No run known dead at first: a read of the runs kept from earlier (endedRuns') may
        // predate a dropState, after which versions are allocated again from 1.
        leaseBatch(leaseConnection, app, paths, keys, run, null, granted, lookDead);
        if (takeOverTheDead && !lookDead.isEmpty()) {
          // Claimed by runs that look dead now: read the runs (before the statement that takes
          // them over, whose snapshot then holds the end of any that gave its lock back) and try
          // those components once more.
          RunsSeen seen = read("read which runs are alive", c -> readRunsSeen(c, app));
          runsSeen.put(app, seen);
          List<byte[]> again = new java.util.ArrayList<>();
          List<Long> againKeys = new java.util.ArrayList<>();
          for (int i = 0; i < n; i++) {
            if (lookDead.remove(ByteKey.of(paths[i]))) {
              again.add(paths[i]);
              againKeys.add(keys[i]);
            }
          }
          trying = againKeys.toArray(new Long[0]);
          leaseBatch(leaseConnection, app, again.toArray(new byte[0][]), trying, run, seen,
              granted, lookDead);
        }
      }
    } catch (SQLException e) {
      // No lease reaches the caller: what the first statement granted, and what the failing
      // one locked (session locks outlive its error; which ones is not known, and giving back
      // one not held only warns), would be held until the store closes. This session holds no
      // other lease of a component it leases here.
      java.util.Set<Long> held = new java.util.LinkedHashSet<>(List.of(trying));
      for (int i = 0; i < n; i++) {
        if (granted.contains(ByteKey.of(paths[i]))) {
          held.add(keys[i]);
        }
      }
      for (long key : held) {
        try {
          unlock(leaseConnection, key);
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw failure("take component leases", e);
    }
    List<AutoCloseable> leases = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      // Advisory locks are re-entrant per session: each granted row holds one lock to give back.
      leases.add(granted.contains(ByteKey.of(paths[i]))
          ? releaser.lease(leaseConnection, keys[i], app, paths[i], run) : null);
    }
    return leases;
  }

  /**
   * Runs {@link #BATCH_LEASE_SQL} once on {@code leaseConnection}, taking over the claims of
   * runs {@code seen} tells dead; adds to {@code granted} the components leased, and to {@code
   * lookDead} those refused for a claim whose run looks dead now.
   */
  private void leaseBatch(Connection leaseConnection, String app, byte[][] paths, Long[] keys,
      RunStart run, RunsSeen seen, java.util.Set<ByteKey> granted,
      java.util.Set<ByteKey> lookDead) throws SQLException {
    try (PreparedStatement ps = leaseConnection.prepareStatement(BATCH_LEASE_SQL)) {
      ps.setLong(1, runLockKey(app, 0) >>> 32);
      ps.setArray(2, leaseConnection.createArrayOf("bytea", paths));
      ps.setArray(3, leaseConnection.createArrayOf("bigint", keys));
      ps.setString(4, app);
      int next = setClaimant(ps, 5, run, seen);
      ps.setString(next, app);
      setClaimant(ps, next + 1, run);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (rs.getBoolean(2)) {
            granted.add(ByteKey.of(rs.getBytes(1)));
          } else if (rs.getBoolean(4)) {
            lookDead.add(ByteKey.of(rs.getBytes(1)));
          }
        }
      }
    }
  }

  /** Whether {@code run} was stopped early ({@link #runAborted}): it claims nothing more. */
  private static boolean stopped(RunStart run) {
    return run != null && run.aborted().get();
  }

  /**
   * Claims the component for this run over any claim: a foreground component is processed
   * whatever its claim says (its parent needs its result), and claimed so that an older run's
   * sweep leaves it.
   */
  private void claimOverAny(Connection leaseConnection, String app, byte[] componentPath)
      throws SQLException {
    try (PreparedStatement ps = leaseConnection.prepareStatement(
        "INSERT INTO cocoindex_claim(app, path, claimed_at, run_version, run_claimed_at)"
        + " SELECT ?, ?, t, ?, t FROM (SELECT clock_timestamp() AS t) n"
        + " ON CONFLICT(app, path) DO UPDATE SET claimed_at = excluded.claimed_at,"
        + " run_version = excluded.run_version, run_claimed_at = excluded.run_claimed_at,"
        + " run_finished_at = NULL")) {
      ps.setString(1, app);
      ps.setBytes(2, componentPath);
      setRunVersion(ps, 3, runStarts.get(app));
      ps.executeUpdate();
    }
  }

  /** Sets a claim's run version at {@code at}: {@code run}'s, or none outside a run. */
  private static void setRunVersion(PreparedStatement ps, int at, RunStart run)
      throws SQLException {
    if (run == null) {
      ps.setNull(at, java.sql.Types.BIGINT);
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
   * {@link #setClaimant(PreparedStatement, int, RunStart)}, then the runs as last read ({@code
   * seen}; none yet: no run known dead) for {@link #UNLESS_CLAIMED_SINCE}; the index of the next
   * parameter.
   */
  private static int setClaimant(PreparedStatement ps, int at, RunStart run, RunsSeen seen)
      throws SQLException {
    setClaimant(ps, at, run);
    ps.setLong(at + 2, seen == null ? Long.MIN_VALUE : seen.below());
    ps.setArray(at + 3, ps.getConnection().createArrayOf("bigint",
        seen == null ? new Long[0] : seen.aliveLowBits().toArray(new Long[0])));
    return at + 4;
  }

  private static void unlock(Connection leaseConnection, long key) throws SQLException {
    synchronized (leaseConnection) {
      if (leaseConnection.isClosed()) {
        return;
      }
      try (PreparedStatement ps =
          leaseConnection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
        ps.setLong(1, key);
        ps.execute();
      }
    }
  }

  /** A component's lease key, schema included (see {@link #stateLockKey}). */
  private long lockKey(String app, byte[] componentPath) {
    byte[] fp = Fingerprint.of(Arrays.asList(schemaName, app, componentPath)).bytes();
    return ByteBuffer.wrap(fp).getLong();
  }

  @Override
  public java.util.Optional<ComponentRecord> component(String app, byte[] path) {
    try {
      return java.util.Optional.ofNullable(componentReads.get(app, path));
    } catch (SQLException e) {
      throw failure("read a component", e);
    }
  }

  @Override
  public List<TrackedState> ownedBy(String app, byte[] componentPath) {
    try {
      return ownedReads.get(app, componentPath);
    } catch (SQLException e) {
      throw failure("read a component's target states", e);
    }
  }

  @Override
  public List<TrackedState> getAll(String app, java.util.Collection<byte[]> paths) {
    if (paths.isEmpty()) {
      return List.of();
    }
    try {
      List<TrackedState> out = new java.util.ArrayList<>(paths.size());
      java.util.Map<ByteKey, byte[]> distinct = new java.util.LinkedHashMap<>();
      paths.forEach(p -> distinct.putIfAbsent(ByteKey.of(p), p));
      for (TrackedState s : stateReads.getAll(app, List.copyOf(distinct.values()))) {
        if (s != null) {
          out.add(s);
        }
      }
      return out;
    } catch (SQLException e) {
      throw failure("read target states", e);
    }
  }

  /** The leases this store holds, by app: taken and not yet closed. */
  private final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> heldLeases =
      new java.util.concurrent.ConcurrentHashMap<>();
  /**
   * Apps a run of which lost a task ({@link #runLostATask}), until none of their leases is held.
   */
  private final java.util.Set<String> lostATask =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  @Override
  public void runLostATask(String app) {
    lostATask.add(app);
  }

  /**
   * A run starts by taking its version: remember when, in the server's clock, per app, and take
   * the run's lock (see {@link #endedRuns}) before the version commits, so whoever sees the
   * version allocated sees the lock held until the run ends or its worker dies.
   */
  @Override
  public long nextVersion(String app) {
    releaser.awaitGivenBack();
    if (lostATask.contains(app)) {
      java.util.concurrent.atomic.AtomicInteger held = heldLeases.get(app);
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
    long[] version = new long[1];
    java.sql.Timestamp[] started = new java.sql.Timestamp[1];
    Long[] locked = new Long[1];
    try {
      inTransaction(c -> {
        version[0] = tables.nextVersion(c, app);
        started[0] = serverClock(c);
        long key = runLockKey(app, version[0]);
        takeRunLock(key);
        locked[0] = key;
      });
    } catch (SQLException | RuntimeException e) {
      if (locked[0] != null) {
        try {
          unlockRun(locked[0]); // the version was not allocated: a later run gets it
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e instanceof SQLException sql ? failure("allocate a run version", sql)
          : (RuntimeException) e;
    }
    runLocks.put(new RunId(app, version[0]), locked[0]);
    runStarts.put(app, new RunStart(started[0], version[0]));
    return version[0];
  }

  /** The server's clock now: claims are compared by it, never by this host's. */
  private static java.sql.Timestamp serverClock(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
      rs.next();
      return rs.getTimestamp(1);
    }
  }

  /**
   * A run of this store: when it started, in the server's clock, and its version; {@code
   * aborted} once it was stopped early ({@link #runAborted}).
   */
  private record RunStart(java.sql.Timestamp at, long version,
      java.util.concurrent.atomic.AtomicBoolean aborted) {
    RunStart(java.sql.Timestamp at, long version) {
      this(at, version, new java.util.concurrent.atomic.AtomicBoolean());
    }
  }

  /**
   * A run's lock: shared (two runs whose keys collide do not wait for each other, and both look
   * alive, which only keeps records longer), on every lease connection, so that the run looks
   * dead (its claims taken over, see {@link #UNLESS_CLAIMED_SINCE}) only once all of them are
   * gone, as with its process: one session dropped while the worker goes on is not its death.
   */
  private void takeRunLock(long key) throws SQLException {
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
  private void unlockRun(long key) throws SQLException {
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
          failure = firstWithRest(failure, e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * From now on the run's leases are given back without marking their claims finished: a
   * component it leased may have been left half done.
   */
  @Override
  public void runAborted(String app, long version) {
    RunStart run = runStart(app, version);
    if (run != null && runLocks.containsKey(new RunId(app, version))) {
      run.aborted().set(true);
    }
  }

  /** This store's run {@code version} of {@code app}, if it is the last one it started. */
  private RunStart runStart(String app, long version) {
    RunStart run = runStarts.get(app);
    return run != null && run.version() == version ? run : null;
  }

  /**
   * Records the run's end and gives its lock back: its claims stand for the rest of the round.
   * A run stopped early records no end: once the claims of the components it finished are marked
   * (its leases given back), the others look as a dead run's, and the workers still in the round
   * take them over.
   */
  @Override
  public void runEnded(String app, long version) {
    Long key = runLocks.remove(new RunId(app, version));
    if (key == null) {
      return;
    }
    if (stopped(runStart(app, version))) {
      try {
        releaser.awaitGivenBack();
      } catch (RuntimeException e) {
        // Its finished components may then be taken over too: processed twice, no more.
        log.warn("giving back the leases of run {} of app '{}' failed", version, app, e);
      }
    } else {
      recordRunEnded(app, version);
    }
    try {
      unlockRun(key);
    } catch (SQLException e) {
      // Held until the store closes: the run looks alive meanwhile, which keeps its records.
      log.warn("giving back the lock of run {} of app '{}' failed", version, app, e);
    }
  }

  /**
   * Clears the app's state, then the ends recorded for its runs: its versions start again at 1,
   * and an end recorded for one of them would make a run of that version that dies look ended
   * (what it claimed left to the next run). Failing after the state went, those ends stay, which
   * only delays such work.
   */
  @Override
  public void clear(String app) {
    super.clear(app);
    try {
      inTransaction(c -> {
        try (PreparedStatement ps =
            c.prepareStatement("DELETE FROM cocoindex_run_end WHERE app = ?")) {
          ps.setString(1, app);
          ps.executeUpdate();
        }
      });
    } catch (SQLException e) {
      throw failure("clear the ends recorded for the app's runs", e);
    }
    runsSeen.remove(app);
  }

  /**
   * Records that a run ended, before its lock is given back: a claim of a run whose lock no
   * session holds is taken over unless the run is recorded here (it died otherwise). Records
   * older than {@link #RUN_ENDS_KEPT} go: a run going on longer than that may take over a
   * component a run that ended had finished, which costs that component's work twice, no more.
   */
  private void recordRunEnded(String app, long version) {
    try {
      inTransaction(c -> {
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

  /**
   * Tells the runs ended by their locks: a version below the app's next one when read, whose lock
   * no session holds, has ended (its lock was taken before the version committed, and a lock
   * given back is not taken again). One query tells it for every version allocated so far, and
   * is repeated only for a version allocated since, or alive then.
   */
  @Override
  public Set<Long> endedRuns(String app, Collection<Long> versions) {
    RunsSeen seen = runsSeen.get(app);
    if (seen == null || !seen.tellsAll(versions)) {
      seen = read("read which runs are alive", c -> readRunsSeen(c, app));
      runsSeen.put(app, seen);
    }
    Set<Long> ended = new HashSet<>();
    for (long v : versions) {
      if (seen.ended(v)) {
        ended.add(v);
      }
    }
    return ended;
  }

  private RunsSeen readRunsSeen(Connection c, String app) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT (SELECT next_version FROM "
        + tables.appTable() + " WHERE name = ?), ARRAY(SELECT objid::bigint FROM pg_locks"
        + " WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND classid::bigint = ?"
        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))")) {
      ps.setString(1, app);
      ps.setLong(2, runLockKey(app, 0) >>> 32);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long below = rs.getLong(1); // the statement's snapshot predates its read of the locks
        Set<Long> alive = new HashSet<>();
        for (Long low : (Long[]) rs.getArray(2).getArray()) {
          alive.add(low);
        }
        return new RunsSeen(below, alive);
      }
    }
  }

  /** What one read of the runs told: versions below {@code below} whose locks were held. */
  private record RunsSeen(long below, Set<Long> aliveLowBits) {
    boolean ended(long version) {
      return version < below && !aliveLowBits.contains(version & 0xFFFFFFFFL);
    }

    /** Whether each of {@code versions} was known ended (a run alive then may have ended since). */
    boolean tellsAll(Collection<Long> versions) {
      for (long v : versions) {
        if (!ended(v)) {
          return false;
        }
      }
      return true;
    }
  }

  private record RunId(String app, long version) {}

  /**
   * A run's lock key: 32 bits of the app (and schema: each schema numbers its runs from 1), then
   * the version's low 32 bits.
   */
  private long runLockKey(String app, long version) {
    byte[] fp = Fingerprint.of(Arrays.asList(schemaName, app, "run")).bytes();
    return ((long) ByteBuffer.wrap(fp).getInt() << 32) | (version & 0xFFFFFFFFL);
  }

  /**
   * Marks claims finished (parameters: their apps, paths and run versions) where the run's claim
   * still stands, as {@link #MARK_AND_UNLOCK_SQL} does, in the transaction of the components'
   * commits ({@link StateWrite.ComponentDone}). Claim rows are locked last in that transaction,
   * and only those of components whose advisory locks this worker holds.
   */
  private static final String MARK_FINISHED_SQL = "UPDATE cocoindex_claim c"
      + " SET run_finished_at = c.claimed_at FROM unnest(?::text[], ?::bytea[], ?::bigint[])"
      + " AS f(app, path, version) WHERE c.app = f.app AND c.path = f.path"
      + " AND c.run_version = f.version AND c.run_claimed_at = c.claimed_at";

  /**
   * Other workers lock the same rows: a deadlock or serialization failure is retried. The claims
   * of the components whose work ends in the group are marked finished in its transaction.
   */
  @Override
  protected void commitGroup(List<GroupCommitter.Batch> group) throws SQLException {
    List<FinishedClaim> done = componentsDone(group);
    for (int attempt = 1; ; attempt++) {
      try {
        synchronized (writeConnection) {
          inTransaction(c -> {
            tables.apply(c, group);
            if (!done.isEmpty()) {
              markFinished(c, done);
            }
          });
        }
        return;
      } catch (SQLException e) {
        String state = e.getSQLState();
        boolean retryable = "40P01".equals(state) || "40001".equals(state);
        if (!retryable || attempt >= MAX_ATTEMPTS) {
          throw e;
        }
        log.debug("a group of {} batches is written again (attempt {}): {}", group.size(),
            attempt + 1, e.getMessage());
        try {
          Thread.sleep(5L * attempt);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** The claims the group's {@link StateWrite.ComponentDone} writes mark finished. */
  private static List<FinishedClaim> componentsDone(List<GroupCommitter.Batch> group) {
    List<FinishedClaim> done = new java.util.ArrayList<>();
    for (GroupCommitter.Batch b : group) {
      for (StateWrite w : b.writes()) {
        if (w instanceof StateWrite.ComponentDone d) {
          done.add(new FinishedClaim(b.app(), d.path(), d.runVersion()));
        }
      }
    }
    return done;
  }

  private static void markFinished(Connection c, List<FinishedClaim> done) throws SQLException {
    String[] apps = new String[done.size()];
    byte[][] paths = new byte[done.size()][];
    Long[] versions = new Long[done.size()];
    for (int i = 0; i < apps.length; i++) {
      apps[i] = done.get(i).app();
      paths[i] = done.get(i).path();
      versions[i] = done.get(i).version();
    }
    try (PreparedStatement ps = c.prepareStatement(MARK_FINISHED_SQL)) {
      ps.setArray(1, c.createArrayOf("text", apps));
      ps.setArray(2, c.createArrayOf("bytea", paths));
      ps.setArray(3, c.createArrayOf("bigint", versions));
      ps.executeUpdate();
    }
  }

  @Override
  protected void closeResources() {
    releaser.close();
    for (Connection c : leaseConnections) {
      synchronized (c) {
        closeQuietly(c);
      }
    }
  }


  /**
   * An advisory lock held on one lease connection, with the claim its giving back marks finished
   * (or null), or (with {@code given}) a marker completed once every lock queued before it was
   * given back.
   */
  private record HeldLock(Connection connection, long key, FinishedClaim finished,
      CompletableFuture<Void> given) {}

  /** A claim of run {@code version} to mark finished. */
  private record FinishedClaim(String app, byte[] path, long version) {}

  /**
   * Marks claims finished (parameters: their apps, paths and run versions), then gives locks
   * back (the keys), in one round trip: the marks go first (the filter's subquery is evaluated
   * before any row), so a failing mark gives nothing back (and the locks are then given back
   * alone: a lock is re-entrant, and given back twice would drop another hold of it). A claim
   * is marked only where this run's claim still stands, by the time it was written ({@code
   * run_finished_at = claimed_at}: a boolean would outlive a later claim written by a worker of
   * the version before, which leaves the column as it was).
   */
  private static final String MARK_AND_UNLOCK_SQL = "WITH marked AS (UPDATE cocoindex_claim c"
      + " SET run_finished_at = c.claimed_at FROM unnest(?::text[], ?::bytea[], ?::bigint[])"
      + " AS f(app, path, version) WHERE c.app = f.app AND c.path = f.path"
      + " AND c.run_version = f.version AND c.run_claimed_at = c.claimed_at RETURNING 1)"
      + " SELECT pg_advisory_unlock(k) FROM unnest(?::bigint[]) AS k"
      + " WHERE (SELECT count(*) FROM marked) >= 0";

  /**
   * Gives advisory locks back on a thread of its own, all those released meanwhile in one
   * statement per connection: a component's commit completes on the state writer's thread, which
   * must not spend a round trip per component on unlocking.
   */
  private final class LeaseReleaser implements AutoCloseable {
    private final java.util.concurrent.LinkedBlockingQueue<HeldLock> queue =
        new java.util.concurrent.LinkedBlockingQueue<>();
    private final HeldLock stop = new HeldLock(null, 0, null, null);
    private final Thread thread = new Thread(this::loop, "cocoindex-pg-lease-release");

    LeaseReleaser() {
      thread.setDaemon(true);
      thread.start();
    }

    /**
     * A lease of {@code app} whose close gives the lock back (once, however often it is closed),
     * counted in {@link #heldLeases} until then. The lease of a component claimed for {@code
     * run} ({@code claimed} not null) marks that claim finished as it gives the lock back,
     * unless the run was stopped early before the close: the engine closes a component's lease
     * once the component is done (committed, or failed), so a worker dying later has its
     * claim stand; one left half done by a run stopped early is taken over as a dead run's.
     */
    AutoCloseable lease(Connection connection, long key, String app, byte[] claimed,
        RunStart run) {
      java.util.concurrent.atomic.AtomicBoolean released =
          new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicInteger held = heldLeases.computeIfAbsent(app,
          a -> new java.util.concurrent.atomic.AtomicInteger());
      held.incrementAndGet();
      return () -> {
        if (released.compareAndSet(false, true)) {
          held.decrementAndGet();
          FinishedClaim finished = claimed == null || run == null || run.aborted().get() ? null
              : new FinishedClaim(app, claimed, run.version());
          queue.add(new HeldLock(connection, key, finished, null));
        }
      };
    }

    private void loop() {
      List<HeldLock> group = new java.util.ArrayList<>();
      while (true) {
        group.clear();
        try {
          group.add(queue.take());
        } catch (InterruptedException e) {
          return;
        }
        queue.drainTo(group);
        boolean stopping = group.remove(stop);
        java.util.Map<Connection, List<HeldLock>> byConnection =
            new java.util.IdentityHashMap<>();
        List<CompletableFuture<Void>> markers = new java.util.ArrayList<>();
        for (HeldLock h : group) {
          if (h.given() != null) {
            markers.add(h.given());
          } else {
            byConnection.computeIfAbsent(h.connection(), c -> new java.util.ArrayList<>()).add(h);
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
      List<FinishedClaim> finished = new java.util.ArrayList<>();
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
            try {
              markAndUnlock(connection, finished, keys);
              return;
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

    private void markAndUnlock(Connection connection, List<FinishedClaim> finished, Long[] keys)
        throws SQLException {
      String[] apps = new String[finished.size()];
      byte[][] paths = new byte[finished.size()][];
      Long[] versions = new Long[finished.size()];
      for (int i = 0; i < apps.length; i++) {
        apps[i] = finished.get(i).app();
        paths[i] = finished.get(i).path();
        versions[i] = finished.get(i).version();
      }
      try (PreparedStatement ps = connection.prepareStatement(MARK_AND_UNLOCK_SQL)) {
        ps.setArray(1, connection.createArrayOf("text", apps));
        ps.setArray(2, connection.createArrayOf("bytea", paths));
        ps.setArray(3, connection.createArrayOf("bigint", versions));
        ps.setArray(4, connection.createArrayOf("bigint", keys));
        ps.execute();
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
        given.get(30, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StateStoreException("interrupted while giving back component leases");
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
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
}
