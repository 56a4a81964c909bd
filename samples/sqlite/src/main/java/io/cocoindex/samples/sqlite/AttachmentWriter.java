package io.cocoindex.samples.sqlite;

import io.cocoindex.TargetAction;
import java.sql.SQLException;
import java.util.List;

/** Applies attachment actions (teardown, then setup) in one transaction. */
final class AttachmentWriter {
  private final SqliteDatabase db;

  AttachmentWriter(SqliteDatabase db) {
    this.db = db;
  }

  void apply(List<TargetAction<AttachmentAction>> actions) throws SQLException {
    db.inTransaction(c -> {
      for (TargetAction<AttachmentAction> a : actions) {
        for (String sql : a.value().teardown()) {
          db.execute(c, sql);
        }
        if (a.value().fullTextIndex() != null) {
          FullTextIndexHandler.dropIndexTable(db, c, a.value());
        }
        for (String sql : a.value().setup()) {
          db.execute(c, sql);
        }
      }
      return null;
    });
  }
}
