package io.cocoindex.samples.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a system-managed table records in its {@code COMMENT}: the app that made it, and the SQL
 * commands set up beside it, as {@code {"cocoindex_app": "<app>", "cocoindex_sql_commands":
 * {"<name>": {"setup": ..., "teardown": ..., "seq": n, "app": "<app>"}}}} (either key may be
 * absent, and a command's {@code app} too when set up before commands recorded their app). An
 * index's comment records the app that made it likewise, {@code {"cocoindex_app": "<app>"}}.
 *
 * <p>The app: several apps may write one database, and a table one app made is never adopted,
 * changed or dropped by another ({@link #owner}, {@link #claim}).
 *
 * <p>Why the database and not a tracking record: a table is reconciled before the commands
 * declared into it, and when it is no longer declared only its Delete runs (its commands are not
 * reconciled one by one, even from a fresh JVM's {@code dropState}), so nothing the table's
 * handler sees knows them. The comment lives and dies with the table, changes in the transaction
 * of the command's setup, and is what lets a table's drop or recreate run the teardowns first (a
 * view over the table would block {@code DROP TABLE} for ever) and a command moved to another
 * table under the same name survive the old table's teardown (it is set up again after it).
 *
 * <p>JSON is built and read by the server ({@code jsonb}); the comment of a user-managed table is
 * never touched, and a comment that is not this record is replaced by it.
 */
final class TableComment {
  private static final Logger LOG = LoggerFactory.getLogger(TableComment.class);
  /** How a comment written here starts ({@code jsonb} renders it so, whichever keys it has). */
  private static final String PREFIX = "{\"cocoindex_";

  private TableComment() {}

  /**
   * A command as recorded beside a table.
   *
   * @param name the command's name
   * @param setup its setup SQL
   * @param teardown its teardown SQL, or null
   */
  record Entry(String name, String setup, String teardown) {}

  /**
   * A command of the same name recorded beside another table.
   *
   * @param schema that table's schema
   * @param table that table
   * @param setup its setup SQL
   */
  record Holder(String schema, String table, String setup) {}

  /** The table's recorded commands, latest set up first (the order to tear them down). */
  static List<Entry> read(Connection conn, String schema, String table) throws SQLException {
    String record = record(conn, schema, table);
    List<Entry> entries = new ArrayList<>();
    if (record == null) {
      return entries;
    }
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT e.key, e.value ->> 'setup', e.value ->> 'teardown'"
            + " FROM jsonb_each(CAST(? AS jsonb) -> 'cocoindex_sql_commands') e"
            + " ORDER BY (e.value ->> 'seq')::bigint DESC")) {
      ps.setString(1, record);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(new Entry(rs.getString(1), rs.getString(2), rs.getString(3)));
        }
      }
    }
    return entries;
  }

  /**
   * Records a command set up beside the table (the latest set up) by {@code app} (null records
   * none); nothing if it is gone.
   */
  static void put(Connection conn, String schema, String table, String name, String setup,
      String teardown, String app) throws SQLException {
    if (!lock(conn, schema, table)) {
      return;
    }
    String record = record(conn, schema, table);
    String literal;
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT quote_literal((o || jsonb_build_object('cocoindex_sql_commands', c"
            + " || jsonb_build_object(CAST(? AS text), jsonb_build_object('setup',"
            + " CAST(? AS text), 'teardown', CAST(? AS text), 'seq',"
            + " (SELECT coalesce(max((e.value ->> 'seq')::bigint), 0) + 1"
            + " FROM jsonb_each(c) e)) || CASE WHEN CAST(? AS text) IS NULL THEN '{}'::jsonb"
            + " ELSE jsonb_build_object('app', CAST(? AS text)) END)))::text)"
            + " FROM (SELECT coalesce(CAST(? AS jsonb), '{}') AS o) r,"
            + " LATERAL (SELECT coalesce(o -> 'cocoindex_sql_commands', '{}') AS c) s")) {
      ps.setString(1, name);
      ps.setString(2, setup);
      ps.setString(3, teardown);
      ps.setString(4, app);
      ps.setString(5, app);
      ps.setString(6, record);
      literal = single(ps);
    }
    comment(conn, schema, table, literal);
  }

  /**
   * The app that set up command {@code name} as the table's comment records it; null when the
   * comment records no such command, or one set up before commands recorded their app.
   */
  static String commandApp(Connection conn, String schema, String table, String name)
      throws SQLException {
    String record = record(conn, schema, table);
    if (record == null) {
      return null;
    }
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT CAST(? AS jsonb) -> 'cocoindex_sql_commands' -> CAST(? AS text) ->> 'app'")) {
      ps.setString(1, record);
      ps.setString(2, name);
      return single(ps);
    }
  }

  /**
   * The indexes of table {@code schema.table} whose comment records {@code app} as their maker
   * ({@link #recordIndexMaker}), by name.
   */
  static List<String> indexesMadeBy(Connection conn, String schema, String table, String app)
      throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
            + " JOIN pg_class t ON t.oid = x.indrelid"
            + " JOIN pg_namespace n ON n.oid = t.relnamespace,"
            + " LATERAL (SELECT obj_description(i.oid, 'pg_class') AS d) c"
            + " WHERE n.nspname = ? AND t.relname = ?"
            + " AND CASE WHEN c.d LIKE ? THEN c.d::jsonb ->> 'cocoindex_app' END = ?"
            + " ORDER BY 1")) {
      ps.setString(1, schema);
      ps.setString(2, table);
      ps.setString(3, PREFIX.replace("_", "\\_") + "%");
      ps.setString(4, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
    }
    return names;
  }

  /** Forgets a command of the table. */
  static void remove(Connection conn, String schema, String table, String name)
      throws SQLException {
    if (!lock(conn, schema, table)) {
      return;
    }
    String record = record(conn, schema, table);
    if (record == null) {
      return;
    }
    String literal;
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT CASE WHEN n = '{}' THEN NULL ELSE quote_literal(n::text) END FROM ("
            + "SELECT CASE WHEN c - CAST(? AS text) = '{}' THEN o - 'cocoindex_sql_commands'"
            + " ELSE o || jsonb_build_object('cocoindex_sql_commands', c - CAST(? AS text))"
            + " END AS n"
            + " FROM (SELECT o, coalesce(o -> 'cocoindex_sql_commands', '{}') AS c"
            + " FROM (SELECT CAST(? AS jsonb) AS o) r) s) t")) {
      ps.setString(1, name);
      ps.setString(2, name);
      ps.setString(3, record);
      literal = single(ps);
    }
    comment(conn, schema, table, literal);
  }

  /**
   * The app that made the table, as its comment records it; null when none is recorded (a table
   * made by hand, or before tables recorded their app) or the table does not exist.
   */
  static String owner(Connection conn, String schema, String table) throws SQLException {
    return appOf(conn, record(conn, schema, table));
  }

  /** The app {@code record} names, or null (no record, or one without an app). */
  private static String appOf(Connection conn, String record) throws SQLException {
    if (record == null) {
      return null;
    }
    try (PreparedStatement ps =
        conn.prepareStatement("SELECT CAST(? AS jsonb) ->> 'cocoindex_app'")) {
      ps.setString(1, record);
      return single(ps);
    }
  }

  /**
   * Records {@code app} as the maker of index {@code index}, which it has just created: the
   * index's comment is this record, which names nothing else.
   */
  static void recordIndexMaker(Connection conn, String schema, String index, String app)
      throws SQLException {
    String literal;
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT quote_literal(jsonb_build_object('cocoindex_app', CAST(? AS text))::text)")) {
      ps.setString(1, app);
      literal = single(ps);
    }
    try (Statement st = conn.createStatement()) {
      st.execute("COMMENT ON INDEX " + SqlNames.quote("schema", schema) + "."
          + SqlNames.quote("index", index) + " IS " + literal);
    }
  }

  /**
   * Records {@code app} as the table's maker, keeping its commands, unless the record names
   * another app (one that made the table at the same time, whose transaction committed first).
   * A comment that is not this record (a user's, on a table taken over) is left as it is,
   * recording no app.
   *
   * @return the app the record names after this call: {@code app}, another app, or null
   */
  static String claim(Connection conn, String schema, String table, String app)
      throws SQLException {
    if (!lock(conn, schema, table)) {
      return null;
    }
    String comment = description(conn, schema, table);
    String record = isRecord(comment) ? comment : null;
    if (record == null && comment != null) {
      return null;
    }
    String maker = appOf(conn, record);
    if (maker != null && !maker.equals(app)) {
      return maker;
    }
    String literal;
    try (PreparedStatement ps = conn.prepareStatement("SELECT quote_literal((coalesce(CAST(? AS"
        + " jsonb), '{}') || jsonb_build_object('cocoindex_app', CAST(? AS text)))::text)")) {
      ps.setString(1, record);
      ps.setString(2, app);
      literal = single(ps);
    }
    comment(conn, schema, table, literal);
    return app;
  }

  /**
   * After the teardown of a command gone from this table, sets up again every command of the
   * same name that {@code app} recorded beside another table, a user's table included ({@link
   * UserTableCommands#holders}): a command moved there was set up first (the old table's
   * teardown runs at the end of the run), and the teardown may just have undone it. Another
   * app's command of the name is its own: its setup, run again under this app, may not be one
   * to run twice (a plain {@code CREATE VIEW} failed every teardown of this app's command).
   *
   * @param app the app tearing down (null: one that records no app, every holder)
   */
  static void handOver(Connection conn, String schema, String table, String name, String app)
      throws SQLException {
    List<Holder> holders = holders(conn, name, schema, table, app);
    holders.addAll(UserTableCommands.holders(conn, name, schema, table, app));
    for (Holder h : holders) {
      run(conn, h.setup(), "the setup of SQL command " + name + " of table " + h.schema() + "."
          + h.table() + " (set up again after the teardown of the one of " + schema + "." + table
          + ")");
    }
  }

  /** Runs a command's SQL; a failure names the command and its table. */
  static void run(Connection conn, String sql, String what) throws SQLException {
    try (Statement st = conn.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new SQLException(what + " failed: " + e.getMessage(), e.getSQLState(), e);
    }
  }

  /**
   * Runs a command's teardown on table {@code schema.table}. When the table is gone (dropped by
   * hand), a teardown that fails because what it names does not exist (undefined table, object,
   * function or schema) is let go with a log line, in a savepoint: what it undoes (a grant, a
   * trigger) went with the table, and one naming the table ({@code REVOKE ... ON}) can never
   * succeed again, which would fail every run. Any other failure (permission denied, a lock
   * timeout) fails, naming the command and the table, so that its record is kept and the next
   * run retries it; so does any failure on a table that is there.
   */
  static void runTeardown(Connection conn, String schema, String table, String sql, String what)
      throws SQLException {
    if (Relations.exist(conn, schema, table)) {
      run(conn, sql, what);
      return;
    }
    Savepoint savepoint = conn.setSavepoint();
    try (Statement st = conn.createStatement()) {
      st.execute(sql);
      conn.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      conn.rollback(savepoint);
      if (!MISSING.contains(e.getSQLState())) {
        throw new SQLException(what + " failed: " + e.getMessage() + " (table " + schema + "."
            + table + " is gone; only a teardown failing on what is missing is let go): it stays"
            + " recorded, and the next run tries it again", e.getSQLState(), e);
      }
      LOG.info("{} failed, table {}.{} being gone (dropped by hand?), with what the teardown"
          + " undoes: let go ({})", what, schema, table, e.getMessage());
    }
  }

  /**
   * The SQLSTATEs of a statement naming what does not exist: undefined table, object, function,
   * schema.
   */
  private static final Set<String> MISSING = Set.of("42P01", "42704", "42883", "3F000");

  /**
   * Other tables with a recorded command of this name, whose comments name {@code app} (or no
   * app, as before apps were recorded; with a null {@code app}, any).
   */
  private static List<Holder> holders(Connection conn, String name, String schema, String table,
      String app) throws SQLException {
    List<Holder> holders = new ArrayList<>();
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT n.nspname, c.relname, r.commands -> CAST(? AS text) ->> 'setup'"
            + " FROM pg_description d JOIN pg_class c ON c.oid = d.objoid"
            + " JOIN pg_namespace n ON n.oid = c.relnamespace,"
            + " LATERAL (SELECT CASE WHEN d.description LIKE ? THEN d.description::jsonb END"
            + " AS record) j,"
            + " LATERAL (SELECT j.record -> 'cocoindex_sql_commands' AS commands,"
            + " j.record ->> 'cocoindex_app' AS maker) r"
            + " WHERE d.classoid = 'pg_class'::regclass AND d.objsubid = 0"
            + " AND c.relkind IN ('r', 'p') AND r.commands -> CAST(? AS text) IS NOT NULL"
            + " AND NOT (n.nspname = ? AND c.relname = ?)"
            + " AND (CAST(? AS text) IS NULL OR r.maker IS NULL OR r.maker = ?) ORDER BY 1, 2")) {
      ps.setString(1, name);
      ps.setString(2, PREFIX.replace("_", "\\_") + "%");
      ps.setString(3, name);
      ps.setString(4, schema);
      ps.setString(5, table);
      ps.setString(6, app);
      ps.setString(7, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          holders.add(new Holder(rs.getString(1), rs.getString(2), rs.getString(3)));
        }
      }
    }
    return holders;
  }

  /**
   * Serializes changes of the table's record (SHARE UPDATE EXCLUSIVE conflicts with itself, not
   * with reads and writes of rows); false when the table does not exist.
   */
  private static boolean lock(Connection conn, String schema, String table) throws SQLException {
    if (!Relations.exist(conn, schema, table)) {
      return false;
    }
    try (Statement st = conn.createStatement()) {
      st.execute("LOCK TABLE " + SqlNames.qualified(schema, table)
          + " IN SHARE UPDATE EXCLUSIVE MODE");
    }
    return true;
  }

  /** The table's comment when it is this record, else null. */
  private static String record(Connection conn, String schema, String table)
      throws SQLException {
    String comment = description(conn, schema, table);
    return isRecord(comment) ? comment : null;
  }

  /** Whether a table's comment is this record (one a user wrote is not). */
  private static boolean isRecord(String comment) {
    return comment != null && comment.startsWith(PREFIX);
  }

  /** Whether relation {@code schema.name} (a table, an index) has no comment at all. */
  static boolean uncommented(Connection conn, String schema, String name) throws SQLException {
    return description(conn, schema, name) == null;
  }

  /** The table's comment, whatever it is, or null. */
  private static String description(Connection conn, String schema, String table)
      throws SQLException {
    try (PreparedStatement ps =
        conn.prepareStatement("SELECT obj_description(to_regclass(?), 'pg_class')")) {
      ps.setString(1, SqlNames.qualified(schema, table));
      return single(ps);
    }
  }

  private static void comment(Connection conn, String schema, String table, String literal)
      throws SQLException {
    try (Statement st = conn.createStatement()) {
      st.execute("COMMENT ON TABLE " + SqlNames.qualified(schema, table) + " IS "
          + (literal == null ? "NULL" : literal));
    }
  }

  private static String single(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }
}
