package io.cocoindex.runtime;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** The PostgreSQL server the tests run against, started by {@code .ci/run}. */
public final class TestPostgres {
  private TestPostgres() {}

  /**
   * The server's JDBC URL from {@code COCOINDEX_TEST_POSTGRES_URL}; the test is skipped without
   * it, and fails under {@code CI=true}, where the server must be there.
   */
  public static String url() {
    String url = System.getenv("COCOINDEX_TEST_POSTGRES_URL");
    if (url == null) {
      if ("true".equals(System.getenv("CI"))) {
        Assertions.fail("COCOINDEX_TEST_POSTGRES_URL is not set but CI=true");
      }
      Assumptions.abort("COCOINDEX_TEST_POSTGRES_URL is not set");
    }
    return url;
  }

  /** {@code url} with {@code schema} as its current schema. */
  public static String inSchema(String url, String schema) {
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  /**
   * Ends the server sessions named {@code applicationName} (a worker's, as when its process is
   * killed), through a session of {@code url}, and waits until they are gone.
   */
  public static void terminateSessions(String url, String applicationName)
      throws SQLException, InterruptedException {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement kill = c.prepareStatement("SELECT pg_terminate_backend(pid)"
            + " FROM pg_stat_activity WHERE application_name = ?")) {
      kill.setString(1, applicationName);
      kill.executeQuery().close();
      awaitNone(c, "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?",
          applicationName, 10, "the sessions named " + applicationName + " did not end in 10 s");
    }
  }

  /**
   * Waits until no session named {@code applicationName} (a worker's) holds an advisory lock
   * exclusively: a component's or a state's lease (a run's lock is shared). A worker's store
   * gives its leases back on a thread of its own, after the run that took them has ended.
   */
  public static void awaitComponentLocksGivenBack(String url, String applicationName) {
    try (Connection c = DriverManager.getConnection(url)) {
      awaitNone(c, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
          + " AND mode = 'ExclusiveLock' AND pid IN"
          + " (SELECT pid FROM pg_stat_activity WHERE application_name = ?)", applicationName, 60,
          "the sessions named " + applicationName + " still hold leases after a minute");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Polls {@code countSql}, a count of what {@code applicationName}'s sessions have, until it is
   * 0; fails with {@code failure} after {@code seconds}.
   */
  private static void awaitNone(Connection c, String countSql, String applicationName,
      int seconds, String failure) throws SQLException, InterruptedException {
    try (PreparedStatement count = c.prepareStatement(countSql)) {
      count.setString(1, applicationName);
      long deadline = System.nanoTime() + seconds * 1_000_000_000L;
      while (true) {
        try (ResultSet rs = count.executeQuery()) {
          rs.next();
          if (rs.getLong(1) == 0) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          Assertions.fail(failure);
        }
        Thread.sleep(10);
      }
    }
  }
}
