package io.cocoindex.samples.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL commands set up in a database, with their setups, teardowns and the app that set each
 * up, in the table {@value #TABLE} of that database, written in the transaction that runs the
 * setup or teardown.
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
 *
 * <p>Why the setup: a table's own app that rebuilds or recreates it tears down the commands
 * other apps set up on it (their user's table) and sets them up again after ({@link
 * #tearDownOthers}, {@link #setUpOthersAgain}): their apps'
 * records are unchanged, so nothing else would. A record written before setups were recorded
 * (NULL) cannot be set up so; its app sets it up when its spec next changes.
 */
final class SqlCommandRecords {
  private static final Logger log = LoggerFactory.getLogger(SqlCommandRecords.class);
  static final String TABLE = SqlIdentifiers.RESERVED_PREFIX + "sql_commands";
  private static final String QUOTED = SqlIdentifiers.quote("table", TABLE);
  /** SQLite's message for a statement naming an object that does not exist. */
  private static final Pattern MISSING_OBJECT =
      Pattern.compile("no such (table|view|trigger|index): ");

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

  /**
   * A command torn down before its table is rebuilt or recreated, to be set up again after.
   *
   * @param name its name
   * @param setup its setup, or null when recorded before setups were
   * @param teardown its teardown
   * @param app the app that set it up
   */
  record TornDown(String name, String setup, String teardown, String app) {}

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
   * Records that command {@code name} of {@code table} is set up by {@code app} with {@code
   * setup}, undone by {@code teardown}.
   */
  static void recordSetUp(SqliteDatabase db, Connection c, String table, String name,
      String setup, String teardown, String app) throws SQLException {
    if (!exists(db, c)) {
      db.execute(c, "CREATE TABLE " + QUOTED + " (table_name TEXT NOT NULL, name TEXT NOT NULL,"
          + " teardown TEXT NOT NULL, app TEXT, setup TEXT, PRIMARY KEY (table_name, name))");
    }
    try (PreparedStatement ps = db.prepare(c, "INSERT INTO " + QUOTED
        + " (table_name, name, teardown, app, setup) VALUES (?, ?, ?, ?, ?)"
        + " ON CONFLICT (table_name, name) DO UPDATE SET teardown = excluded.teardown,"
        + " app = excluded.app, setup = excluded.setup")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      ps.setString(3, teardown);
      ps.setString(4, app);
      ps.setString(5, setup);
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
    return tearDown(db, c, table, r -> true).stream().map(TornDown::name).toList();
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
    return tearDown(db, c, table, r -> app.equals(r.app())).stream().map(TornDown::name)
        .toList();
  }

  /**
   * Runs the teardowns of the commands other apps than {@code app} set up on {@code table} (their
   * user's table), the last set up first, and records them torn down: before the table's own
   * app {@code app} rebuilds or recreates it, which would drop what they made (a trigger, an
   * index) while their records say it is set up. Commands naming no app are the declaring app's.
   *
   * @return the commands torn down, the last set up first, to {@link #setUpOthersAgain set up
   *     again}
   */
  static List<TornDown> tearDownOthers(SqliteDatabase db, Connection c, String table,
      String app) throws SQLException {
    return tearDown(db, c, table, r -> r.app() != null && !r.app().equals(app));
  }

  /**
   * Sets up again on {@code table}, rebuilt or recreated, the commands {@link #tearDownOthers}
   * tore down, the first set up first, recorded as they were: their apps' records say they are
   * set up, and nothing else would set them up again. One recorded without its setup, or whose
   * setup fails on the changed table (a column it used is gone), is left torn down and
   * unrecorded, with a warning naming it and its app, which sets it up when its spec next
   * changes.
   */
  static void setUpOthersAgain(SqliteDatabase db, Connection c, String table,
      List<TornDown> tornDown)
      throws SQLException {
    for (int i = tornDown.size() - 1; i >= 0; i--) {
      TornDown t = tornDown.get(i);
      if (t.setup() == null) {
        log.warn("SQL command {} that app '{}' set up on table {} is torn down, and cannot be set"
            + " up again: it was recorded before setups were; app '{}' sets it up when its spec"
            + " next changes", t.name(), t.app(), table, t.app());
        continue;
      }
      db.execute(c, "SAVEPOINT cocoindex_set_up_again");
      try {
        db.execute(c, t.setup());
      } catch (SQLException failed) {
        db.execute(c, "ROLLBACK TO cocoindex_set_up_again");
        db.execute(c, "RELEASE cocoindex_set_up_again");
        log.warn("SQL command {} that app '{}' set up on table {} is torn down, and cannot be set"
            + " up again on the changed table: {}; app '{}' sets it up when its spec next changes",
            t.name(), t.app(), table, failed.getMessage(), t.app());
        continue;
      }
      db.execute(c, "RELEASE cocoindex_set_up_again");
      recordSetUp(db, c, table, t.name(), t.setup(), t.teardown(), t.app());
    }
  }

  /** Tears down the commands of {@code table} whose record {@code which} selects. */
  private static List<TornDown> tearDown(SqliteDatabase db, Connection c, String table,
      Predicate<TornDown> which) throws SQLException {
    if (!exists(db, c)) {
      return List.of();
    }
    List<TornDown> selected = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c, "SELECT name, setup, teardown, app FROM " + QUOTED
        + " WHERE table_name = ? ORDER BY rowid DESC")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          TornDown t = new TornDown(rs.getString(1), rs.getString(2), rs.getString(3),
              rs.getString(4));
          if (which.test(t)) {
            selected.add(t);
          }
        }
      }
    }
    for (TornDown t : selected) {
      runTeardown(db, c, table, t.name(), t.teardown());
      recordTornDown(db, c, table, t.name());
    }
    return selected;
  }

  /**
   * Runs the teardown of command {@code name} of {@code table}. When the table is gone (dropped
   * by hand), a teardown that fails on a missing object ({@code no such table}, view, trigger or
   * index) is let go with a log line, in a savepoint: what it undoes went with the table (a
   * trigger), and one naming the table ({@code DELETE FROM} it) can never succeed again, which
   * would fail every run. Any other failure (a trigger of the user's refusing it, a read-only
   * database) fails, naming the command and the table, so that its record is kept and the next
   * run retries it; so does any failure on a table that is there.
   */
  static void runTeardown(SqliteDatabase db, Connection c, String table, String name,
      String teardown) throws SQLException {
    SchemaObjects.SchemaObject holder = SchemaObjects.find(db, c, table);
    boolean there = holder != null && holder.isTable();
    if (!there) {
      db.execute(c, "SAVEPOINT cocoindex_teardown");
    }
    try {
      db.execute(c, teardown);
    } catch (SQLException failed) {
      if (there) {
        throw failed(name, table, failed);
      }
      db.execute(c, "ROLLBACK TO cocoindex_teardown");
      db.execute(c, "RELEASE cocoindex_teardown");
      if (!MISSING_OBJECT.matcher(String.valueOf(failed.getMessage())).find()) {
        throw failed(name, table, failed);
      }
      log.info("the teardown of SQL command {} of table {} failed, the table being gone (dropped"
          + " by hand?) with what the teardown undoes: let go ({})", name, table,
          failed.getMessage());
      return;
    }
    if (!there) {
      db.execute(c, "RELEASE cocoindex_teardown");
    }
  }

  private static SQLException failed(String name, String table, SQLException cause) {
    return new SQLException("the teardown of SQL command " + name + " of table " + table
        + " failed: " + cause.getMessage() + "; it stays recorded, and the next run tries it"
        + " again", cause.getSQLState(), cause.getErrorCode(), cause);
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
        recordSetUp(db, c, d.table(), name, d.command().setup(), d.command().teardown(), app);
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
    recordSetUp(db, c, declared.table(), name, declared.command().setup(),
        declared.command().teardown(), app);
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
   * Whether the table of records exists; one written before apps (or setups) were recorded is
   * given its {@code app} and {@code setup} columns here (NULL in every record: {@link
   * Recorded#app}, {@link TornDown#setup}), in the transaction of the sink that reads it.
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
    for (String column : List.of("app", "setup")) {
      try (PreparedStatement ps = db.prepare(c,
          "SELECT 1 FROM pragma_table_info(?) WHERE name = ?")) {
        ps.setString(1, TABLE);
        ps.setString(2, column);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            db.execute(c, "ALTER TABLE " + QUOTED + " ADD COLUMN " + column + " TEXT");
          }
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
