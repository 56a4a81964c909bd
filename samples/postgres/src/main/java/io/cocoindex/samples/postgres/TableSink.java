package io.cocoindex.samples.postgres;

import io.cocoindex.TargetAction;
import io.cocoindex.statediff.ManagedBy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Applies the DDL of a batch of table actions of one database in one transaction. */
final class TableSink {
  private static final Logger LOG = LoggerFactory.getLogger(TableSink.class);
  private final DataSource dataSource;
  /** The data source of another database key of the handler, by its name. */
  private final Function<String, DataSource> others;
  /** The app's name, recorded beside the tables it makes ({@link TableComment}); or null. */
  private final String app;
  /** The tables of the run found missing (dropped by hand), created whatever their action says. */
  private final Predicate<TableAction> foundMissing;
  /** For another app's table this app writes into, the count to take back ({@link TableGuests}). */
  private final Function<TableAction, Long> guestOf;

  TableSink(DataSource dataSource, Function<String, DataSource> others, String app,
      Predicate<TableAction> foundMissing, Function<TableAction, Long> guestOf) {
    this.dataSource = dataSource;
    this.others = others;
    this.app = app;
    this.foundMissing = foundMissing;
    this.guestOf = guestOf;
  }

  void apply(List<TargetAction<TableAction>> actions) throws SQLException {
    List<TableAction> work = new ArrayList<>();
    for (TargetAction<TableAction> a : actions) {
      TableAction t = a.value();
      if (!t.changes().isEmpty() || guestOf.apply(t) != null) {
        work.add(t);
      } else if (foundMissing.test(t)) {
        work.add(new TableAction(t.database(), t.schema(), t.table(), t.columns(),
            t.primaryKey(), List.of(SchemaChange.table(SchemaChange.Kind.CREATE_TABLE)),
            t.managedBy(), t.declaredUnder()));
      }
    }
    if (work.isEmpty()) {
      return; // tables as declared: not even a connection
    }
    // Names are checked before the first statement, so a bad one executes nothing.
    for (TableAction t : work) {
      SqlNames.qualified(t.schema(), t.table());
      t.columns().forEach(c -> SqlNames.identifier("column", c.name()));
    }
    Transactions.run(dataSource, conn -> {
      for (TableAction t : work) {
        if (t.changes().stream().anyMatch(c -> c.kind() == SchemaChange.Kind.RELEASE_TABLE)) {
          release(conn, t);
          continue;
        }
        Long lost = guestOf.apply(t);
        if (lost != null) {
          TableGuests.register(conn, t.schema(), t.table(), app, lost);
        }
        boolean drop = t.changes().stream().anyMatch(c -> c.kind() == SchemaChange.Kind.DROP_TABLE);
        String owner = app == null ? null : TableComment.owner(conn, t.schema(), t.table());
        if (owner != null && !owner.equals(app)) {
          if (t.managedBy() == ManagedBy.USER) {
            // Another app's table, which this one writes into as a user's (its only change:
            // records to move back after an attempt to manage it, which failed on this check):
            // the comment records the maker's commands, none of this app's, and stays as it is.
            continue;
          }
          if (drop) {
            // Taken over by this app before tables recorded their app, and made by another since.
            LOG.warn("table {} is not dropped: app '{}' made it, and app '{}' no longer declares"
                + " it", t.qualifiedName(), owner, app);
            continue;
          }
          throw madeByAnother(t, owner);
        }
        boolean recreated = false;
        boolean commandsTornDown = false;
        // Other apps' commands on the table (their user's table), torn down with this app's.
        List<UserTableCommands.Entry> others = new ArrayList<>();
        for (SchemaChange change : t.changes()) {
          if (!commandsTornDown && (change.kind() == SchemaChange.Kind.ALTER_COLUMN_TYPE
              || change.kind() == SchemaChange.Kind.DROP_COLUMN)) {
            // A view a command made over the column blocks its change (and its drop): the
            // commands are torn down first, and set up again by their own reconciliation, which
            // the change makes LOSSY.
            tearDownCommands(conn, t, others);
            commandsTornDown = true;
          }
          if (change.kind() == SchemaChange.Kind.DROP_TABLE) {
            String under = sameDatabaseKey(conn, t);
            if (under != null) {
              LOG.info("table {} is declared under database key {}, which reaches the database of"
                  + " key {}: handed over, not dropped", t.qualifiedName(), under, t.database());
              continue;
            }
          }
          if (change.kind() == SchemaChange.Kind.MOVE_COMMAND_RECORDS) {
            moveCommandRecords(conn, t);
            continue;
          }
          apply(conn, t, change, others, app);
          recreated |= change.kind() == SchemaChange.Kind.RECREATE_TABLE;
        }
        if (!drop) {
          // No reconciliation of theirs follows this app's change: they are set up again here.
          UserTableCommands.setUpAgain(conn, t.schema(), t.table(), others);
        }
        if (app != null && !drop && t.managedBy() == ManagedBy.SYSTEM
            && (owner == null || recreated)) {
          String maker = TableComment.claim(conn, t.schema(), t.table(), app);
          if (maker != null && !maker.equals(app)) {
            throw madeByAnother(t, maker); // made meanwhile: this transaction changes nothing
          }
        }
      }
    });
  }

