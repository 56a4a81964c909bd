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
  /** The app's name: an index another app made is neither dropped nor taken. */
  private final String app;

  AttachmentWriter(SqliteDatabase db, String app) {
    this.db = db;
    this.app = app;
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
    if (a.sqlCommand() != null) {
      applySqlCommand(c, a);
      return;
    }
    for (String sql : a.teardown()) {
      db.execute(c, sql);
    }
    boolean droppedFullTextIndex =
        a.fullTextIndex() != null && FullTextIndexHandler.dropIndex(db, c, a);
    // An index's drops run here, and its setup only when its name is free.
    if (a.index() == null || IndexHandler.dropAndCheckName(db, c, a, app)) {
      for (String sql : a.setup()) {
        db.execute(c, sql);
      }
    }
    if (droppedFullTextIndex && a.handOverTable() != null) {
      FullTextIndexHandler.handOver(db, c, a);
    }
  }

  /** A SQL command's setup or removal: see {@link SqlCommandHandler}. */
  private void applySqlCommand(Connection c, AttachmentAction a) throws SQLException {
    String command = a.sqlCommand();
    // What the database says is set up (exactly: recorded in the transaction of each setup and
    // teardown), whatever the engine's records say (reset by the table's recreate, kept under
    // another key, or handed over to another table).
    String recorded = SqlCommandRecords.teardownOf(db, c, a.table(), command);
    if (a.sqlCommandTeardown() == null) {
      if (recorded != null) {
        db.execute(c, recorded);
        SqlCommandRecords.recordTornDown(db, c, a.table(), command);
        SqlCommandRecords.setUpAgain(db, c, command, a.sqlCommandsElsewhere());
      }
      return;
    }
    if (recorded != null && !a.teardown().contains(recorded)) {
      db.execute(c, recorded);
    }
    for (String sql : a.teardown()) {
      db.execute(c, sql);
    }
    SqlCommandRecords.setUp(db, c, a);
    SqlCommandRecords.recordSetUp(db, c, a.table(), command, a.sqlCommandTeardown());
  }
}
