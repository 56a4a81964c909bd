package io.cocoindex.samples.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL commands set up in a database, with their teardowns and the app that set each up, in
 * the table {@value #TABLE} of that database, written in the transaction that runs the setup or
 * teardown.
 *
 * <p>Why in the database: a table's Delete is all that runs when the table goes (its attachments
 * are not reconciled one by one, DESIGN rule 8), and when its primary key changes its commands'
 * tracking is reset; the table's own tracking record cannot hold them (they are declared after
 * it), and the engine keeps none for it to read. What the database holds is exact: a command is
 * recorded here if and only if its setup is in effect. The table exists only while it has rows.
 *
 * <p>Why the app: a command is user SQL (a view, a trigger) whose object cannot carry a comment
 * naming its maker as an index's SQL does ({@link MadeBy}), and several apps may write one
 * database. A command of a name another app recorded on a table is neither set up over, taken
 * nor torn down by this app. A record without an app (written before apps were recorded, in a
 * table without the column, which is added when the table is next read) is taken as the app's
 * that declares the command, as an index that names no app is.
 */
final class SqlCommandRecords {
  private static final Logger log = LoggerFactory.getLogger(SqlCommandRecords.class);
  static final String TABLE = SqlIdentifiers.RESERVED_PREFIX + "sql_commands";
  private static final String QUOTED = SqlIdentifiers.quote("table", TABLE);

  private SqlCommandRecords() {}

  /**
   * A command whose setup is in effect.
   *
   * @param teardown the teardown that undoes it
   * @param app the app that set it up, or null when not recorded (set up before apps were)
   */
  record Recorded(String teardown, String app) {
    /** Whether app {@code app} may tear it down or set it up again: it did, or none is named. */
    boolean isOf(String app) {
      return this.app == null || this.app.equals(app);
    }
  }

  /** Command {@code name} of {@code table} if its setup is in effect, or null. */
  static Recorded recorded(SqliteDatabase db, Connection c, String table, String name)
      throws SQLException {
    if (!exists(db, c)) {
      return null;
    }
    try (PreparedStatement ps = db.prepare(c,
        "SELECT teardown, app FROM " + QUOTED + " WHERE table_name = ? AND name = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Recorded(rs.getString(1), rs.getString(2)) : null;
      }
    }
  }

  /**
   * Records that command {@code name} of {@code table} is set up by {@code app}, undone by
   * {@code teardown}.
   */
  static void recordSetUp(SqliteDatabase db, Connection c, String table, String name,
      String teardown, String app) throws SQLException {
    if (!exists(db, c)) {
      db.execute(c, "CREATE TABLE " + QUOTED + " (table_name TEXT NOT NULL, name TEXT NOT NULL,"
          + " teardown TEXT NOT NULL, app TEXT, PRIMARY KEY (table_name, name))");
    }
    try (PreparedStatement ps = db.prepare(c, "INSERT INTO " + QUOTED
        + " (table_name, name, teardown, app) VALUES (?, ?, ?, ?) ON CONFLICT (table_name, name)"
        + " DO UPDATE SET teardown = excluded.teardown, app = excluded.app")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      ps.setString(3, teardown);
      ps.setString(4, app);
      ps.executeUpdate();
    }
  }

