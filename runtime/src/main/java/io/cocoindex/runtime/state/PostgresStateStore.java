package io.cocoindex.runtime.state;

import io.cocoindex.Fingerprint;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;

/**
 * A state store in PostgreSQL, shared by several worker processes running the same app.
 *
 * <p>Work sharing uses PostgreSQL session advisory locks, one per processing component: a worker
 * processes a component only while it holds the component's lock, and skips a component another
 * worker holds (waiting only for foreground components, whose result it needs). Advisory locks
 * need no table, cost no writes, and are released by the server the moment a worker's connection
 * drops: a worker killed with {@code kill -9} blocks nobody, and the components it did not commit
 * are finished by whichever worker runs next. Precommit and settle are read-modify-writes of
 * locked rows ({@code SELECT ... FOR UPDATE}) in one transaction, retried on deadlock or
 * serialization failure.
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
  static final int SCHEMA_VERSION = 1;
  private static final int LEASE_CONNECTIONS = 4;
  private static final int MAX_ATTEMPTS = 8;
  /** Serializes schema creation across workers starting together. */
  private static final long SCHEMA_LOCK = 0x636f636f696e6465L;

  private final DataSource dataSource;
  private final String description;
  /** Session advisory locks live on these; a key always uses the same one (it must unlock). */
  private final Connection[] leaseConnections;
  private final java.util.Map<String, java.sql.Timestamp> runStarts =
      new java.util.concurrent.ConcurrentHashMap<>();

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
      leaseConnections[i] = connect();
    }
    initSchema();
    start("cocoindex-pg-state-writer");
  }

  @Override
  protected Connection connect() {
    return connect(dataSource, description);
  }

  @Override
  protected String description() {
    return description;
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
              + " path BYTEA NOT NULL, claimed_at TIMESTAMPTZ NOT NULL, PRIMARY KEY(app, path))");
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
   * Workers of one app run concurrently on this store, coordinated per component (see {@link
   * #leaseComponent}), so the app-level lock is not exclusive here.
   */
  @Override
  public AutoCloseable lockForUpdate(String app) {
    return NO_LEASE;
  }

  /**
   * The lease of a component: its advisory lock, and for a background component ({@code wait}
   * false) a claim for this run. A component already claimed since this worker's run started
   * was (or is being) processed by another worker in this round, and is skipped; a worker that
   * died after claiming leaves it to the next run.
   */
  @Override
  public AutoCloseable leaseComponent(String app, byte[] componentPath, boolean wait) {
    long key = lockKey(app, componentPath);
    Connection leaseConnection = leaseConnections[(int) Math.floorMod(key, LEASE_CONNECTIONS)];
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
            if (wait || claimForThisRun(leaseConnection, app, componentPath)) {
              return () -> unlock(leaseConnection, key);
            }
            unlock(leaseConnection, key);
            return null;
          }
        }
        if (!wait) {
          return null;
        }
        Thread.sleep(20);
      }
    } catch (SQLException e) {
      throw failure("take a component lease", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateStoreException("interrupted while waiting for a component lease");
    }
  }

  /** Claims the component unless another worker claimed it since this worker's run started. */
  private boolean claimForThisRun(Connection leaseConnection, String app, byte[] componentPath)
      throws SQLException {
    java.sql.Timestamp since = runStarts.get(app);
    try (PreparedStatement ps = leaseConnection.prepareStatement(
        "INSERT INTO cocoindex_claim(app, path, claimed_at) VALUES(?, ?, clock_timestamp())"
            + " ON CONFLICT(app, path) DO UPDATE SET claimed_at = excluded.claimed_at"
            + " WHERE cocoindex_claim.claimed_at < ? RETURNING 1")) {
      ps.setString(1, app);
      ps.setBytes(2, componentPath);
      ps.setTimestamp(3, since != null ? since : new java.sql.Timestamp(Long.MAX_VALUE / 2));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
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

  private static long lockKey(String app, byte[] componentPath) {
    byte[] fp = Fingerprint.of(Arrays.asList(app, componentPath)).bytes();
    return ByteBuffer.wrap(fp).getLong();
  }

  /** A run starts by taking its version: remember when, in the server's clock, per app. */
  @Override
  protected void runStarted(Connection c, String app) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
      rs.next();
      runStarts.put(app, rs.getTimestamp(1));
    }
  }

  /** Other workers lock the same rows: a deadlock or serialization failure is retried. */
  @Override
  protected void commitGroup(List<GroupCommitter.Batch> group) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        synchronized (writeConnection) {
          inTransaction(c -> {
            for (GroupCommitter.Batch b : group) {
              tables.apply(c, b.app(), b.writes());
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
        try {
          Thread.sleep(5L * attempt);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  @Override
  protected void closeResources() {
    for (Connection c : leaseConnections) {
      synchronized (c) {
        closeQuietly(c);
      }
    }
  }

}
