package io.cocoindex.samples.sqlite;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.testkit.ChildJvm;
import io.cocoindex.testkit.KillTrials;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at random moments: a child JVM ({@link SqliteKillChild}) updates a database of up to
 * three tables and about 330 rows in components of 15 ({@link SqliteKillWorld}) and is killed
 * ({@code destroyForcibly}, SIGKILL) somewhere in its run; a run in this JVM, on the same
 * generation or the next one (rows added, changed and removed, columns added, retyped and
 * dropped, a primary key changed, a table renamed, added and removed, indexes, the full-text
 * index and the views moved or changed since), must then converge. Read with plain JDBC, never
 * through the connector, the database holds exactly the declared schema objects (tables, indexes,
 * FTS5 tables with their triggers, views, the SQL commands' records; no {@code
 * cocoindex_rebuild} left over), each table exactly the declared columns with their types and
 * primary key and exactly the declared rows, each index its declared columns, each full-text
 * index exactly its table's content, each view its declared SQL; a preview plans nothing and a
 * second update sends no statement. The child JVM and the trials are the test kit's ({@link
 * ChildJvm}, {@link KillTrials}).
 *
 * <p>{@code -Dsqlite.kill.trials=N} for more trials, {@code -Dsqlite.kill.seed=S} to replay.
 */
class SqliteKillTest {
  @TempDir Path dir;

  @Test
  void everyKilledRunConvergesOnTheNextRun() throws Exception {
    KillTrials trials = KillTrials.fromSystemProperties("sqlite.kill", 8);
    Path state = dir.resolve("state");
    Path file = dir.resolve("target.sqlite");
    long seed = trials.seed();
    trials.runGenerations(
        generation -> child(state, file, seed, generation),
        generation -> {
          System.out.println("clean run: " + SqliteKillWorld.of(seed, generation));
          return convergenceProblems(state, file, seed, generation);
        });
  }

  /** The child JVM's update of {@code generation}. */
  private static ChildJvm child(Path state, Path file, long seed, int generation) {
    return ChildJvm.of(SqliteKillChild.class, state, file, seed, generation)
        .withTimeouts(java.time.Duration.ofSeconds(120), java.time.Duration.ofSeconds(180));
  }

