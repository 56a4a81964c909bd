package io.cocoindex.samples.sqlite;

import io.cocoindex.TargetAction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies attachment actions (teardown, then setup) in one transaction, with what they keep in
 * the database: a SQL command's record, a full-text index's table, an index's name.
 */
final class AttachmentWriter {
  private static final Logger log = LoggerFactory.getLogger(AttachmentWriter.class);
  private final SqliteDatabase db;
  /** The app's name: an index or SQL command another app made is neither dropped nor taken. */
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
        a.fullTextIndex() != null && FullTextIndexHandler.dropIndex(db, c, a, app);
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

  /**
   * A SQL command's setup or removal: see {@link SqlCommandHandler}. A command of its name that
   * another app set up on the table ({@link SqlCommandRecords.Recorded#app}) is an error when set
   * up, and left alone when removed: the two would tear down and set up one another's object.
   */
  private void applySqlCommand(Connection c, AttachmentAction a) throws SQLException {
    String command = a.sqlCommand();
    // What the database says is set up (exactly: recorded in the transaction of each setup and
    // teardown), whatever the engine's records say (reset by the table's recreate, kept under
    // another key, or handed over to another table).
    SqlCommandRecords.Recorded recorded =
        SqlCommandRecords.recorded(db, c, a.table(), command);
    if (recorded != null && !recorded.isOf(app)) {
      if (a.sqlCommandTeardown() == null) {
        log.warn("SQL command {} of table {} is not torn down: app '{}' set it up, and app '{}'"
            + " no longer declares it", command, a.table(), recorded.app(), app);
        return;
      }
      throw new IllegalStateException("SQL command " + command + " of table " + a.table()
          + " cannot be set up by app '" + app + "': app '" + recorded.app() + "' set up a"
          + " command of that name on the table (recorded in " + SqlCommandRecords.TABLE + "),"
          + " and two apps cannot both set up and tear down one command: declare another"
          + " command name");
    }
    if (a.sqlCommandTeardown() == null) {
      if (recorded != null) {
        SqlCommandRecords.runTeardown(db, c, a.table(), command, recorded.teardown());
        SqlCommandRecords.recordTornDown(db, c, a.table(), command);
        SqlCommandRecords.setUpAgain(db, c, command, a.sqlCommandsElsewhere(), app);
      }
      return;
    }
    if (recorded != null && !a.teardown().contains(recorded.teardown())) {
      db.execute(c, recorded.teardown());
    }
    for (String sql : a.teardown()) {
      db.execute(c, sql);
    }
    SqlCommandRecords.setUp(db, c, a, app);
    SqlCommandRecords.recordSetUp(db, c, a.table(), command, a.setup().get(0),
        a.sqlCommandTeardown(), app);
  }
}
