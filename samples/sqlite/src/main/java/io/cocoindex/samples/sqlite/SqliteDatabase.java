package io.cocoindex.samples.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SQLite database the connector writes to: one connection (SQLite has a single writer), used
 * under a lock, in WAL mode. Provide it to apps with a {@code ContextKey<SqliteDatabase>}; the
 * key's name identifies the database in target-state keys.
 */
public final class SqliteDatabase implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SqliteDatabase.class);
  private final String location;
  private final String url;
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicLong statements = new AtomicLong();
  private final AtomicLong transactions = new AtomicLong();
  private Connection connection;
  /** The identity of the file {@link #connection} was opened on ({@link #fileKey}). */
  private Object openedFile;
  /** Tests' fault injection: see {@link #failBefore}; null when none. */
  private volatile Predicate<String> failBefore;
  /** Tests' fault injection: see {@link #failAfterCommit}; null when none. */
  private volatile Predicate<String> failAfterCommit;
  /** Whether the current transaction ran a statement {@link #failAfterCommit} matches. */
  private boolean failThisCommit;

  /** How long a statement waits for another connection's lock before failing with BUSY. */
  static final int BUSY_TIMEOUT_MS = 10_000;

  /** SQLite's primary result code for a lock another connection holds. */
  private static final int SQLITE_BUSY = 5;

  private SqliteDatabase(String location) {
    this.location = location;
    this.url = "jdbc:sqlite:" + location;
  }

  /**
   * A database file (created on first use).
   *
   * @param file the database file's path; symbolic links are resolved now (in its folder when
   *     it does not exist yet), so two paths to one file are one database
   * @return the database, not yet connected: the connection opens on first use, and an
   *     unusable file fails there, not here
   */
  public static SqliteDatabase open(Path file) {
    return new SqliteDatabase(realLocation(file));
  }

  /**
   * Where {@code file} really is, symbolic links resolved (in its folder when it does not exist
   * yet): two paths to one file, one through a link (a deploy's {@code current -> releases/N}),
   * must read as the same database, or a table moved between their keys would be dropped as
   * if it had moved to another file.
   */
  private static String realLocation(Path file) {
    Path absolute = file.toAbsolutePath().normalize();
    try {
      if (Files.exists(absolute)) {
        return absolute.toRealPath().toString();
      }
      Path folder = absolute.getParent();
      if (folder != null && Files.isDirectory(folder)) {
        return folder.toRealPath().resolve(absolute.getFileName()).toString();
      }
    } catch (IOException e) {
      // Unreadable on the way: the path as given, which opening the database then reports.
    }
    return absolute.toString();
  }

  /**
   * The database file's real path: what two {@code SqliteDatabase}s share when they are the same
   * database (provided under two names, opened twice, or reached through a link).
   */
  String location() {
    return location;
  }

  /**
   * Work done on the database's connection: in one transaction ({@link #inTransaction}), or
   * reads ({@link #read}).
   *
   * @param <T> the type of the work's result
   */
  @FunctionalInterface
  public interface Work<T> {
    /**
     * Does the work on {@code c}: inside the transaction for {@link #inTransaction}, outside any
     * for {@link #read}.
     *
     * @param c the database's connection, in the driver's auto-commit mode: {@link
     *     #inTransaction} begins and ends its transaction around the work as SQL, so do not
     *     commit, roll back or close it
     * @return the result {@link #inTransaction} or {@link #read} returns
     * @throws SQLException when a statement fails; {@link #inTransaction} then rolls its
     *     transaction back
     */
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work} in one transaction, committed when it returns, rolled back if it throws.
   *
   * <p>The transaction begins {@code IMMEDIATE}, taking the write lock first and waiting for it up
   * to the busy timeout: begun deferred, a transaction that reads first (a table's columns before
   * altering it) and then cannot take the write lock, because another connection writes the file
   * (an application sharing the database), fails at once with {@code SQLITE_BUSY}, as SQLite does
   * not wait there. The statements go as SQL, the connection staying in the driver's auto-commit
   * mode: the driver's commit would begin the next transaction at once, waiting for the lock.
   *
   * @param work the statements to run in the transaction
   * @param <T> the type of the work's result
   * @return what {@code work} returned, once the transaction committed
   * @throws SQLException when the connection cannot be opened, the transaction cannot begin
   *     (another connection held the write lock past the busy timeout) or commit, or {@code work}
   *     throws it; its message names the database file, and says when the write lock was held
   *     by another connection
   */
  public <T> T inTransaction(Work<T> work) throws SQLException {
    try {
      return transaction(work);
    } catch (SQLException e) {
      // Named, since an app may write several databases (and keeps its state in another).
      boolean busy = (e.getErrorCode() & 0xff) == SQLITE_BUSY;
      throw new SQLException("database " + location + ": " + e.getMessage()
          + (busy ? " (another connection held its write lock for the " + BUSY_TIMEOUT_MS / 1000
              + " s this connection waits)" : ""), e.getSQLState(), e.getErrorCode(), e);
    }
  }

  private <T> T transaction(Work<T> work) throws SQLException {
    lock.lock();
    try {
      Connection c = connection();
      transactions.incrementAndGet();
      try (Statement s = c.createStatement()) {
        s.execute("BEGIN IMMEDIATE");
        failThisCommit = false;
        try {
          T result = work.run(c);
          s.execute("COMMIT");
          if (failThisCommit) {
            throw new SQLException("injected failure after the commit (as a process killed"
                + " before the engine learns of it)");
          }
          return result;
        } catch (SQLException | RuntimeException e) {
          try {
            s.execute("ROLLBACK");
          } catch (SQLException rollback) {
            e.addSuppressed(rollback); // the transaction may have ended with the failure
          }
          throw e;
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs read-only work (queries from tests and apps), under the lock but outside any
   * transaction this class begins.
   *
   * @param work the queries to run
   * @param <T> the type of the work's result
   * @return what {@code work} returned
   * @throws SQLException when the connection cannot be opened or {@code work} throws it, as it
   *     was thrown
   */
  public <T> T read(Work<T> work) throws SQLException {
    lock.lock();
    try {
      return work.run(connection());
    } finally {
      lock.unlock();
    }
  }

  /**
   * For connector tests: a statement whose SQL {@code p} matches fails before it runs, rolling
   * its transaction back, as a process killed there would; null stops it.
   */
  void failBefore(Predicate<String> p) {
    failBefore = p;
  }

  /**
   * For connector tests: a transaction that ran a statement whose SQL {@code p} matches commits,
   * then its call fails, as when the process is killed before the engine learns of the commit;
   * null stops it.
   */
  void failAfterCommit(Predicate<String> p) {
    failAfterCommit = p;
  }

  private void injectFaults(String sql) throws SQLException {
    Predicate<String> before = failBefore;
    if (before != null && before.test(sql)) {
      throw new SQLException("injected failure before [" + sql + "]");
    }
    Predicate<String> after = failAfterCommit;
    if (after != null && after.test(sql)) {
      failThisCommit = true;
    }
  }

  /** Executes one statement of SQL text built from checked identifiers only. */
  void execute(Connection c, String sql) throws SQLException {
    statements.incrementAndGet();
    injectFaults(sql);
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new SQLException(e.getMessage() + " [in: " + sql + "]", e.getSQLState(),
          e.getErrorCode(), e);
    }
  }

  /** Prepares a statement, counting its executions as one statement per batch. */
  PreparedStatement prepare(Connection c, String sql) throws SQLException {
    statements.incrementAndGet();
    injectFaults(sql);
    return c.prepareStatement(sql);
  }

  /**
   * Statements (or statement batches) sent so far: an unchanged rerun sends none. The look a run
   * takes for each table it would not otherwise touch (dropped by hand?) is not counted.
   *
   * @return the number of statements and statement batches sent since the database was opened
   */
  public long statementsExecuted() {
    return statements.get();
  }

  /**
   * Transactions begun so far by {@link #inTransaction}: an unchanged rerun begins none.
   *
   * @return the number of transactions begun since the database was opened, failed ones
   *     included
   */
  public long transactionsBegun() {
    return transactions.get();
  }

  /**
   * The open connection, opened again when the file it was opened on is no longer the one at
   * {@link #location} (deleted or replaced by hand, a backup restored by a move): a connection
   * keeps writing to the file it opened, which nobody would see again. One {@code stat} per use.
   */
  private Connection connection() throws SQLException {
    if (connection != null && !Objects.equals(openedFile, fileKey())) {
      log.warn("database file {} was deleted or replaced since it was opened: opening it again",
          location);
      connection.close();
      connection = null;
    }
    if (connection == null) {
      connection = DriverManager.getConnection(url);
      try (Statement s = connection.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA busy_timeout=" + BUSY_TIMEOUT_MS);
      }
      openedFile = fileKey();
    }
    return connection;
  }

  /** The identity of the file at {@link #location} (device and inode), or null when none is. */
  private Object fileKey() {
    try {
      return Files.readAttributes(Path.of(location), BasicFileAttributes.class).fileKey();
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public void close() throws SQLException {
    lock.lock();
    try {
      if (connection != null) {
        connection.close();
        connection = null;
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "SqliteDatabase[" + url + "]";
  }
}