  /**
   * Removes what this app made on the user's table {@code t}, no longer declared: the SQL
   * commands it set up there (their teardowns, latest first) and the indexes whose comment names
   * it. The table, its rows, its comment and what another app or the user made stay. A table
   * declared in the run under another key reaching this database is that key's, kept whole.
   */
  private void release(Connection conn, TableAction t) throws SQLException {
    String under = sameDatabaseKey(conn, t);
    if (under != null) {
      LOG.info("user-managed table {} is declared under database key {}, which reaches the"
          + " database of key {}: what app '{}' made on it is kept", t.qualifiedName(), under,
          t.database(), app);
      return;
    }
    TableGuests.forget(conn, t.schema(), t.table(), app);
    List<String> commands = UserTableCommands.tearDownAllOf(conn, t.schema(), t.table(), app);
    for (String name : commands) {
      TableComment.handOver(conn, t.schema(), t.table(), name, app);
    }
    List<String> indexes = TableComment.indexesMadeBy(conn, t.schema(), t.table(), app);
    try (Statement st = conn.createStatement()) {
      for (String index : indexes) {
        st.execute("DROP INDEX " + SqlNames.quote("schema", t.schema()) + "."
            + SqlNames.quote("index", index));
      }
    }
    LOG.info("user-managed table {} is no longer declared by app '{}': left as it is, with its"
        + " rows; the app's SQL commands {} and indexes {} on it removed", t.qualifiedName(), app,
        commands, indexes);
  }

  /**
   * Moves the records of this app's SQL commands on table {@code t}, which changed hands, to
   * where a table of its new kind keeps them: a system-managed table's {@code COMMENT}, a user's
   * table's schema's {@link UserTableCommands} (whose {@code COMMENT} is the user's). The
   * commands stay set up; only their bookkeeping moves, first set up first, so that their
   * teardowns keep their order. Another app's commands on the table stay recorded as they are.
   */
  private void moveCommandRecords(Connection conn, TableAction t) throws SQLException {
    String schema = t.schema();
    String table = t.table();
    if (t.managedBy() == ManagedBy.SYSTEM) {
      for (UserTableCommands.Entry e : UserTableCommands.recordedBy(conn, schema, table, app)) {
        TableComment.put(conn, schema, table, e.name(), e.setup(), e.teardown(), app);
        UserTableCommands.remove(conn, schema, table, e.name());
      }
      return;
    }
    List<TableComment.Entry> entries = TableComment.read(conn, schema, table);
    for (int i = entries.size() - 1; i >= 0; i--) {
      TableComment.Entry e = entries.get(i);
      UserTableCommands.put(conn, schema, table, e.name(), app, e.setup(), e.teardown());
      TableComment.remove(conn, schema, table, e.name());
    }
  }

  private SQLException madeByAnother(TableAction t, String maker) {
    return new SQLException("table " + t.qualifiedName() + " cannot be managed by app '" + app
        + "': app '" + maker + "' made it (its COMMENT records so), and two apps cannot both"
        + " create, change and drop one table; give this app's table another name, or declare"
        + " it with userTable to write rows into it");
  }

