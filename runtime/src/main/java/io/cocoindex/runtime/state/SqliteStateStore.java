package io.cocoindex.runtime.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded state store: one SQLite database ({@code state.db}) in WAL mode under the
 * environment's {@code dbPath}, read by a small pool of connections and written by one writer
 * thread that commits concurrently submitted batches in one transaction (group commit).
 *
 * <p>The states a component owns are kept together in a row or a few ({@link
 * ComponentStateTables}), beside a table from each path to its owner. The store is the app's
 * only writer while its update lock is held, so it records settled runs: a run that completes
 * settles what it applied with one write ({@link SettledRuns}).
 */
public final class SqliteStateStore extends JdbcStateStore {
  private static final Logger log = LoggerFactory.getLogger(SqliteStateStore.class);
  /**
   * 2 added the settled runs ({@code settled_run}); 3 keeps a component's states together
   * ({@link ComponentStateTables}) instead of a row per state; 4 stores those chunks in a rowid
   * table; 5 keeps owners by ranges of paths. Older stores are upgraded in place. A store at
   * this version is opened without checking its tables: any change to them bumps it.
   */
  static final int SCHEMA_VERSION = 5;

  /** How durable each commit is. */
  public enum Durability {
    /** fsync on every commit (the default): a committed run survives power loss. */
    FULL,
    /** WAL without fsync per commit: may lose the last commits on power loss, never corrupts. */
    NORMAL
  }

  /** The same tables as {@code tables}, by their type: only they read several owners at once. */
  private final ComponentStateTables chunks;
  private final Path dir;
  private final Path file;
  private final String url;
  /** See {@link #identity}. */
  private final String identity;
  private final Durability durability;
  private final FileUpdateLocks locks;
  /** Per app, the version {@link #nextVersion} handed out that no transaction has stored yet. */
  private final Map<String, Long> unstoredVersions = new ConcurrentHashMap<>();

  /**
   * Opens (creating if needed) the store in directory {@code dir}, with {@link Durability#FULL}.
   *
   * @param dir the state directory; the database is its {@code state.db}
   * @return the open store, upgraded in place if an older cocoindex wrote it
   * @throws StateStoreException when the directory cannot be created, or the database cannot be
   *     read (corrupt, not a cocoindex state database) or was written by a newer cocoindex
   */
  public static SqliteStateStore open(Path dir) {
    return open(dir, Durability.FULL);
  }

  /**
   * Opens (creating if needed) the store in directory {@code dir}, syncing its commits as
   * {@code durability} says.
   *
   * @param dir the state directory; the database is its {@code state.db}
   * @param durability how each commit is synced
   * @return the open store, upgraded in place if an older cocoindex wrote it
   * @throws StateStoreException when the directory cannot be created, or the database cannot be
   *     read (corrupt, not a cocoindex state database) or was written by a newer cocoindex
   */
  public static SqliteStateStore open(Path dir, Durability durability) {
    return new SqliteStateStore(dir, durability);
  }

  private SqliteStateStore(Path dir, Durability durability) {
    this(dir, dir.resolve("state.db"), durability);
  }

  private SqliteStateStore(Path dir, Path file, Durability durability) {
    this(dir, file, durability, new ComponentStateTables());
  }

  private SqliteStateStore(Path dir, Path file, Durability durability,
      ComponentStateTables chunks) {
    super(chunks, connect(dir, file, durability));
    this.chunks = chunks;
    this.dir = dir;
    this.file = file;
    this.url = url(file);
    this.durability = durability;
    this.locks = new FileUpdateLocks(dir);
    initSchema();
    this.identity = "jdbc:sqlite:" + realPath(file);
    start("cocoindex-state-writer");
  }

  /**
   * The file as SQLite opens it, links followed; as spelled (made absolute) should the file
   * system not say.
   */
  private static Path realPath(Path file) {
    try {
      return file.toRealPath();
    } catch (IOException e) {
      return file.toAbsolutePath().normalize();
    }
  }

  private static String url(Path file) {
    return "jdbc:sqlite:" + file.toAbsolutePath();
  }

