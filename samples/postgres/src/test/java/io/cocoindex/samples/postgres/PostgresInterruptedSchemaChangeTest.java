package io.cocoindex.samples.postgres;

import static io.cocoindex.samples.postgres.PostgresServer.execute;
import static io.cocoindex.samples.postgres.PostgresServer.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.testkit.CocoIndexExtension;
import java.util.List;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An index moved between tables and a renamed table, each interrupted at one statement (it fails
 * before it runs, or its transaction commits and the engine is told it failed, as when the
 * process dies there), then run again: the rerun ends with exactly the declared schema and rows,
 * and the run after it sends no statement.
 */
class PostgresInterruptedSchemaChangeTest {
  static final ContextKey<DataSource> DB = ContextKey.of("main_db", DataSource.class);
  static final CountingDataSource COUNTING = new CountingDataSource(PostgresServer.DATA_SOURCE);

  record Doc(long id, String title, int views) {}

  static final TableSchema<Doc> DOCS = TableSchema.of(Doc.class).primaryKey("id").build();
  /** The same rows keyed by id and title: a table changed to it is recreated. */
  static final TableSchema<Doc> BY_TITLE =
      TableSchema.of(Doc.class).primaryKey("id", "title").build();

  @RegisterExtension
  final CocoIndexExtension coco =
      CocoIndexExtension.builder().provide(DB, COUNTING.dataSource()).build();

  String schema;
  BiConsumer<Ctx, Tables> declare;
  final boolean[] changed = {false};
  App app;

  @BeforeEach
  void setUp(TestInfo info) {
    schema = PostgresServer.freshSchema(info);
    app = coco.app(ctx -> declare.accept(ctx, Tables.register(ctx, TableHandler.of(ctx, DB))));
  }

  @AfterEach
  void dropSchema() {
    COUNTING.failBefore(null);
    COUNTING.failAfterCommit(null);
    if (schema != null) { // null when setUp skipped the test: no server
      execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    }
  }

  /**
   * Runs the app, changes it and runs it with {@code fault} ("none", "before:SQL" or
   * "after:SQL", SQL being the start of the statement to fail at: that update must fail), then
   * runs it again, and once more, which must send no statement.
   */
  /** What the tables of {@link #twoTables} declare besides their rows. */
  interface OnTwoTables {
    void declare(Ctx ctx, TableTarget a, TableTarget b);
  }

  /** Whether the table {@link #twoTables} recreates has its new primary key. */
  final boolean[] recreated = {false};

  /**
   * Declares tables a (mounted) and b (mounted or declared), row 1 "in a" and row 2 "in b", and
   * what {@code then} declares on them; once {@link #recreated}, table {@code recreating}'s
   * primary key is (id, title), so that run recreates it.
   */
  void twoTables(String recreating, boolean mountB, OnTwoTables then) {
    declare = (ctx, tables) -> {
      TableSchema<Doc> schemaA = recreated[0] && recreating.equals("a") ? BY_TITLE : DOCS;
      TableSchema<Doc> schemaB = recreated[0] && recreating.equals("b") ? BY_TITLE : DOCS;
      TableTarget a = tables.mountTable(ctx, schemaA.table(DB, schema, "a"));
      TableSpec specB = schemaB.table(DB, schema, "b");
      TableTarget b = mountB ? tables.mountTable(ctx, specB) : tables.declareTable(ctx, specB);
      a.declareRow(ctx, schemaA.row(new Doc(1, "in a", 1)));
      b.declareRow(ctx, schemaB.row(new Doc(2, "in b", 2)));
      then.declare(ctx, a, b);
    };
  }

  /** The view {@code titles} over a, or over b once {@link #changed}, declared there. */
  void titlesOnTheChangedTable(Ctx ctx, TableTarget a, TableTarget b) {
    (changed[0] ? b : a).declareSqlCommand(ctx, titlesOver(changed[0] ? "b" : "a"));
  }