  /**
   * A clean update in this JVM, then what differs from the declared world, a preview's plans
   * and the statements of a second update.
   */
  static List<String> convergenceProblems(Path state, Path file, long seed, int generation)
      throws Exception {
    SqliteKillWorld world = SqliteKillWorld.of(seed, generation);
    List<String> problems = new ArrayList<>();
    try (SqliteDatabase db = SqliteDatabase.open(file);
        App app = App.create("kill", Environment.builder().dbPath(state)
            .provide(SqliteKillWorld.DB, db).build(), world.main())) {
      app.update();
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath())) {
        problems.addAll(differences(c, world));
      }
      app.preview().changes().forEach(p -> problems.add("still planned: " + p));
      long statements = db.statementsExecuted();
      app.update();
      if (db.statementsExecuted() != statements) {
        problems.add("a second update sent " + (db.statementsExecuted() - statements)
            + " statements");
      }
    }
    return problems;
  }

  /** What the database holds that the world does not declare, read with plain JDBC. */
  static List<String> differences(Connection c, SqliteKillWorld world) throws SQLException {
    List<String> problems = new ArrayList<>();
    // Every schema object.
    TreeSet<String> expected = new TreeSet<>();
    boolean commands = false;
    for (Map.Entry<String, SqliteKillWorld.Table<?>> e : world.tables().entrySet()) {
      String table = e.getKey();
      SqliteKillWorld.Table<?> t = e.getValue();
      expected.add("table " + table);
      t.indexes().forEach(i -> expected.add("index " + IndexNames.of(table, i.name())));
      for (FullTextIndex f : t.fullTextIndexes()) {
        for (String suffix : List.of("", "_config", "_data", "_docsize", "_idx")) {
          expected.add("table " + f.name() + suffix);
        }
        for (String suffix : List.of("_ai", "_ad", "_au")) {
          expected.add("trigger " + f.name() + suffix);
        }
      }
      commands |= !t.commands().isEmpty();
    }
    world.views().keySet().forEach(v -> expected.add("view " + v));
    if (commands) {
      expected.add("table " + SqlCommandRecords.TABLE);
    }
    TreeSet<String> actual = new TreeSet<>(strings(c, "SELECT type || ' ' || name FROM"
        + " sqlite_master WHERE name NOT LIKE 'sqlite_%'"));
    diff(problems, "schema object", expected, actual);

    for (Map.Entry<String, SqliteKillWorld.Table<?>> e : world.tables().entrySet()) {
      String table = e.getKey();
      SqliteKillWorld.Table<?> t = e.getValue();
      if (!actual.contains("table " + table)) {
        continue;
      }
      // Columns and primary key.
      Map<String, String> columns = new TreeMap<>();
      t.schema().columns().forEach(col -> columns.put(col.name(), col.type()));
      Map<String, String> actualColumns = new TreeMap<>();
      TreeMap<Integer, String> pk = new TreeMap<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT name, type, pk FROM pragma_table_info(?)")) {
        ps.setString(1, table);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            actualColumns.put(rs.getString(1), rs.getString(2));
            if (rs.getInt(3) > 0) {
              pk.put(rs.getInt(3), rs.getString(1));
            }
          }
        }
      }
      if (!columns.equals(actualColumns)) {
        problems.add("table " + table + " has columns " + actualColumns + ", declared "
            + columns);
        continue;
      }
      if (!t.primaryKey().equals(new ArrayList<>(pk.values()))) {
        problems.add("table " + table + " has primary key " + pk.values() + ", declared "
            + t.primaryKey());
      }
      // Rows.
      List<String> names = t.schema().columns().stream().map(ColumnSpec::name).toList();
      Map<List<Object>, List<Object>> rows = new TreeMap<>(SqliteKillTest::compareKeys);
      StringBuilder select = new StringBuilder("SELECT ");
      for (String n : names) {
        select.append("typeof(\"").append(n).append("\"), \"").append(n).append("\", ");
      }
      select.setLength(select.length() - 2);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(select + " FROM \"" + table + "\"")) {
        while (rs.next()) {
          List<Object> values = new ArrayList<>();
          for (int i = 0; i < names.size(); i++) {
            String type = rs.getString(2 * i + 1);
            values.add(switch (type) {
              case "integer" -> rs.getLong(2 * i + 2);
              case "real" -> rs.getDouble(2 * i + 2);
              case "null" -> null;
              default -> type + ":" + rs.getString(2 * i + 2);
            });
          }
          List<Object> key = new ArrayList<>();
          t.primaryKey().forEach(k -> key.add(values.get(names.indexOf(k))));
          rows.put(key, values);
        }
      }
      Map<List<Object>, List<Object>> declared = new TreeMap<>(SqliteKillTest::compareKeys);
      t.expectedRows().forEach((k, v) -> declared.put(texts(k), texts(v)));
      List<String> rowProblems = new ArrayList<>();
      rows.forEach((k, v) -> {
        if (!declared.containsKey(k)) {
          rowProblems.add("row left over in " + table + ": " + v);
        } else if (!Objects.equals(declared.get(k), v)) {
          rowProblems.add("wrong row in " + table + ": " + v + ", declared " + declared.get(k));
        }
      });
      declared.keySet().stream().filter(k -> !rows.containsKey(k))
          .forEach(k -> rowProblems.add("row missing in " + table + ": " + declared.get(k)));
      problems.addAll(rowProblems.subList(0, Math.min(10, rowProblems.size())));
      if (rowProblems.size() > 10) {
        problems.add("... and " + (rowProblems.size() - 10) + " more rows of " + table);
      }
      // Indexes (those CREATE INDEX made), with their columns.
      Map<String, String> indexes = new TreeMap<>();
      for (IndexSpec i : t.indexes()) {
        indexes.put(IndexNames.of(table, i.name()), (i.unique() ? "unique " : "") + i.columns());
      }
      Map<String, String> actualIndexes = new TreeMap<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT name, \"unique\" FROM pragma_index_list(?) WHERE origin = 'c'")) {
        ps.setString(1, table);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            actualIndexes.put(rs.getString(1), rs.getString(2));
          }
        }
      }
      for (Map.Entry<String, String> i : actualIndexes.entrySet()) {
        List<String> cols = strings(c, "SELECT name FROM pragma_index_info('" + i.getKey()
            + "') ORDER BY seqno");
        i.setValue((i.getValue().equals("1") ? "unique " : "") + cols);
      }
      if (!indexes.equals(actualIndexes)) {
        problems.add("table " + table + " has indexes " + actualIndexes + ", declared "
            + indexes);
      }
      // Full-text indexes: on this table, over the declared columns, holding its content.
      for (FullTextIndex f : t.fullTextIndexes()) {
        problems.addAll(fullTextProblems(c, table, f));
      }
    }
    // Views: the declared SQL, and what they select.
    Map<String, String> views = new TreeMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT name, sql FROM sqlite_master WHERE type = 'view'")) {
      while (rs.next()) {
        views.put(rs.getString(1), rs.getString(2));
      }
    }
    if (!views.equals(world.viewSql())) {
      problems.add("views " + views + ", declared " + world.viewSql());
    } else {
      for (Map.Entry<String, Long> v : world.viewCounts().entrySet()) {
        long n = Long.parseLong(strings(c, "SELECT count(*) FROM " + v.getKey()).get(0));
        if (n != v.getValue()) {
          problems.add("view " + v.getKey() + " selects " + n + " rows, not " + v.getValue());
        }
      }
    }
    // The records of the SQL commands set up: exactly the declared ones.
    if (commands && actual.contains("table " + SqlCommandRecords.TABLE)) {
      TreeSet<String> records = new TreeSet<>(strings(c, "SELECT table_name || ' ' || name"
          + " || ' ' || teardown FROM " + SqlCommandRecords.TABLE));
      TreeSet<String> declared = new TreeSet<>();
      world.tables().forEach((table, t) -> t.commands().forEach(
          cmd -> declared.add(table + " " + cmd.name() + " " + cmd.teardown())));
      diff(problems, "SQL command record", declared, records);
    }
    return problems;
  }

  private static List<String> fullTextProblems(Connection c, String table, FullTextIndex f)
      throws SQLException {
    List<String> problems = new ArrayList<>();
    String fts = f.name();
    List<String> triggersOn = strings(c, "SELECT name FROM sqlite_master WHERE type = 'trigger'"
        + " AND name LIKE '" + fts + "%' AND tbl_name = '" + table + "' ORDER BY name");
    if (!triggersOn.equals(List.of(fts + "_ad", fts + "_ai", fts + "_au"))) {
      problems.add("full-text index " + fts + " has triggers " + triggersOn + " on " + table);
    }
    List<String> sql = strings(c, "SELECT sql FROM sqlite_master WHERE name = '" + fts + "'");
    if (sql.isEmpty() || !sql.get(0).contains("content='" + table + "'")) {
      problems.add("full-text index " + fts + " is not over table " + table + ": " + sql);
      return problems;
    }
    List<String> columns = strings(c, "SELECT name FROM pragma_table_info('" + fts + "')");
    if (!columns.equals(f.columns())) {
      problems.add("full-text index " + fts + " has columns " + columns + ", declared "
          + f.columns());
      return problems;
    }
    try (Statement s = c.createStatement()) {
      s.execute("INSERT INTO " + fts + " (" + fts + ", rank) VALUES ('integrity-check', 1)");
    } catch (SQLException e) {
      problems.add("full-text index " + fts + " fails its integrity check: " + e.getMessage());
    }
    StringBuilder text = new StringBuilder("' '");
    for (String col : f.columns()) {
      text.append(" || coalesce(\"").append(col).append("\", '') || ' '");
    }
    for (int w = 0; w < 7; w++) {
      List<String> found = strings(c, "SELECT rowid FROM " + fts + " WHERE " + fts
          + " MATCH 'w" + w + "' ORDER BY rowid");
      List<String> holding = strings(c, "SELECT rowid FROM \"" + table + "\" WHERE " + text
          + " LIKE '% w" + w + " %' ORDER BY rowid");
      if (!found.equals(holding)) {
        problems.add("full-text index " + fts + " finds w" + w + " in " + found.size()
            + " rows of " + table + ", which holds it in " + holding.size());
      }
    }
    return problems;
  }

  /** Values as read: a text tagged so, as the storage class of every other value is its type. */
  private static List<Object> texts(List<Object> values) {
    return values.stream().map(x -> x instanceof String s ? "text:" + s : x).toList();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compareKeys(List<Object> a, List<Object> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      Object x = a.get(i);
      Object y = b.get(i);
      int cmp = x.getClass() == y.getClass() ? ((Comparable) x).compareTo(y)
          : x.getClass().getName().compareTo(y.getClass().getName());
      if (cmp != 0) {
        return cmp;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  private static void diff(List<String> problems, String what, TreeSet<String> expected,
      TreeSet<String> actual) {
    actual.stream().filter(a -> !expected.contains(a))
        .forEach(a -> problems.add(what + " left over: " + a));
    expected.stream().filter(e -> !actual.contains(e))
        .forEach(e -> problems.add(what + " missing: " + e));
  }

  private static List<String> strings(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
