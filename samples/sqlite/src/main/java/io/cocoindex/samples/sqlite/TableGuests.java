package io.cocoindex.samples.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The apps writing rows into another app's table as their user's table ("guests"), recorded in
 * the table {@value #TABLE} of the database with a count of the changes of the table's own app
 * that lost their rows or values (a recreate for a new primary key, a creation after a drop, a
 * rebuild for a dropped or retyped column).
 *
 * <p>Why: such a change drops the guests' rows while their records, which the owner cannot
 * reach, say the rows are there, and a user's table is not otherwise looked at: the guest would
 * write them again only on a full reprocess. The owner cannot know its guests' rows, only that it
 * has guests; a guest cannot see a recreate, only a count it can compare. So the guest registers,
 * the owner counts, and the guest's rows' handler, finding a count, has every row written again
 * ({@link RowHandler#childInvalidationFound}, LOSSY); its table action then takes back the count
 * it acted on, in the transaction that applies it (a recreate meanwhile leaves a count for the
 * next run).
 */
final class TableGuests {
  static final String TABLE = SqlIdentifiers.RESERVED_PREFIX + "table_guests";
  private static final String QUOTED = SqlIdentifiers.quote("table", TABLE);

  private TableGuests() {}

  /**
   * What a guest's rows' handler needs of a user's table.
   *
   * @param maker the app the table's SQL names ({@link MadeBy}), or null
   * @param registered whether this app is recorded as a guest of the table
   * @param lost the count of changes that lost this app's rows since it last took it back
   */
  record Look(String maker, boolean registered, long lost) {
    /** Whether the table is another app's, whose changes this app must hear of. */
    boolean guest(String app) {
      return app != null && maker != null && !maker.equals(app);
    }
  }

  /**
   * Looks at table {@code table} for guest {@code app}, with statements that are not the
   * connector's ({@link SqliteDatabase#statementsExecuted} does not count them): one read of the
   * schema, and two more for another app's table.
   */
  static Look look(Connection c, String table, String app) throws SQLException {
    SchemaObjects.SchemaObject holder = SchemaObjects.lookUp(c, table);
    String maker = holder == null || !holder.isTable() ? null : MadeBy.appIn(holder.sql());
    if (app == null || maker == null || maker.equals(app)) {
      return new Look(maker, false, 0);
    }
    if (SchemaObjects.lookUp(c, TABLE) == null) {
      return new Look(maker, false, 0);
    }
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT lost FROM " + QUOTED + " WHERE table_name = ? AND app = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, app);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Look(maker, true, rs.getLong(1)) : new Look(maker, false, 0);
      }
    }
  }

  /**
   * Records {@code app} as a guest of {@code table}, taking back {@code lost} of the count: the
   * changes its rows' handler saw, whose rows this run writes again.
   */
  static void register(SqliteDatabase db, Connection c, String table, String app, long lost)
      throws SQLException {
    db.execute(c, "CREATE TABLE IF NOT EXISTS " + QUOTED + " (table_name TEXT NOT NULL,"
        + " app TEXT NOT NULL, lost INTEGER NOT NULL, PRIMARY KEY (table_name, app))");
    try (PreparedStatement ps = db.prepare(c, "INSERT INTO " + QUOTED + " VALUES (?, ?, 0)"
        + " ON CONFLICT (table_name, app) DO UPDATE SET lost = max(lost - ?, 0)")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, app);
      ps.setLong(3, lost);
      ps.executeUpdate();
    }
  }

  /**
   * Forgets {@code app} as a guest of {@code table}, which it no longer declares.
   *
   * <p>The record table stays, even empty. Its writers are ordered ({@code BEGIN IMMEDIATE}), so
   * dropping it with the last guest lost no registration, but a guest's {@link #look}, two reads
   * outside any transaction, failed on a drop between them by another process's app.
   */
  static void forget(SqliteDatabase db, Connection c, String table, String app)
      throws SQLException {
    if (SchemaObjects.find(db, c, TABLE) == null) {
      return;
    }
    try (PreparedStatement ps = db.prepare(c,
        "DELETE FROM " + QUOTED + " WHERE table_name = ? AND app = ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, app);
      ps.executeUpdate();
    }
  }

  /**
   * Counts a change of {@code table} by its own app {@code owner} that lost the rows of its
   * guests (a recreate, or a creation after a drop) or values in them (a rebuild), in the
   * change's transaction.
   */
  static void rowsLost(SqliteDatabase db, Connection c, String table, String owner)
      throws SQLException {
    if (SchemaObjects.find(db, c, TABLE) == null) {
      return;
    }
    try (PreparedStatement ps = db.prepare(c, "UPDATE " + QUOTED
        + " SET lost = lost + 1 WHERE table_name = ? AND app IS NOT ?")) {
      ps.setString(1, SqlIdentifiers.fold(table));
      ps.setString(2, owner);
      ps.executeUpdate();
    }
  }
}
