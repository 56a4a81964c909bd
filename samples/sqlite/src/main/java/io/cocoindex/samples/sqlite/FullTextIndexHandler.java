package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.TargetValue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FTS5 full-text indexes of one table: an external-content FTS5 table plus insert, delete and
 * update triggers that keep it in sync with the table, rebuilt from the table when (re)created.
 *
 * <p>The FTS5 table's name is the index's, and SQLite names are database-wide: an index is the
 * database's by its name, whichever table declares it. Declared on another table than before
 * (moved, or kept by a renamed table), it is created there, taking the FTS5 table this connector
 * made on the old table; the old table's removal then leaves it alone. Anything else holding the
 * name (another table, a view, an index, an FTS5 table made otherwise) is an error naming both,
 * never a {@code DROP TABLE} of someone else's table, and two tables declaring one name in a run
 * is an error.
 *
 * <p>Several apps may write one database, so the FTS5 table's SQL names the app that made it
 * ({@link MadeBy}): an index is taken from another table only if the declaring app made it (or it
 * predates these comments). Another app's index of that name is an error naming its table and
 * app, and stays. One on the table naming no app is the app's only if its SQL is, token by token,
 * what the app makes or its records say it made; otherwise it is a user's, never dropped.
 */
final class FullTextIndexHandler
    implements TargetHandler<FullTextIndex, FullTextIndex, AttachmentAction> {
  private static final Logger log = LoggerFactory.getLogger(FullTextIndexHandler.class);
  /** Suffixes of the three triggers, appended to the index's name. */
  private static final String[] TRIGGER_SUFFIXES = {"_ai", "_ad", "_au"};
  /** The longest index name whose triggers' names still fit in 64 characters. */
  static final int MAX_NAME_LENGTH = 64 - 3;

  private final TableSpec table;
  private final TargetActionSink<AttachmentAction> sink;
  /** The names declared in this run, case-folded: see {@link #reconcile}. */
  private final Set<String> declared = ConcurrentHashMap.newKeySet();
  /** The full-text indexes of every table of the database in this run. */
  private final Run run;

  /**
   * A full-text index declared in a run.
   *
   * @param name its name
   * @param table the table declaring it
   * @param setup the statements creating it there
   */
  @TargetValue
  public record Declared(String name, String table, List<String> setup) {}

  /**
   * The full-text indexes of one database in one run, by name case-folded: those its tables
   * declare, and those a table's recreate dropped. Both are read and written under one lock, so
   * that an index declared on one table and dropped by another's recreate is created again by
   * exactly one of them, whichever comes first ({@link #declare}, {@link #droppedByRecreate}).
   */
  static final class Run {
    /** The app's name, recorded in each FTS5 table it creates ({@link #setup}). */
    private final String app;
    private final Map<String, Declared> declared = new HashMap<>();
    private final Set<String> droppedByRecreate = new HashSet<>();

    Run(String app) {
      this.app = app;
    }

    /**
     * Declares {@code index} in the run.
     *
     * @return whether a table's recreate dropped its name earlier in the run: the index is gone,
     *     whatever its table's record says, and must be created again
     * @throws IllegalArgumentException naming both tables when another table declares the name
     */
    synchronized boolean declare(Declared index) {
      String name = SqlIdentifiers.fold(index.name());
      Declared other = declared.putIfAbsent(name, index);
      if (other != null && !other.table().equalsIgnoreCase(index.table())) {
        throw new IllegalArgumentException("full-text index " + index.name() + " is declared on"
            + " table " + other.table() + " and on table " + index.table() + ": its name is one"
            + " FTS5 table of the database (SQLite names are database-wide and case-insensitive),"
            + " so only one table can have it; give the other index another name");
      }
      return droppedByRecreate.contains(name);
    }

    /** The index declared under {@code name} in the run, or null. */
    synchronized Declared get(String name) {
      return declared.get(SqlIdentifiers.fold(name));
    }

    /** Every index declared in the run so far. */
    synchronized List<Declared> all() {
      return List.copyOf(declared.values());
    }

    /**
     * Records that the recreate of {@code table} dropped the FTS5 tables {@code names}.
     *
     * @return those of them that another table declared earlier in the run: the recreate creates
     *     them there again (a later declaration sees the drop in {@link #declare})
     */
    synchronized List<Declared> droppedByRecreate(String table, List<String> names) {
      List<Declared> elsewhere = new ArrayList<>();
      for (String n : names) {
        String name = SqlIdentifiers.fold(n);
        droppedByRecreate.add(name);
        Declared d = declared.get(name);
        if (d != null && !d.table().equalsIgnoreCase(table)) {
          elsewhere.add(d);
        }
      }
      return elsewhere;
    }
  }

  FullTextIndexHandler(TableSpec table, TargetActionSink<AttachmentAction> sink, Run run) {
    this.table = table;
    this.sink = sink;
    this.run = run;
  }

  /**
   * An index's name is the database's (it is the FTS5 table's), whichever table declares it: one
   * declared on another table than last run is created there, taking the index from its old
   * table (the sink recognizes an index this connector made), and the old table's removal at the
   * end of the run leaves it alone. Two tables declaring one name in a run is an error. A removal
   * whose index another table declares in the run creates it there again if the removal drops it
   * (it had been taken by this table in a run that failed before its end). So does the recreate
   * of a table that had taken it ({@link Run#droppedByRecreate}): an index whose name a recreate
   * dropped earlier in the run is created again, even if its record is unchanged.
   */
  @Override
  public TargetReconcileOutput<AttachmentAction, FullTextIndex> reconcile(
      StableKey key, FullTextIndex desired, List<FullTextIndex> prev, boolean prevMayBeMissing) {
    String name = key.asString();
    if (desired == null) {
      if ((prev.isEmpty() && !prevMayBeMissing) || declared.contains(SqlIdentifiers.fold(name))) {
        // Nothing to drop, or the index is declared under its case-folded name (its key before
        // keys were folded): dropping it would drop the declared index.
        return null;
      }
      AttachmentAction removal = AttachmentAction.ofFullTextIndex(table.name(), name, List.of())
          .withIndexMade(made(prev));
      Declared elsewhere = run.get(name);
      if (elsewhere != null) {
        removal = removal.handingOverTo(elsewhere.table(), elsewhere.setup());
      }
      return TargetReconcileOutput.of(TargetAction.delete(removal), sink, null);
    }
    check(table.name(), table.columns(), desired);
    List<String> setup = setup(desired);
    boolean dropped = run.declare(new Declared(desired.name(), table.name(), setup));
    declared.add(SqlIdentifiers.fold(name));
    if (!dropped && !prevMayBeMissing && !prev.isEmpty()
        && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    // Whatever may exist goes first (an earlier spec, an interrupted setup): then the new one.
    AttachmentAction action = AttachmentAction.ofFullTextIndex(table.name(), desired.name(),
        setup).withIndexMade(made(prev));
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, desired);
  }

  /** The FTS5 tables the earlier records say the app made: each one's {@code CREATE}. */
  private List<String> made(List<FullTextIndex> prev) {
    return prev.stream().map(p -> setup(p).get(0)).distinct().toList();
  }

  /**
   * Checks an index of table {@code table} with {@code columns} before anything runs.
   *
   * @throws IllegalArgumentException naming the index and what is wrong with it
   */
  static void check(String table, List<ColumnSpec> columns, FullTextIndex index) {
    SqlIdentifiers.checkObject("full-text index", index.name());
    if (index.name().length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException("full-text index name '" + index.name() + "' has "
          + index.name().length() + " characters: at most " + MAX_NAME_LENGTH + ", as its"
          + " triggers are named " + index.name() + "_ai, _ad and _au (64 at most)");
    }
    if (index.name().equalsIgnoreCase(table)) {
      throw new IllegalArgumentException("full-text index '" + index.name() + "' has the name of"
          + " its table " + table + " (SQLite names are case-insensitive): give it another name");
    }
    if (index.columns().isEmpty()) {
      throw new IllegalArgumentException("full-text index " + index.name() + " has no columns");
    }
    for (ColumnSpec c : columns) {
      if (c.name().equalsIgnoreCase("rowid")) {
        throw new IllegalArgumentException("full-text index " + index.name() + " cannot index"
            + " table " + table + ": its column '" + c.name() + "' hides SQLite's rowid, which"
            + " the index and its triggers follow; rename that column");
      }
    }
    for (String col : index.columns()) {
      if (columns.stream().noneMatch(c -> c.name().equalsIgnoreCase(col))) {
        throw new IllegalArgumentException("full-text index " + index.name() + " names column '"
            + col + "', which table " + table + " does not have");
      }
      if (col.equalsIgnoreCase("rank")) {
        throw new IllegalArgumentException("full-text index " + index.name() + " cannot index"
            + " column '" + col + "' of table " + table + ": FTS5 reserves the name rank");
      }
    }
  }

  /**
   * The FTS5 tables whose external content is {@code table}: their SQL holds exactly the {@code
   * content='<table>',} that {@link #setup} writes (a LIKE pattern would take the {@code _} of
   * {@code item_2} for any character and find the index of {@code items2}). SQLite names are
   * case-insensitive, and so is the match.
   */
  static List<String> indexesOf(SqliteDatabase db, Connection c, String table)
      throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE %'"
            + " AND instr(lower(sql), ?) > 0")) {
      ps.setString(1, contentOption(table).toLowerCase(Locale.ROOT));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  /**
   * Drops the full-text index {@code a.fullTextIndex()} of table {@code a.table()} with its
   * triggers, if it exists. When the action creates the index, one this connector made on
   * another table under that name is dropped too (the index moved: see {@link #reconcile}), and
   * anything else holding the name fails it, naming both. A removal leaves whatever is not an
   * index of its table alone, triggers of other tables included. An index of its table that
   * names no app is dropped only if it is what the app makes or its records say it made: any
   * other (a user's FTS5 table under the name) fails a creation naming both definitions, and a
   * removal leaves it with a warning.
   *
   * @return whether an FTS5 table was dropped
   */
  static boolean dropIndex(SqliteDatabase db, Connection c, AttachmentAction a, String app)
      throws SQLException {
    String name = a.fullTextIndex();
    SchemaObjects.SchemaObject existing = SchemaObjects.find(db, c, name);
    String indexed = existing == null ? null : indexedTable(existing);
    String owner = existing == null ? null : MadeBy.appIn(existing.sql());
    if (existing != null && indexed != null && indexed.equalsIgnoreCase(a.table())
        && owner != null && !owner.equals(app)) {
      // Another app's, on a table both write (this app's as a user's table).
      if (a.setup().isEmpty()) {
        log.warn("full-text index {} of table {} is not dropped: app '{}' made it, and app '{}'"
            + " no longer declares it", name, a.table(), owner, app);
        return false;
      }
      throw new IllegalStateException("full-text index " + name + " of table " + a.table()
          + " cannot be created: app '" + owner + "' made an index of that name on the table,"
          + " and two apps cannot both create and drop one index (SQLite names are"
          + " database-wide): give the index another name");
    }
    if (existing != null && indexed != null && indexed.equalsIgnoreCase(a.table())
        && owner == null && !isTheApps(existing, a)) {
      // Naming no app (an earlier version's, or written by hand in the connector's form): only
      // what the app's records say it made, or would make now, is provably its own to drop.
      if (a.setup().isEmpty()) {
        log.warn("full-text index {} of table {} is not dropped: its FTS5 table names no app and"
            + " is defined otherwise ({}) than app '{}' made it (made by hand?)", name,
            a.table(), existing.sql(), app);
        return false;
      }
      throw new IllegalStateException("full-text index " + name + " of table " + a.table()
          + " cannot be created: an FTS5 table of that name on the table names no app and has"
          + " another definition (" + existing.sql() + ") than the app's (" + a.setup().get(0)
          + "), so it is not taken for the app's (made by hand?): drop it (DROP TABLE " + name
          + ", with its triggers " + name + "_ai, _ad and _au) if it is not needed, or give the"
          + " index another name");
    }
    if (existing == null || (indexed != null && indexed.equalsIgnoreCase(a.table()))) {
      dropTriggers(db, c, name, a.table());
    } else if (indexed != null && !a.setup().isEmpty()) {
      if (owner != null && !owner.equals(app)) {
        throw new IllegalStateException("full-text index " + name + " of table " + a.table()
            + " cannot be created: app '" + owner + "' made an index of that name on table "
            + indexed + " (SQLite names are database-wide, shared by every app writing the"
            + " database); give the index another name");
      }
      log.info("full-text index {} moves from table {} to table {}", name, indexed, a.table());
      dropTriggers(db, c, name, indexed);
    } else if (!a.setup().isEmpty()) {
      throw new IllegalStateException("full-text index '" + name + "' of table " + a.table()
          + " cannot be created: " + existing.describe() + " has that name (SQLite names are"
          + " case-insensitive, shared by tables, views and indexes); give the index another"
          + " name");
    } else {
      return false; // someone else's: left alone
    }
    if (existing == null) {
      return false;
    }
    db.execute(c, "DROP TABLE " + SqlIdentifiers.quote("full-text index", existing.name()));
    return true;
  }

  /**
   * Whether the FTS5 table {@code existing} is, token by token, what the action {@code a} creates
   * or what the app's records say it made ({@link AttachmentAction#indexMade}).
   */
  private static boolean isTheApps(SchemaObjects.SchemaObject existing, AttachmentAction a) {
    List<String> tokens = IndexHandler.tokens(existing.sql());
    return Stream.concat(a.setup().stream().limit(1), a.indexMade().stream())
        .anyMatch(sql -> IndexHandler.tokens(sql).equals(tokens));
  }

  /**
   * Drops the full-text indexes of {@code table} whose FTS5 table names app {@code app} ({@link
   * MadeBy}), with their triggers: when the app no longer declares the user's table they are on.
   * Another app's, and one that names no app (made before apps were recorded), stay.
   *
   * @return the names of the FTS5 tables dropped
   */
  static List<String> dropIndexesMadeBy(SqliteDatabase db, Connection c, String table,
      String app) throws SQLException {
    List<String> dropped = new ArrayList<>();
    for (String name : indexesOf(db, c, table)) {
      SchemaObjects.SchemaObject fts = SchemaObjects.find(db, c, name);
      String indexed = fts == null ? null : indexedTable(fts);
      if (indexed != null && indexed.equalsIgnoreCase(table)
          && app.equals(MadeBy.appIn(fts.sql()))) {
        dropTriggers(db, c, fts.name(), table);
        db.execute(c, "DROP TABLE " + SqlIdentifiers.quote("full-text index", fts.name()));
        dropped.add(fts.name());
      }
    }
    return dropped;
  }

  /**
   * A full-text index another app made on a table, as SQLite keeps it.
   *
   * @param name its FTS5 table's name
   * @param app the app that made it
   * @param sql its FTS5 table's and its triggers' SQL, then its rebuild from the table
   */
  record Made(String name, String app, List<String> sql) {}

  /**
   * The full-text indexes of {@code table} that apps other than {@code app} made (on their user's
   * table), read before the table's own app {@code app} rebuilds or recreates it, which drops
   * their triggers (and, for a recreate, their FTS5 tables) while their apps' records say they
   * are there.
   */
  static List<Made> madeByOthers(SqliteDatabase db, Connection c, String table, String app)
      throws SQLException {
    List<Made> made = new ArrayList<>();
    for (String name : indexesOf(db, c, table)) {
      SchemaObjects.SchemaObject fts = SchemaObjects.find(db, c, name);
      String indexed = fts == null ? null : indexedTable(fts);
      String maker = fts == null ? null : MadeBy.appIn(fts.sql());
      if (indexed == null || !indexed.equalsIgnoreCase(table) || maker == null
          || maker.equals(app)) {
        continue;
      }
      List<String> sql = new ArrayList<>(List.of(fts.sql()));
      try (PreparedStatement ps = db.prepare(c, "SELECT sql FROM sqlite_master WHERE type ="
          + " 'trigger' AND name IN (?, ?, ?) COLLATE NOCASE AND tbl_name = ? COLLATE NOCASE"
          + " ORDER BY name")) {
        for (int i = 0; i < TRIGGER_SUFFIXES.length; i++) {
          ps.setString(i + 1, fts.name() + TRIGGER_SUFFIXES[i]);
        }
        ps.setString(TRIGGER_SUFFIXES.length + 1, table);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            sql.add(rs.getString(1));
          }
        }
      }
      String quoted = SqlIdentifiers.quote("full-text index", fts.name());
      sql.add("INSERT INTO " + quoted + " (" + quoted + ") VALUES ('rebuild')");
      made.add(new Made(fts.name(), maker, sql));
    }
    return made;
  }

  /**
   * Makes again, from the SQL {@link #madeByOthers} read, the full-text indexes other apps made
   * on {@code table} before it was rebuilt or recreated, rebuilt from its rows (a rebuild gives
   * them new rowids): their apps' records are unchanged, so nothing else would. One that cannot
   * be made on the changed table (a column it indexed is gone) is left out, its FTS5 table
   * dropped, with a warning naming it and its app, which makes it when its spec next changes.
   */
  static void makeAgain(SqliteDatabase db, Connection c, String table, List<Made> made)
      throws SQLException {
    for (Made m : made) {
      String quoted = SqlIdentifiers.quote("full-text index", m.name());
      db.execute(c, "SAVEPOINT cocoindex_make_again");
      try {
        dropTriggers(db, c, m.name(), table);
        db.execute(c, "DROP TABLE IF EXISTS " + quoted);
        for (String sql : m.sql()) {
          db.execute(c, sql);
        }
      } catch (SQLException failed) {
        db.execute(c, "ROLLBACK TO cocoindex_make_again");
        dropTriggers(db, c, m.name(), table);
        db.execute(c, "DROP TABLE IF EXISTS " + quoted);
        log.warn("full-text index {} that app '{}' made on table {} cannot be made again on the"
            + " changed table: {}; app '{}' makes it when its spec next changes", m.name(),
            m.app(), table, failed.getMessage(), m.app());
      }
      db.execute(c, "RELEASE cocoindex_make_again");
    }
  }

  /**
   * After the removal {@code a} dropped its index, creates it on the table that declares it in
   * the run ({@link AttachmentAction#handOverTable}) if its name is free.
   */
  static void handOver(SqliteDatabase db, Connection c, AttachmentAction a)
      throws SQLException {
    handOver(db, c, a.fullTextIndex(), a.handOverTable(), a.handOverSetup());
  }

  /** Creates index {@code index} on its table if its name is free. */
  static void handOver(SqliteDatabase db, Connection c, Declared index) throws SQLException {
    handOver(db, c, index.name(), index.table(), index.setup());
  }

  private static void handOver(SqliteDatabase db, Connection c, String name, String table,
      List<String> setup) throws SQLException {
    if (SchemaObjects.find(db, c, name) != null) {
      return;
    }
    dropTriggers(db, c, name, table);
    for (String sql : setup) {
      db.execute(c, sql);
    }
    log.info("full-text index {} created again on table {}, which declares it", name, table);
  }

  /** The table the FTS5 table {@code o} indexes, if this connector made it; null otherwise. */
  static String indexedTable(SchemaObjects.SchemaObject o) {
    if (!o.isVirtualTable()) {
      return null;
    }
    Matcher m = MADE_HERE.matcher(o.sql());
    return m.matches() ? m.group("table") : null;
  }

  /**
   * The SQL {@link #setup} writes for an FTS5 table, naming the app that made it ({@link MadeBy},
   * absent before apps were recorded): group {@code table} is its table.
   */
  private static final Pattern MADE_HERE = Pattern.compile(
      "CREATE VIRTUAL TABLE \"[A-Za-z0-9_]+\"(?: " + MadeBy.PATTERN + ")? USING fts5\\(.*,"
          + " content='(?<table>[A-Za-z_][A-Za-z0-9_]*)', content_rowid='rowid'\\)",
      Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  /** Drops the triggers of index {@code name} that are on {@code table}. */
  private static void dropTriggers(SqliteDatabase db, Connection c, String name, String table)
      throws SQLException {
    List<String> found = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c, "SELECT name FROM sqlite_master WHERE type ="
        + " 'trigger' AND name IN (?, ?, ?) COLLATE NOCASE AND tbl_name = ? COLLATE NOCASE")) {
      for (int i = 0; i < TRIGGER_SUFFIXES.length; i++) {
        ps.setString(i + 1, name + TRIGGER_SUFFIXES[i]);
      }
      ps.setString(TRIGGER_SUFFIXES.length + 1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(rs.getString(1));
        }
      }
    }
    for (String trigger : found) {
      db.execute(c, "DROP TRIGGER " + SqlIdentifiers.quote("trigger", trigger));
    }
  }

  /** The option naming an index's table, as written in its SQL (identifiers hold no quote). */
  private static String contentOption(String table) {
    return "content='" + table + "',";
  }

  private List<String> setup(FullTextIndex index) {
    String fts = SqlIdentifiers.quote("full-text index", index.name());
    String t = SqlIdentifiers.quote("table", table.name());
    List<String> cols = new ArrayList<>();
    for (String col : index.columns()) {
      cols.add(SqlIdentifiers.quote("column", col));
    }
    String list = String.join(", ", cols);
    String newValues = "new." + String.join(", new.", cols);
    String oldValues = "old." + String.join(", old.", cols);
    List<String> sql = new ArrayList<>();
    sql.add("CREATE VIRTUAL TABLE " + fts + " " + MadeBy.comment(run.app) + " USING fts5(" + list
        + ", " + contentOption(table.name()) + " content_rowid='rowid')");
    sql.add("CREATE TRIGGER " + SqlIdentifiers.quote("trigger", index.name() + "_ai")
        + " AFTER INSERT ON " + t + " BEGIN INSERT INTO " + fts + " (rowid, " + list
        + ") VALUES (new.rowid, " + newValues + "); END");
    sql.add("CREATE TRIGGER " + SqlIdentifiers.quote("trigger", index.name() + "_ad")
        + " AFTER DELETE ON " + t + " BEGIN INSERT INTO " + fts + " (" + fts + ", rowid, "
        + list + ") VALUES ('delete', old.rowid, " + oldValues + "); END");
    sql.add("CREATE TRIGGER " + SqlIdentifiers.quote("trigger", index.name() + "_au")
        + " AFTER UPDATE ON " + t + " BEGIN INSERT INTO " + fts + " (" + fts + ", rowid, "
        + list + ") VALUES ('delete', old.rowid, " + oldValues + "); INSERT INTO " + fts
        + " (rowid, " + list + ") VALUES (new.rowid, " + newValues + "); END");
    sql.add("INSERT INTO " + fts + " (" + fts + ") VALUES ('rebuild')");
    return sql;
  }
}
