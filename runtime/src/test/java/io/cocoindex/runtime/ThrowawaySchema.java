package io.cocoindex.runtime;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A schema of the test server's own for each test, so that tests on one server never see each
 * other's tables: made before the test and dropped after it, once what the test handed to {@link
 * #closeLast} is closed (the last handed first). Without a server the test is skipped ({@link
 * TestPostgres#url}). Register it as a field: {@code @RegisterExtension final ThrowawaySchema pg
 * = new ThrowawaySchema("ws_");}.
 */
public final class ThrowawaySchema implements BeforeEachCallback, AfterEachCallback {
  private final String prefix;
  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private String serverUrl;
  private String name;

  /** @param prefix the start of the schema's name, telling whose it is in the server */
  public ThrowawaySchema(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws SQLException {
    serverUrl = TestPostgres.url();
    name = prefix + UUID.randomUUID().toString().replace("-", "");
    execute("CREATE SCHEMA " + name);
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      for (int i = closeLast.size() - 1; i >= 0; i--) {
        closeLast.get(i).close();
      }
    } finally {
      closeLast.clear();
      if (name != null) { // null: no server, the test was skipped
        execute("DROP SCHEMA " + name + " CASCADE");
      }
    }
  }

  /** The server's URL, its default schema current. */
  public String serverUrl() {
    return serverUrl;
  }

  /** The schema's name. */
  public String name() {
    return name;
  }

  /** The server's URL with this schema current. */
  public String url() {
    return TestPostgres.inSchema(serverUrl, name);
  }

  /**
   * Has {@code resource} closed after the test, before the schema is dropped.
   *
   * @return {@code resource}
   */
  public <T extends AutoCloseable> T closeLast(T resource) {
    closeLast.add(resource);
    return resource;
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
