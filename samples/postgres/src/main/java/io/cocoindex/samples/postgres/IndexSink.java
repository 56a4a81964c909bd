package io.cocoindex.samples.postgres;

import io.cocoindex.TargetAction;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/** Drops and creates the indexes of a batch in one transaction. */
final class IndexSink {
  private final DataSource dataSource;

  IndexSink(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  void apply(List<TargetAction<IndexAction>> actions) throws SQLException {
    // Build every statement first: a bad name fails before anything runs.
    List<String> statements = new java.util.ArrayList<>();
    for (TargetAction<IndexAction> a : actions) {
      IndexAction i = a.value();
      if (i.drop()) {
        statements.add(
            "DROP INDEX IF EXISTS " + SqlNames.quote("schema", i.schema()) + "."
                + SqlNames.quote("index", i.name()));
      }
      if (i.create() != null) {
        IndexSpec spec = i.create();
        StringBuilder sql = new StringBuilder("CREATE ")
            .append(spec.unique() ? "UNIQUE " : "")
            .append("INDEX IF NOT EXISTS ").append(SqlNames.quote("index", spec.name()))
            .append(" ON ").append(SqlNames.qualified(i.schema(), i.table()))
            .append(" USING ").append(SqlNames.identifier("access method", spec.method()))
            .append(" (");
        for (int c = 0; c < spec.columns().size(); c++) {
          sql.append(c > 0 ? ", " : "").append(SqlNames.quote("column", spec.columns().get(c)));
        }
        statements.add(sql.append(')').toString());
      }
    }
    Transactions.run(dataSource, conn -> {
      try (Statement st = conn.createStatement()) {
        for (String sql : statements) {
          st.execute(sql);
        }
      }
    });
  }
}
