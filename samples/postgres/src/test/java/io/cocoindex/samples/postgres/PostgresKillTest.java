package io.cocoindex.samples.postgres;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.testkit.ChildJvm;
import io.cocoindex.testkit.KillTrials;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at random moments: a child JVM ({@link PostgresKillChild}) updates up to three tables
 * and about 330 rows in components of 15 ({@link PostgresKillWorld}) in a schema of its own and
 * is killed ({@code destroyForcibly}, SIGKILL) somewhere in its run; a run in this JVM, on the
 * same generation or the next one (rows added, changed and removed, columns added, dropped and
 * retyped, a primary key changed, a table renamed, added and removed, indexes and views moved or
 * changed since), must then converge. Read with plain JDBC, never through the connector, the
 * schema holds exactly the declared relations (tables, their primary keys' indexes, the declared
 * indexes, views), each table exactly the declared columns with their types, primary key and
 * rows, each index its columns, uniqueness and access method, each view the declared rows, each
 * table's comment exactly its declared SQL commands; a preview plans nothing and a second update
 * sends no statement. The child JVM and the trials are the test kit's ({@link ChildJvm}, {@link
 * KillTrials}). Needs {@code COCOINDEX_TEST_POSTGRES_URL} (skipped without it, like the other
 * PostgreSQL tests).
 *
 * <p>{@code -Dpostgres.kill.trials=N} for more trials, {@code -Dpostgres.kill.seed=S} to replay.
 */
class PostgresKillTest {
  static final CountingDataSource COUNTING = new CountingDataSource(PostgresServer.DATA_SOURCE);

  @TempDir Path dir;
  String schema;

  @AfterEach
  void dropSchema() {
    if (schema != null) {
      PostgresServer.execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    }
  }

  @Test
  void everyKilledRunConvergesOnTheNextRun() throws Exception {
    PostgresServer.require();
    KillTrials trials = KillTrials.fromSystemProperties("postgres.kill", 8);
    long seed = trials.seed();
    schema = "kill_" + Long.toHexString(seed & 0xffffffffL) + "_"
        + Long.toHexString(System.nanoTime() & 0xffff);
    PostgresServer.execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    Path state = dir.resolve("state");
    trials.runGenerations(
        generation -> child(state, seed, generation),
        generation -> {
          System.out.println("clean run: " + PostgresKillWorld.of(schema, seed, generation));
          return convergenceProblems(state, seed, generation);
        });
  }

  /** The child JVM's update of {@code generation} in {@link #schema}. */
  private ChildJvm child(Path state, long seed, int generation) {
    return ChildJvm.of(PostgresKillChild.class, state, schema, seed, generation)
        .withTimeouts(Duration.ofSeconds(120), Duration.ofSeconds(180));
  }

  /**
   * A clean update in this JVM, then what differs from the declared world, a preview's plans
   * and the statements of a second update.
   */
  private List<String> convergenceProblems(Path state, long seed, int generation)
      throws SQLException {
    PostgresKillWorld world = PostgresKillWorld.of(schema, seed, generation);
    List<String> problems = new ArrayList<>();
    try (App app = App.create("kill", Environment.builder().dbPath(state)
        .provide(PostgresKillWorld.DB, COUNTING.dataSource()).build(), world.main())) {
      app.update();
      try (Connection c = PostgresServer.DATA_SOURCE.getConnection()) {
        problems.addAll(differences(c, world));
      }
      app.preview().changes().forEach(p -> problems.add("still planned: " + p));
      COUNTING.take();
      app.update();
      List<String> sent = COUNTING.take();
      if (!sent.isEmpty()) {
        problems.add("a second update sent " + sent.size() + " statements: "
            + sent.subList(0, Math.min(5, sent.size())));
      }
    }
    return problems;
  }

