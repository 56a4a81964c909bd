package io.cocoindex.samples.sqlite;

import io.cocoindex.TargetAction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Applies attachment actions (teardown, then setup) in one transaction, with what they keep in
 * the database: a SQL command's record, a full-text index's table, an index's name.
 */
final class AttachmentWriter {
  private final SqliteDatabase db;

  AttachmentWriter(SqliteDatabase db) {
    this.db = db;
  }

  void apply(List<TargetAction<AttachmentAction>> actions) throws SQLException {
    db.inTransaction(c -> {
      for (TargetAction<AttachmentAction> a : actions) {
        apply(c, a.value());
      }
      return null;
    });
  }

  private void apply(Connection c, AttachmentAction a) throws SQLException {
    String command = a.sqlCommand();
    if (command != null) {
      // What the database says is set up, when the engine's records do not (reset by the
      // table's recreate, or kept under another key): its teardown, before the setup.
      String recorded = SqlCommandRecords.teardownOf(db, c, a.table(), command);
      if (recorded != null && !a.teardown().contains(recorded)) {
        db.execute(c, recorded);
      }
    }
    for (String sql : a.teardown()) {
      db.execute(c, sql);
    }
    boolean droppedFullTextIndex =
        a.fullTextIndex() != null && FullTextIndexHandler.dropIndex(db, c, a);
    // An index's drops run here, and its setup only when its name is free.
    if (a.index() == null || IndexHandler.dropAndCheckName(db, c, a)) {
      for (String sql : a.setup()) {
        db.execute(c, sql);
      }
    }
    if (droppedFullTextIndex && a.handOverTable() != null) {
      FullTextIndexHandler.handOver(db, c, a);
    }
    if (command != null) {
      if (a.sqlCommandTeardown() != null) {
        SqlCommandRecords.recordSetUp(db, c, a.table(), command, a.sqlCommandTeardown());
      } else {
        SqlCommandRecords.recordTornDown(db, c, a.table(), command);
      }
    }
  }
}