  private static void apply(Connection conn, TableAction t, SchemaChange change,
      List<UserTableCommands.Entry> others, String app) throws SQLException {
    String table = SqlNames.qualified(t.schema(), t.table());
    try (Statement st = conn.createStatement()) {
      switch (change.kind()) {
        case CREATE_TABLE -> {
          st.execute("CREATE SCHEMA IF NOT EXISTS " + SqlNames.quote("schema", t.schema()));
          checkNameFree(conn, t);
          boolean there = Relations.exist(conn, t.schema(), t.table());
          st.execute("CREATE TABLE IF NOT EXISTS " + table + " (" + columnList(t) + ")");
          if (!there) {
            // Made again after a drop: the rows other apps wrote into it went with it.
            TableGuests.rowsLost(conn, t.schema(), t.table(), app);
          }
        }
        case RECREATE_TABLE -> {
          checkNameFree(conn, t);
          // The table's own commands are set up again on the new table (its children are new).
          List<TableComment.Entry> tornDown = tearDownCommands(conn, t, others);
          // Other apps' indexes on it (their user's table) are made again: their records hold.
          List<IndexSink.Made> othersIndexes =
              IndexSink.madeByOthers(conn, t.schema(), t.table(), app);
          st.execute("DROP TABLE IF EXISTS " + table);
          st.execute("CREATE SCHEMA IF NOT EXISTS " + SqlNames.quote("schema", t.schema()));
          st.execute("CREATE TABLE " + table + " (" + columnList(t) + ")");
          TableGuests.rowsLost(conn, t.schema(), t.table(), app);
          handOver(conn, t, tornDown, app);
          IndexSink.makeAgain(conn, t.schema(), t.table(), othersIndexes);
        }
        case DROP_TABLE -> {
          handOver(conn, t, tearDownCommands(conn, t, others), app);
          st.execute("DROP TABLE IF EXISTS " + table);
        }
        case ADD_COLUMN -> st.execute(
            "ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS " + column(change));
        case DROP_COLUMN -> {
          st.execute("ALTER TABLE " + table + " DROP COLUMN IF EXISTS "
              + SqlNames.quote("column", change.column()));
          // Other apps may write the column: added back later, it is empty in their rows too.
          TableGuests.rowsLost(conn, t.schema(), t.table(), app);
        }
        case ALTER_COLUMN_TYPE -> alterType(conn, t, table, change, app);
        default -> throw new IllegalStateException("unknown schema change " + change.kind());
      }
    }
  }

  /**
   * Refuses a table name that a relation of another kind holds in its schema (an index, a view):
   * {@code CREATE TABLE IF NOT EXISTS} would keep it, and the next statement fail on it with
   * PostgreSQL's raw error.
   */
  private static void checkNameFree(Connection conn, TableAction t) throws SQLException {
    Relations.Relation r = Relations.find(conn, t.schema(), t.table());
    if (r != null && !r.isTable()) {
      throw new SQLException("table " + t.qualifiedName() + " cannot be created: that name is "
          + r.describe() + " (relation names are unique in a schema): declare another table"
          + " name");
    }
  }

  /**
   * Runs the teardowns of the SQL commands recorded beside the table, latest first, before it is
   * dropped: its commands are not reconciled one by one when it goes (DESIGN rule 8), and what
   * they made over it (a view) would block {@code DROP TABLE}. Other apps' commands on it (set
   * up on it as their user's table, {@link UserTableCommands}) go first, as they may use this
   * app's, and are added to {@code others}. Returns this app's commands torn down.
   */
  private static List<TableComment.Entry> tearDownCommands(Connection conn, TableAction t,
      List<UserTableCommands.Entry> others) throws SQLException {
    others.addAll(UserTableCommands.tearDownAll(conn, t.schema(), t.table()));
    List<TableComment.Entry> commands = TableComment.read(conn, t.schema(), t.table());
    for (TableComment.Entry c : commands) {
      if (c.teardown() != null) {
        TableComment.runTeardown(conn, t.schema(), t.table(), c.teardown(),
            "the teardown of SQL command " + c.name()
            + " of table " + t.schema() + "." + t.table() + ", before the table is dropped");
      }
    }
    return commands;
  }

  /**
   * Hands the names of the commands a drop or recreate tore down to the other tables that
   * record them: a command moved there (or taken by this table in a run that failed before the
   * other's teardown, then moved back) was set up before, and the teardown undid it. No removal
   * of this table's commands is sent (they are dropped or recreated with it) to do it otherwise.
   * They are {@code app}'s, the table's: so are the records handed to.
   */
  private static void handOver(Connection conn, TableAction t, List<TableComment.Entry> tornDown,
      String app) throws SQLException {
    for (TableComment.Entry c : tornDown) {
      TableComment.handOver(conn, t.schema(), t.table(), c.name(), app);
    }
  }

