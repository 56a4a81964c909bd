package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** FTS5 full-text indexes: what exists in the database around them. */
class FullTextIndexTest extends TargetDatabaseTest {
  record Item(String id, String title) {}

  @Test
  void droppingATableKeepsTheIndexOfAnotherTableItsNameMatchesAsALikePattern() throws Exception {
    boolean[] both = {true};
    String[] title = {"fox"};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> items2 = sqlite.mountTable(ctx, TableSchema.of("items2", Item.class, "id"));
      items2.declareRow(ctx, new Item("r0", title[0]));
      items2.declareFullTextIndex(ctx, new FullTextIndex("items2_fts", List.of("title")));
      if (both[0]) {
        // "item_2" as a LIKE pattern matches "items2": '_' is any one character.
        sqlite.mountTable(ctx, TableSchema.of("item_2", Item.class, "id"))
            .declareRow(ctx, new Item("x", "y"));
      }
    });
    app.update();
    both[0] = false;
    app.update();
    title[0] = "cat";
    app.update();

    assertThat(schema()).containsExactly("table items2", "table items2_fts",
        "table items2_fts_config", "table items2_fts_data", "table items2_fts_docsize",
        "table items2_fts_idx", "trigger items2_fts_ad", "trigger items2_fts_ai",
        "trigger items2_fts_au");
    assertThat(q("SELECT rowid FROM items2_fts WHERE items2_fts MATCH 'cat'"))
        .containsExactly(q("SELECT rowid FROM items2 WHERE id = 'r0'").get(0));
  }

  @Test
  void aPrimaryKeyChangeDropsTheFullTextIndexTheTableNoLongerDeclares() throws Exception {
    boolean[] changed = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> items = sqlite.mountTable(ctx, changed[0]
          ? TableSchema.of("items", Item.class, "id", "title")
          : TableSchema.of("items", Item.class, "id"));
      items.declareRow(ctx, new Item("r0", "fox"));
      if (!changed[0]) {
        items.declareFullTextIndex(ctx, new FullTextIndex("items_fts", List.of("title")));
      }
    });
    app.update();
    changed[0] = true; // the table is recreated: its children are new, no removal is sent
    app.update();

    assertThat(schema()).containsExactly("table items");
    long statements = db().statementsExecuted();
    app.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  @Test
  void aPrimaryKeyChangeKeepsTheFullTextIndexTheTableStillDeclares() throws Exception {
    boolean[] changed = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> items = sqlite.mountTable(ctx, changed[0]
          ? TableSchema.of("items", Item.class, "id", "title")
          : TableSchema.of("items", Item.class, "id"));
      items.declareRow(ctx, new Item("r0", changed[0] ? "cat" : "fox"));
      items.declareFullTextIndex(ctx, new FullTextIndex("items_fts", List.of("title")));
    });
    app.update();
    changed[0] = true;
    app.update();

    assertThat(schema()).containsExactly("table items", "table items_fts",
        "table items_fts_config", "table items_fts_data", "table items_fts_docsize",
        "table items_fts_idx", "trigger items_fts_ad", "trigger items_fts_ai",
        "trigger items_fts_au");
    assertThat(q("SELECT rowid FROM items_fts WHERE items_fts MATCH 'cat'"))
        .containsExactly(q("SELECT rowid FROM items WHERE id = 'r0'").get(0));
    assertThat(q("SELECT rowid FROM items_fts WHERE items_fts MATCH 'fox'")).isEmpty();
  }

  @Test
  void anIndexNamedLikeAnotherTableIsAClearErrorThatDropsNothing() throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> docs = sqlite.mountTable(ctx, TableSchema.of("docs", Item.class, "id"));
      docs.declareRow(ctx, new Item("d0", "fox"));
      sqlite.mountTable(ctx, TableSchema.of("notes", Item.class, "id"))
          .declareRow(ctx, new Item("n0", "note"));
      docs.declareFullTextIndex(ctx, new FullTextIndex("Notes", List.of("title")));
    });

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("full-text index 'Notes' of table docs cannot be created:"
            + " table notes has that name");
    assertThat(q("SELECT id, title FROM notes")).containsExactly("n0|note");
    assertThat(schema()).containsExactly("table docs", "table notes");
  }

  @Test
  void aTableNamedLikeAnIndexIsAClearErrorThatKeepsTheIndex() throws Exception {
    boolean[] withNotes = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> docs = sqlite.mountTable(ctx, TableSchema.of("docs", Item.class, "id"));
      docs.declareRow(ctx, new Item("d0", "fox"));
      docs.declareFullTextIndex(ctx, new FullTextIndex("notes", List.of("title")));
      if (withNotes[0]) {
        sqlite.mountTable(ctx, TableSchema.of("notes", Item.class, "id"))
            .declareRow(ctx, new Item("n0", "note"));
      }
    });
    app.update();
    withNotes[0] = true;

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("table notes cannot be created: virtual table notes has that name");
    assertThat(q("SELECT d.id FROM notes f JOIN docs d ON d.rowid = f.rowid"
        + " WHERE notes MATCH 'fox'")).containsExactly("d0");
  }

  @Test
  void anIndexNamedLikeItsOwnTableIsRejectedWhenDeclared() throws Exception {
    boolean[] withIndex = {false};
    App app = app(ctx -> {
      SqliteTable<Item> docs =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Item.class, "id"));
      docs.declareRow(ctx, new Item("d0", "fox"));
      if (withIndex[0]) {
        docs.declareFullTextIndex(ctx, new FullTextIndex("DOCS", List.of("title")));
      }
    });
    app.update();
    withIndex[0] = true;

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("full-text index 'DOCS' has the name of its table docs");
    assertThat(q("SELECT id, title FROM docs")).containsExactly("d0|fox");
    assertThat(schema()).containsExactly("table docs");
  }

  @Test
  void anIndexNameLeavesRoomForItsTriggersNames() throws Exception {
    String longest = "f" + "x".repeat(60);
    App app = app(ctx -> {
      SqliteTable<Item> docs =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Item.class, "id"));
      docs.declareRow(ctx, new Item("d0", "fox"));
      docs.declareFullTextIndex(ctx, new FullTextIndex(longest, List.of("title")));
    });
    app.update();
    assertThat(q("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name"))
        .containsExactly(longest + "_ad", longest + "_ai", longest + "_au");

    SqliteTable<Item> docs = new SqliteTable<>(TableSchema.of("docs", Item.class, "id"), null);
    assertThatThrownBy(() -> docs.declareFullTextIndex(null,
        new FullTextIndex(longest + "x", List.of("title"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("full-text index name '" + longest + "x' has 62 characters:"
            + " at most 61, as its triggers are named " + longest + "x_ai, _ad and _au");
  }

  record Ranked(String id, String rank) {}

  @Test
  void aFullTextIndexWithoutColumnsOrOverAColumnItCannotIndexIsRejectedWhenDeclared() {
    SqliteTable<Item> docs = new SqliteTable<>(TableSchema.of("docs", Item.class, "id"), null);
    assertThatThrownBy(() -> docs.declareFullTextIndex(null,
        new FullTextIndex("docs_fts", List.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("full-text index docs_fts has no columns");
    assertThatThrownBy(() -> docs.declareFullTextIndex(null,
        new FullTextIndex("docs_fts", List.of("title", "body"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("full-text index docs_fts names column 'body', which table docs does not have");
    SqliteTable<Ranked> ranked =
        new SqliteTable<>(TableSchema.of("ranked", Ranked.class, "id"), null);
    assertThatThrownBy(() -> ranked.declareFullTextIndex(null,
        new FullTextIndex("ranked_fts", List.of("rank"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("full-text index ranked_fts cannot index column 'rank' of table ranked: FTS5"
            + " reserves the name rank");
  }

  record WithRowid(String rowid, String text) {}

  @Test
  void anIndexOfATableWithARowidColumnIsRejectedWhenDeclared() throws Exception {
    App app = app(ctx -> {
      SqliteTable<WithRowid> docs = Sqlite.register(ctx, DB).mountTable(ctx,
          TableSchema.of("docs", WithRowid.class, "rowid"));
      docs.declareRow(ctx, new WithRowid("r1", "hello fox"));
      docs.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("text")));
    });

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("full-text index docs_fts cannot index table docs: its column"
            + " 'rowid' hides SQLite's rowid");
    assertThat(schema()).containsExactly("table docs");
  }

  /**
   * Two apps writing one database each declare full-text index foo, on tables a and b: the
   * second app's run fails naming table a, which holds the index, and leaves it there (the
   * FTS5 table's SQL names the app that made it); the first app's next run, and the second's
   * drop, leave it as it is.
   */
  @Test
  void aFullTextIndexOfAnotherAppWritingTheDatabaseIsAClearErrorThatKeepsIt() throws Exception {
    Environment env = environment().build();
    try (App first = App.create("first", env, tableWithIndexFoo(() -> "a"));
        App second = App.create("second", env, tableWithIndexFoo(() -> "b"))) {
      first.update();
      assertThatThrownBy(second::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("full-text index foo of table b cannot be created: app 'first'"
              + " made an index of that name on table a");
      first.update();
      second.dropState(); // its index never existed: nothing of the first app's goes with it

      assertThat(q("SELECT name || ' on ' || tbl_name FROM sqlite_master WHERE type = 'trigger'"
          + " ORDER BY name")).containsExactly("foo_ad on a", "foo_ai on a", "foo_au on a");
      assertThat(q("SELECT a.id FROM foo JOIN a ON a.rowid = foo.rowid WHERE foo MATCH 'fox'"))
          .containsExactly("a1");
    }
  }

  /** Whatever name the app has, its index's SQL names it, and the app moves its own index. */
  @Test
  void anAppWhoseNameCouldEndTheCommentMovesItsOwnIndexAndIsNamedInAnotherAppsError()
      throws Exception {
    Environment env = environment().build();
    String[] table = {"a"};
    try (App first = App.create("idx */ 100%", env, tableWithIndexFoo(() -> table[0]));
        App second = App.create("second", env, tableWithIndexFoo(() -> "c"))) {
      first.update();
      assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'foo'")).containsExactly(
          "CREATE VIRTUAL TABLE \"foo\" /* cocoindex app: idx %2A%2F 100%25 */ USING"
              + " fts5(\"title\", content='a', content_rowid='rowid')");
      table[0] = "b";
      first.update();
      assertThat(schema()).containsExactly("table b", "table foo", "table foo_config",
          "table foo_data", "table foo_docsize", "table foo_idx", "trigger foo_ad",
          "trigger foo_ai", "trigger foo_au");

      assertThatThrownBy(second::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("full-text index foo of table c cannot be created: app"
              + " 'idx */ 100%' made an index of that name on table b");
      assertThat(q("SELECT b.id FROM foo JOIN b ON b.rowid = foo.rowid WHERE foo MATCH 'fox'"))
          .containsExactly("b1");
    }
  }

  /**
   * An app's body: the table {@code table} names with the row {@code <table>1}, "fox in
   * <table>", and full-text index foo over its title.
   */
  private static Consumer<Ctx> tableWithIndexFoo(Supplier<String> table) {
    return ctx -> {
      String name = table.get();
      SqliteTable<Item> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of(name, Item.class, "id"));
      t.declareRow(ctx, new Item(name + "1", "fox in " + name));
      t.declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title")));
    };
  }

  /**
   * An index whose SQL names no app (made before apps were recorded) is taken by the app that
   * declares its name on another table, as every index was then.
   */
  @Test
  void anIndexMadeBeforeAppsWereRecordedIsTakenByTheAppDeclaringItsName() throws Exception {
    exec("CREATE TABLE a (id TEXT PRIMARY KEY, title TEXT)");
    exec("CREATE VIRTUAL TABLE \"foo\" USING fts5(\"title\", content='a',"
        + " content_rowid='rowid')");
    exec("CREATE TRIGGER \"foo_ai\" AFTER INSERT ON \"a\" BEGIN INSERT INTO \"foo\""
        + " (rowid, \"title\") VALUES (new.rowid, new.\"title\"); END");
    App app = app(ctx -> {
      SqliteTable<Item> b =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("b", Item.class, "id"));
      b.declareRow(ctx, new Item("b1", "fox in b"));
      b.declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title")));
    });
    app.update();

    assertThat(q("SELECT name || ' on ' || tbl_name FROM sqlite_master WHERE type = 'trigger'"
        + " ORDER BY name")).containsExactly("foo_ad on b", "foo_ai on b", "foo_au on b");
    assertThat(q("SELECT b.id FROM foo JOIN b ON b.rowid = foo.rowid WHERE foo MATCH 'fox'"))
        .containsExactly("b1");
  }
}
