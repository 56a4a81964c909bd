package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Schema changes that move things between tables or rebuild a table, each interrupted at one
 * statement (it fails before it runs, rolling its transaction back, or its transaction commits
 * and the engine is told it failed, as when the process dies there), then run again: the rerun
 * ends with exactly the declared schema and rows, and the run after it sends nothing.
 */
class InterruptedSchemaChangeTest extends TargetDatabaseTest {
  record Item(String id, String title) {}

  record Doc(String id, String title, long year) {}

  record DocYearAsText(String id, String title, String year) {}

  record Article(String id, String title, String body) {}

  /** Whether the app declares its changed version. */
  final boolean[] changed = {false};

  /**
   * Runs the app, changes it and runs it with {@code fault} ("none", "before:SQL" or
   * "after:SQL", SQL being the start of the statement to fail at: that update must fail), then
   * runs it again, which must succeed, and once more, which must send no statement.
   */
  void interruptAndConverge(App app, String fault) throws Exception {
    interruptAndConverge(app, fault, () -> {});
  }

  /** As above, changing the app again with {@code then} after the interrupted update. */
  void interruptAndConverge(App app, String fault, Runnable then) throws Exception {
    app.update();
    changed[0] = true;
    if (fault.equals("none")) {
      app.update();
    } else {
      String at = fault.substring(fault.indexOf(':') + 1);
      if (fault.startsWith("before:")) {
        db().failBefore(sql -> sql.startsWith(at));
      } else {
        db().failAfterCommit(sql -> sql.startsWith(at));
      }
      try {
        assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
            .hasMessageContaining("injected failure");
      } finally {
        db().failBefore(null);
        db().failAfterCommit(null);
      }
      then.run();
      app.update();
    }
    long statements = db().statementsExecuted();
    app.update();
    assertThat(db().statementsExecuted()).as("statements of the rerun after").isEqualTo(statements);
  }

  /** The triggers, "name on table". */
  List<String> triggers() throws SQLException {
    return q("SELECT name || ' on ' || tbl_name FROM sqlite_master WHERE type = 'trigger'"
        + " ORDER BY name");
  }

  /** The indexes but SQLite's automatic ones, "table name". */
  List<String> indexes() throws SQLException {
    return q("SELECT tbl_name || ' ' || name FROM sqlite_master WHERE type = 'index'"
        + " AND sql IS NOT NULL ORDER BY tbl_name, name");
  }

  /** What the tables of {@link #twoTables} declare besides their rows. */
  interface OnTwoTables {
    void declare(Ctx ctx, SqliteTable<Item> a, SqliteTable<Item> b);
  }

  /** Whether the table {@link #twoTables} recreates has its new primary key. */
  final boolean[] recreated = {false};

