package io.cocoindex.samples.postgres;

import io.cocoindex.TargetAction;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/** Runs teardowns then setups of a batch of SQL commands in one transaction. */
final class SqlCommandSink {
  private final DataSource dataSource;

  SqlCommandSink(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  void apply(List<TargetAction<SqlCommandAction>> actions) throws SQLException {
    Transactions.run(dataSource, conn -> {
      try (Statement st = conn.createStatement()) {
        for (TargetAction<SqlCommandAction> a : actions) {
          for (String teardown : a.value().teardowns()) {
            st.execute(teardown);
          }
          if (a.value().setup() != null) {
            st.execute(a.value().setup());
          }
        }
      }
    });
  }
}
