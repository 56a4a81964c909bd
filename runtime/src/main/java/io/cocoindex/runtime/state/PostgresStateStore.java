package io.cocoindex.runtime.state;

import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.state.PostgresRuns.RunStart;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * whichever worker runs next. A worker whose sessions end while its process lives on (an
 * idle-session timeout, a network cut, {@code pg_terminate_backend}) is taken for dead only after
 * a grace ({@link #DEAD_RUN_GRACE_PROPERTY}), and stops its run within a fraction of it.
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
 * and the schema version is checked. Once they are there and current, opening the store runs no
 * DDL statement: a role with row rights only on them ({@code SELECT, INSERT, UPDATE, DELETE})
 * may run the workers, a role that may create tables in the schema having opened it once. Needs
 * the {@code org.postgresql:postgresql} driver.
 */
public final class PostgresStateStore extends JdbcStateStore {
  private static final Logger log = LoggerFactory.getLogger(PostgresStateStore.class);
  static final int SCHEMA_VERSION = PostgresSchema.VERSION;
  private static final int LEASE_CONNECTIONS = 4;
  private static final int MAX_ATTEMPTS = 8;
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
   * The system property that sets, in milliseconds, how long the other workers still take a run
   * for alive after its lock went, its end not recorded (30,000 unless set; read as a store
   * opens; set the same on every worker). A run's lock goes with its sessions: when its worker
   * dies, but also when its sessions end while the process lives on and may be in the middle of
   * a sink call. Within the grace, another worker leaves that run's claims standing and refuses
   * to change a container below which the run has a write in flight, as for a live run; after
   * it, the run is dead. A run that recorded its end is ended at once. A worker whose sessions
   * end stops its run, starting no further sink call, within an eighth of the grace (a probe of
   * its sessions), or within half of it if the probe hangs ({@link SessionsLostException}). A
   * sink call it had started goes on: one that outlasts the rest of the grace can still land
   * after another worker changed what it writes. Make the grace at least twice the slowest sink
   * call. 0 takes a run whose lock went for dead at once, and probes nothing.
   */
  public static final String DEAD_RUN_GRACE_PROPERTY = "cocoindex.postgres.deadRunGraceMs";
  /** The grace unless {@link #DEAD_RUN_GRACE_PROPERTY} says otherwise, in milliseconds. */
  public static final long DEFAULT_DEAD_RUN_GRACE_MILLIS = 30_000;

  private final DataSource dataSource;
  private final String description;
  /** Whether the lease sessions are still there, for this store's runs. */
  private final PostgresSessionWatch sessions;
  /** Session advisory locks live on these; a key always uses the same one (it must unlock). */
  private final Connection[] leaseConnections;
  private final AtomicInteger nextLeaseConnection = new AtomicInteger();
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
  private final PostgresLeaseReleaser releaser;
  /** This store's runs, and which runs of the apps are alive. */
  private final PostgresRuns runs;
  /** The claims of components for this store's runs. */
  private final PostgresClaims claims;
  /** The schema of the store's tables, read once: part of the lease and run lock keys. */
  private String schemaName = "";
  /** The database of the store's tables, read with {@link #schemaName}. */
  private String databaseName = "";
  /** See {@link #identity}. */
  private final String identity;
  /** The read that follows a lease statement ({@link #leaseComponentsReading}). */
  private final String leaseReadsSql;

  /**
   * Opens the store at a JDBC URL ({@code jdbc:postgresql://host:port/db?user=...}).
   *
   * @param jdbcUrl the database's URL; its password never appears in messages
   * @return the open store, its tables created if missing
   * @throws StateStoreException when the database cannot be reached or its tables created, or
   *     was written by a newer cocoindex
   */
  public static PostgresStateStore open(String jdbcUrl) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl);
    String safe = jdbcUrl.replaceAll("password=[^&]*", "password=***");
    return new PostgresStateStore(ds, safe);
  }

  /**
   * Opens the store on a data source (a pool of the application's, say).
   *
   * @param dataSource gives the store its connections, which it holds until it is closed; named
   *     in messages by its {@code toString}
   * @return the open store, its tables created if missing
   * @throws StateStoreException when the database cannot be reached or its tables created, or
   *     was written by a newer cocoindex
   */
  public static PostgresStateStore open(DataSource dataSource) {
    return new PostgresStateStore(dataSource, dataSource.toString());
  }

  private PostgresStateStore(DataSource dataSource, String description) {
    super(new JdbcStateTables("cocoindex_", true, false), connect(dataSource, description));
    this.dataSource = dataSource;
    this.description = description;
    this.leaseConnections = new Connection[LEASE_CONNECTIONS];
    try {
      for (int i = 0; i < LEASE_CONNECTIONS; i++) {
        leaseConnections[i] = leaseConnect();
      }
      initSchema();
    } catch (RuntimeException e) {
      // The caller gets no store to close: nothing else would close these sessions.
      for (Connection c : leaseConnections) {
        if (c != null) {
          closeLeaseSession(c);
        }
      }
      closeQuietly(writeConnection);
      throw e;
    }
    this.identity = identity(writeConnection, databaseName, schemaName);
    this.leaseReadsSql = PostgresLeaseReads.sql(tables);
    long graceMillis = Math.max(0,
        Long.getLong(DEAD_RUN_GRACE_PROPERTY, DEFAULT_DEAD_RUN_GRACE_MILLIS));
    this.runs = new PostgresRuns(leaseConnections, schemaName, tables, this::inTransaction,
        this::read, TimeUnit.MILLISECONDS.toMicros(graceMillis));
    this.sessions = new PostgresSessionWatch(leaseConnections, description,
        TimeUnit.MILLISECONDS.toNanos(graceMillis), runs::anyGoing);
    this.claims = new PostgresClaims(runs);
    this.releaser = new PostgresLeaseReleaser();
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
   * flush per lease batch and per give-back would cost each round trip a disk sync. It reads
   * committed, whatever the server's default: the read that follows a lease statement in its
   * round trip runs in its implicit transaction, and must not read the snapshot it took before
   * its locks ({@link PostgresLeaseReads}).
   */
  private Connection leaseConnect() {
    Connection c = connect();
    try (Statement s = c.createStatement()) {
      s.execute("SET synchronous_commit TO OFF");
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
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
    return rest.substring(0, end).toLowerCase(Locale.ROOT);
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
          new PostgresSchema(tables, description).makeOrCheck(s);
        }
      });
    } catch (SQLException e) {
      throw failure("create or check its tables", e);
    }
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
   * The lease of a component: its advisory lock, and a claim for this run. A background component
   * ({@code wait} false) already claimed since this worker's run started was (or is being)
   * processed by another worker in this round, and is skipped, unless that worker's run died (its
   * sessions gone: see {@link PostgresClaims#UNLESS_CLAIMED_SINCE}), whose component is taken over.
   * A foreground component is processed whatever its claim says (its parent needs its result), and
   * claims all the same: another worker whose run started earlier, and whose input no longer mounts
   * it, must find it processed in this round and leave it to this worker, not sweep what this one
   * declares there (see {@code OrphanSweep}). A run stopped early ({@link #runAborted}) claims
   * nothing: its background leases are refused, and a foreground one takes the lock only.
   */
  @Override
  public AutoCloseable leaseComponent(String app, byte[] componentPath, boolean wait) {
    if (!wait) {
      // As in a batch: a claim of a run that looks dead is taken over once the runs are read.
      return leaseComponents(app, List.of(componentPath)).get(0);
    }
    return lease(app, lockKey(app, componentPath), componentPath, true, connection -> {
      if (!PostgresRuns.stopped(runs.current(app))) {
        claims.claimOverAny(connection, app, componentPath);
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
    List<AutoCloseable> leases = new ArrayList<>(n);
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
    Map<Connection, List<Integer>> byConnection = new IdentityHashMap<>();
    for (int i = 0; i < keys.length; i++) {
      byConnection.computeIfAbsent(leaseConnection(keys[i]), c -> new ArrayList<>()).add(i);
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
  static SQLException firstWithRest(SQLException failure, SQLException e) {
    if (failure == null) {
      return e;
    }
    failure.addSuppressed(e);
    return failure;
  }

  private Connection leaseConnection(long key) {
    return leaseConnections[Math.floorMod(key, LEASE_CONNECTIONS)];
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
   * back ({@link PostgresLeaseReleaser#lease}).
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
              return releaser.lease(leaseConnection, key, app, claimed, runs.current(app));
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
      sessions.failed(leaseConnection, e);
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
    return leaseComponents(app, componentPaths, true, null, 0).leases();
  }

  /**
   * As {@link #leaseComponents}, in the same round trip: the read follows the lease statement,
   * a statement that starts once the locks are held ({@link PostgresLeaseReads}). A read that
   * fails fails the batch, its leases given back and its claims undone with the read's
   * transaction.
   */
  @Override
  public LeaseBatch leaseComponentsReading(String app, List<byte[]> componentPaths,
      boolean[] readRecords, long maxStates) {
    return leaseComponents(app, componentPaths, true, readRecords, maxStates);
  }

  /**
   * As {@link #leaseComponents}, but a claim of a run that died is not taken over: that run,
   * whose input mounted the component, may have finished it, and its record is not this sweep's
   * to delete.
   */
  @Override
  public List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> componentPaths) {
    return leaseComponents(app, componentPaths, false, null, 0).leases();
  }

  /**
   * Leases {@code componentPaths}; reads the records of those granted that {@code readRecords}
   * (null: none) asks for, and the states of some, up to {@code maxStates} by their records'
   * counts, in the lease statements' round trips.
   */
  private LeaseBatch leaseComponents(String app, List<byte[]> componentPaths,
      boolean takeOverTheDead, boolean[] readRecords, long maxStates) {
    int n = componentPaths.size();
    byte[][] paths = componentPaths.toArray(new byte[0][]);
    Long[] keys = new Long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = lockKey(app, paths[i]);
    }
    RunStart run = runs.current(app);
    if (PostgresRuns.stopped(run)) {
      // Nothing it leases now will be committed: a claim would stand over another worker's
      // (one that finished the component in the round, say), and, left unmarked, have it taken
      // over as a dead run's once this run ends.
      return new LeaseBatch(LeaseBatchReads.nulls(n), LeaseBatchReads.nulls(n),
          LeaseBatchReads.nulls(n));
    }
    Connection leaseConnection =
        leaseConnections[Math.floorMod(nextLeaseConnection.getAndIncrement(), LEASE_CONNECTIONS)];
    Set<ByteKey> granted = new HashSet<>();
    Map<ByteKey, Long> lookDead = new HashMap<>();
    List<PostgresLeaseReads> reads = new ArrayList<>();
    Long[] trying = keys;
    try {
      synchronized (leaseConnection) {
        // No run known dead at first: a read of the runs kept from earlier (endedRuns') may
        // predate a dropState, after which versions are allocated again from 1.
        claims.leaseBatch(leaseConnection, app, paths, keys, run, null, granted, lookDead,
            reads(app, paths, readRecords, run, maxStates, leaseConnection, reads));
        if (takeOverTheDead && !lookDead.isEmpty()) {
          // Claimed by runs that look dead now: read the runs (before the statement that takes
          // them over, whose snapshot then holds the end of any that gave its lock back) and try
          // once more the components of those that are dead, their grace passed. Those of a run
          // still in its grace are skipped, as a live run's: its process may be applying them.
          Set<Long> dead = runs.ended(app, new HashSet<>(lookDead.values()), true);
          List<byte[]> again = new ArrayList<>();
          List<Long> againKeys = new ArrayList<>();
          boolean[] againRead = readRecords == null ? null : new boolean[lookDead.size()];
          for (int i = 0; i < n; i++) {
            Long claimant = lookDead.remove(ByteKey.of(paths[i]));
            if (claimant != null && dead.contains(claimant)) {
              if (againRead != null) {
                againRead[again.size()] = readRecords[i];
              }
              again.add(paths[i]);
              againKeys.add(keys[i]);
            }
          }
          trying = againKeys.toArray(new Long[0]);
          byte[][] againPaths = again.toArray(new byte[0][]);
          long statesLeft = maxStates;
          for (PostgresLeaseReads r : reads) {
            statesLeft -= r.statesRead();
          }
          if (againPaths.length > 0) {
            claims.leaseBatch(leaseConnection, app, againPaths, trying, run, dead, granted,
                lookDead, reads(app, againPaths, againRead, run, statesLeft, leaseConnection,
                    reads));
          }
        }
      }
    } catch (SQLException e) {
      sessions.failed(leaseConnection, e);
      // No lease reaches the caller: what the first statement granted, and what the failing
      // one locked (session locks outlive its error; which ones is not known, and giving back
      // one not held only warns), would be held until the store closes. This session holds no
      // other lease of a component it leases here.
      Set<Long> held = new LinkedHashSet<>(List.of(trying));
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
    List<AutoCloseable> leases = new ArrayList<>(n);
    List<Optional<ComponentRecord>> records = LeaseBatchReads.nulls(n);
    List<List<TrackedState>> states = LeaseBatchReads.nulls(n);
    for (int i = 0; i < n; i++) {
      ByteKey path = ByteKey.of(paths[i]);
      if (!granted.contains(path)) {
        leases.add(null);
        continue;
      }
      // Advisory locks are re-entrant per session: each granted row holds one lock to give back.
      leases.add(releaser.lease(leaseConnection, keys[i], app, paths[i], run));
      if (readRecords != null && readRecords[i] && !reads.isEmpty()) {
        // Each granted component was read by the statement that granted it.
        ComponentRecord record = null;
        List<TrackedState> owned = null;
        for (PostgresLeaseReads r : reads) {
          record = record != null ? record : r.records.get(path);
          owned = owned != null ? owned : r.states.get(path);
        }
        records.set(i, Optional.ofNullable(record));
        states.set(i, owned);
      }
    }
    return new LeaseBatch(leases, records, states);
  }

  /**
   * The read to follow a lease statement of {@code paths}, noted in {@code made}; null when
   * none is asked for ({@code readRecords} null or all false) or no run claims.
   */
  private PostgresLeaseReads reads(String app, byte[][] paths, boolean[] readRecords,
      RunStart run, long maxStates, Connection leaseConnection, List<PostgresLeaseReads> made)
      throws SQLException {
    if (readRecords == null || run == null) {
      return null;
    }
    List<byte[]> asked = new ArrayList<>();
    for (int i = 0; i < paths.length; i++) {
      if (readRecords[i]) {
        asked.add(paths[i]);
      }
    }
    if (asked.isEmpty()) {
      return null;
    }
    PostgresLeaseReads r = new PostgresLeaseReads(leaseReadsSql, app,
        asked.toArray(new byte[0][]), run.version(), Math.max(0, maxStates),
        tables.settledRuns(leaseConnection, app));
    made.add(r);
    return r;
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
  public Optional<ComponentRecord> component(String app, byte[] path) {
    try {
      return Optional.ofNullable(componentReads.get(app, path));
    } catch (SQLException e) {
      throw failure("read a component", e);
    }
  }

  /** With the reads other threads make meanwhile, in one query per 500 paths. */
  @Override
  public List<Optional<ComponentRecord>> componentsAt(String app, List<byte[]> paths) {
    try {
      List<Optional<ComponentRecord>> out = new ArrayList<>(paths.size());
      for (ComponentRecord r : componentReads.getAll(app, paths)) {
        out.add(Optional.ofNullable(r));
      }
      return out;
    } catch (SQLException e) {
      throw failure("read components", e);
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

  /** With the reads other threads make meanwhile, in one query per 500 components. */
  @Override
  public List<List<TrackedState>> ownedByEach(String app, List<byte[]> componentPaths) {
    try {
      return ownedReads.getAll(app, componentPaths);
    } catch (SQLException e) {
      throw failure("read components' target states", e);
    }
  }

  @Override
  public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
    if (paths.isEmpty()) {
      return List.of();
    }
    try {
      List<TrackedState> out = new ArrayList<>(paths.size());
      Map<ByteKey, byte[]> distinct = new LinkedHashMap<>();
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

  @Override
  public void runLostATask(String app) {
    releaser.runLostATask(app);
  }

  /**
   * A run starts by taking its version: remember when, in the server's clock, per app, and take
   * the run's lock (see {@link #endedRuns}) before the version commits, so whoever sees the
   * version allocated sees the lock held until the run ends or its worker dies.
   */
  @Override
  public long nextVersion(String app) {
    Throwable lost = sessions.lostBy();
    if (lost != null) {
      throw new StateStoreException("state store " + description + ": cannot start a run: its"
          + " lease sessions were lost (" + lost.getMessage() + "); close it and open it again",
          lost);
    }
    releaser.awaitGivenBack();
    releaser.refuseRunWhileLostLeasesHeld(app);
    long sent = System.nanoTime();
    try {
      long version = runs.start(app);
      sessions.confirmed(sent); // the run's lock taken on every lease session
      return version;
    } catch (SQLException e) {
      throw failure("allocate a run version", e);
    }
  }

  /**
   * Throws once this store's lease sessions were lost, or (with a grace, {@link
   * #DEAD_RUN_GRACE_PROPERTY}) were not confirmed there within half of it: the other workers may
   * soon take the run for dead.
   */
  @Override
  public void checkRunAlive(String app, long version) {
    sessions.check(app, version);
  }

  /**
   * From now on the run's leases are given back without marking their claims finished: a
   * component it leased may have been left half done.
   */
  @Override
  public void runAborted(String app, long version) {
    runs.aborted(app, version);
  }

  /**
   * Records the run's end and gives its lock back: its claims stand for the rest of the round.
   * A run stopped early records no end: once the claims of the components it finished are marked
   * (its leases given back), the others look as a dead run's, and the workers still in the round
   * take them over.
   */
  @Override
  public void runEnded(String app, long version) {
    releaser.forgetMarked(app, version);
    Long key = runs.forgetLock(app, version);
    if (key == null) {
      return;
    }
    if (PostgresRuns.stopped(runs.runStart(app, version))) {
      try {
        releaser.awaitGivenBack();
      } catch (RuntimeException e) {
        // Its finished components may then be taken over too: processed twice, no more.
        log.warn("giving back the leases of run {} of app '{}' failed", version, app, e);
      }
    } else {
      runs.recordEnd(app, version);
    }
    try {
      runs.unlock(key);
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
      runs.deleteEnds(app);
    } catch (SQLException e) {
      throw failure("clear the ends recorded for the app's runs", e);
    }
    runs.forgetSeen(app);
  }

  /**
   * Tells the runs ended by their locks: a version below the app's next one when read, whose lock
   * no session holds (its lock was taken before the version committed, and a lock given back is
   * not taken again), has ended if its end is recorded, or once its lock has been missing for
   * the grace ({@link #DEAD_RUN_GRACE_PROPERTY}) since any worker first saw it so (that sighting
   * is recorded): its sessions may have ended while its process still applies its writes. One query tells it for the versions not known ended
   * yet.
   */
  @Override
  public Set<Long> endedRuns(String app, Collection<Long> versions) {
    return runs.ended(app, versions, false);
  }

  /**
   * Other workers lock the same rows: a deadlock or serialization failure is retried. The claims
   * of the components whose work ends in the group are marked finished in its transaction.
   */
  @Override
  protected void commitGroup(List<GroupCommitter.Batch> group) throws SQLException {
    List<PostgresClaims.Finished> done = componentsDone(group);
    for (int attempt = 1; ; attempt++) {
      try {
        inTransaction(c -> {
          tables.apply(c, group);
          if (!done.isEmpty()) {
            // Claim rows last. Only this run's claims match (by version and claim time), and
            // the engine commits a component while it holds its lease: a claim another worker
            // made since (the lease given back early, by a stopped run) is left as it is.
            PostgresClaims.markFinished(c, done);
          }
        });
        if (!done.isEmpty()) {
          releaser.markedWithCommit(done);
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
  private static List<PostgresClaims.Finished> componentsDone(List<GroupCommitter.Batch> group) {
    List<PostgresClaims.Finished> done = new ArrayList<>();
    for (GroupCommitter.Batch b : group) {
      for (StateWrite w : b.writes()) {
        if (w instanceof StateWrite.ComponentDone d) {
          done.add(new PostgresClaims.Finished(b.app(), d.path(), d.runVersion()));
        }
      }
    }
    return done;
  }

  @Override
  protected void closeResources() {
    sessions.close();
    releaser.close();
    for (Connection c : leaseConnections) {
      synchronized (c) {
        closeLeaseSession(c);
      }
    }
  }

  /**
   * Closes a lease session. One of the application's pool ({@link #open(DataSource)}) goes back
   * to it with its session going on: the advisory locks it still holds (a lost task's leases, a
   * run's lock whose give-back failed) would stay held by a connection nobody knows of, not
   * given back as a closed store promises, and the application's own transactions on it would
   * commit without waiting for the WAL flush ({@link #leaseConnect}). Both are undone first; a
   * session that cannot undo them is closed all the same.
   */
  private static void closeLeaseSession(Connection c) {
    try {
      if (!c.isClosed()) {
        try (Statement s = c.createStatement()) {
          s.execute("SELECT pg_advisory_unlock_all()");
          s.execute("RESET synchronous_commit");
        }
      }
    } catch (SQLException e) {
      log.debug("resetting a lease session before it is closed failed", e);
    }
    closeQuietly(c);
  }

}
