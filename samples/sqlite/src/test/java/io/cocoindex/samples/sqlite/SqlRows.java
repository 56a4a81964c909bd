package io.cocoindex.samples.sqlite;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** What a query returns, one {@code |}-separated line per row: for exact assertions on tables. */
final class SqlRows {
  private SqlRows() {}

  static List<String> of(SqliteDatabase db, String sql) throws SQLException {
    return db.read(c -> {
      List<String> out = new ArrayList<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          StringBuilder row = new StringBuilder();
          for (int i = 1; i <= n; i++) {
            row.append(i == 1 ? "" : "|").append(rs.getString(i));
          }
          out.add(row.toString());
        }
      }
      return out;
    });
  }
}
