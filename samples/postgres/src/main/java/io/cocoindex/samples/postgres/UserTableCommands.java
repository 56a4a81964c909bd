package io.cocoindex.samples.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL commands apps set up on user-managed tables, each with its teardown and the app that
 * set it up, in the table {@value #TABLE} of the user's table's schema, written in the
 * transaction of the setup or teardown. The table exists only while it has rows.
 *
 * <p>Why: a user-managed table's comment is the user's ({@link TableComment} records a
 * system-managed table's commands there), and when the app no longer declares the table only the
 * table's Delete runs (its commands are not reconciled one by one, DESIGN rule 8), so nothing
 * the handler sees knows them; without this record they would outlive the declaration, untracked.
 * The app: several apps may write into one user's table, and one app never tears down or sets up
 * over a command another app set up there. When the table's own app drops it, recreates it or
 * changes a column, it tears these down first, as its own, since a view over the table would
 * block the change; after a recreate or a column change it sets them up again ({@link
 * #setUpAgain}).
 */
final class UserTableCommands {
  private static final Logger LOG = LoggerFactory.getLogger(UserTableCommands.class);
  /** The record table's name, in each schema holding a user's table with commands. */
  static final String TABLE = "cocoindex_sql_commands";

  private UserTableCommands() {}

  /**
   * A command recorded on a user's table.
   *
   * @param name its name
   * @param app the app that set it up
   * @param setup its setup SQL
   * @param teardown its teardown SQL, or null
   */
  record Entry(String name, String app, String setup, String teardown) {}

  /** The command {@code name} recorded on table {@code schema.table}, or null. */
  static Entry find(Connection conn, String schema, String table, String name)
      throws SQLException {
    if (!Relations.exist(conn, schema, TABLE)) {
      return null;
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT name, app, setup, teardown FROM "
        + qualified(schema) + " WHERE table_name = ? AND name = ?")) {
      ps.setString(1, table);
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? new Entry(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4))
            : null;
      }
    }
  }

  /**
   * The commands app {@code app} set up on {@code schema.table}, the first set up first: to
   * record them elsewhere when the table is no longer a user's ({@link TableSink}).
   */
  static List<Entry> recordedBy(Connection conn, String schema, String table, String app)
      throws SQLException {
    List<Entry> entries = new ArrayList<>();
    if (!Relations.exist(conn, schema, TABLE)) {
      return entries;
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT name, app, setup, teardown FROM "
        + qualified(schema) + " WHERE table_name = ? AND app = ? ORDER BY seq")) {
      ps.setString(1, table);
      ps.setString(2, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(new Entry(rs.getString(1), rs.getString(2), rs.getString(3),
              rs.getString(4)));
        }
      }
    }
    return entries;
  }

  /**
   * The commands named {@code name} that {@code app} (null: any app) recorded on user's tables
   * of any schema other than {@code schema.table}: a command moved onto one of them was set up
   * there first, and the teardown of the old table's may just have undone it ({@link
   * TableComment#handOver}).
   */
  static List<TableComment.Holder> holders(Connection conn, String name, String schema,
      String table, String app) throws SQLException {
    List<String> schemas = new ArrayList<>();
    // Only the record tables this role may read: one in a schema another role keeps to itself
    // is another app's, which this one cannot have moved a command onto (it writes there), and
    // reading it failed every teardown of this app's commands ("permission denied for schema").
    try (PreparedStatement ps = conn.prepareStatement("SELECT n.nspname FROM pg_class c JOIN"
        + " pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = ? AND c.relkind = 'r'"
        + " AND has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT')"
        + " ORDER BY 1")) {
      ps.setString(1, TABLE);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          schemas.add(rs.getString(1));
        }
      }
    }
    List<TableComment.Holder> holders = new ArrayList<>();
    for (String s : schemas) {
      try (PreparedStatement ps = conn.prepareStatement("SELECT table_name, setup FROM "
          + qualified(s) + " WHERE name = ? AND NOT (CAST(? AS text) = ? AND table_name = ?)"
          + " AND (CAST(? AS text) IS NULL OR app = ?) ORDER BY seq")) {
        ps.setString(1, name);
        ps.setString(2, s);
        ps.setString(3, schema);
        ps.setString(4, table);
        ps.setString(5, app);
        ps.setString(6, app);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            holders.add(new TableComment.Holder(s, rs.getString(1), rs.getString(2)));
          }
        }
      }
    }
    return holders;
  }

  /** Records command {@code name} set up on {@code schema.table} by {@code app}. */
  static void put(Connection conn, String schema, String table, String name, String app,
      String setup, String teardown) throws SQLException {
    lock(conn, schema);
    try (Statement st = conn.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS " + qualified(schema) + " (table_name text NOT NULL,"
          + " name text NOT NULL, app text NOT NULL, setup text NOT NULL, teardown text,"
          + " seq bigint NOT NULL, PRIMARY KEY (table_name, name))");
    }
    // seq orders the teardowns, latest setup first; computed under the lock (no sequence
    // object to leave in the user's schema).
    try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + qualified(schema)
        + " (table_name, name, app, setup, teardown, seq) SELECT ?, ?, ?, ?, ?,"
        + " coalesce(max(seq), 0) + 1 FROM " + qualified(schema)
        + " ON CONFLICT (table_name, name) DO UPDATE SET app = excluded.app,"
        + " setup = excluded.setup, teardown = excluded.teardown, seq = excluded.seq")) {
      ps.setString(1, table);
      ps.setString(2, name);
      ps.setString(3, app);
      ps.setString(4, setup);
      ps.setString(5, teardown);
      ps.executeUpdate();
    }
  }

  /** Forgets command {@code name} of {@code schema.table}. */
  static void remove(Connection conn, String schema, String table, String name)
      throws SQLException {
    lock(conn, schema);
    if (!Relations.exist(conn, schema, TABLE)) {
      return;
    }
    try (PreparedStatement ps = conn.prepareStatement(
        "DELETE FROM " + qualified(schema) + " WHERE table_name = ? AND name = ?")) {
      ps.setString(1, table);
      ps.setString(2, name);
      ps.executeUpdate();
    }
    dropIfEmpty(conn, schema);
  }

  /**
   * Runs the teardowns of the commands app {@code app} set up on {@code schema.table}, the last
   * set up first, and forgets them: the app no longer declares the user's table. Another app's
   * stay.
   *
   * @return the names of the commands torn down
   */
  static List<String> tearDownAllOf(Connection conn, String schema, String table, String app)
      throws SQLException {
    return tearDown(conn, schema, table, app, ", which app '" + app + "' no longer declares")
        .stream().map(Entry::name).toList();
  }

  /**
   * Runs the teardowns of every command recorded on {@code schema.table}, whichever app set it
   * up, the last set up first, and forgets them: before the table's app drops it, recreates it
   * or changes a column, which a view of theirs over it would block.
   *
   * @return the commands torn down, the last set up first
   */
  static List<Entry> tearDownAll(Connection conn, String schema, String table)
      throws SQLException {
    return tearDown(conn, schema, table, null, ", before the table is changed or dropped");
  }

  /**
   * Sets up again, the first set up first, the commands {@link #tearDownAll} tore down before a
   * change of their table, and records them as they were: their apps' records say they are set
   * up, and nothing else would set them up again. One whose setup fails on the changed table (a
   * column it used is gone) is left torn down, unrecorded, with a warning naming it and its app.
   */
  static void setUpAgain(Connection conn, String schema, String table, List<Entry> tornDown)
      throws SQLException {
    for (int i = tornDown.size() - 1; i >= 0; i--) {
      Entry e = tornDown.get(i);
      Savepoint savepoint = conn.setSavepoint();
      try (Statement st = conn.createStatement()) {
        st.execute(e.setup());
        conn.releaseSavepoint(savepoint);
      } catch (SQLException failed) {
        conn.rollback(savepoint);
        LOG.warn("SQL command {} that app '{}' set up on table {}.{} is torn down, and cannot be"
            + " set up again on the changed table: {}; app '{}' sets it up when its spec next"
            + " changes", e.name(), e.app(), schema, table, failed.getMessage(), e.app());
        continue;
      }
      put(conn, schema, table, e.name(), e.app(), e.setup(), e.teardown());
    }
  }

  /** Tears down the commands of {@code schema.table} that {@code app} set up, or all. */
  private static List<Entry> tearDown(Connection conn, String schema, String table, String app,
      String why) throws SQLException {
    if (!Relations.exist(conn, schema, TABLE)) {
      return List.of();
    }
    lock(conn, schema);
    if (!Relations.exist(conn, schema, TABLE)) { // dropped while this waited for the lock
      return List.of();
    }
    List<Entry> entries = new ArrayList<>();
    try (PreparedStatement ps = conn.prepareStatement("SELECT name, app, setup, teardown FROM "
        + qualified(schema) + " WHERE table_name = ? AND (CAST(? AS text) IS NULL OR app = ?)"
        + " ORDER BY seq DESC")) {
      ps.setString(1, table);
      ps.setString(2, app);
      ps.setString(3, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(new Entry(rs.getString(1), rs.getString(2), rs.getString(3),
              rs.getString(4)));
        }
      }
    }
    for (Entry e : entries) {
      if (e.teardown() != null) {
        TableComment.runTeardown(conn, schema, table, e.teardown(),
            "the teardown of SQL command " + e.name()
            + " of app '" + e.app() + "' of table " + schema + "." + table + why);
      }
      remove(conn, schema, table, e.name());
    }
    return entries;
  }

  private static String qualified(String schema) {
    return SqlNames.qualified(schema, TABLE);
  }
  /**
   * Serializes the schema's records until the commit: two transactions creating or dropping the
   * record table at once would collide on the catalog.
   */
  private static void lock(Connection conn, String schema) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT pg_advisory_xact_lock(hashtextextended('cocoindex sql commands ' || ?, 0))")) {
      ps.setString(1, schema);
      ps.executeQuery().close();
    }
  }

  private static void dropIfEmpty(Connection conn, String schema) throws SQLException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT 1 FROM " + qualified(schema) + " LIMIT 1")) {
      if (rs.next()) {
        return;
      }
    }
    try (Statement st = conn.createStatement()) {
      st.execute("DROP TABLE " + qualified(schema));
    }
  }
}
