package io.cocoindex.runtime.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
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
  private final BlockingQueue<Connection> readers = new ArrayBlockingQueue<>(READERS);
  private final List<Connection> allReaders = new ArrayList<>();
  private final LinkedBlockingQueue<PendingWrite> writes = new LinkedBlockingQueue<>();
  private final Thread writer;
  private final Connection writeConnection;
  private final FileUpdateLocks locks;
  private volatile boolean closed;

  private record PendingWrite(String app, List<StateWrite> writes, CompletableFuture<Void> done) {}

  private static final PendingWrite STOP = new PendingWrite(null, List.of(), null);

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
    this.writer = new Thread(this::writeLoop, "cocoindex-state-writer");
    writer.setDaemon(true);
    writer.start();
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
    } catch (SQLException e) {
      throw new StateStoreException(
          "cannot read the state store " + file + ": " + e.getMessage()
              + " (the file is corrupt or not a cocoindex state database; move it away to start"
              + " afresh, which forgets what was tracked)", e);
    }
  }

  @Override
  public AutoCloseable lockForUpdate(String app) {
    return locks.acquire(app);
  }

  @Override
  public long nextVersion(String app) {
    CompletableFuture<Long> result = new CompletableFuture<>();
    try {
      synchronized (writeConnection) {
        writeConnection.setAutoCommit(false);
        try (PreparedStatement up =
                writeConnection.prepareStatement(
                    "INSERT INTO app(name, next_version) VALUES(?, 2)"
                        + " ON CONFLICT(name) DO UPDATE SET next_version = next_version + 1");
            PreparedStatement get =
                writeConnection.prepareStatement("SELECT next_version FROM app WHERE name=?")) {
          up.setString(1, app);
          up.executeUpdate();
          get.setString(1, app);
          try (ResultSet rs = get.executeQuery()) {
            rs.next();
            result.complete(rs.getLong(1) - 1);
          }
          writeConnection.commit();
        } catch (SQLException e) {
          writeConnection.rollback();
          throw e;
        } finally {
          writeConnection.setAutoCommit(true);
        }
      }
    } catch (SQLException e) {
      throw failure("allocate a run version", e);
    }
    return result.join();
  }

  private interface ReadOp<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T read(String what, ReadOp<T> op) {
    Connection c = readers.poll();
    if (c == null) {
      synchronized (allReaders) {
        if (allReaders.size() < READERS) {
          c = connect();
          allReaders.add(c);
        }
      }
      if (c == null) {
        try {
          c = readers.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StateStoreException("interrupted while waiting to " + what);
        }
      }
    }
    try {
      return op.run(c);
    } catch (SQLException e) {
      throw failure(what, e);
    } finally {
      readers.offer(c);
    }
  }

  private static final String STATE_COLUMNS =
      "path, owner, records, child_gen, child_epoch, parent_gen, parent_epoch";

  private static TrackedState state(ResultSet rs) throws SQLException {
    return new TrackedState(
        rs.getBytes(1),
        rs.getBytes(2),
        RecordListEncoding.decode(rs.getBytes(3)),
        rs.getLong(4),
        rs.getLong(5),
        rs.getLong(6),
        rs.getLong(7));
  }

  @Override
  public Optional<TrackedState> get(String app, byte[] path) {
    return read(
        "read a target state",
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT " + STATE_COLUMNS + " FROM target_state WHERE app=? AND path=?")) {
            ps.setString(1, app);
            ps.setBytes(2, path);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? Optional.of(state(rs)) : Optional.empty();
            }
          }
        });
  }

  @Override
  public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
    if (paths.isEmpty()) {
      return List.of();
    }
    return read(
        "read target states",
        c -> {
          List<TrackedState> out = new ArrayList<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT " + STATE_COLUMNS + " FROM target_state WHERE app=? AND path=?")) {
            for (byte[] path : paths) {
              ps.setString(1, app);
              ps.setBytes(2, path);
              try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                  out.add(state(rs));
                }
              }
            }
          }
          return out;
        });
  }

  @Override
  public List<TrackedState> ownedBy(String app, byte[] componentPath) {
    return read(
        "read a component's target states",
        c -> {
          List<TrackedState> out = new ArrayList<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT " + STATE_COLUMNS + " FROM target_state WHERE app=? AND owner=?")) {
            ps.setString(1, app);
            ps.setBytes(2, componentPath);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(state(rs));
              }
            }
          }
          return out;
        });
  }

  @Override
  public void scan(String app, byte[] path, Consumer<TrackedState> visitor) {
    read(
        "scan target states",
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT " + STATE_COLUMNS + " FROM target_state"
                      + " WHERE app=? AND path>=? AND path<? ORDER BY path")) {
            ps.setString(1, app);
            ps.setBytes(2, path);
            ps.setBytes(3, io.cocoindex.runtime.codec.KeyEncoding.descendantsEnd(path));
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                visitor.accept(state(rs));
              }
            }
          }
          return null;
        });
  }

  private static ComponentRecord component(ResultSet rs) throws SQLException {
    return new ComponentRecord(
        rs.getBytes(1), rs.getBytes(2), rs.getBytes(3), rs.getBytes(4), rs.getLong(5));
  }

  @Override
  public Optional<ComponentRecord> component(String app, byte[] path) {
    return read(
        "read a component",
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT path, memo_fp, memo_deps, memo_values, state_count FROM component"
                      + " WHERE app=? AND path=?")) {
            ps.setString(1, app);
            ps.setBytes(2, path);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? Optional.of(component(rs)) : Optional.empty();
            }
          }
        });
  }

  @Override
  public List<ComponentRecord> components(String app) {
    return read(
        "read components",
        c -> {
          List<ComponentRecord> out = new ArrayList<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT path, memo_fp, memo_deps, memo_values, state_count FROM component"
                      + " WHERE app=? ORDER BY path")) {
            ps.setString(1, app);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(component(rs));
              }
            }
          }
          return out;
        });
  }

  @Override
  public List<String> apps() {
    return read(
        "list apps",
        c -> {
          List<String> out = new ArrayList<>();
          try (Statement s = c.createStatement();
              ResultSet rs =
                  s.executeQuery(
                      "SELECT DISTINCT app FROM target_state UNION SELECT DISTINCT app FROM"
                          + " component ORDER BY 1")) {
            while (rs.next()) {
              out.add(rs.getString(1));
            }
          }
          return out;
        });
  }

  @Override
  public CompletableFuture<Void> write(String app, List<StateWrite> batch) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (closed) {
      done.completeExceptionally(new StateStoreException("the state store is closed"));
      return done;
    }
    if (batch.isEmpty()) {
      done.complete(null);
      return done;
    }
    writes.add(new PendingWrite(app, List.copyOf(batch), done));
    return done;
  }

  @Override
  public void clear(String app) {
    try {
      synchronized (writeConnection) {
        writeConnection.setAutoCommit(false);
        try (PreparedStatement a = writeConnection.prepareStatement("DELETE FROM target_state WHERE app=?");
            PreparedStatement b = writeConnection.prepareStatement("DELETE FROM component WHERE app=?");
            PreparedStatement d = writeConnection.prepareStatement("DELETE FROM app WHERE name=?")) {
          for (PreparedStatement ps : List.of(a, b, d)) {
            ps.setString(1, app);
            ps.executeUpdate();
          }
          writeConnection.commit();
        } catch (SQLException e) {
          writeConnection.rollback();
          throw e;
        } finally {
          writeConnection.setAutoCommit(true);
        }
      }
    } catch (SQLException e) {
      throw failure("clear the app's state", e);
    }
  }

  private void writeLoop() {
    List<PendingWrite> group = new ArrayList<>();
    while (true) {
      try {
        group.clear();
        group.add(writes.take());
        writes.drainTo(group);
      } catch (InterruptedException e) {
        return;
      }
      boolean stop = group.remove(STOP);
      if (!group.isEmpty()) {
        commitGroup(group);
      }
      if (stop) {
        return;
      }
    }
  }

  private void commitGroup(List<PendingWrite> group) {
    synchronized (writeConnection) {
      try {
        applyInTransaction(group);
        group.forEach(p -> p.done.complete(null));
        return;
      } catch (SQLException e) {
        if (group.size() == 1) {
          group.get(0).done.completeExceptionally(failure("commit tracking records", e));
          return;
        }
        log.debug("group commit of {} batches failed; committing them one by one", group.size(), e);
      }
      // One bad batch must not fail the others: retry each in its own transaction.
      for (PendingWrite p : group) {
        try {
          applyInTransaction(List.of(p));
          p.done.complete(null);
        } catch (SQLException e) {
          p.done.completeExceptionally(failure("commit tracking records", e));
        }
      }
    }
  }

  private void applyInTransaction(List<PendingWrite> group) throws SQLException {
    Connection c = writeConnection;
    c.setAutoCommit(false);
    try (PreparedStatement put =
            c.prepareStatement(
                "INSERT OR REPLACE INTO target_state(app, " + STATE_COLUMNS
                    + ") VALUES(?,?,?,?,?,?,?,?)");
        PreparedStatement del =
            c.prepareStatement("DELETE FROM target_state WHERE app=? AND path=?");
        PreparedStatement delBelow =
            c.prepareStatement("DELETE FROM target_state WHERE app=? AND path>? AND path<?");
        PreparedStatement putComp =
            c.prepareStatement(
                "INSERT OR REPLACE INTO component(app, path, memo_fp, memo_deps, memo_values,"
                    + " state_count) VALUES(?,?,?,?,?,?)");
        PreparedStatement delComp =
            c.prepareStatement("DELETE FROM component WHERE app=? AND path=?")) {
      for (PendingWrite p : group) {
        for (StateWrite w0 : p.writes) {
          StateWrite w = StateWrites.resolve(w0, path -> readForWrite(c, p.app, path));
          if (w == null) {
            continue;
          }
          if (w instanceof StateWrite.PutState ps) {
            TrackedState s = ps.state();
            put.setString(1, p.app);
            put.setBytes(2, s.path());
            put.setBytes(3, s.owner());
            put.setBytes(4, RecordListEncoding.encode(s.records()));
            put.setLong(5, s.childGeneration());
            put.setLong(6, s.childEpoch());
            put.setLong(7, s.parentGeneration());
            put.setLong(8, s.parentEpoch());
            put.executeUpdate();
          } else if (w instanceof StateWrite.DeleteState ds) {
            del.setString(1, p.app);
            del.setBytes(2, ds.path());
            del.executeUpdate();
          } else if (w instanceof StateWrite.DeleteTree dt) {
            del.setString(1, p.app);
            del.setBytes(2, dt.path());
            del.executeUpdate();
            delBelow.setString(1, p.app);
            delBelow.setBytes(2, dt.path());
            delBelow.setBytes(3, io.cocoindex.runtime.codec.KeyEncoding.descendantsEnd(dt.path()));
            delBelow.executeUpdate();
          } else if (w instanceof StateWrite.DeleteDescendants dd) {
            delBelow.setString(1, p.app);
            delBelow.setBytes(2, dd.path());
            delBelow.setBytes(3, io.cocoindex.runtime.codec.KeyEncoding.descendantsEnd(dd.path()));
            delBelow.executeUpdate();
          } else if (w instanceof StateWrite.PutComponent pc) {
            ComponentRecord r = pc.component();
            putComp.setString(1, p.app);
            putComp.setBytes(2, r.path());
            putComp.setBytes(3, r.memoFingerprint());
            putComp.setBytes(4, r.memoDependencies());
            putComp.setBytes(5, r.memoValues());
            putComp.setLong(6, r.stateCount());
            putComp.executeUpdate();
          } else if (w instanceof StateWrite.DeleteComponent dc) {
            delComp.setString(1, p.app);
            delComp.setBytes(2, dc.path());
            delComp.executeUpdate();
          }
        }
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private TrackedState readForWrite(Connection c, String app, byte[] path) {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + STATE_COLUMNS + " FROM target_state WHERE app=? AND path=?")) {
      ps.setString(1, app);
      ps.setBytes(2, path);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? state(rs) : null;
      }
    } catch (SQLException e) {
      throw new StateStoreException("cannot read a target state to update it: " + e.getMessage(),
          e);
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
    writes.add(STOP);
    try {
      writer.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (allReaders) {
      for (Connection c : allReaders) {
        closeQuietly(c);
      }
    }
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