  /** What the schema holds that the world does not declare, read with plain JDBC. */
  private List<String> differences(Connection c, PostgresKillWorld world) throws SQLException {
    List<String> problems = new ArrayList<>();
    // Every relation of the schema: tables, indexes, views (and nothing else).
    TreeSet<String> expected = new TreeSet<>();
    world.tables().forEach((table, t) -> {
      expected.add(table + " r");
      expected.add(table + "_pkey i");
      t.indexes().forEach(i -> expected.add(IndexNames.of(table, i.name()) + " i"));
    });
    world.views().keySet().forEach(v -> expected.add(v + " v"));
    TreeSet<String> actual = new TreeSet<>(strings(c, "SELECT c.relname || ' ' ||"
        + " c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        + " WHERE n.nspname = ?", schema));
    diff(problems, "relation", expected, actual);

    for (Map.Entry<String, PostgresKillWorld.Table> e : world.tables().entrySet()) {
      String table = e.getKey();
      PostgresKillWorld.Table t = e.getValue();
      if (!actual.contains(table + " r")) {
        continue;
      }
      String qualified = "\"" + schema + "\".\"" + table + "\"";
      // Columns, with their types as PostgreSQL names them, and the primary key.
      Map<String, String> columns = new TreeMap<>();
      t.spec().columns().forEach(col -> columns.put(col.name(), col.type()));
      Map<String, String> actualColumns = new TreeMap<>();
      for (String line : strings(c, "SELECT attname || ' ' || format_type(atttypid, atttypmod)"
          + " FROM pg_attribute WHERE attrelid = to_regclass(?) AND attnum > 0"
          + " AND NOT attisdropped", qualified)) {
        actualColumns.put(line.substring(0, line.indexOf(' ')),
            line.substring(line.indexOf(' ') + 1));
      }
      if (!columns.equals(actualColumns)) {
        problems.add("table " + table + " has columns " + actualColumns + ", declared "
            + columns);
        continue;
      }
      List<String> key = strings(c, "SELECT a.attname FROM pg_index i JOIN pg_attribute a"
          + " ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
          + " WHERE i.indrelid = to_regclass(?) AND i.indisprimary"
          + " ORDER BY array_position(i.indkey::int2[], a.attnum)", qualified);
      if (!key.equals(t.spec().primaryKey())) {
        problems.add("table " + table + " has primary key " + key + ", declared "
            + t.spec().primaryKey());
      }
      // Rows.
      Map<String, Map<String, Object>> rows = new TreeMap<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT * FROM " + qualified)) {
        while (rs.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (String col : columns.keySet()) {
            row.put(col, rs.getObject(col));
          }
          rows.put(keyOf(t, row), row);
        }
      }
      Map<String, Map<String, Object>> declared = new TreeMap<>();
      t.rows().forEach(row -> declared.put(keyOf(t, row), row));
      List<String> rowProblems = new ArrayList<>();
      rows.forEach((k, v) -> {
        if (!declared.containsKey(k)) {
          rowProblems.add("row left over in " + table + ": " + v);
        } else if (!sameRow(declared.get(k), v)) {
          rowProblems.add("wrong row in " + table + ": " + v + ", declared " + declared.get(k));
        }
      });
      declared.keySet().stream().filter(k -> !rows.containsKey(k))
          .forEach(k -> rowProblems.add("row missing in " + table + ": " + declared.get(k)));
      problems.addAll(rowProblems.subList(0, Math.min(10, rowProblems.size())));
      if (rowProblems.size() > 10) {
        problems.add("... and " + (rowProblems.size() - 10) + " more rows of " + table);
      }
      // Indexes but the primary key's: columns, uniqueness, access method, valid.
      TreeSet<String> indexes = new TreeSet<>();
      t.indexes().forEach(i -> indexes.add(IndexNames.of(table, i.name()) + " "
          + (i.unique() ? "unique " : "") + i.method() + " " + String.join(",", i.columns())
          + " valid"));
      TreeSet<String> actualIndexes = new TreeSet<>(strings(c, "SELECT ci.relname || ' ' ||"
          + " CASE WHEN x.indisunique THEN 'unique ' ELSE '' END || am.amname || ' ' ||"
          + " (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(x.indkey::int2[])"
          + " WITH ORDINALITY k(attnum, ord) JOIN pg_attribute a ON a.attrelid = x.indrelid"
          + " AND a.attnum = k.attnum) || CASE WHEN x.indisvalid THEN ' valid' ELSE ' invalid'"
          + " END FROM pg_index x JOIN pg_class ci ON ci.oid = x.indexrelid"
          + " JOIN pg_am am ON am.oid = ci.relam"
          + " WHERE x.indrelid = to_regclass(?) AND NOT x.indisprimary", qualified));
      diff(problems, "index of " + table, indexes, actualIndexes);
      // The SQL commands recorded in the table's comment: exactly the declared ones.
      TreeSet<String> commands = new TreeSet<>();
      t.commands().forEach(cmd -> commands.add(cmd.name() + " " + cmd.setup() + " "
          + cmd.teardown()));
      TreeSet<String> recorded = new TreeSet<>(strings(c, "SELECT e.key || ' ' ||"
          + " (e.value ->> 'setup') || ' ' || (e.value ->> 'teardown') FROM jsonb_each("
          + "CAST(obj_description(to_regclass(?), 'pg_class') AS jsonb)"
          + " -> 'cocoindex_sql_commands') e", qualified));
      diff(problems, "SQL command recorded on " + table, commands, recorded);
    }
    // Views: what they select.
    for (Map.Entry<String, List<String>> v : world.views().entrySet()) {
      if (!actual.contains(v.getKey() + " v")) {
        continue;
      }
      List<String> selected = strings(c, "SELECT * FROM \"" + schema + "\"." + v.getKey()
          + " ORDER BY 1");
      if (!selected.equals(v.getValue())) {
        problems.add("view " + v.getKey() + " selects " + selected.size() + " rows "
            + selected.subList(0, Math.min(3, selected.size())) + "..., declared "
            + v.getValue().size() + " " + v.getValue().subList(0, Math.min(3,
                v.getValue().size())) + "...");
      }
    }
    return problems;
  }

  /** A row's primary-key values, zero-padded so keys sort as numbers. */
  private static String keyOf(PostgresKillWorld.Table t, Map<String, Object> row) {
    StringBuilder key = new StringBuilder();
    for (String pk : t.spec().primaryKey()) {
      Object v = row.get(pk);
      key.append(v instanceof Number n ? String.format("%012d", n.longValue()) : v).append('|');
    }
    return key.toString();
  }

  /** Whether two rows hold equal values of equal Java types, by column. */
  private static boolean sameRow(Map<String, Object> declared, Map<String, Object> read) {
    if (!declared.keySet().equals(read.keySet())) {
      return false;
    }
    for (String col : declared.keySet()) {
      if (!Objects.equals(declared.get(col), read.get(col))) {
        return false;
      }
    }
    return true;
  }

  private static void diff(List<String> problems, String what, TreeSet<String> expected,
      TreeSet<String> actual) {
    actual.stream().filter(a -> !expected.contains(a))
        .forEach(a -> problems.add(what + " left over: " + a));
    expected.stream().filter(e -> !actual.contains(e))
        .forEach(e -> problems.add(what + " missing: " + e));
  }

  /** Each row of a query as its columns' values joined by {@code |}. */
  private static List<String> strings(Connection c, String sql, String... parameters)
      throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setString(i + 1, parameters[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          StringBuilder line = new StringBuilder();
          for (int i = 1; i <= n; i++) {
            line.append(i == 1 ? "" : "|").append(rs.getString(i));
          }
          out.add(line.toString());
        }
      }
    }
    return out;
  }
}
