package io.cocoindex.samples.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The apps writing rows into another app's table as their user's table ("guests"), recorded in
 * the table {@value #TABLE} of its schema with a count of the changes of the table's own app that
 * lost their rows or values (a recreate for a new primary key, a creation after a drop, a column
 * dropped, or dropped and added again for a type its values cannot convert to).
 *
 * <p>Why: such a change drops the guests' rows while their records, which
 * the owner cannot reach, say the rows are there, and a user's table is not otherwise looked at:
 * the guest would write them again only on a full reprocess. The owner cannot know its guests'
 * rows, only that it has guests; a guest cannot see a recreate, only a count it can compare. So
 * the guest registers, the owner counts, and the guest's rows' handler, finding a count, has
 * every row written again ({@link RowHandler#childInvalidationFound}, LOSSY); its table action
 * then takes back the count it acted on, in the transaction that applies it (a recreate
 * meanwhile leaves a count for the next run).
 */
final class TableGuests {
  private static final Logger LOG = LoggerFactory.getLogger(TableGuests.class);
  static final String TABLE = "cocoindex_table_guests";

  private TableGuests() {}

  /**
   * What a guest's rows' handler needs of a user's table.
   *
   * @param maker the app the table's comment names, or null
   * @param registered whether this app is recorded as a guest of the table
   * @param lost the count of changes that lost this app's rows since it last took the count back
   */
  record Look(String maker, boolean registered, long lost) {
    /** Whether the table is another app's, whose changes this app must hear of. */
    boolean guest(String app) {
      return app != null && maker != null && !maker.equals(app);
    }
  }

  /**
   * The app a table's comment names (its own app, {@link TableComment}), and whether its schema
   * has the guests' record table: the look-up a user's table costs every run.
   */
  static final String LOOK_SQL = "SELECT CASE WHEN d LIKE '{\"cocoindex\\_%' THEN"
      + " CAST(d AS jsonb) ->> 'cocoindex_app' END, to_regclass(?) IS NOT NULL"
      + " FROM (SELECT obj_description(to_regclass(?), 'pg_class') AS d) c";

  /**
   * Looks at table {@code schema.table} for guest {@code app}: one query, and one more for
   * another app's table whose schema has the record table. Records this app's role may not read
   * are as none to act on (a warning says so).
   */
  static Look look(Connection conn, String schema, String table, String app)
      throws SQLException {
    String maker;
    boolean recorded;
    try (PreparedStatement ps = conn.prepareStatement(LOOK_SQL)) {
      ps.setString(1, qualified(schema));
      ps.setString(2, SqlNames.qualified(schema, table));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        maker = rs.getString(1);
        recorded = rs.getBoolean(2);
      }
    }
    if (app == null || maker == null || maker.equals(app) || !recorded) {
      return new Look(maker, false, 0);
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT lost FROM " + qualified(schema)
        + " WHERE table_name = ? AND app = ?")) {
      ps.setString(1, table);
      ps.setString(2, app);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Look(maker, true, rs.getLong(1)) : new Look(maker, false, 0);
      }
    } catch (SQLException e) {
      if (!DENIED.equals(e.getSQLState())) {
        throw e;
      }
      untold(schema, table, app, e);
      return new Look(maker, true, 0); // nothing to record nor take back
    }
  }

  /**
   * Records {@code app} as a guest of table {@code schema.table}, taking back {@code lost} of the
   * count: the changes its rows' handler saw, whose rows this run writes again.
   */
  static void register(Connection conn, String schema, String table, String app, long lost)
      throws SQLException {
    tolerating(conn, schema, table, app, () -> {
      create(conn, schema);
      try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + qualified(schema)
          + " AS g VALUES (?, ?, 0) ON CONFLICT (table_name, app) DO UPDATE"
          + " SET lost = greatest(g.lost - ?, 0)")) {
        ps.setString(1, table);
        ps.setString(2, app);
        ps.setLong(3, lost);
        ps.executeUpdate();
      }
    });
  }

  /**
   * Creates the record table unless it exists. Two guests' first runs at once: CREATE TABLE IF
   * NOT EXISTS does not see the table the other's transaction is making, waits for it, and then
   * fails on the catalog's unique index (SQLSTATE 23505, or 42P07); the table is there then, and
   * the guest goes on with it rather than fail its run.
   */
  private static void create(Connection conn, String schema) throws SQLException {
    Savepoint savepoint = conn.setSavepoint();
    try (Statement st = conn.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS " + qualified(schema) + " (table_name text NOT"
          + " NULL, app text NOT NULL, lost bigint NOT NULL, PRIMARY KEY (table_name, app))");
      conn.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState())) {
        throw e;
      }
      conn.rollback(savepoint);
      if (!Relations.exist(conn, schema, TABLE)) {
        throw e; // not the race: another failure of the same kind
      }
    }
  }

  /**
   * Forgets {@code app} as a guest of table {@code schema.table}, which it no longer declares.
   *
   * <p>The record table stays, even empty: dropped once it looked empty, it took with it another
   * guest's registration not yet committed (the drop waits for it, then drops it), or failed that
   * registration and the owner's count (their statements waiting for the drop, then finding no
   * table). A lock all of them took would order them, at the risk of deadlocks with the tables
   * their transactions also lock; an empty table costs its place in the schema.
   */
  static void forget(Connection conn, String schema, String table, String app)
      throws SQLException {
    if (app == null || !Relations.exist(conn, schema, TABLE)) {
      return;
    }
    tolerating(conn, schema, table, app, () -> {
      try (PreparedStatement ps = conn.prepareStatement("DELETE FROM " + qualified(schema)
          + " WHERE table_name = ? AND app = ?")) {
        ps.setString(1, table);
        ps.setString(2, app);
        ps.executeUpdate();
      }
    });
  }

  /**
   * Counts a change of table {@code schema.table} by its own app {@code owner} that lost the
   * rows of its guests (a recreate, or a creation after a drop) or values in them (a column
   * dropped: a guest may write it, and it may come back empty), in the change's transaction.
   */
  static void rowsLost(Connection conn, String schema, String table, String owner)
      throws SQLException {
    if (!Relations.exist(conn, schema, TABLE)) {
      return;
    }
    tolerating(conn, schema, table, owner, () -> {
      try (PreparedStatement ps = conn.prepareStatement("UPDATE " + qualified(schema)
          + " SET lost = lost + 1 WHERE table_name = ? AND app IS DISTINCT FROM ?")) {
        ps.setString(1, table);
        ps.setString(2, owner);
        ps.executeUpdate();
      }
    });
  }

  /** SQLSTATE insufficient_privilege. */
  private static final String DENIED = "42501";

  private interface Work {
    void run() throws SQLException;
  }

  /**
   * Runs {@code work} on the records in a savepoint. Records another role made, which this app's
   * role may not use, do not stop the app's change or its writes: the work is left undone with
   * a warning, and the guests of the table are not told of its app's changes, as before guests
   * were recorded.
   */
  private static void tolerating(Connection conn, String schema, String table, String app,
      Work work) throws SQLException {
    Savepoint savepoint = conn.setSavepoint();
    try {
      work.run();
      conn.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      if (!DENIED.equals(e.getSQLState())) {
        throw e;
      }
      conn.rollback(savepoint);
      untold(schema, table, app, e);
    }
  }

  private static void untold(String schema, String table, String app, SQLException e) {
    LOG.warn("app '{}' cannot use {}.{} ({}): the apps writing rows into table {}.{} are not"
        + " told of its own app's recreates, which lose their rows until their full reprocess;"
        + " grant the apps' roles SELECT, INSERT, UPDATE and DELETE on it", app, schema, TABLE,
        e.getMessage(), schema, table);
  }

  private static String qualified(String schema) {
    return SqlNames.qualified(schema, TABLE);
  }
}