  /** After a change interrupted: back to the first declarations, in a run that recreates. */
  void moveBackAndRecreate() {
    changed[0] = false;
    recreated[0] = true;
  }

  void interruptAndConverge(String fault) {
    interruptAndConverge(fault, () -> {});
  }

  /** As above, changing the app again with {@code then} after the interrupted update. */
  void interruptAndConverge(String fault, Runnable then) {
    coco.update(app);
    changed[0] = true;
    if (!fault.equals("none")) {
      String at = fault.substring(fault.indexOf(':') + 1);
      if (fault.startsWith("before:")) {
        COUNTING.failBefore(sql -> sql.startsWith(at));
      } else {
        COUNTING.failAfterCommit(sql -> sql.startsWith(at));
      }
      try {
        assertThatThrownBy(() -> coco.update(app)).hasMessageContaining("injected failure");
      } finally {
        COUNTING.failBefore(null);
        COUNTING.failAfterCommit(null);
      }
      then.run();
    }
    coco.update(app);
    COUNTING.take();
    coco.update(app);
    assertThat(COUNTING.take()).as("statements of the rerun after").isEmpty();
  }

  List<String> indexes() {
    return lines("SELECT tablename, indexname FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND indexname NOT LIKE '%_pkey' ORDER BY 1, 2");
  }

  List<String> relations() {
    return lines("SELECT c.relname || ' ' || c.relkind::text FROM pg_class c JOIN pg_namespace n"
        + " ON n.oid = c.relnamespace WHERE n.nspname = '" + schema + "' AND c.relkind IN"
        + " ('r', 'v', 'i') AND c.relname NOT LIKE '%_pkey' ORDER BY 1");
  }

  /** The SQL commands each table of the schema records in its comment, "table command". */
  List<String> recordedCommands() {
    return lines("SELECT c.relname || ' ' || e.key FROM pg_class c JOIN pg_namespace n ON n.oid"
        + " = c.relnamespace, jsonb_each(CAST(obj_description(c.oid, 'pg_class') AS jsonb)"
        + " -> 'cocoindex_sql_commands') e WHERE n.nspname = '" + schema + "' AND c.relkind = 'r'"
        + " ORDER BY 1");
  }

  /** The primary-key columns of a table, in name order. */
  List<String> primaryKey(String table) {
    return lines("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid ="
        + " i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND i.indrelid = '\""
        + schema + "\".\"" + table + "\"'::regclass ORDER BY 1");
  }

  /** A command making the view {@code titles} over {@code table}. */
  SqlCommand titlesOver(String table) {
    return new SqlCommand("titles", "CREATE OR REPLACE VIEW \"" + schema
        + "\".titles AS SELECT id, title FROM \"" + schema + "\"." + table,
        "DROP VIEW IF EXISTS \"" + schema + "\".titles");
  }

  List<String> titles() {
    return lines("SELECT * FROM \"" + schema + "\".titles ORDER BY 1");
  }

