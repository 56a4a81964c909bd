package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

/** The per-component reads reuse one prepared statement per connection and SQL text. */
class StatementCacheTest {
  static final String SQL = "SELECT ? + 1";

  @Test
  void aStatementIsPreparedOncePerConnectionAndKeptOpenAfterUse() throws Exception {
    StatementCache cache = new StatementCache();
    try (Connection a = DriverManager.getConnection("jdbc:sqlite::memory:");
        Connection b = DriverManager.getConnection("jdbc:sqlite::memory:")) {
      PreparedStatement first = use(cache, a, 1, 2);
      PreparedStatement again = use(cache, a, 41, 42);
      assertThat(again).isSameAs(first);
      assertThat(first.isClosed()).isFalse();
      assertThat(use(cache, b, 1, 2)).isNotSameAs(first);
    }
  }

  @Test
  void aStatementClosedElsewhereIsPreparedAgain() throws Exception {
    StatementCache cache = new StatementCache();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:")) {
      PreparedStatement first = use(cache, c, 1, 2);
      first.close();
      PreparedStatement next = use(cache, c, 2, 3);
      assertThat(next).isNotSameAs(first);
    }
  }

  @Test
  void anUncachedStatementIsClosedAfterUse() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:")) {
      PreparedStatement ps;
      try (StatementCache.Prepared p = StatementCache.uncached(c, SQL)) {
        ps = p.statement();
      }
      assertThat(ps.isClosed()).isTrue();
    }
  }

  /** Runs the query through the cache, checks its answer, returns the statement used. */
  private static PreparedStatement use(StatementCache cache, Connection c, int in, int out)
      throws Exception {
    try (StatementCache.Prepared p = cache.prepare(c, SQL)) {
      p.statement().setInt(1, in);
      try (ResultSet rs = p.statement().executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(out);
      }
      return p.statement();
    }
  }
}