  /** The write connection, opened before the store exists (its directory created first). */
  private static Connection connect(Path dir, Path file, Durability durability) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StateStoreException("cannot create the state directory " + dir + ": " + e, e);
    }
    return connect(url(file), file, durability);
  }

  /**
   * The database file.
   *
   * @return the path of {@code state.db} in the store's directory
   */
  public Path file() {
    return file;
  }

  /**
   * The database file's real path (links followed, {@code .} and {@code ..} resolved) as a JDBC
   * URL: every store open on the file has it, however its directory was spelled.
   */
  @Override
  public String identity() {
    return identity;
  }

  @Override
  protected Connection connect() {
    return connect(url, file, durability);
  }

  @Override
  protected String description() {
    return file.toString();
  }

  private static Connection connect(String url, Path file, Durability durability) {
    try {
      // The driver directly: DriverManager tries each registered driver, loading its class
      // again through the caller's loader, on every connection an app opens.
      Connection c = org.sqlite.JDBC.createConnection(url, new java.util.Properties());
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
    Connection c = writeConnection;
    try (Statement s = c.createStatement()) {
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
      if (stored != null && stored == SCHEMA_VERSION) {
        // Its tables were created with the version that says so: nothing to create or move
        // (checking each again in a transaction had been a sixth of every open).
        return;
      }
      // Created or upgraded in one transaction: an upgrade that fails leaves the old layout.
      Integer from = stored;
      inTransaction(tx -> {
        if (from != null && from == 3) {
          ComponentStateTables.setAsideChunksOfSchema3(s);
        }
        createSchema(s);
        if (from != null && from < 3) {
          long moved = ComponentStateTables.moveFromRowPerState(tx);
          log.info("state store {}: upgraded from schema version {} to {}, {} target states"
              + " moved", file, from, SCHEMA_VERSION, moved);
        } else if (from != null && from == 3) {
          long moved = ComponentStateTables.moveSetAsideChunks(s);
          long ranges = ComponentStateTables.moveOwnersByPath(tx);
          log.info("state store {}: upgraded from schema version 3 to {}, {} chunks of target"
              + " states and {} owner ranges moved", file, SCHEMA_VERSION, moved, ranges);
        } else if (from != null && from == 4) {
          long ranges = ComponentStateTables.moveOwnersByPath(tx);
          log.info("state store {}: upgraded from schema version 4 to {}, owners kept in {}"
              + " ranges", file, SCHEMA_VERSION, ranges);
        }
        if (from == null) {
          s.execute(
              "INSERT INTO meta(key, value) VALUES('schema_version', '" + SCHEMA_VERSION + "')");
        } else if (from < SCHEMA_VERSION) {
          s.execute("UPDATE meta SET value='" + SCHEMA_VERSION + "' WHERE key='schema_version'");
        }
      });
    } catch (SQLException | NumberFormatException e) {
      throw new StateStoreException(
          "cannot read the state store " + file + ": " + e.getMessage()
              + " (the file is corrupt or not a cocoindex state database; move it away to start"
              + " afresh, which forgets what was tracked)", e);
    }
  }

  private static void createSchema(Statement s) throws SQLException {
    s.execute(
        "CREATE TABLE IF NOT EXISTS app(name TEXT PRIMARY KEY, next_version INTEGER NOT NULL)");
    ComponentStateTables.createTables(s);
    s.execute(
        "CREATE TABLE IF NOT EXISTS component(app TEXT NOT NULL, path BLOB NOT NULL,"
            + " memo_fp BLOB, memo_deps BLOB, memo_values BLOB, state_count INTEGER NOT NULL,"
            + " PRIMARY KEY(app, path)) WITHOUT ROWID");
    s.execute("CREATE TABLE IF NOT EXISTS settled_run(app TEXT NOT NULL,"
        + " first INTEGER NOT NULL, last INTEGER NOT NULL, PRIMARY KEY(app, first))"
        + " WITHOUT ROWID");
  }

  /**
   * A run's version is stored with the run's first write rather than in a transaction of its
   * own: this store is the app's only writer while its update lock is held, so nobody else can
   * take the version meanwhile. A rerun in which nothing changed then writes nothing at all (no
   * transaction, nothing for the close to checkpoint), and the next run gets the same version
   * again, which nothing stored carries.
   */
  @Override
  public long nextVersion(String app) {
    try {
      long version = onReadConnection(c -> tables.peekNextVersion(c, app));
      unstoredVersions.put(app, version);
      return version;
    } catch (SQLException e) {
      throw failure("allocate a run version", e);
    }
  }

  /**
   * Runs {@code work} in one transaction of the write connection, begun {@code IMMEDIATE}: it
   * takes the write lock first, waiting for it up to the busy timeout. Begun deferred, a group's
   * transaction reads first (the chunks it changes), and a read transaction that then cannot take
   * the write lock (another connection writing the file for a moment: an app of another name on
   * the same store, a tool, a reader re-reading a WAL index header that changed under it) fails at
   * once with {@code SQLITE_BUSY}, as SQLite does not wait there. The statements go as SQL, the
   * connection staying in the driver's auto-commit mode: the driver's commit begins the next
   * transaction at once (begun {@code IMMEDIATE}, that would wait for the lock again), and its
   * begin, failing, would leave it taking the next statements for a transaction.
   */
  @Override
  protected void inTransaction(TransactionWork work) throws SQLException {
    synchronized (writeConnection) {
      Connection c = writeConnection;
      try (Statement s = c.createStatement()) {
        s.execute("BEGIN IMMEDIATE");
        try {
          work.run(c);
          s.execute("COMMIT");
        } catch (SQLException | RuntimeException e) {
          try {
            s.execute("ROLLBACK");
          } catch (SQLException rollback) {
            e.addSuppressed(rollback); // the transaction may have ended with the failure
          }
          throw e;
        }
      }
    }
  }

  @Override
  protected void commitGroup(List<GroupCommitter.Batch> group) throws SQLException {
    Map<String, Long> storing = new HashMap<>();
    for (GroupCommitter.Batch b : group) {
      Long version = unstoredVersions.get(b.app());
      if (version != null) {
        storing.put(b.app(), version);
      }
    }
    inTransaction(c -> {
      for (Map.Entry<String, Long> v : storing.entrySet()) {
        tables.takeVersionsBelow(c, v.getKey(), v.getValue() + 1);
      }
      tables.apply(c, group);
    });
    // Stored now; kept if a new run of the app has taken a later version meanwhile.
    storing.forEach((app, version) -> unstoredVersions.remove(app, version));
  }

  @Override
  public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
    if (paths.isEmpty()) {
      return List.of();
    }
    return read("read target states", c -> chunks.getAll(c, app, paths));
  }

  @Override
  public List<TrackedState> ownedBy(String app, byte[] componentPath) {
    return read("read a component's target states", c -> chunks.ownedBy(c, app, componentPath));
  }

  /** In one read transaction: a query per component, without a connection taken for each. */
  @Override
  public List<List<TrackedState>> ownedByEach(String app, List<byte[]> componentPaths) {
    return read("read components' target states", c -> {
      List<List<TrackedState>> out = new ArrayList<>(componentPaths.size());
      for (byte[] path : componentPaths) {
        out.add(chunks.ownedBy(c, app, path));
      }
      return out;
    });
  }

  /** Several components' chunks in one range read of the chunks' index. */
  @Override
  public Map<ByteKey, OwnedStates> ownedByFrom(String app, byte[] componentPath,
      byte[] before, int maxChunks) {
    return read("read components' target states",
        c -> chunks.ownedByFrom(c, app, componentPath, before, maxChunks));
  }

  /** A run that wrote nothing is not recorded: no stored record carries its version. */
  @Override
  public void runSettled(String app, long version) {
    Long unstored = unstoredVersions.get(app);
    if (unstored != null && unstored == version) {
      return;
    }
    super.runSettled(app, version);
  }

  @Override
  public void clear(String app) {
    super.clear(app);
    unstoredVersions.remove(app);
  }

  /** The update lock is a file lock on this machine: one writing process per app. */
  @Override
  public boolean exclusiveWhileLocked() {
    return true;
  }

  @Override
  public AutoCloseable lockForUpdate(String app) {
    return locks.acquire(app);
  }

  @Override
  protected void closeResources() {
    locks.close();
  }

}
