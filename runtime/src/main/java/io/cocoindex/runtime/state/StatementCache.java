package io.cocoindex.runtime.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Prepared statements kept per connection for the reads the engine repeats for every component
 * (its record, the states it owns). The SQLite driver keeps no statement cache, and preparing
 * the same two statements for each of a run's components was measurable in a rerun.
 *
 * <p>A connection is used by one thread at a time (the writer's, or a read connection's current
 * borrower), so a connection's statements need no lock of their own. Statements are closed with
 * their connection; the cache lives as long as its store.
 */
final class StatementCache {
  private final Map<Connection, Map<String, PreparedStatement>> byConnection =
      Collections.synchronizedMap(new IdentityHashMap<>());

  /** A statement to use and then close: closing a cached statement keeps it for the next use. */
  record Prepared(PreparedStatement statement, boolean cached) implements AutoCloseable {
    @Override
    public void close() throws SQLException {
      if (cached) {
        statement.clearParameters();
      } else {
        statement.close();
      }
    }
  }

  /** A fresh statement each time, closed after use: for stores whose driver caches its own. */
  static Prepared uncached(Connection c, String sql) throws SQLException {
    return new Prepared(c.prepareStatement(sql), false);
  }

  /** {@code sql} prepared on {@code c}, reused from an earlier call when it was prepared there. */
  Prepared prepare(Connection c, String sql) throws SQLException {
    Map<String, PreparedStatement> statements =
        byConnection.computeIfAbsent(c, k -> new HashMap<>());
    PreparedStatement ps = statements.get(sql);
    if (ps == null || ps.isClosed()) {
      ps = c.prepareStatement(sql);
      statements.put(sql, ps);
    }
    return new Prepared(ps, true);
  }
}
