package io.cocoindex.samples.postgres;

import io.cocoindex.TargetAction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops and creates the indexes of a batch in one transaction. A name is looked up in the
 * schema first: only an index of the action's table that backs no constraint is dropped, and a
 * name something else holds (another table's index or primary key, a table, a view) is an error
 * naming both instead of a {@code CREATE INDEX IF NOT EXISTS} that silently does nothing.
 */
final class IndexSink {
  private static final Logger LOG = LoggerFactory.getLogger(IndexSink.class);

  private final DataSource dataSource;
  /**
   * The app's name, recorded in the comment of each index it creates; an index another app made
   * (on a table both write) is neither taken nor dropped. Null records and checks none.
   */
  private final String app;

  IndexSink(DataSource dataSource, String app) {
    this.dataSource = dataSource;
    this.app = app;
  }

  void apply(List<TargetAction<IndexAction>> actions) throws SQLException {
    // Build every statement first: a bad name fails before anything runs.
    List<String> creates = new ArrayList<>();
    for (TargetAction<IndexAction> a : actions) {
      IndexAction i = a.value();
      SqlNames.qualified(i.schema(), i.table());
      i.drop().forEach(name -> SqlNames.identifier("index", name));
      creates.add(i.create() == null ? null : createSql(i));
    }
    Transactions.run(dataSource, conn -> {
      lockNames(conn, actions);
      for (int n = 0; n < actions.size(); n++) {
        IndexAction i = actions.get(n).value();
        for (String name : i.drop()) {
          drop(conn, i, name);
        }
        if (creates.get(n) != null) {
          create(conn, i, creates.get(n));
        }
      }
    });
  }

  /**
   * Holds every name of the batch until its commit, so that the look-up of a name and its
   * creation are one step: another transaction creating the name on another table (a batch of
   * another database key reaching this database, or of a component finishing at the same time)
   * committed between them, and {@code IF NOT EXISTS} then kept its index and dropped ours
   * without a word. Locked in one order, so two batches cannot deadlock on them.
   */
  private static void lockNames(Connection conn, List<TargetAction<IndexAction>> actions)
      throws SQLException {
    List<String> names = new ArrayList<>();
    for (TargetAction<IndexAction> a : actions) {
      IndexAction i = a.value();
      i.drop().forEach(name -> names.add(i.schema() + "." + name));
      if (i.create() != null) {
        names.add(i.schema() + "." + i.name());
      }
    }
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT DISTINCT"
            + " hashtextextended('cocoindex index ' || n, 0) AS k FROM unnest(?) n ORDER BY k) s")) {
      ps.setArray(1, conn.createArrayOf("text", names.toArray()));
      ps.executeQuery().close();
    }
  }

  private static String createSql(IndexAction i) {
    IndexSpec spec = i.create();
    StringBuilder sql = new StringBuilder("CREATE ")
        .append(spec.unique() ? "UNIQUE " : "")
        .append("INDEX IF NOT EXISTS ").append(SqlNames.quote("index", i.name()))
        .append(" ON ").append(SqlNames.qualified(i.schema(), i.table()))
        .append(" USING ").append(SqlNames.identifier("access method", spec.method()))
        .append(" (");
    for (int c = 0; c < spec.columns().size(); c++) {
      sql.append(c > 0 ? ", " : "").append(SqlNames.quote("column", spec.columns().get(c)));
    }
    return sql.append(')').toString();
  }

  private void drop(Connection conn, IndexAction i, String name) throws SQLException {
    String holder = holder(conn, i, name);
    String maker = holder == null ? makerOf(conn, i, name) : null;
    if (maker != null) {
      LOG.warn("index {} of table {}.{} is not dropped: app '{}' made it, and app '{}' no longer"
          + " declares it", name, i.schema(), i.table(), maker, app);
    } else if (holder == null && !madeHere(conn, i, name)) {
      LOG.warn("index {} of table {}.{} is not dropped: it is not recorded as app '{}''s and is"
          + " defined otherwise than the app made it ({}; made by hand?)", name, i.schema(),
          i.table(), app, definition(conn, i.schema(), name));
    } else if (holder == null) {
      try (Statement st = conn.createStatement()) {
        st.execute("DROP INDEX IF EXISTS " + SqlNames.quote("schema", i.schema()) + "."
            + SqlNames.quote("index", name));
      }
    } else if (!holder.isEmpty()) {
      LOG.warn("index {} of table {}.{} is not dropped: the name is {}", name, i.schema(),
          i.table(), holder);
    }
  }

  private void create(Connection conn, IndexAction i, String sql) throws SQLException {
    String holder = holder(conn, i, i.name());
    if (holder != null && !holder.isEmpty()) {
      throw new SQLException("index " + i.create().name() + " of table " + i.schema() + "."
          + i.table() + " cannot be created as " + i.schema() + "." + i.name() + ": that name is "
          + holder + " (index names are unique in a schema): declare another index name");
    }
    String maker = holder == null ? makerOf(conn, i, i.name()) : null;
    if (maker != null) {
      throw new SQLException("index " + i.create().name() + " of table " + i.schema() + "."
          + i.table() + " cannot be created as " + i.schema() + "." + i.name() + ": app '"
          + maker + "' made an index of that name on the table, and two apps cannot both create"
          + " and drop one index: declare another index name");
    }
    if (holder == null && (app == null || !app.equals(TableComment.owner(conn, i.schema(),
        i.name()))) && !hasSpec(conn, i)) {
      // Not recorded as this app's: only an index of the app's definition is provably its own.
      // Any other is the user's, which IF NOT EXISTS would keep as the app's, for the app's
      // removal or release to drop later.
      throw new SQLException("index " + i.create().name() + " of table " + i.schema() + "."
          + i.table() + " cannot be created as " + i.schema() + "." + i.name() + ": an index of"
          + " that name on the table, not recorded as this app's, has another definition ("
          + definition(conn, i.schema(), i.name()) + ") than the app's (" + sql.replace(" IF NOT EXISTS", "")
          + "), so it is not taken for the app's (made by hand?): drop or rename it, or declare"
          + " another index name");
    }
    try (Statement st = conn.createStatement()) {
      st.execute(sql);
    }
    if (holder != null && app != null) { // made now (the name was free)
      TableComment.recordIndexMaker(conn, i.schema(), i.name(), app);
    } else if (app != null && TableComment.uncommented(conn, i.schema(), i.name())) {
      // Made by an earlier version, which recorded no app (makerOf found none): adopted by the
      // app declaring it, so that its release finds it. A comment of the user's is kept.
      TableComment.recordIndexMaker(conn, i.schema(), i.name(), app);
    }
  }

  /**
   * Whether index {@code name} of the action's table, there and about to be dropped, is the
   * app's: its comment names the app, or it is defined as a record of the action says the app
   * made it under that name (an earlier version's, which recorded no app).
   */
  private boolean madeHere(Connection conn, IndexAction i, String name) throws SQLException {
    if (app != null && app.equals(TableComment.owner(conn, i.schema(), name))) {
      return true;
    }
    for (IndexRecord r : i.made()) {
      if (name.equals(r.physicalName()) && hasSpec(conn, i.schema(), i.table(), name,
          new IndexSpec(r.name(), r.columns(), r.unique(), r.method()))) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasSpec(Connection conn, IndexAction i) throws SQLException {
    return hasSpec(conn, i.schema(), i.table(), i.name(), i.create());
  }

  /**
   * Whether index {@code name} of {@code schema.table}, there, is valid and is defined as {@code
   * spec} would define it: the catalog's own rendering ({@code pg_get_indexdef}, which shows a
   * predicate, expressions, included columns, a non-default collation, operator class or order)
   * against the plain one of the spec.
   */
  private static boolean hasSpec(Connection conn, String schema, String table, String name,
      IndexSpec spec) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement("SELECT x.indisvalid AND"
        + " pg_get_indexdef(x.indexrelid) = format('CREATE %sINDEX %I ON %I.%I USING %s (%s)',"
        + " CASE WHEN ? THEN 'UNIQUE ' ELSE '' END, ?, ?, ?, lower(?), (SELECT"
        + " string_agg(quote_ident(c), ', ' ORDER BY o) FROM unnest(?) WITH ORDINALITY u(c, o)))"
        + " FROM pg_index x WHERE x.indexrelid = to_regclass(?)")) {
      ps.setBoolean(1, spec.unique());
      ps.setString(2, name);
      ps.setString(3, schema);
      ps.setString(4, table);
      ps.setString(5, spec.method());
      ps.setArray(6, conn.createArrayOf("text", spec.columns().toArray()));
      ps.setString(7, SqlNames.qualified(schema, name));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** The definition of index {@code schema.name} as the catalog renders it, for a message. */
  private static String definition(Connection conn, String schema, String name)
      throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement("SELECT pg_get_indexdef(to_regclass(?))")) {
      ps.setString(1, SqlNames.qualified(schema, name));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** The app another than this one that made index {@code name} of the table, or null. */
  private String makerOf(Connection conn, IndexAction i, String name) throws SQLException {
    if (app == null) {
      return null;
    }
    String maker = TableComment.owner(conn, i.schema(), name);
    return maker != null && !maker.equals(app) ? maker : null;
  }

  /**
   * Who holds {@code name} in the action's schema: null when it is an index of the action's
   * table backing no constraint (this connector's), "" when nothing does, else a description.
   */
  private static String holder(Connection conn, IndexAction i, String name) throws SQLException {
    Relations.Relation r = Relations.find(conn, i.schema(), name);
    if (r == null) {
      return "";
    }
    return r.isIndex() && i.table().equals(r.indexedTable()) && r.constraint() == null
        ? null : r.describe();
  }
  /**
   * An index another app made on a table, as the catalog keeps it.
   *
   * @param name its name
   * @param app the app its comment names
   * @param definition its {@code CREATE INDEX} ({@code pg_get_indexdef})
   */
  record Made(String name, String app, String definition) {}

  /**
   * The indexes of {@code schema.table} whose comment names an app other than {@code app} (made
   * on their user's table), read before the table's own app recreates it, which drops them with
   * the table while their apps' records say they are there.
   */
  static List<Made> madeByOthers(Connection conn, String schema, String table, String app)
      throws SQLException {
    List<Made> made = new ArrayList<>();
    if (app == null) {
      return made;
    }
    try (PreparedStatement ps = conn.prepareStatement(
        "SELECT i.relname, CASE WHEN c.d LIKE '{\"cocoindex\\_%' THEN c.d::jsonb"
            + " ->> 'cocoindex_app' END, pg_get_indexdef(i.oid)"
            + " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
            + " JOIN pg_class t ON t.oid = x.indrelid"
            + " JOIN pg_namespace n ON n.oid = t.relnamespace,"
            + " LATERAL (SELECT obj_description(i.oid, 'pg_class') AS d) c"
            + " WHERE n.nspname = ? AND t.relname = ? ORDER BY 1")) {
      ps.setString(1, schema);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String maker = rs.getString(2);
          if (maker != null && !maker.equals(app)) {
            made.add(new Made(rs.getString(1), maker, rs.getString(3)));
          }
        }
      }
    }
    return made;
  }

  /**
   * Makes again, each recording its app, the indexes {@link #madeByOthers} read before {@code
   * schema.table} was recreated: their apps' records are unchanged, so nothing else would. One
   * that cannot be made on the new table (a column it indexed is gone) is left out with a
   * warning naming it and its app, which makes it when its spec next changes.
   */
  static void makeAgain(Connection conn, String schema, String table, List<Made> made)
      throws SQLException {
    for (Made m : made) {
      Savepoint savepoint = conn.setSavepoint();
      try (Statement st = conn.createStatement()) {
        st.execute(m.definition());
        TableComment.recordIndexMaker(conn, schema, m.name(), m.app());
        conn.releaseSavepoint(savepoint);
      } catch (SQLException failed) {
        conn.rollback(savepoint);
        LOG.warn("index {} that app '{}' made on table {}.{} cannot be made again on the"
            + " recreated table: {}; app '{}' makes it when its spec next changes", m.name(),
            m.app(), schema, table, failed.getMessage(), m.app());
      }
    }
  }
}
