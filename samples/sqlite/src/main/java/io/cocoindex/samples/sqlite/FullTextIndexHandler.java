package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * FTS5 full-text indexes of one table: an external-content FTS5 table plus insert, delete and
 * update triggers that keep it in sync with the table, rebuilt from the table when (re)created.
 *
 * <p>The FTS5 table is dropped only when it is an index of this table: a name that another
 * table, view or index holds (SQLite names are case-insensitive and shared by them) is an error
 * naming both, never a {@code DROP TABLE} of someone else's table.
 */
final class FullTextIndexHandler
    implements TargetHandler<FullTextIndex, FullTextIndex, AttachmentAction> {
  /** Suffixes of the three triggers, appended to the index's name. */
  private static final String[] TRIGGER_SUFFIXES = {"_ai", "_ad", "_au"};
  /** The longest index name whose triggers' names still fit in 64 characters. */
  static final int MAX_NAME_LENGTH = 64 - 3;

  private final TableSpec table;
  private final TargetActionSink<AttachmentAction> sink;
  /** The names declared in this run, case-folded: see {@link #reconcile}. */
  private final Set<String> declared = ConcurrentHashMap.newKeySet();

  FullTextIndexHandler(TableSpec table, TargetActionSink<AttachmentAction> sink) {
    this.table = table;
    this.sink = sink;
  }

  @Override
  public TargetReconcileOutput<AttachmentAction, FullTextIndex> reconcile(
      StableKey key, FullTextIndex desired, List<FullTextIndex> prev, boolean prevMayBeMissing) {
    String name = ((StableKey.Str) key).value();
    if (desired == null) {
      if ((prev.isEmpty() && !prevMayBeMissing) || declared.contains(SqlIdentifiers.fold(name))) {
        // Nothing to drop, or the index is declared under its case-folded name (its key before
        // keys were folded): dropping it would drop the declared index.
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.delete(AttachmentAction.of(
          table.name(), teardown(name), List.of()).withFullTextIndex(name)), sink, null);
    }
    check(table.name(), table.columns(), desired);
    declared.add(SqlIdentifiers.fold(name));
    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    // Whatever may exist goes first (an earlier spec, an interrupted setup): then the new one.
    AttachmentAction action = AttachmentAction.of(table.name(), teardown(desired.name()),
        setup(desired)).withFullTextIndex(desired.name());
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, desired);
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
   * Drops the FTS5 table {@code name} of {@code table} if it exists. Under that name, anything
   * else fails an action that would create the index, naming both; a removal leaves it alone.
   */
  static void dropIndexTable(SqliteDatabase db, Connection c, AttachmentAction a)
      throws SQLException {
    String name = a.fullTextIndex();
    SchemaObjects.SchemaObject existing = SchemaObjects.find(db, c, name);
    if (existing == null) {
      return;
    }
    if (existing.isVirtualTable() && existing.sql().toLowerCase(Locale.ROOT)
        .contains(contentOption(a.table()).toLowerCase(Locale.ROOT))) {
      db.execute(c, "DROP TABLE " + SqlIdentifiers.quote("full-text index", existing.name()));
    } else if (!a.setup().isEmpty()) {
      throw new IllegalStateException("full-text index '" + name + "' of table " + a.table()
          + " cannot be created: " + existing.describe() + " has that name (SQLite names are"
          + " case-insensitive, shared by tables, views and indexes); give the index another"
          + " name");
    }
  }

  /** The option naming an index's table, as written in its SQL (identifiers hold no quote). */
  private static String contentOption(String table) {
    return "content='" + table + "',";
  }

  /** Drops the triggers; the FTS5 table itself is dropped by {@link #dropIndexTable}. */
  private static List<String> teardown(String name) {
    List<String> sql = new ArrayList<>();
    for (String suffix : TRIGGER_SUFFIXES) {
      sql.add("DROP TRIGGER IF EXISTS " + SqlIdentifiers.quote("trigger", name + suffix));
    }
    return sql;
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
    sql.add("CREATE VIRTUAL TABLE " + fts + " USING fts5(" + list + ", "
        + contentOption(table.name()) + " content_rowid='rowid')");
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
