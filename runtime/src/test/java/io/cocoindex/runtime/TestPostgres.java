package io.cocoindex.runtime;

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
}