  /**
   * An app of tables a (mounted) and b (mounted or declared), a row each titled {@code title}
   * and the table's name, and what {@code then} declares on them; once {@link #recreated}, table
   * {@code recreating}'s primary key is (id, title), so that run recreates it.
   */
  App twoTables(String title, String recreating, boolean mountB, OnTwoTables then) {
    return app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> a = sqlite.mountTable(ctx, itemTable("a", recreating));
      SqliteTable<Item> b = mountB ? sqlite.mountTable(ctx, itemTable("b", recreating))
          : sqlite.declareTable(ctx, itemTable("b", recreating));
      a.declareRow(ctx, new Item("a1", title + "a"));
      b.declareRow(ctx, new Item("b1", title + "b"));
      then.declare(ctx, a, b);
    });
  }

  private TableSchema<Item> itemTable(String name, String recreating) {
    return recreated[0] && name.equals(recreating)
        ? TableSchema.of(name, Item.class, "id", "title") : TableSchema.of(name, Item.class, "id");
  }

  /** After a change interrupted: back to the first declarations, in a run that recreates. */
  void moveBackAndRecreate() {
    changed[0] = false;
    recreated[0] = true;
  }

  App app2(Consumer<Ctx> main) {
    return app(main);
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE VIRTUAL TABLE", "after:CREATE VIRTUAL TABLE",
      "before:INSERT INTO \"foo\"", "after:INSERT INTO \"foo\""})
  void aFullTextIndexMovedToAnotherTableUnderItsNameEndsOnThatTable(String fault)
      throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> a = sqlite.mountTable(ctx, TableSchema.of("a", Item.class, "id"));
      SqliteTable<Item> b = sqlite.mountTable(ctx, TableSchema.of("b", Item.class, "id"));
      a.declareRow(ctx, new Item("a1", "fox in a"));
      b.declareRow(ctx, new Item("b1", "fox in b"));
      (changed[0] ? b : a).declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title")));
    });
    interruptAndConverge(app, fault);

    assertThat(schema()).containsExactly("table a", "table b", "table foo", "table foo_config",
        "table foo_data", "table foo_docsize", "table foo_idx", "trigger foo_ad",
        "trigger foo_ai", "trigger foo_au");
    assertThat(triggers()).containsExactly("foo_ad on b", "foo_ai on b", "foo_au on b");
    assertThat(q("SELECT b.id FROM foo JOIN b ON b.rowid = foo.rowid WHERE foo MATCH 'fox'"))
        .containsExactly("b1");
    assertThat(q("SELECT id, title FROM a")).containsExactly("a1|fox in a");
  }

  @Test
  void aFullTextIndexMovedBackAfterAnInterruptedMoveEndsOnItsFirstTable() throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> a = sqlite.mountTable(ctx, TableSchema.of("a", Item.class, "id"));
      SqliteTable<Item> b = sqlite.mountTable(ctx, TableSchema.of("b", Item.class, "id"));
      a.declareRow(ctx, new Item("a1", "fox in a"));
      b.declareRow(ctx, new Item("b1", "fox in b"));
      (changed[0] ? b : a).declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title")));
    });
    // b takes the index, and the run fails before a's removal at its end.
    interruptAndConverge(app, "after:CREATE VIRTUAL TABLE", () -> changed[0] = false);

    assertThat(triggers()).containsExactly("foo_ad on a", "foo_ai on a", "foo_au on a");
    assertThat(q("SELECT a.id FROM foo JOIN a ON a.rowid = foo.rowid WHERE foo MATCH 'fox'"))
        .containsExactly("a1");
  }

  /**
   * b takes the index in a run that fails before a's removal (a's record still says the index is
   * on a), then the next run moves it back to a while b's primary key changes. The recreate of b
   * drops b's FTS5 tables, and b's children being new, b's index gets no removal to hand it back:
   * the index still ends on a, whether b is mounted (recreated before a's declaration is
   * reconciled, which learns of the drop) or declared with a's index (recreated after it, creating
   * it on a again).
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void anIndexMovedBackWhileTheTableThatTookItIsRecreatedEndsOnItsFirstTable(boolean mounted)
      throws Exception {
    App app = twoTables("fox in ", "b", mounted, (ctx, a, b) ->
        (changed[0] ? b : a).declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title"))));
    interruptAndConverge(app, "after:CREATE VIRTUAL TABLE", this::moveBackAndRecreate);

    assertThat(schema()).containsExactly("table a", "table b", "table foo", "table foo_config",
        "table foo_data", "table foo_docsize", "table foo_idx", "trigger foo_ad",
        "trigger foo_ai", "trigger foo_au");
    assertThat(triggers()).containsExactly("foo_ad on a", "foo_ai on a", "foo_au on a");
    assertThat(q("SELECT a.id FROM foo JOIN a ON a.rowid = foo.rowid WHERE foo MATCH 'fox'"))
        .containsExactly("a1");
    assertThat(q("SELECT name || ' ' || pk FROM pragma_table_info('b')"))
        .containsExactly("id 1", "title 2");
    assertThat(q("SELECT id, title FROM b")).containsExactly("b1|fox in b");
    // The triggers follow a's rows again.
    exec("INSERT INTO a (id, title) VALUES ('a2', 'red fox')");
    assertThat(q("SELECT a.id FROM foo JOIN a ON a.rowid = foo.rowid WHERE foo MATCH 'fox'"
        + " ORDER BY a.id")).containsExactly("a1", "a2");
  }

  /**
   * As above, but a is the one recreated when the index moves back: a's children being new, its
   * index is created again, taking it from b, and b's removal leaves it on a.
   */
  @Test
  void anIndexMovedBackToItsFirstTableWhileThatTableIsRecreatedEndsThere() throws Exception {
    App app = twoTables("fox in ", "a", true, (ctx, a, b) ->
        (changed[0] ? b : a).declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title"))));
    interruptAndConverge(app, "after:CREATE VIRTUAL TABLE", this::moveBackAndRecreate);

    assertThat(schema()).containsExactly("table a", "table b", "table foo", "table foo_config",
        "table foo_data", "table foo_docsize", "table foo_idx", "trigger foo_ad",
        "trigger foo_ai", "trigger foo_au");
    assertThat(triggers()).containsExactly("foo_ad on a", "foo_ai on a", "foo_au on a");
    assertThat(q("SELECT a.id FROM foo JOIN a ON a.rowid = foo.rowid WHERE foo MATCH 'fox'"))
        .containsExactly("a1");
    assertThat(q("SELECT name || ' ' || pk FROM pragma_table_info('a')"))
        .containsExactly("id 1", "title 2");
    assertThat(q("SELECT id, title FROM b")).containsExactly("b1|fox in b");
  }

  @Test
  void aTableRenamedBackAfterAnInterruptedRenameKeepsItsFullTextIndex() throws Exception {
    App app = app(ctx -> {
      SqliteTable<Item> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.of(changed[0] ? "b" : "a", Item.class, "id"));
      t.declareRow(ctx, new Item("r1", "red fox"));
      t.declareFullTextIndex(ctx, new FullTextIndex("items_fts", List.of("title")));
    });
    // b takes the index, and the run fails before a is dropped at its end; b is dropped instead.
    interruptAndConverge(app, "after:CREATE VIRTUAL TABLE", () -> changed[0] = false);

    assertThat(q("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'b')"))
        .containsExactly("a");
    assertThat(triggers()).containsExactly(
        "items_fts_ad on a", "items_fts_ai on a", "items_fts_au on a");
    assertThat(q("SELECT a.id FROM items_fts f JOIN a ON a.rowid = f.rowid"
        + " WHERE items_fts MATCH 'fox'")).containsExactly("r1");
  }

  @Test
  void oneFullTextIndexNameOnTwoTablesIsAnErrorNamingBoth() throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> a = sqlite.mountTable(ctx, TableSchema.of("a", Item.class, "id"));
      a.declareRow(ctx, new Item("a1", "fox in a"));
      a.declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title")));
      if (changed[0]) {
        sqlite.mountTable(ctx, TableSchema.of("b", Item.class, "id"))
            .declareFullTextIndex(ctx, new FullTextIndex("Foo", List.of("title")));
      }
    });
    app.update();
    changed[0] = true;

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("full-text index Foo is declared on table a and on table b: its"
            + " name is one FTS5 table of the database");
    assertThat(triggers()).containsExactly("foo_ad on a", "foo_ai on a", "foo_au on a");
    assertThat(q("SELECT a.id FROM foo JOIN a ON a.rowid = foo.rowid WHERE foo MATCH 'fox'"))
        .containsExactly("a1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE INDEX", "after:CREATE INDEX",
      "before:DROP INDEX", "after:DROP INDEX"})
  void anIndexMovedToAnotherTableEndsOnThatTable(String fault) throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> a = sqlite.mountTable(ctx, TableSchema.of("a", Item.class, "id"));
      SqliteTable<Item> b = sqlite.mountTable(ctx, TableSchema.of("b", Item.class, "id"));
      a.declareRow(ctx, new Item("a1", "in a"));
      b.declareRow(ctx, new Item("b1", "in b"));
      (changed[0] ? b : a).declareIndex(ctx, IndexSpec.of("by_title", "title"));
    });
    interruptAndConverge(app, fault);

    assertThat(indexes()).containsExactly("b b__by_title");
    assertThat(q("SELECT id, title FROM a")).containsExactly("a1|in a");
    assertThat(q("SELECT id, title FROM b")).containsExactly("b1|in b");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE TABLE IF NOT EXISTS \"b\"",
      "after:CREATE TABLE IF NOT EXISTS \"b\"", "before:INSERT INTO \"b\"",
      "after:INSERT INTO \"b\"", "before:CREATE INDEX", "after:CREATE INDEX",
      "before:CREATE VIRTUAL TABLE", "after:CREATE VIRTUAL TABLE",
      "before:DROP TABLE IF EXISTS \"a\"", "after:DROP TABLE IF EXISTS \"a\""})
  void aRenamedTableEndsUnderItsNewNameWithItsRowsAndAttachments(String fault) throws Exception {
    App app = app(ctx -> {
      SqliteTable<Item> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.of(changed[0] ? "b" : "a", Item.class, "id"));
      t.declareRow(ctx, new Item("r1", "red fox"));
      t.declareRow(ctx, new Item("r2", "blue whale"));
      t.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      t.declareFullTextIndex(ctx, new FullTextIndex("items_fts", List.of("title")));
    });
    interruptAndConverge(app, fault);

    assertThat(schema()).containsExactly("index b__by_title", "table b", "table items_fts",
        "table items_fts_config", "table items_fts_data", "table items_fts_docsize",
        "table items_fts_idx", "trigger items_fts_ad", "trigger items_fts_ai",
        "trigger items_fts_au");
    assertThat(triggers()).containsExactly(
        "items_fts_ad on b", "items_fts_ai on b", "items_fts_au on b");
    assertThat(q("SELECT id, title FROM b ORDER BY id")).containsExactly(
        "r1|red fox", "r2|blue whale");
    assertThat(q("SELECT b.id FROM items_fts f JOIN b ON b.rowid = f.rowid"
        + " WHERE items_fts MATCH 'fox'")).containsExactly("r1");
  }

  /** A view made by a SQL command, with or without IF NOT EXISTS. */
  static SqlCommand titlesView(String table, boolean ifNotExists) {
    return new SqlCommand("titles", "CREATE VIEW " + (ifNotExists ? "IF NOT EXISTS " : "")
        + "titles AS SELECT id, title FROM " + table, "DROP VIEW IF EXISTS titles");
  }

  @ParameterizedTest
  @CsvSource({"none,false", "before:CREATE VIEW,false", "after:CREATE VIEW,false",
      "before:DROP TABLE IF EXISTS \"a\",false", "after:DROP TABLE IF EXISTS \"a\",false",
      "none,true", "after:CREATE VIEW,true", "before:DROP TABLE IF EXISTS \"a\",true",
      "after:DROP TABLE IF EXISTS \"a\",true"})
  void aRenamedTableKeepsItsSqlCommandUnderItsName(String fault, boolean ifNotExists)
      throws Exception {
    App app = app(ctx -> {
      String name = changed[0] ? "b" : "a";
      SqliteTable<Item> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.of(name, Item.class, "id"));
      t.declareRow(ctx, new Item("r1", "red fox " + name));
      t.declareSqlCommand(ctx, titlesView(name, ifNotExists));
    });
    interruptAndConverge(app, fault);

    assertThat(schema()).containsExactly(
        "table b", "table cocoindex_sql_commands", "view titles");
    assertThat(q("SELECT * FROM titles")).containsExactly("r1|red fox b");
    assertThat(q("SELECT table_name, name FROM cocoindex_sql_commands"))
        .containsExactly("b|titles");
  }

  @ParameterizedTest
  @CsvSource({"none,false", "before:CREATE VIEW,false", "after:CREATE VIEW,false",
      "before:DROP VIEW,false", "after:DROP VIEW,false", "none,true", "after:CREATE VIEW,true",
      "before:DROP VIEW,true", "after:DROP VIEW,true"})
  void aSqlCommandMovedToAnotherTableUnderItsNameEndsThere(String fault, boolean ifNotExists)
      throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> a = sqlite.mountTable(ctx, TableSchema.of("a", Item.class, "id"));
      SqliteTable<Item> b = sqlite.mountTable(ctx, TableSchema.of("b", Item.class, "id"));
      a.declareRow(ctx, new Item("a1", "in a"));
      b.declareRow(ctx, new Item("b1", "in b"));
      String on = changed[0] ? "b" : "a";
      (changed[0] ? b : a).declareSqlCommand(ctx, titlesView(on, ifNotExists));
    });
    interruptAndConverge(app, fault);

    assertThat(schema()).containsExactly(
        "table a", "table b", "table cocoindex_sql_commands", "view titles");
    assertThat(q("SELECT * FROM titles")).containsExactly("b1|in b");
    assertThat(q("SELECT table_name, name FROM cocoindex_sql_commands"))
        .containsExactly("b|titles");
  }

  /**
   * b takes the SQL command in a run that fails after its view is made (a's record still says
   * the command is set up on a), then the next run moves it back to a while b's primary key
   * changes. The recreate of b tears down b's commands, and b's children being new, b's command
   * gets no removal to hand it back: the view still ends over a, whether b is mounted or
   * declared.
   */
  @ParameterizedTest
  @CsvSource({"true,false", "false,false", "true,true", "false,true"})
  void aSqlCommandMovedBackWhileTheTableThatTookItIsRecreatedEndsOnItsFirstTable(
      boolean mounted, boolean ifNotExists) throws Exception {
    App app = twoTables("in ", "b", mounted, (ctx, a, b) -> (changed[0] ? b : a)
        .declareSqlCommand(ctx, titlesView(changed[0] ? "b" : "a", ifNotExists)));
    interruptAndConverge(app, "after:CREATE VIEW", this::moveBackAndRecreate);

    assertThat(schema()).containsExactly(
        "table a", "table b", "table cocoindex_sql_commands", "view titles");
    assertThat(q("SELECT * FROM titles")).containsExactly("a1|in a");
    assertThat(q("SELECT table_name, name FROM cocoindex_sql_commands"))
        .containsExactly("a|titles");
    assertThat(q("SELECT name || ' ' || pk FROM pragma_table_info('b')"))
        .containsExactly("id 1", "title 2");
  }

  @Test
  void aSqlCommandOfOneNameOnTwoTablesKeepsBothWhenOneIsRemoved() throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      for (String name : changed[0] ? List.of("b") : List.of("a", "b")) {
        SqliteTable<Item> t = sqlite.mountTable(ctx, TableSchema.of(name, Item.class, "id"));
        t.declareRow(ctx, new Item(name + "1", "in " + name));
        t.declareSqlCommand(ctx, new SqlCommand("titles", "CREATE VIEW " + name
            + "_titles AS SELECT title FROM " + name, "DROP VIEW IF EXISTS " + name + "_titles"));
      }
    });
    interruptAndConverge(app, "none");

    assertThat(schema()).containsExactly("table b", "table cocoindex_sql_commands",
        "view b_titles");
    assertThat(q("SELECT * FROM b_titles")).containsExactly("in b");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:ALTER TABLE \"cocoindex_rebuild\"",
      "after:ALTER TABLE \"cocoindex_rebuild\"", "before:INSERT INTO \"docs\"",
      "after:INSERT INTO \"docs\""})
  void aRetypedColumnKeepsTheTablesRowsIndexesAndFullTextIndex(String fault) throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<?> t;
      if (changed[0]) {
        SqliteTable<DocYearAsText> v2 =
            sqlite.mountTable(ctx, TableSchema.of("docs", DocYearAsText.class, "id"));
        v2.declareRow(ctx, new DocYearAsText("a", "red fox", "MMI"));
        v2.declareRow(ctx, new DocYearAsText("b", "blue whale", "2002"));
        t = v2;
      } else {
        SqliteTable<Doc> v1 = sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
        v1.declareRow(ctx, new Doc("a", "red fox", 2001));
        v1.declareRow(ctx, new Doc("b", "blue whale", 2002));
        t = v1;
      }
      t.declareIndex(ctx, IndexSpec.of("by_year", "year"));
      t.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title")));
    });
    interruptAndConverge(app, fault);

    assertThat(q("SELECT name || ' ' || type FROM pragma_table_info('docs')"))
        .containsExactly("id TEXT", "title TEXT", "year TEXT");
    assertThat(q("SELECT id, title, year, typeof(year) FROM docs ORDER BY id"))
        .containsExactly("a|red fox|MMI|text", "b|blue whale|2002|text");
    assertThat(indexes()).containsExactly("docs docs__by_year");
    assertThat(triggers()).containsExactly(
        "docs_fts_ad on docs", "docs_fts_ai on docs", "docs_fts_au on docs");
    assertThat(q("SELECT d.id FROM docs_fts f JOIN docs d ON d.rowid = f.rowid"
        + " WHERE docs_fts MATCH 'whale'")).containsExactly("b");
    assertThat(q("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'fox OR whale'"))
        .containsExactly("2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:DROP TABLE IF EXISTS \"docs\"",
      "after:DROP TABLE IF EXISTS \"docs\"", "before:INSERT INTO \"docs\"",
      "after:INSERT INTO \"docs\"", "before:CREATE INDEX", "after:CREATE INDEX",
      "before:CREATE VIRTUAL TABLE", "after:CREATE VIRTUAL TABLE"})
  void aChangedPrimaryKeyRecreatesTheTableWithItsRowsAndAttachments(String fault)
      throws Exception {
    App app = app(ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, DB).mountTable(ctx, changed[0]
          ? TableSchema.of("docs", Doc.class, "id", "year")
          : TableSchema.of("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "red fox", 2001));
      t.declareRow(ctx, new Doc("b", "blue whale", 2002));
      t.declareIndex(ctx, IndexSpec.of("by_year", "year"));
      t.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title")));
    });
    interruptAndConverge(app, fault);

    assertThat(q("SELECT name || ' ' || pk FROM pragma_table_info('docs')"))
        .containsExactly("id 1", "title 0", "year 2");
    assertThat(q("SELECT id, title, year FROM docs ORDER BY id"))
        .containsExactly("a|red fox|2001", "b|blue whale|2002");
    assertThat(indexes()).containsExactly("docs docs__by_year");
    assertThat(triggers()).containsExactly(
        "docs_fts_ad on docs", "docs_fts_ai on docs", "docs_fts_au on docs");
    assertThat(q("SELECT d.id FROM docs_fts f JOIN docs d ON d.rowid = f.rowid"
        + " WHERE docs_fts MATCH 'whale'")).containsExactly("b");
    assertThat(q("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'fox OR whale'"))
        .containsExactly("2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE VIRTUAL TABLE", "after:CREATE VIRTUAL TABLE",
      "before:CREATE TRIGGER", "before:INSERT INTO \"docs_fts\"",
      "after:INSERT INTO \"docs_fts\""})
  void aFullTextIndexWhoseColumnsChangeIndexesTheNewColumns(String fault) throws Exception {
    App app = app(ctx -> {
      SqliteTable<Article> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.of("docs", Article.class, "id"));
      t.declareRow(ctx, new Article("a", "red fox", "jumps"));
      t.declareRow(ctx, new Article("b", "blue whale", "swims"));
      t.declareFullTextIndex(ctx, new FullTextIndex("docs_fts",
          changed[0] ? List.of("title", "body") : List.of("title")));
    });
    interruptAndConverge(app, fault);

    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'")).containsExactly(
        "CREATE VIRTUAL TABLE \"docs_fts\" /* cocoindex app: test */ USING fts5(\"title\","
            + " \"body\", content='docs', content_rowid='rowid')");
    assertThat(triggers()).containsExactly(
        "docs_fts_ad on docs", "docs_fts_ai on docs", "docs_fts_au on docs");
    assertThat(q("SELECT d.id FROM docs_fts f JOIN docs d ON d.rowid = f.rowid"
        + " WHERE docs_fts MATCH 'swims'")).containsExactly("b");
    assertThat(q("SELECT id, title, body FROM docs ORDER BY id"))
        .containsExactly("a|red fox|jumps", "b|blue whale|swims");
  }
}
