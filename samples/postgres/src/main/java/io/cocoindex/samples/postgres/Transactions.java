package io.cocoindex.samples.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** One transaction per sink call: all of a batch lands, or none of it. */
final class Transactions {
  private Transactions() {}

  /** The body of a transaction. */
  interface Body {
    void run(Connection conn) throws SQLException;
  }

  static void run(DataSource dataSource, Body body) throws SQLException {
    try (Connection conn = dataSource.getConnection()) {
      boolean autoCommit = conn.getAutoCommit();
      conn.setAutoCommit(false);
      try {
        body.run(conn);
        conn.commit();
      } catch (SQLException | RuntimeException e) {
        try {
          conn.rollback();
        } catch (SQLException rollback) {
          e.addSuppressed(rollback);
        }
        throw e;
      } finally {
        conn.setAutoCommit(autoCommit);
      }
    }
  }
}
