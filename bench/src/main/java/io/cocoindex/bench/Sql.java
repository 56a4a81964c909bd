package io.cocoindex.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** One SQL statement on a connection of its own, for the harnesses' PostgreSQL set-up. */
final class Sql {
  private Sql() {}

  /**
   * Runs {@code statement} on a new connection to {@code url}, then closes it.
   *
   * @param url a JDBC URL
   * @param statement the statement
   * @throws SQLException if it fails
   */
  static void execute(String url, String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