  List<String> rows(String table) {
    return lines("SELECT * FROM \"" + schema + "\".\"" + table + "\" ORDER BY 1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE INDEX", "after:CREATE INDEX",
      "before:DROP INDEX", "after:DROP INDEX"})
  void anIndexMovedToAnotherTableEndsOnThatTable(String fault) {
    twoTables("", true, (ctx, a, b) ->
        (changed[0] ? b : a).declareIndex(ctx, IndexSpec.btree("by_title", "title")));
    interruptAndConverge(fault);

    assertThat(indexes()).containsExactly("b|b__by_title");
    assertThat(rows("a")).containsExactly("1|in a|1");
    assertThat(rows("b")).containsExactly("2|in b|2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE TABLE", "after:CREATE TABLE",
      "before:INSERT INTO", "after:INSERT INTO", "before:CREATE INDEX", "after:CREATE INDEX",
      "before:CREATE OR REPLACE VIEW", "after:CREATE OR REPLACE VIEW",
      "before:DROP TABLE", "after:DROP TABLE"})
  void aRenamedTableEndsUnderItsNewNameWithItsRowsIndexAndView(String fault) {
    declare = (ctx, tables) -> {
      String name = changed[0] ? "b" : "a";
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, name));
      t.declareRow(ctx, DOCS.row(new Doc(1, "red fox", 1)));
      t.declareRow(ctx, DOCS.row(new Doc(2, "blue whale", 2)));
      t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      t.declareSqlCommand(ctx, new SqlCommand("titles", "CREATE OR REPLACE VIEW \"" + schema
          + "\".titles AS SELECT id, title FROM \"" + schema + "\"." + name,
          "DROP VIEW IF EXISTS \"" + schema + "\".titles"));
    };
    interruptAndConverge(fault);

    assertThat(relations()).containsExactly("b r", "b__by_title i", "titles v");
    assertThat(rows("b")).containsExactly("1|red fox|1", "2|blue whale|2");
    assertThat(lines("SELECT * FROM \"" + schema + "\".titles ORDER BY 1"))
        .containsExactly("1|red fox", "2|blue whale");
  }

  @ParameterizedTest
  @ValueSource(strings = {"after:CREATE INDEX", "before:DROP INDEX", "after:DROP INDEX"})
  void anIndexMovedBackAfterAnInterruptedMoveEndsOnItsFirstTable(String fault) {
    twoTables("", true, (ctx, a, b) ->
        (changed[0] ? b : a).declareIndex(ctx, IndexSpec.btree("by_title", "title")));
    interruptAndConverge(fault, () -> changed[0] = false);

    assertThat(indexes()).containsExactly("a|a__by_title");
    assertThat(rows("a")).containsExactly("1|in a|1");
    assertThat(rows("b")).containsExactly("2|in b|2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE OR REPLACE VIEW", "after:CREATE OR REPLACE VIEW",
      "before:DROP VIEW", "after:DROP VIEW"})
  void aSqlCommandMovedToAnotherTableUnderItsNameEndsThere(String fault) {
    twoTables("", true, this::titlesOnTheChangedTable);
    interruptAndConverge(fault);

    assertThat(relations()).containsExactly("a r", "b r", "titles v");
    assertThat(titles()).containsExactly("2|in b");
    assertThat(recordedCommands()).containsExactly("b titles");
  }

  /**
   * b takes the command's view in a run that fails before a's teardown at its end (a's record
   * still says the command is on a), then the next run moves it back to a: b's teardown drops the
   * view, and a, which records the command, sets it up again.
   */
  @ParameterizedTest
  @ValueSource(strings = {"after:CREATE OR REPLACE VIEW", "before:DROP VIEW", "after:DROP VIEW"})
  void aSqlCommandMovedBackAfterAnInterruptedMoveEndsOnItsFirstTable(String fault) {
    twoTables("", true, this::titlesOnTheChangedTable);
    interruptAndConverge(fault, () -> changed[0] = false);

    assertThat(relations()).containsExactly("a r", "b r", "titles v");
    assertThat(titles()).containsExactly("1|in a");
    assertThat(recordedCommands()).containsExactly("a titles");
  }

  /**
   * As above, but b's primary key changes in the run that moves the command back: b's recreate
   * tears down the commands b records (the view, taken from a) and sends no removal of b's command
   * (b's children are new), while a's record is unchanged and plans nothing. The view still ends
   * on a, whether b is mounted or declared in the component that declares a's command.
   */
  @ParameterizedTest
  @CsvSource({"true,after:CREATE OR REPLACE VIEW", "false,after:CREATE OR REPLACE VIEW",
      "true,before:DROP VIEW", "false,before:DROP VIEW"})
  void aSqlCommandMovedBackWhileTheTableThatTookItIsRecreatedEndsOnItsFirstTable(
      boolean mounted, String fault) {
    twoTables("b", mounted, this::titlesOnTheChangedTable);
    interruptAndConverge(fault, this::moveBackAndRecreate);

    assertThat(relations()).containsExactly("a r", "b r", "titles v");
    assertThat(titles()).containsExactly("1|in a");
    assertThat(recordedCommands()).containsExactly("a titles");
    assertThat(primaryKey("b")).containsExactly("id", "title");
    assertThat(rows("b")).containsExactly("2|in b|2");
  }

  /**
   * As above, but a is the one recreated when the command moves back: a's children being new,
   * its command is set up again, and b's teardown at the end of the run hands the view back.
   */
  @ParameterizedTest
  @ValueSource(strings = {"after:CREATE OR REPLACE VIEW", "before:DROP VIEW"})
  void aSqlCommandMovedBackToItsFirstTableWhileThatTableIsRecreatedEndsThere(String fault) {
    twoTables("a", true, this::titlesOnTheChangedTable);
    interruptAndConverge(fault, this::moveBackAndRecreate);

    assertThat(relations()).containsExactly("a r", "b r", "titles v");
    assertThat(titles()).containsExactly("1|in a");
    assertThat(recordedCommands()).containsExactly("a titles");
    assertThat(primaryKey("a")).containsExactly("id", "title");
    assertThat(rows("b")).containsExactly("2|in b|2");
  }

  /**
   * A primary-key change that also stops declaring the table's index and SQL command leaves
   * neither: the recreate drops the table's indexes with it and runs the teardowns it records
   * (the children being new, no removal of either is sent).
   */
  @ParameterizedTest
  @ValueSource(strings = {"none", "before:DROP TABLE", "after:DROP TABLE",
      "before:INSERT INTO", "after:INSERT INTO"})
  void aChangedPrimaryKeyThatAlsoRemovesAnIndexAndASqlCommandLeavesNeither(String fault) {
    declare = (ctx, tables) -> {
      TableSchema<Doc> docs = changed[0] ? BY_TITLE : DOCS;
      TableTarget t = tables.mountTable(ctx, docs.table(DB, schema, "docs"));
      t.declareRow(ctx, docs.row(new Doc(1, "red fox", 1)));
      t.declareRow(ctx, docs.row(new Doc(2, "blue whale", 2)));
      if (!changed[0]) {
        t.declareIndex(ctx, IndexSpec.btree("by_views", "views"));
        t.declareSqlCommand(ctx, titlesOver("docs"));
      }
    };
    interruptAndConverge(fault);

    assertThat(relations()).containsExactly("docs r");
    assertThat(primaryKey("docs")).containsExactly("id", "title");
    assertThat(rows("docs")).containsExactly("1|red fox|1", "2|blue whale|2");
    assertThat(recordedCommands()).isEmpty();
  }

  /**
   * a is renamed b in a run interrupted before its end (a not yet dropped, or dropped with the
   * engine told it failed), then renamed back: a ends with its rows, index and view, b is gone.
   */
  @ParameterizedTest
  @ValueSource(strings = {"after:CREATE TABLE", "after:INSERT INTO", "after:CREATE INDEX",
      "after:CREATE OR REPLACE VIEW", "before:DROP TABLE", "after:DROP TABLE"})
  void aTableRenamedBackAfterAnInterruptedRenameKeepsItsRowsIndexAndView(String fault) {
    declare = (ctx, tables) -> {
      String name = changed[0] ? "b" : "a";
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, name));
      t.declareRow(ctx, DOCS.row(new Doc(1, "red fox", 1)));
      t.declareRow(ctx, DOCS.row(new Doc(2, "blue whale", 2)));
      t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      t.declareSqlCommand(ctx, titlesOver(name));
    };
    interruptAndConverge(fault, () -> changed[0] = false);

    assertThat(relations()).containsExactly("a r", "a__by_title i", "titles v");
    assertThat(rows("a")).containsExactly("1|red fox|1", "2|blue whale|2");
    assertThat(titles()).containsExactly("1|red fox", "2|blue whale");
    assertThat(recordedCommands()).containsExactly("a titles");
  }
}