  /** Records that command {@code name} of {@code table} is torn down. */
  static void recordTornDown(SqliteDatabase db, Connection c, String table, String name)
      throws SQLException {
    if (!exists(db, c)) {
      return;
    }
    try (PreparedStatement ps = db.prepare(c,
        "DELETE FROM " + QUOTED + " WHERE table_name = ? AND name = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      ps.executeUpdate();
    }
    dropIfEmpty(db, c);
  }

  /**
   * Runs the teardowns of every command of {@code table} set up, whichever app set it up, the
   * last set up first, and records them torn down: before the table is dropped, which leaves
   * nothing made over it.
   *
   * @return the names of the commands torn down
   */
  static List<String> tearDownAll(SqliteDatabase db, Connection c, String table)
      throws SQLException {
    return tearDown(db, c, table, null);
  }

  /**
   * Runs the teardowns of the commands of {@code table} that app {@code app} set up, the last set
   * up first, and records them torn down: when the app no longer declares the user's table they
   * were set up on. Another app's stay, and so does a record that names no app (set up before
   * apps were recorded): nothing says it is this app's, and the user's table may be shared.
   *
   * @return the names of the commands torn down
   */
  static List<String> tearDownAllOf(SqliteDatabase db, Connection c, String table, String app)
      throws SQLException {
    return tearDown(db, c, table, app);
  }

  /** Tears down the commands of {@code table} that {@code app} set up, or all (app null). */
  private static List<String> tearDown(SqliteDatabase db, Connection c, String table,
      String app) throws SQLException {
    if (!exists(db, c)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    List<String> teardowns = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c, "SELECT name, teardown, app FROM " + QUOTED
        + " WHERE table_name = ? ORDER BY rowid DESC")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (app == null || app.equals(rs.getString(3))) {
            names.add(rs.getString(1));
            teardowns.add(rs.getString(2));
          }
        }
      }
    }
    for (int i = 0; i < names.size(); i++) {
      db.execute(c, teardowns.get(i));
      recordTornDown(db, c, table, names.get(i));
    }
    return names;
  }

  /**
   * Runs the setup of {@code a}. If it fails, and commands of its name are recorded on tables
   * that do not declare one in the run ({@link AttachmentAction#sqlCommandsElsewhere}), the
   * command moved from there: those are torn down and the setup runs again; if that fails,
   * nothing of this is kept and its failure is thrown (the first one suppressed in it).
   */
  static void setUp(SqliteDatabase db, Connection c, AttachmentAction a, String app)
      throws SQLException {
    String setup = a.setup().get(0);
    db.execute(c, "SAVEPOINT cocoindex_setup");
    try {
      db.execute(c, setup);
    } catch (SQLException failed) {
      db.execute(c, "ROLLBACK TO cocoindex_setup");
      List<String[]> others = new ArrayList<>();
      for (String[] other : recordedElsewhere(db, c, a.table(), a.sqlCommand(), app)) {
        if (a.sqlCommandsElsewhere().stream()
            .noneMatch(d -> d.table().equalsIgnoreCase(other[0]))) {
          others.add(other);
        }
      }
      if (others.isEmpty()) {
        db.execute(c, "RELEASE cocoindex_setup");
        throw failed;
      }
      try {
        for (String[] other : others) {
          db.execute(c, other[1]);
          recordTornDown(db, c, other[0], a.sqlCommand());
        }
        db.execute(c, setup);
      } catch (SQLException again) {
        db.execute(c, "ROLLBACK TO cocoindex_setup");
        db.execute(c, "RELEASE cocoindex_setup");
        again.addSuppressed(failed);
        throw again;
      }
      log.info("SQL command {} of table {} is taken from table {}, no longer declaring it",
          a.sqlCommand(), a.table(), others.get(0)[0]);
    }
    db.execute(c, "RELEASE cocoindex_setup");
  }

  /**
   * After the teardown of command {@code name} of another table, sets up again (teardown, then
   * setup) each of {@code declared} that is recorded as set up: its setup may have done nothing
   * over the object the teardown removed ({@code CREATE VIEW IF NOT EXISTS}).
   */
  static void setUpAgain(SqliteDatabase db, Connection c, String name,
      List<SqlCommandHandler.Declared> declared, String app) throws SQLException {
    for (SqlCommandHandler.Declared d : declared) {
      Recorded recorded = recorded(db, c, d.table(), name);
      if (recorded != null && recorded.isOf(app)) {
        db.execute(c, recorded.teardown());
        db.execute(c, d.command().setup());
        recordSetUp(db, c, d.table(), name, d.command().teardown(), app);
      }
    }
  }

  /**
   * Sets up {@code declared} on its table again after another table's recreate tore its name
   * down: that table had taken it (in a run that failed before this one's teardown), and this
   * one's record, unchanged, plans nothing. Its teardown runs first, the recorded one if any.
   */
  static void setUpOn(SqliteDatabase db, Connection c, SqlCommandHandler.Declared declared,
      String app) throws SQLException {
    String name = declared.command().name();
    Recorded recorded = recorded(db, c, declared.table(), name);
    if (recorded != null && !recorded.isOf(app)) {
      return; // another app's command of that name: this app's setup there failed, and waits
    }
    db.execute(c, recorded != null ? recorded.teardown() : declared.command().teardown());
    db.execute(c, declared.command().setup());
    recordSetUp(db, c, declared.table(), name, declared.command().teardown(), app);
    log.info("SQL command {} set up again on table {}, which declares it", name,
        declared.table());
  }

  /**
   * The commands named {@code name} that app {@code app} recorded (or that name no app) on other
   * tables than {@code table}: another app's command of that name is never taken.
   */
  private static List<String[]> recordedElsewhere(SqliteDatabase db, Connection c, String table,
      String name, String app) throws SQLException {
    List<String[]> out = new ArrayList<>();
    if (!exists(db, c)) {
      return out;
    }
    try (PreparedStatement ps = db.prepare(c, "SELECT table_name, teardown FROM " + QUOTED
        + " WHERE name = ? AND table_name <> ? AND (app IS NULL OR app = ?) ORDER BY rowid")) {
      ps.setString(1, name);
      ps.setString(2, SqlIdentifiers.fold(table));
      ps.setString(3, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new String[] {rs.getString(1), rs.getString(2)});
        }
      }
    }
    return out;
  }

  /**
   * Whether the table of records exists; one written before apps were recorded is given its
   * {@code app} column here (NULL in every record: {@link Recorded#app}), in the transaction
   * of the sink that reads it.
   */
  private static boolean exists(SqliteDatabase db, Connection c) throws SQLException {
    try (PreparedStatement ps = db.prepare(c,
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")) {
      ps.setString(1, TABLE);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
      }
    }
    try (PreparedStatement ps = db.prepare(c,
        "SELECT 1 FROM pragma_table_info(?) WHERE name = 'app'")) {
      ps.setString(1, TABLE);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          db.execute(c, "ALTER TABLE " + QUOTED + " ADD COLUMN app TEXT");
        }
      }
    }
    return true;
  }

  private static void dropIfEmpty(SqliteDatabase db, Connection c) throws SQLException {
    try (PreparedStatement ps = db.prepare(c, "SELECT 1 FROM " + QUOTED + " LIMIT 1");
        ResultSet rs = ps.executeQuery()) {
      if (rs.next()) {
        return;
      }
    }
    db.execute(c, "DROP TABLE " + QUOTED);
  }
}
