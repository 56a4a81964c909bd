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
            + " FROM pg_stat_activity WHERE application_name = ?");
        PreparedStatement left = c.prepareStatement(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
      kill.setString(1, applicationName);
      kill.executeQuery().close();
      left.setString(1, applicationName);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (true) {
        try (ResultSet rs = left.executeQuery()) {
          rs.next();
          if (rs.getLong(1) == 0) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          Assertions.fail("the sessions named " + applicationName + " did not end in 10 s");
        }
        Thread.sleep(10);
      }
    }
  }
}
