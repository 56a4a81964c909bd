package io.cocoindex.samples.postgres;

import io.cocoindex.TargetAction;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * Runs teardowns then setups of a batch of SQL commands in one transaction, recording each
 * command beside its system-managed table ({@link TableComment}) in the same transaction.
 */
final class SqlCommandSink {
  private final DataSource dataSource;

  SqlCommandSink(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  void apply(List<TargetAction<SqlCommandAction>> actions) throws SQLException {
    Transactions.run(dataSource, conn -> {
      for (TargetAction<SqlCommandAction> a : actions) {
        SqlCommandAction c = a.value();
        String of = " of SQL command " + c.name() + " of table " + c.schema() + "." + c.table();
        for (String teardown : c.teardowns()) {
          TableComment.run(conn, teardown, "the teardown" + of);
        }
        if (c.setup() == null) {
          if (c.recorded()) {
            TableComment.remove(conn, c.schema(), c.table(), c.name());
          }
          TableComment.handOver(conn, c.schema(), c.table(), c.name());
        } else {
          TableComment.run(conn, c.setup(), "the setup" + of);
          if (c.recorded()) {
            TableComment.put(conn, c.schema(), c.table(), c.name(), c.setup(), c.teardown());
          }
        }
      }
    });
  }
}
