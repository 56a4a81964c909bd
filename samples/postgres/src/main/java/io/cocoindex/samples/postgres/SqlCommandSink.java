package io.cocoindex.samples.postgres;

import io.cocoindex.TargetAction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs teardowns then setups of a batch of SQL commands in one transaction, recording each
 * command, with the app that set it up, in the same transaction: beside its system-managed table
 * ({@link TableComment}), or in its user-managed table's schema ({@link UserTableCommands}).
 *
 * <p>A command is user SQL, whose object cannot record its maker as an index's comment does, so
 * its record does: a command of the name another app set up on the table (one sharing it as a
 * user's table) is an error naming both apps when set up, before any of its SQL runs, and is
 * left alone when removed. A command recorded with no app (set up before commands recorded their
 * app) is the declaring app's, as an index whose comment names no app is.
 */
final class SqlCommandSink {
  private static final Logger LOG = LoggerFactory.getLogger(SqlCommandSink.class);

  private final DataSource dataSource;
  /** The app's name, recorded with each command; null records and checks none. */
  private final String app;

  SqlCommandSink(DataSource dataSource, String app) {
    this.dataSource = dataSource;
    this.app = app;
  }

  void apply(List<TargetAction<SqlCommandAction>> actions) throws SQLException {
    Transactions.run(dataSource, conn -> {
      for (TargetAction<SqlCommandAction> a : actions) {
        SqlCommandAction c = a.value();
        String of = " of SQL command " + c.name() + " of table " + c.schema() + "." + c.table();
        String other = otherApp(conn, c);
        if (other != null && c.setup() == null) {
          LOG.warn("SQL command {} of table {}.{} is not torn down: app '{}' set it up, and app"
              + " '{}' no longer declares it", c.name(), c.schema(), c.table(), other, app);
          continue;
        }
        if (other != null) {
          throw new SQLException("SQL command " + c.name() + " of table " + c.schema() + "."
              + c.table() + " cannot be set up by app '" + app + "': app '" + other + "' set up"
              + " a command of that name on the table, and two apps cannot both set up and tear"
              + " down one command: declare another command name");
        }
        String recorded = c.setup() == null ? null : recordedTeardown(conn, c);
        if (recorded != null && !c.teardowns().contains(recorded)) {
          // The database says the command is set up, by this app (or before apps were
          // recorded), though its tracking does not (lost, or reset): undo that one first, so
          // that a setup that fails over an object it did not make (a plain CREATE VIEW, which
          // never takes a user's view) runs over none of its own.
          TableComment.runTeardown(conn, c.schema(), c.table(), recorded,
              "the recorded teardown" + of);
        }
        for (String teardown : c.teardowns()) {
          TableComment.runTeardown(conn, c.schema(), c.table(), teardown, "the teardown" + of);
        }
        if (c.setup() == null) {
          if (c.recorded()) {
            TableComment.remove(conn, c.schema(), c.table(), c.name());
          } else if (app != null) {
            UserTableCommands.remove(conn, c.schema(), c.table(), c.name());
          }
          TableComment.handOver(conn, c.schema(), c.table(), c.name(), app);
        } else {
          TableComment.run(conn, c.setup(), "the setup" + of);
          if (c.recorded()) {
            TableComment.put(conn, c.schema(), c.table(), c.name(), c.setup(), c.teardown(), app);
          } else if (app != null) {
            UserTableCommands.put(conn, c.schema(), c.table(), c.name(), app, c.setup(),
                c.teardown());
          }
        }
      }
    });
  }

  /**
   * The teardown of command {@code c} as its table's records keep it (its comment, or its
   * schema's user-table records), or null when none is recorded.
   */
  private static String recordedTeardown(Connection conn, SqlCommandAction c)
      throws SQLException {
    for (TableComment.Entry e : TableComment.read(conn, c.schema(), c.table())) {
      if (e.name().equals(c.name())) {
        return e.teardown();
      }
    }
    UserTableCommands.Entry entry = UserTableCommands.find(conn, c.schema(), c.table(), c.name());
    return entry == null ? null : entry.teardown();
  }

  /**
   * The app other than this one that set up a command of {@code c}'s name on its table, as the
   * table's comment or its schema's user-table records say; null when none did (or none is
   * recorded, or this handler records no app).
   */
  private String otherApp(Connection conn, SqlCommandAction c) throws SQLException {
    if (app == null) {
      return null;
    }
    String maker = TableComment.commandApp(conn, c.schema(), c.table(), c.name());
    if (maker == null) {
      UserTableCommands.Entry entry =
          UserTableCommands.find(conn, c.schema(), c.table(), c.name());
      maker = entry == null ? null : entry.app();
    }
    return maker != null && !maker.equals(app) ? maker : null;
  }
}
