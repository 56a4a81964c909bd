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
 * #closeLast} is closed (the last handed first, each even when one before it fails), and dropped
 * even when a close fails. Without a server the test is skipped ({@link TestPostgres#url}).
 * Register it as a field: {@code @RegisterExtension final ThrowawaySchema pg = new
 * ThrowawaySchema("ws_");}, or {@link #madeWhenUsed} for tests of which only some use the server.
 */
public final class ThrowawaySchema implements BeforeEachCallback, AfterEachCallback {
  private final String prefix;
  private final boolean whenUsed;
  private final List<AutoCloseable> closeLast = new ArrayList<>();
  /** The schemas made for the test: its own first, then {@link #anotherSchemaUrl}'s. */
  private final List<String> made = new ArrayList<>();
  private String serverUrl;
  private String name;

  /** @param prefix the start of the schema's name, telling whose it is in the server */
  public ThrowawaySchema(String prefix) {
    this(prefix, false);
  }

  private ThrowawaySchema(String prefix, boolean whenUsed) {
    this.prefix = prefix;
    this.whenUsed = whenUsed;
  }

  /**
   * A schema made when the test first asks for it ({@link #name}, {@link #url}, {@link
   * #serverUrl}), and only then skipping the test without a server: a test that never asks runs
   * as it would without the extension.
   */
  public static ThrowawaySchema madeWhenUsed(String prefix) {
    return new ThrowawaySchema(prefix, true);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws SQLException {
    if (!whenUsed) {
      make();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    Exception failed = null;
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      try {
        closeLast.get(i).close();
      } catch (Exception e) {
        failed = firstOf(failed, e);
      }
    }
    closeLast.clear();
    for (String schema : made) { // none: no server, the test was skipped
      try {
        execute("DROP SCHEMA " + schema + " CASCADE");
      } catch (SQLException e) {
        failed = firstOf(failed, e);
      }
    }
    made.clear();
    name = null;
    if (failed != null) {
      throw failed;
    }
  }

  private static Exception firstOf(Exception first, Exception next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  /** The server's URL, its default schema current. */
  public String serverUrl() {
    made();
    return serverUrl;
  }

  /** The schema's name. */
  public String name() {
    made();
    return name;
  }

  /** The server's URL with this schema current. */
  public String url() {
    return TestPostgres.inSchema(serverUrl(), name());
  }

  /**
   * Makes another schema for this test (as a second environment on the same server would have),
   * dropped after it as this one is.
   *
   * @return the server's URL with the other schema current
   */
  public String anotherSchemaUrl() throws SQLException {
    String server = serverUrl();
    String other = newName();
    execute("CREATE SCHEMA " + other);
    made.add(other);
    return TestPostgres.inSchema(server, other);
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

  private void made() {
    if (name == null && whenUsed) {
      try {
        make();
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create the test's schema", e);
      }
    }
  }

  private void make() throws SQLException {
    serverUrl = TestPostgres.url();
    String schema = newName();
    execute("CREATE SCHEMA " + schema);
    name = schema;
    made.add(schema);
  }

  private String newName() {
    return prefix + UUID.randomUUID().toString().replace("-", "");
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
