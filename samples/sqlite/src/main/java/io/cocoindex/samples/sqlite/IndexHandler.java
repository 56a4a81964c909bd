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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Indexes of one table, tracked by their full spec: a changed spec drops and recreates the index;
 * an identical spec does nothing; a removed one is dropped.
 *
 * <p>SQLite index names are database-wide, so an index is named by its table in the database
 * ({@link IndexNames}: {@code <table>__<name>}, or its name when that starts with the table's) and
 * keyed by that name case-folded. The sink drops only indexes of this table, and creates an index
 * under a free name or finds it there: a name that another table's index, a table or a view holds
 * is an error naming it, never a {@code CREATE INDEX IF NOT EXISTS} that does nothing.
 */
final class IndexHandler implements TargetHandler<IndexSpec, IndexSpec, AttachmentAction> {
  private static final Logger log = LoggerFactory.getLogger(IndexHandler.class);

  private final TableSpec table;
  private final TargetActionSink<AttachmentAction> sink;
  /** The app's name, written in each index it creates ({@link MadeBy}). */
  private final String app;
  /** The names in the database of the indexes declared in this run, case-folded. */
  private final Set<String> declared = ConcurrentHashMap.newKeySet();

  IndexHandler(TableSpec table, TargetActionSink<AttachmentAction> sink, String app) {
    this.table = table;
    this.sink = sink;
    this.app = app;
  }

  @Override
  public TargetReconcileOutput<AttachmentAction, IndexSpec> reconcile(
      StableKey key, IndexSpec desired, List<IndexSpec> prev, boolean prevMayBeMissing) {
    String keyName = key.asString();
    if (desired == null) {
      if (prev.isEmpty() && !prevMayBeMissing) {
        return null;
      }
      // An index declared in this run under another key (its key before keys were folded, or
      // before indexes were named by their table) is the declared one: dropping it would drop
      // the declared index.
      List<String> drops = earlierNames(keyName, prev).stream()
          .filter(n -> !declared.contains(SqlIdentifiers.fold(n))).toList();
      if (drops.isEmpty()) {
        return null;
      }
      String index = prev.isEmpty() ? keyName : prev.get(0).name();
      return TargetReconcileOutput.of(TargetAction.delete(AttachmentAction.ofIndex(
          table.name(), index, drops, null, List.of()).withIndexMade(made(prev))), sink, null);
    }
    String name = IndexNames.of(table.name(), desired.name());
    declared.add(SqlIdentifiers.fold(name));
    boolean changed = prev.stream().anyMatch(p -> !p.equals(desired));
    if (!changed && !prevMayBeMissing && !prev.isEmpty()) {
      return null;
    }
    // A changed spec drops the earlier index; an unchanged one keeps it (the sink finds it) and
    // drops only one under a name of an earlier version.
    List<String> drops = earlierNames(keyName, prev).stream()
        .filter(n -> SqlIdentifiers.fold(n).equals(SqlIdentifiers.fold(name)) ? changed
            : !declared.contains(SqlIdentifiers.fold(n)))
        .toList();
    AttachmentAction action = AttachmentAction.ofIndex(table.name(), desired.name(), drops, name,
        List.of(createSql(desired, name))).withIndexMade(drops.isEmpty() ? List.of() : made(prev));
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, desired);
  }

  /**
   * What the earlier records say the app made: each spec's {@code CREATE INDEX} under its name
   * now and under its declared name (as versions before {@link IndexNames} named it), distinct.
   */
  private List<String> made(List<IndexSpec> prev) {
    List<String> made = new ArrayList<>();
    for (IndexSpec p : prev) {
      for (String name : List.of(IndexNames.of(table.name(), p.name()), p.name())) {
        String sql = sql(p, name);
        if (!made.contains(sql)) {
          made.add(sql);
        }
      }
    }
    return made;
  }

  /**
   * Where the indexes of the earlier records may be, distinct as SQLite compares names: under
   * their names now; for a record keyed by its declared name, as versions before {@link
   * IndexNames} keyed and named indexes, under that name too; with no record, under the key.
   */
  private List<String> earlierNames(String key, List<IndexSpec> prev) {
    Map<String, String> names = new LinkedHashMap<>();
    for (IndexSpec p : prev) {
      String now = IndexNames.of(table.name(), p.name());
      names.putIfAbsent(SqlIdentifiers.fold(now), now);
      if (!SqlIdentifiers.fold(key).equals(SqlIdentifiers.fold(now))) {
        names.putIfAbsent(SqlIdentifiers.fold(p.name()), p.name());
      }
    }
    if (prev.isEmpty()) {
      names.put(SqlIdentifiers.fold(key), key);
    }
    return new ArrayList<>(names.values());
  }

  /**
   * Checks index {@code spec} of table {@code table} with {@code columns} when declared, before
   * anything runs.
   *
   * @throws IllegalArgumentException naming the index and what is wrong with it
   */
  static void check(String table, List<ColumnSpec> columns, IndexSpec spec) {
    if (spec.columns().isEmpty()) {
      throw new IllegalArgumentException(
          "index " + spec.name() + " of table " + table + " has no columns");
    }
    for (String col : spec.columns()) {
      if (columns.stream().noneMatch(c -> c.name().equalsIgnoreCase(col))) {
        throw new IllegalArgumentException("index " + spec.name() + " names column '" + col
            + "', which table " + table + " does not have");
      }
    }
  }

  private String createSql(IndexSpec spec, String name) {
    check(table.name(), table.columns(), spec);
    return sql(spec, name);
  }

  /** The {@code CREATE INDEX} of {@code spec} under {@code name}, unchecked. */
  private String sql(IndexSpec spec, String name) {
    StringBuilder cols = new StringBuilder();
    for (String col : spec.columns()) {
      cols.append(cols.length() == 0 ? "" : ", ").append(SqlIdentifiers.quote("column", col));
    }
    return "CREATE " + (spec.unique() ? "UNIQUE " : "") + "INDEX "
        + SqlIdentifiers.quote("index", name) + " " + MadeBy.comment(app) + " ON "
        + SqlIdentifiers.quote("table", table.name()) + " (" + cols + ")";
  }

  /**
   * Drops the action's {@link AttachmentAction#indexDrops} that are indexes of its table (what
   * else holds one of those names is left alone), then looks up the name it creates its index
   * under: true when the name is free (run the setup), false when an index of the table has it
   * (kept, as {@code CREATE INDEX IF NOT EXISTS} would) or when the action only drops.
   *
   * @throws IllegalStateException naming what holds the name, when it is anything else
   */
  static boolean dropAndCheckName(SqliteDatabase db, Connection c, AttachmentAction a,
      String app) throws SQLException {
    for (String name : a.indexDrops()) {
      SchemaObjects.SchemaObject holder = SchemaObjects.find(db, c, name);
      String maker = holder == null ? null : MadeBy.appIn(holder.sql());
      if (holder != null && holder.isIndexOf(a.table()) && maker != null && !maker.equals(app)) {
        // Another app's index on a table both write (this app's as a user's table).
        log.warn("index {} of table {} is not dropped: app '{}' made it, and app '{}' no longer"
            + " declares it", holder.name(), a.table(), maker, app);
      } else if (holder != null && holder.isIndexOf(a.table()) && maker == null
          && a.indexMade().stream().noneMatch(m -> tokens(m).equals(tokens(holder.sql())))) {
        // Names no app, and is none of what the app's records say it made under the name.
        log.warn("index {} of table {} is not dropped: it names no app and is defined otherwise"
            + " ({}) than app '{}' made it (made by hand?)", holder.name(), a.table(),
            holder.sql(), app);
      } else if (holder != null && holder.isIndexOf(a.table())) {
        db.execute(c, "DROP INDEX " + SqlIdentifiers.quote("index", holder.name()));
      } else if (holder != null) {
        log.info("index {} of table {} is not dropped under the name {}: {} has it, left alone",
            a.index(), a.table(), name, holder.describe());
      }
    }
    if (a.indexName() == null) {
      return false;
    }
    SchemaObjects.SchemaObject holder = SchemaObjects.find(db, c, a.indexName());
    if (holder == null) {
      return true;
    }
    String maker = MadeBy.appIn(holder.sql());
    if (holder.isIndexOf(a.table()) && maker != null && !maker.equals(app)) {
      throw new IllegalStateException("index " + a.index() + " of table " + a.table()
          + " cannot be created" + (a.indexName().equals(a.index()) ? "" : " as "
          + a.indexName()) + ": app '" + maker + "' made an index of that name on the table, and"
          + " two apps cannot both create and drop one index (SQLite names are the database's):"
          + " declare another index name");
    }
    if (holder.isIndexOf(a.table()) && maker == null && app != null) {
      // Made by an earlier version (or by hand), naming no app: SQLite cannot comment an index
      // afterwards, so it is made again naming the app declaring it, which adopts it (its
      // removal, and its user's table's release, then find it). Runs only when an action is
      // planned for it (a changed spec, a full reprocess), not in an unchanged run. Only an
      // index of the app's definition is provably its own: any other is the user's, which the
      // app would otherwise replace, or keep and later drop as its own.
      if (!tokens(holder.sql()).equals(tokens(a.setup().get(0)))) {
        throw new IllegalStateException("index " + a.index() + " of table " + a.table()
            + " cannot be created as " + holder.name() + ": an index of that name on the table"
            + " names no app and has another definition (" + holder.sql() + ") than the app's ("
            + a.setup().get(0) + "), so it is not taken for the app's (made by hand?): drop or"
            + " rename it, or declare another index name");
      }
      db.execute(c, "DROP INDEX " + SqlIdentifiers.quote("index", holder.name()));
      return true;
    }
    if (holder.isIndexOf(a.table())) {
      return false;
    }
    throw new IllegalStateException("index " + a.index() + " of table " + a.table()
        + " cannot be created" + (a.indexName().equals(a.index()) ? "" : " as " + a.indexName())
        + ": " + holder.describe() + " has that name (SQLite names are case-insensitive, shared"
        + " by tables, views and indexes): declare another index name");
  }

  /**
   * The tokens of {@code sql} as SQLite reads them, to compare two {@code CREATE INDEX}
   * statements by what they define: comments and spacing dropped, identifiers unquoted and, as
   * keywords, case-folded; string literals kept as written.
   */
  static List<String> tokens(String sql) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char ch = sql.charAt(i);
      if (Character.isWhitespace(ch)) {
        i++;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (ch == '"' || ch == '`' || ch == '[' || ch == '\'') {
        char close = ch == '[' ? ']' : ch;
        StringBuilder quoted = new StringBuilder();
        for (i++; i < n; i++) {
          char d = sql.charAt(i);
          if (d == close && close != ']' && i + 1 < n && sql.charAt(i + 1) == close) {
            i++; // a doubled quote stands for itself
          } else if (d == close) {
            i++;
            break;
          }
          quoted.append(d);
        }
        out.add(ch == '\'' ? "'" + quoted : SqlIdentifiers.fold(quoted.toString()));
      } else if (Character.isLetterOrDigit(ch) || ch == '_' || ch == '$') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_'
            || sql.charAt(i) == '$')) {
          i++;
        }
        out.add(SqlIdentifiers.fold(sql.substring(start, i)));
      } else {
        out.add(String.valueOf(ch));
        i++;
      }
    }
    return out;
  }

  /**
   * Drops the indexes of {@code table} whose SQL names app {@code app} ({@link MadeBy}): when
   * the app no longer declares the user's table they are on. The user's indexes, another app's,
   * and one that names no app (made by hand, or before indexes named their app) stay.
   *
   * @return the names of the indexes dropped
   */
  static List<String> dropIndexesMadeBy(SqliteDatabase db, Connection c, String table,
      String app) throws SQLException {
    List<String> dropped = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c, "SELECT name, sql FROM sqlite_master WHERE type ="
        + " 'index' AND tbl_name = ? COLLATE NOCASE AND sql IS NOT NULL ORDER BY name")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (app.equals(MadeBy.appIn(rs.getString(2)))) {
            dropped.add(rs.getString(1));
          }
        }
      }
    }
    for (String index : dropped) {
      db.execute(c, "DROP INDEX " + SqlIdentifiers.quote("index", index));
    }
    return dropped;
  }
  /**
   * An index another app made on a table, as SQLite keeps it: its name and its SQL, which names
   * that app ({@link MadeBy}).
   *
   * @param name its name
   * @param sql its {@code CREATE INDEX}
   */
  record Made(String name, String sql) {}

  /**
   * The indexes of {@code table} that apps other than {@code app} made (on their user's table),
   * read before the table's own app {@code app} rebuilds or recreates it, which drops them with
   * the table while their apps' records say they are there.
   */
  static List<Made> madeByOthers(SqliteDatabase db, Connection c, String table, String app)
      throws SQLException {
    List<Made> made = new ArrayList<>();
    try (PreparedStatement ps = db.prepare(c, "SELECT name, sql FROM sqlite_master WHERE type ="
        + " 'index' AND tbl_name = ? COLLATE NOCASE AND sql IS NOT NULL ORDER BY name")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String maker = MadeBy.appIn(rs.getString(2));
          if (maker != null && !maker.equals(app)) {
            made.add(new Made(rs.getString(1), rs.getString(2)));
          }
        }
      }
    }
    return made;
  }

  /**
   * Makes again, with their own SQL (naming their apps), the indexes {@link #madeByOthers} read
   * before {@code table} was rebuilt or recreated: their apps' records are unchanged, so nothing
   * else would. One that cannot be made on the changed table (a column it indexed is gone) is
   * left out with a warning naming it and its app, which makes it when its spec next changes.
   */
  static void makeAgain(SqliteDatabase db, Connection c, String table, List<Made> made)
      throws SQLException {
    for (Made m : made) {
      db.execute(c, "SAVEPOINT cocoindex_make_again");
      try {
        db.execute(c, m.sql());
      } catch (SQLException failed) {
        db.execute(c, "ROLLBACK TO cocoindex_make_again");
        log.warn("index {} that app '{}' made on table {} cannot be made again on the changed"
            + " table: {}; app '{}' makes it when its spec next changes", m.name(),
            MadeBy.appIn(m.sql()), table, failed.getMessage(), MadeBy.appIn(m.sql()));
      }
      db.execute(c, "RELEASE cocoindex_make_again");
    }
  }
}
