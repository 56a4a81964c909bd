package io.cocoindex.runtime.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded state store: one SQLite database ({@code state.db}) in WAL mode under the
 * environment's {@code dbPath}, read by a small pool of connections and written by one writer
 * thread that commits concurrently submitted batches in one transaction (group commit).
 *
 * <p>Target states live in a {@code WITHOUT ROWID} table keyed by (app, path), so a container's
 * children are one range scan; an index on (app, owner) finds a component's states.
 */
public final class SqliteStateStore implements StateStore {
  private static final Logger log = LoggerFactory.getLogger(SqliteStateStore.class);
  static final int SCHEMA_VERSION = 1;
  private static final int READERS = 4;

  /** How durable each commit is. */
  public enum Durability {
    /** fsync on every commit (the default): a committed run survives power loss. */
    FULL,
    /** WAL without fsync per commit: may lose the last commits on power loss, never corrupts. */
    NORMAL
  }

  private final Path dir;
  private final Path file;
  private final String url;
  private final Durability durability;
  private final ReadConnections readers;
  private final GroupCommitter committer;
  private final Connection writeConnection;
  private final FileUpdateLocks locks;
  private final JdbcStateTables tables = new JdbcStateTables("", false);
  private volatile boolean closed;

  /** Opens (creating if needed) the store in directory {@code dir}. */
  public static SqliteStateStore open(Path dir) {
    return open(dir, Durability.FULL);
  }

  public static SqliteStateStore open(Path dir, Durability durability) {
    return new SqliteStateStore(dir, durability);
  }

