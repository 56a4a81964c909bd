package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import java.util.ArrayList;
import java.util.List;

/**
 * FTS5 full-text indexes of one table: an external-content FTS5 table plus insert, delete and
 * update triggers that keep it in sync with the table, rebuilt from the table when (re)created.
 */
final class FullTextIndexHandler
    implements TargetHandler<FullTextIndex, FullTextIndex, AttachmentAction> {
  private final TableSpec table;
  private final TargetActionSink<AttachmentAction> sink;

  FullTextIndexHandler(TableSpec table, TargetActionSink<AttachmentAction> sink) {
    this.table = table;
    this.sink = sink;
  }

  @Override
  public TargetReconcileOutput<AttachmentAction, FullTextIndex> reconcile(
      StableKey key, FullTextIndex desired, List<FullTextIndex> prev, boolean prevMayBeMissing) {
    String name = ((StableKey.Str) key).value();
    if (desired == null) {
      if (prev.isEmpty() && !prevMayBeMissing) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.delete(
          new AttachmentAction(table.name(), teardown(name), List.of())), sink, null);
    }
    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    AttachmentAction action = new AttachmentAction(
        table.name(), prev.isEmpty() ? List.of() : teardown(name), setup(desired));
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, desired);
  }

  /**
   * The FTS5 tables whose external content is {@code table}: their SQL holds exactly the {@code
   * content='<table>',} that {@link #setup} writes (a LIKE pattern would take the {@code _} of
   * {@code item_2} for any character and find the index of {@code items2}). SQLite names are
   * case-insensitive, and so is the match.
   */
  static List<String> indexesOf(SqliteDatabase db, java.sql.Connection c, String table)
      throws java.sql.SQLException {
    List<String> out = new ArrayList<>();
    try (java.sql.PreparedStatement ps = db.prepare(c,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE %'"
            + " AND instr(lower(sql), ?) > 0")) {
      ps.setString(1, contentOption(table).toLowerCase(java.util.Locale.ROOT));
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  /** The option naming an index's table, as written in its SQL (identifiers hold no quote). */
  private static String contentOption(String table) {
    return "content='" + table + "',";
  }

  private static List<String> teardown(String name) {
    List<String> sql = new ArrayList<>();
    for (String suffix : new String[] {"_ai", "_ad", "_au"}) {
      sql.add("DROP TRIGGER IF EXISTS " + SqlIdentifiers.quote("trigger", name + suffix));
    }
    sql.add("DROP TABLE IF EXISTS " + SqlIdentifiers.quote("full-text index", name));
    return sql;
  }

  private List<String> setup(FullTextIndex index) {
    String fts = SqlIdentifiers.quote("full-text index", index.name());
    String t = SqlIdentifiers.quote("table", table.name());
    if (index.columns().isEmpty()) {
      throw new IllegalArgumentException("full-text index " + index.name() + " has no columns");
    }
    List<String> cols = new ArrayList<>();
    for (String col : index.columns()) {
      if (table.columns().stream().noneMatch(c -> c.name().equals(col))) {
        throw new IllegalArgumentException("full-text index " + index.name() + " names column '"
            + col + "', which table " + table.name() + " does not have");
      }
      cols.add(SqlIdentifiers.quote("column", col));
    }
    String list = String.join(", ", cols);
    String newValues = "new." + String.join(", new.", cols);
    String oldValues = "old." + String.join(", old.", cols);
    List<String> sql = new ArrayList<>(teardown(index.name()));
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
