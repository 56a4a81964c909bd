package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cocoindex.runtime.TestPostgres;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What a failure while the PostgreSQL store opens, or while it starts a run, leaves on the
 * server: nothing. A session or a run's lock left behind would be held by a live process that
 * no longer knows of it, until that process ends.
 */
class PostgresStoreFailuresTest {

  /** The tables say a newer cocoindex wrote them: the open fails, and closes its sessions. */
  @Test
  void aStoreWrittenByANewerVersionIsRefusedAndLeavesNoSessionOpen() throws Exception {
    try (FreshSchema schema = FreshSchema.create("newer_")) {
      schema.open().close(); // creates the tables
      try (Connection c = DriverManager.getConnection(schema.url());
          Statement s = c.createStatement()) {
        s.execute("UPDATE cocoindex_meta SET value = '99' WHERE key = 'schema_version'");
      }
      String name = "newer_" + UUID.randomUUID().toString().replace("-", "");

      StateStoreException refused = assertThrows(StateStoreException.class,
          () -> PostgresStateStore.open(schema.url() + "&ApplicationName=" + name));

      assertThat(refused).hasMessageContaining("written by a newer cocoindex (schema version 99;"
          + " this version understands " + PostgresStateStore.SCHEMA_VERSION + "): upgrade");
      assertThat(sessionsAfterClose(name)).as("the store's sessions").isZero();
    }
  }

  /**
   * Taking a new run's lock fails on the second of the store's lease sessions (the first took
   * it): the run does not start, and the first gives the lock back. Held, it made the next run,
   * which gets the same version, look alive after it ended, until the store closed.
   */
  @Test
  void aRunWhoseLockCannotBeTakenEverywhereDoesNotStartAndHoldsNoLock() throws Exception {
    try (FreshSchema schema = FreshSchema.create("runlock_")) {
      String name = "runlock_" + UUID.randomUUID().toString().replace("-", "");
      PGSimpleDataSource server = new PGSimpleDataSource();
      server.setURL(schema.url() + "&ApplicationName=" + name);
      AtomicInteger opened = new AtomicInteger();
      AtomicInteger failuresLeft = new AtomicInteger(0);
      // Connections in the order the store opens them: the writer, then four lease sessions.
      javax.sql.DataSource dataSource = (javax.sql.DataSource) Proxy.newProxyInstance(
          getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class},
          (proxy, method, args) -> {
            Object result = invoke(method, server, args);
            if (method.getName().equals("getConnection") && opened.incrementAndGet() == 3) {
              return failingRunLocks((Connection) result, failuresLeft);
            }
            return result;
          });

      try (PostgresStateStore store = PostgresStateStore.open(dataSource)) {
        failuresLeft.set(1);
        StateStoreException failed =
            assertThrows(StateStoreException.class, () -> store.nextVersion("app"));

        assertThat(failed).hasMessageContaining("allocate a run version");
        assertThat(sharedLocksHeld(name)).as("run locks held after the failed start").isZero();
        long version = store.nextVersion("app");
        store.runEnded("app", version);
        assertThat(sharedLocksHeld(name)).as("run locks held after the next run ended").isZero();
      }
    }
  }

  /**
   * A store opened on the application's pool gives its lease sessions back to the pool, where
   * they go on: closed, it leaves them holding no advisory lock (a lease a lost task never gave
   * back, which the store's close is documented to give back) and committing synchronously
   * again. (They went back as the store left them: the lease kept its component locked for every
   * worker, and the application's own transactions on that connection committed without waiting
   * for the WAL flush.)
   */
  @Test
  void aStoreOnAPoolGivesItsLeaseSessionsBackClean() throws Exception {
    try (FreshSchema schema = FreshSchema.create("pooled_")) {
      PGSimpleDataSource server = new PGSimpleDataSource();
      server.setURL(schema.url());
      java.util.List<Connection> handedOut = new java.util.concurrent.CopyOnWriteArrayList<>();
      // A pool, as far as the store can tell: close() hands the session back, open.
      javax.sql.DataSource pool = (javax.sql.DataSource) Proxy.newProxyInstance(
          getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class},
          (proxy, method, args) -> {
            Object result = invoke(method, server, args);
            if (!method.getName().equals("getConnection")) {
              return result;
            }
            Connection real = (Connection) result;
            handedOut.add(real);
            return Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> m.getName().equals("close")
                    ? null : m.getName().equals("isClosed") ? false : invoke(m, real, a));
          });
      try {
        PostgresStateStore store = PostgresStateStore.open(pool);
        long version = store.nextVersion("app");
        AutoCloseable lost = store.leaseComponent("app", new byte[] {1}, true);
        assertThat(lost).isNotNull();
        store.close(); // a lost task's lease: never closed
        assertThat(version).isPositive();

        for (Connection c : handedOut) {
          try (Statement s = c.createStatement();
              ResultSet rs = s.executeQuery("SELECT current_setting('synchronous_commit'),"
                  + " (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                  + " AND pid = pg_backend_pid())")) {
            rs.next();
            assertThat(rs.getString(1)).as("synchronous_commit of a session back in the pool")
                .isEqualTo("on");
            assertThat(rs.getLong(2)).as("advisory locks of a session back in the pool")
                .isZero();
          }
        }
      } finally {
        for (Connection c : handedOut) {
          c.close();
        }
      }
    }
  }

  /** {@code c}, whose statements taking a run's lock fail while {@code failuresLeft} lasts. */
  private static Connection failingRunLocks(Connection c, AtomicInteger failuresLeft) {
    return (Connection) Proxy.newProxyInstance(PostgresStoreFailuresTest.class.getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
          if (method.getName().equals("prepareStatement")
              && ((String) args[0]).contains("pg_try_advisory_lock_shared")
              && failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new SQLException("scripted: the session was lost while taking the run's lock");
          }
          return invoke(method, c, args);
        });
  }

  private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** The shared advisory locks (runs' locks) held by the sessions named {@code name}. */
  private static long sharedLocksHeld(String name) throws SQLException {
    try (Connection c = DriverManager.getConnection(TestPostgres.url());
        PreparedStatement q = c.prepareStatement("SELECT count(*) FROM pg_locks"
            + " WHERE locktype = 'advisory' AND granted AND mode = 'ShareLock' AND pid IN"
            + " (SELECT pid FROM pg_stat_activity WHERE application_name = ?)")) {
      q.setString(1, name);
      try (ResultSet rs = q.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * The sessions named {@code name} once those closed by their clients have ended (a backend
   * exits shortly after its client closes the connection).
   */
  private static long sessionsAfterClose(String name) throws Exception {
    try (Connection c = DriverManager.getConnection(TestPostgres.url());
        PreparedStatement q = c.prepareStatement(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
      q.setString(1, name);
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (true) {
        long n;
        try (ResultSet rs = q.executeQuery()) {
          rs.next();
          n = rs.getLong(1);
        }
        if (n == 0 || System.nanoTime() > deadline) {
          return n;
        }
        Thread.sleep(20);
      }
    }
  }
}
