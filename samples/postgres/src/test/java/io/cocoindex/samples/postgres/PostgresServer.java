package io.cocoindex.samples.postgres;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.TestInfo;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The test server from {@code COCOINDEX_TEST_POSTGRES_URL}: tests are skipped without it, and
 * fail when {@code CI=true} (CI must run them).
 */
final class PostgresServer {
  static final String URL_VARIABLE = "COCOINDEX_TEST_POSTGRES_URL";
  static final PGSimpleDataSource DATA_SOURCE = new PGSimpleDataSource();

  static {
    String url = System.getenv(URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      DATA_SOURCE.setURL(url);
    }
  }

  private PostgresServer() {}

  /** Skips the test (or fails it under CI) when no server is configured. */
  static void require() {
    String url = System.getenv(URL_VARIABLE);
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail(URL_VARIABLE + " is not set but CI=true: PostgreSQL tests must run in CI (start a"
            + " server with .ci/services start DIR and source DIR/env)");
      }
      Assumptions.abort(URL_VARIABLE + " is not set: PostgreSQL tests skipped");
    }
  }

  /**
   * A schema name of the running test's own (its method's name and a random suffix), dropped if
   * a run before left it; requires the server.
   */
  static String freshSchema(TestInfo info) {
    require();
    String method = info.getTestMethod().orElseThrow().getName().toLowerCase(Locale.ROOT);
    String schema = "t_" + method.substring(0, Math.min(40, method.length())) + "_"
        + Long.toHexString(System.nanoTime() & 0xffffff);
    execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    return schema;
  }

  static void execute(String... sql) {
    try (Connection c = DATA_SOURCE.getConnection(); Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every row of a query, each as column label -> value (as JDBC returns it). */
  static List<Map<String, Object>> query(String sql) {
    try (Connection c = DATA_SOURCE.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      List<Map<String, Object>> rows = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= n; i++) {
          row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
        }
        rows.add(row);
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The rows of a query rendered as "v1|v2|..." strings, for compact assertions. */
  static List<String> lines(String sql) {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : query(sql)) {
      List<String> cells = new ArrayList<>();
      row.values().forEach(v -> cells.add(String.valueOf(v)));
      out.add(String.join("|", cells));
    }
    return out;
  }
}