  /**
   * The first of the keys the dropped table is declared under in the run that reaches the
   * database of {@code conn}, or null. A key of this very data source does; otherwise it is told
   * by a token, not by names or addresses: {@code conn} holds a random advisory lock until its
   * commit, and a connection of the other key looks for it among the locks held in its database.
   */
  private String sameDatabaseKey(Connection conn, TableAction t) throws SQLException {
    if (t.declaredUnder().isEmpty()) {
      return null;
    }
    for (String key : t.declaredUnder()) {
      // One data source under two keys: no second connection (a pool of one would wait for it).
      if (others.apply(key) == dataSource) {
        return key;
      }
    }
    long token = ThreadLocalRandom.current().nextLong() >>> 1;
    try (PreparedStatement ps = conn.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      ps.setLong(1, token);
      ps.executeQuery().close();
    }
    for (String key : t.declaredUnder()) {
      try (Connection other = others.apply(key).getConnection();
          PreparedStatement ps = other.prepareStatement(
              "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND database ="
                  + " (SELECT oid FROM pg_database WHERE datname = current_database())"
                  + " AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1)")) {
        ps.setLong(1, token >>> 32);
        ps.setLong(2, token & 0xffffffffL);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getBoolean(1)) {
            return key;
          }
        }
      }
    }
    return null;
  }

  /**
   * Converts a column in place when PostgreSQL can ({@code USING col::type}); otherwise drops
   * and re-adds it empty, and the rows (invalidated as LOSSY) write their values again, as do
   * the table's guests' rows in the guests' next runs ({@link TableGuests#rowsLost}).
   */
  private static void alterType(Connection conn, TableAction t, String table,
      SchemaChange change, String app) throws SQLException {
    String column = SqlNames.quote("column", change.column());
    String type = SqlNames.type("column '" + change.column() + "'", change.type());
    Savepoint savepoint = conn.setSavepoint();
    try (Statement st = conn.createStatement()) {
      st.execute(
          "ALTER TABLE " + table + " ALTER COLUMN " + column + " TYPE " + type + " USING "
              + column + "::" + type);
      conn.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      conn.rollback(savepoint);
      LOG.warn(
          "column {} of {} cannot be converted to {} ({}); dropping and re-adding it, its values"
              + " are written again from the declared rows",
          change.column(), table, type, e.getMessage());
      // Other apps' indexes on the column (their user's table) go with it while their apps'
      // records say they are there: made again on the column added back, as after a recreate.
      List<IndexSink.Made> othersIndexes =
          IndexSink.madeByOthers(conn, t.schema(), t.table(), app);
      try (Statement st = conn.createStatement()) {
        st.execute("ALTER TABLE " + table + " DROP COLUMN IF EXISTS " + column);
        st.execute("ALTER TABLE " + table + " ADD COLUMN " + column + " " + type);
      }
      TableGuests.rowsLost(conn, t.schema(), t.table(), app); // their values in it too
      List<IndexSink.Made> dropped = new ArrayList<>();
      for (IndexSink.Made m : othersIndexes) {
        try (PreparedStatement ps = conn.prepareStatement("SELECT to_regclass(?) IS NULL")) {
          ps.setString(1, SqlNames.quote("schema", t.schema()) + "."
              + SqlNames.quote("index", m.name()));
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next() && rs.getBoolean(1)) {
              dropped.add(m);
            }
          }
        }
      }
      IndexSink.makeAgain(conn, t.schema(), t.table(), dropped);
    }
  }

  private static String columnList(TableAction t) {
    StringBuilder sql = new StringBuilder();
    for (ColumnDef c : t.columns()) {
      sql.append(SqlNames.quote("column", c.name())).append(' ')
          .append(SqlNames.type("column '" + c.name() + "'", c.type())).append(", ");
    }
    sql.append("PRIMARY KEY (");
    for (int i = 0; i < t.primaryKey().size(); i++) {
      sql.append(i > 0 ? ", " : "").append(SqlNames.quote("column", t.primaryKey().get(i)));
    }
    return sql.append(')').toString();
  }

  private static String column(SchemaChange change) {
    return SqlNames.quote("column", change.column()) + " "
        + SqlNames.type("column '" + change.column() + "'", change.type());
  }
}
