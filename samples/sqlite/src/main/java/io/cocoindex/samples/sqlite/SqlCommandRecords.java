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
 * The SQL commands set up in a database, with their teardowns, in the table {@value #TABLE} of
 * that database, written in the transaction that runs the setup or teardown.
 *
 * <p>Why in the database: a table's Delete is all that runs when the table goes (its attachments
 * are not reconciled one by one, DESIGN rule 8), and when its primary key changes its commands'
 * tracking is reset; the table's own tracking record cannot hold them (they are declared after
 * it), and the engine keeps none for it to read. What the database holds is exact: a command is
 * recorded here if and only if its setup is in effect. The table exists only while it has rows.
 */
final class SqlCommandRecords {
  private static final Logger log = LoggerFactory.getLogger(SqlCommandRecords.class);
  static final String TABLE = SqlIdentifiers.RESERVED_PREFIX + "sql_commands";
  private static final String QUOTED = SqlIdentifiers.quote("table", TABLE);

  private SqlCommandRecords() {}

  /** The teardown of command {@code name} of {@code table} if its setup is in effect, or null. */
  static String teardownOf(SqliteDatabase db, Connection c, String table, String name)
      throws SQLException {
    if (!exists(db, c)) {
      return null;
    }
    try (PreparedStatement ps = db.prepare(c,
        "SELECT teardown FROM " + QUOTED + " WHERE table_name = ? AND name = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** Records that command {@code name} of {@code table} is set up, undone by {@code teardown}. */
  static void recordSetUp(SqliteDatabase db, Connection c, String table, String name,
      String teardown) throws SQLException {
    db.execute(c, "CREATE TABLE IF NOT EXISTS " + QUOTED + " (table_name TEXT NOT NULL,"
        + " name TEXT NOT NULL, teardown TEXT NOT NULL, PRIMARY KEY (table_name, name))");
    try (PreparedStatement ps = db.prepare(c, "INSERT INTO " + QUOTED
        + " (table_name, name, teardown) VALUES (?, ?, ?) ON CONFLICT (table_name, name)"
        + " DO UPDATE SET teardown = excluded.teardown")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, name);
      ps.setString(3, teardown);
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
   * Runs the teardowns of every command of {@code table} set up, the last set up first, and
   * records them torn down: before the table is dropped.
   *
   * @return the names of the commands torn down
   */
  static List<String> tearDownAll(SqliteDatabase db, Connection c, String table)
      throws SQLException {
    if (!exists(db, c)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    List<String> teardowns = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c,
        "SELECT name, teardown FROM " + QUOTED + " WHERE table_name = ? ORDER BY rowid DESC")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
          teardowns.add(rs.getString(2));
        }
      }
    }
    if (teardowns.isEmpty()) {
      return names;
    }
    for (String teardown : teardowns) {
      db.execute(c, teardown);
    }
    try (PreparedStatement ps = db.prepare(c,
        "DELETE FROM " + QUOTED + " WHERE table_name = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.executeUpdate();
    }
    dropIfEmpty(db, c);
    return names;
  }

  /**
   * Runs the setup of {@code a}. If it fails, and commands of its name are recorded on tables
   * that do not declare one in the run ({@link AttachmentAction#sqlCommandsElsewhere}), the
   * command moved from there: those are torn down and the setup runs again; if that fails,
   * nothing of this is kept and its failure is thrown (the first one suppressed in it).
   */
  static void setUp(SqliteDatabase db, Connection c, AttachmentAction a) throws SQLException {
    String setup = a.setup().get(0);
    db.execute(c, "SAVEPOINT cocoindex_setup");
    try {
      db.execute(c, setup);
    } catch (SQLException failed) {
      db.execute(c, "ROLLBACK TO cocoindex_setup");
      List<String[]> others = new ArrayList<>();
      for (String[] other : recordedElsewhere(db, c, a.table(), a.sqlCommand())) {
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
      List<SqlCommandHandler.Declared> declared) throws SQLException {
    for (SqlCommandHandler.Declared d : declared) {
      String teardown = teardownOf(db, c, d.table(), name);
      if (teardown != null) {
        db.execute(c, teardown);
        db.execute(c, d.command().setup());
        recordSetUp(db, c, d.table(), name, d.command().teardown());
      }
    }
  }

  /**
   * Sets up {@code declared} on its table again after another table's recreate tore its name
   * down: that table had taken it (in a run that failed before this one's teardown), and this
   * one's record, unchanged, plans nothing. Its teardown runs first, the recorded one if any.
   */
  static void setUpOn(SqliteDatabase db, Connection c, SqlCommandHandler.Declared declared)
      throws SQLException {
    String name = declared.command().name();
    String teardown = teardownOf(db, c, declared.table(), name);
    db.execute(c, teardown != null ? teardown : declared.command().teardown());
    db.execute(c, declared.command().setup());
    recordSetUp(db, c, declared.table(), name, declared.command().teardown());
    log.info("SQL command {} set up again on table {}, which declares it", name,
        declared.table());
  }

  /** The commands named {@code name} recorded on other tables than {@code table}. */
  private static List<String[]> recordedElsewhere(SqliteDatabase db, Connection c, String table,
      String name) throws SQLException {
    List<String[]> out = new ArrayList<>();
    if (!exists(db, c)) {
      return out;
    }
    try (PreparedStatement ps = db.prepare(c, "SELECT table_name, teardown FROM " + QUOTED
        + " WHERE name = ? AND table_name <> ? ORDER BY rowid")) {
      ps.setString(1, name);
      ps.setString(2, SqlIdentifiers.fold(table));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new String[] {rs.getString(1), rs.getString(2)});
        }
      }
    }
    return out;
  }

  private static boolean exists(SqliteDatabase db, Connection c) throws SQLException {
    try (PreparedStatement ps = db.prepare(c,
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")) {
      ps.setString(1, TABLE);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
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
