package io.cocoindex.runtime.state;

import io.cocoindex.runtime.codec.KeyEncoding;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the JDBC stores share: reads on a few pooled connections, writes group-committed by one
 * writer thread on the write connection, the SQL of {@link JdbcStateTables}. A subclass opens
 * the write connection, creates its schema, then calls {@link #start}.
 */
abstract class JdbcStateStore implements StateStore {
  private static final Logger log = LoggerFactory.getLogger(JdbcStateStore.class);
  private static final int READERS = 4;

  /** Work inside one transaction of the write connection. */
  interface TransactionWork {
    void run(Connection c) throws SQLException;
  }

  /** The SQL of the store's tables. */
  protected final JdbcStateTables tables;
  /** The connection every write goes through, one transaction at a time. */
  protected final Connection writeConnection;
  private ReadConnections readers;
  private GroupCommitter committer;
  private volatile boolean closed;

  JdbcStateStore(JdbcStateTables tables, Connection writeConnection) {
    this.tables = tables;
    this.writeConnection = writeConnection;
  }

  /**
   * Starts the read pool and the group-commit writer; call once the schema is ready.
   *
   * @param writerThread the name of the group-commit writer's thread
   */
  protected final void start(String writerThread) {
    // Reads of a store shared over the network may wait on round trips: the engine's pool
    // should add a thread meanwhile. Embedded reads take microseconds: no compensation threads.
    this.readers = new ReadConnections(this::connect, READERS, !exclusiveWhileLocked());
    this.committer = new GroupCommitter(
        writerThread, this::commitGroup, e -> failure("commit tracking records", e));
  }

  /**
   * A new connection to the store's database.
   *
   * @return an open connection in auto-commit mode
   */
  protected abstract Connection connect();

  /**
   * Names the store in error messages (never with a password).
   *
   * @return the store's description
   */
  protected abstract String description();

  /**
   * One transaction over a group of write batches, on the committer's thread.
   *
   * @param group the batches to apply, in order
   * @throws SQLException if the transaction fails (it is rolled back: none of the group applies)
   */
  protected void commitGroup(List<GroupCommitter.Batch> group) throws SQLException {
    inTransaction(c -> tables.apply(c, group));
  }

  /**
   * Runs {@code work} in one transaction of the write connection, through the driver's
   * transaction calls; a store may begin its transactions otherwise ({@link SqliteStateStore}).
   *
   * @param work what to run; it commits if it returns, and is rolled back if it throws
   * @throws SQLException if {@code work} or the commit fails (a failed rollback is suppressed in it)
   */
  protected void inTransaction(TransactionWork work) throws SQLException {
    synchronized (writeConnection) {
      Connection c = writeConnection;
      c.setAutoCommit(false);
      try {
        work.run(c);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        // The work's failure is the one reported: a rollback failing too (a connection lost)
        // goes with it, not in its place, so a caller sees the cause (and its SQLState).
        try {
          c.rollback();
        } catch (SQLException rollback) {
          e.addSuppressed(rollback);
        }
        throw e;
      } finally {
        restoreAutoCommit(c);
      }
    }
  }

  /**
   * Puts the write connection back in auto-commit mode, never failing the transaction that ended:
   * one that committed must not be reported as failed (and retried), and one that failed is
   * reported by its own error. A connection that cannot is broken; its next use says so.
   */
  private void restoreAutoCommit(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException e) {
      log.warn("state store {}: the write connection did not return to auto-commit after a"
          + " transaction: {}", description(), e.getMessage());
    }
  }

  /**
   * The error a store operation reports for a database failure.
   *
   * @param what the operation, as in "cannot {@code what}"
   * @param e the database's failure, kept as the cause
   * @return an exception naming the store, the operation and the database's message
   */
  protected final StateStoreException failure(String what, SQLException e) {
    return new StateStoreException(
        "state store " + description() + ": cannot " + what + ": " + e.getMessage(), e);
  }

  /**
   * Runs {@code op} on one of the read connections.
   *
   * @param <T> what {@code op} returns
   * @param op the read
   * @return what {@code op} returned
   * @throws SQLException if {@code op} fails
   */
  protected final <T> T onReadConnection(ReadConnections.Read<T> op) throws SQLException {
    return readers.read(op);
  }

  /**
   * Runs {@code op} on one of the read connections, a database failure reported as the store's.
   *
   * @param <T> what {@code op} returns
   * @param what the read, for the error ("cannot {@code what}")
   * @param op the read
   * @return what {@code op} returned
   * @throws StateStoreException if {@code op} fails with an {@link SQLException}
   */
  protected final <T> T read(String what, ReadConnections.Read<T> op) {
    try {
      return readers.read(op);
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  @Override
  public long nextVersion(String app) {
    long[] version = new long[1];
    try {
      inTransaction(c -> {
        version[0] = tables.nextVersion(c, app);
      });
    } catch (SQLException e) {
      throw failure("allocate a run version", e);
    }
    return version[0];
  }

  @Override
  public boolean recordsSettledRuns() {
    return tables.settledRunsTable() != null;
  }

  @Override
  public void runSettled(String app, long version) {
    if (!recordsSettledRuns()) { // its SQL would name no table
      throw new UnsupportedOperationException(description() + " does not record settled runs");
    }
    SettledRuns[] runs = new SettledRuns[1];
    try {
      inTransaction(c -> runs[0] = tables.addSettledRun(c, app, version));
    } catch (SQLException e) {
      throw failure("record a settled run", e);
    }
    tables.useSettledRuns(app, runs[0]);
  }

  @Override
  public Optional<TrackedState> get(String app, byte[] path) {
    return read("read a target state", c -> tables.get(c, app, path));
  }

  @Override
  public boolean hasStates(String app) {
    return read("look for target states", c -> tables.hasStates(c, app));
  }

  @Override
  public void scan(String app, byte[] path, Consumer<TrackedState> visitor) {
    read("scan target states", c -> {
      tables.scan(c, app, path, visitor);
      return null;
    });
  }

  /** A window at a time, each read in one query, and visited once its connection is back. */
  @Override
  public void ownedInSubtree(String app, byte[] componentPath, OwnerVisitor visitor) {
    byte[] end = KeyEncoding.descendantsEnd(componentPath);
    for (byte[] from = componentPath; from != null; ) {
      byte[] start = from;
      JdbcStateTables.OwnedWindow window =
          read("read a subtree's target states", c -> tables.ownedWindow(c, app, start, end));
      window.owners().forEach((owner, states) -> visitor.visit(owner.bytes(), states.get()));
      from = window.next();
    }
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
  public List<byte[]> componentPathsBelow(String app, byte[] path) {
    return read("read components", c -> tables.componentPathsBelow(c, app, path));
  }

  @Override
  public void componentsInOrder(String app, Consumer<ComponentRecord> visitor) {
    read("read components", c -> {
      tables.components(c, app, visitor);
      return null;
    });
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
      inTransaction(c -> tables.clear(c, app));
    } catch (SQLException e) {
      throw failure("clear the app's state", e);
    }
  }

  /** Releases what the subclass holds beyond the shared connections. */
  protected void closeResources() {}

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
    closeResources();
  }

  static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      log.debug("closing a state store connection failed", e);
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + description() + "]";
  }
}
