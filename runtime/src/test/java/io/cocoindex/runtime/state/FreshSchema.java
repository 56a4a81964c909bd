package io.cocoindex.runtime.state;

import io.cocoindex.runtime.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A schema of its own on the test server (skipped without one, see {@link TestPostgres#url}),
 * for the stores of one test; {@link #close} drops it with everything in it.
 */
final class FreshSchema implements AutoCloseable {
  private final String serverUrl;
  private final String name;

  private FreshSchema(String serverUrl, String name) {
    this.serverUrl = serverUrl;
    this.name = name;
  }

  /** Creates a schema named {@code prefix} and a random suffix. */
  static FreshSchema create(String prefix) throws SQLException {
    FreshSchema s = new FreshSchema(
        TestPostgres.url(), prefix + UUID.randomUUID().toString().replace("-", ""));
    s.execute("CREATE SCHEMA " + s.name);
    return s;
  }

  /** The schema's name. */
  String name() {
    return name;
  }

  /** The JDBC URL of a connection whose current schema is this one. */
  String url() {
    return TestPostgres.inSchema(serverUrl, name);
  }

  /** A store in this schema; the caller closes it. */
  PostgresStateStore open() {
    return PostgresStateStore.open(url());
  }

  @Override
  public void close() throws SQLException {
    execute("DROP SCHEMA " + name + " CASCADE");
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