  private SqliteStateStore(Path dir, Durability durability) {
    this.dir = dir;
    this.file = dir.resolve("state.db");
    this.url = "jdbc:sqlite:" + file.toAbsolutePath();
    this.durability = durability;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StateStoreException("cannot create the state directory " + dir + ": " + e, e);
    }
    this.locks = new FileUpdateLocks(dir);
    this.writeConnection = connect();
    initSchema();
    this.readers = new ReadConnections(this::connect, READERS);
    this.committer = new GroupCommitter(
        "cocoindex-state-writer", this::commitGroup, e -> failure("commit tracking records", e));
  }

  /** The database file. */
  public Path file() {
    return file;
  }

  private Connection connect() {
    try {
      Connection c = DriverManager.getConnection(url);
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA busy_timeout=10000");
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=" + durability.name());
      }
      return c;
    } catch (SQLException e) {
      throw new StateStoreException(
          "cannot open the state store " + file + ": " + e.getMessage()
              + " (is it a cocoindex state database? move it away to start afresh)", e);
    }
  }

  private void initSchema() {
    try (Statement s = writeConnection.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      Integer stored = null;
      try (ResultSet rs = s.executeQuery("SELECT value FROM meta WHERE key='schema_version'")) {
        if (rs.next()) {
          stored = Integer.parseInt(rs.getString(1));
        }
      }
      if (stored != null && stored > SCHEMA_VERSION) {
        throw new StateStoreException(
            "the state store "
                + file
                + " was written by a newer cocoindex (schema version "
                + stored
                + "; this version understands "
                + SCHEMA_VERSION
                + "): upgrade cocoindex, or point dbPath elsewhere");
      }
      s.execute(
          "CREATE TABLE IF NOT EXISTS app(name TEXT PRIMARY KEY, next_version INTEGER NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS target_state(app TEXT NOT NULL, path BLOB NOT NULL,"
              + " owner BLOB NOT NULL, records BLOB NOT NULL, child_gen INTEGER NOT NULL,"
              + " child_epoch INTEGER NOT NULL, parent_gen INTEGER NOT NULL,"
              + " parent_epoch INTEGER NOT NULL, PRIMARY KEY(app, path)) WITHOUT ROWID");
      s.execute(
          "CREATE INDEX IF NOT EXISTS target_state_owner ON target_state(app, owner)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS component(app TEXT NOT NULL, path BLOB NOT NULL,"
              + " memo_fp BLOB, memo_deps BLOB, memo_values BLOB, state_count INTEGER NOT NULL,"
              + " PRIMARY KEY(app, path)) WITHOUT ROWID");
      if (stored == null) {
        s.execute(
            "INSERT INTO meta(key, value) VALUES('schema_version', '" + SCHEMA_VERSION + "')");
      }
      seedPlannerStatistics(s);
    } catch (SQLException e) {
      throw new StateStoreException(
          "cannot read the state store " + file + ": " + e.getMessage()
              + " (the file is corrupt or not a cocoindex state database; move it away to start"
              + " afresh, which forgets what was tracked)", e);
    }
  }

  /**
   * Without statistics, SQLite answers "the states of one owner" ({@code WHERE app=? AND
   * owner=?}, every column) with a scan of the app's whole primary-key range instead of the
   * owner index: O(states) per component, O(states x components) per run (63 s instead of ~2 s
   * for 100k states in 1,000 components). Seed {@code sqlite_stat1} with the shape of the data
   * (many states per app, about 100 per owner, one per path) unless ANALYZE already wrote real
   * figures, then make the planner reload it.
   */
  private static void seedPlannerStatistics(Statement s) throws SQLException {
    s.execute("ANALYZE sqlite_master");
    s.execute("INSERT INTO sqlite_stat1(tbl, idx, stat) SELECT 'target_state',"
        + " 'target_state_owner', '1000000 1000000 100' WHERE NOT EXISTS"
        + " (SELECT 1 FROM sqlite_stat1 WHERE tbl = 'target_state')");
    s.execute("INSERT INTO sqlite_stat1(tbl, idx, stat) SELECT 'target_state', 'target_state',"
        + " '1000000 1000000 1' WHERE NOT EXISTS (SELECT 1 FROM sqlite_stat1"
        + " WHERE tbl = 'target_state' AND idx = 'target_state')");
    s.execute("ANALYZE sqlite_master");
  }

  @Override
  public AutoCloseable lockForUpdate(String app) {
    return locks.acquire(app);
  }

  @Override
  public long nextVersion(String app) {
    long[] version = new long[1];
    try {
      synchronized (writeConnection) {
        inTransaction(c -> version[0] = tables.nextVersion(c, app));
      }
    } catch (SQLException e) {
      throw failure("allocate a run version", e);
    }
    return version[0];
  }

  private interface TransactionWork {
    void run(Connection c) throws SQLException;
  }

  private void inTransaction(TransactionWork work) throws SQLException {
    Connection c = writeConnection;
    c.setAutoCommit(false);
    try {
      work.run(c);
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private <T> T read(String what, ReadConnections.Read<T> op) {
    try {
      return readers.read(op);
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }


  @Override
  public Optional<TrackedState> get(String app, byte[] path) {
    return read("read a target state", c -> tables.get(c, app, path));
  }

  @Override
  public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
    if (paths.isEmpty()) {
      return List.of();
    }
    return read("read target states", c -> tables.getAll(c, app, paths));
  }

  @Override
  public List<TrackedState> ownedBy(String app, byte[] componentPath) {
    return read("read a component's target states", c -> tables.ownedBy(c, app, componentPath));
  }

  @Override
  public void scan(String app, byte[] path, Consumer<TrackedState> visitor) {
    read("scan target states", c -> {
      tables.scan(c, app, path, visitor);
      return null;
    });
  }

  @Override
  public Optional<ComponentRecord> component(String app, byte[] path) {
    return read("read a component", c -> tables.component(c, app, path));
  }

  @Override
  public List<ComponentRecord> components(String app) {
    return read("read components", c -> tables.components(c, app));
  }

  @Override
  public List<String> apps() {
    return read("list apps", tables::apps);
  }

  @Override
  public CompletableFuture<Void> write(String app, List<StateWrite> batch) {
    return committer.submit(app, batch);
  }


  @Override
  public void clear(String app) {
    try {
      synchronized (writeConnection) {
        inTransaction(c -> tables.clear(c, app));
      }
    } catch (SQLException e) {
      throw failure("clear the app's state", e);
    }
  }


  /** One transaction over a group of write batches (run on the committer's thread). */
  private void commitGroup(List<GroupCommitter.Batch> group) throws SQLException {
    synchronized (writeConnection) {
      inTransaction(c -> {
        for (GroupCommitter.Batch b : group) {
          tables.apply(c, b.app(), b.writes());
        }
      });
    }
  }

  private StateStoreException failure(String what, SQLException e) {
    return new StateStoreException(
        "state store " + file + ": cannot " + what + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    committer.close();
    readers.close();
    synchronized (writeConnection) {
      closeQuietly(writeConnection);
    }
    locks.close();
  }


  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      log.debug("closing a state store connection failed", e);
    }
  }

  @Override
  public String toString() {
    return "SqliteStateStore[" + dir + "]";
  }
}
