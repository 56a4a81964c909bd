package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Each table lives in the database its key names, several databases in one app. */
class DatabasesTest extends TargetDatabaseTest {
  record Doc(String id, String title) {}

  static final TableSchema<Doc> DOCS = TableSchema.of("docs", Doc.class, "id");

  @Test
  void tablesOfTwoDatabasesLiveInOneApp() throws Exception {
    boolean[] inOther = {true};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      sqlite.mountTable(ctx, DOCS).declareRow(ctx, new Doc("m", "in main"));
      if (inOther[0]) {
        sqlite.database(OTHER).mountTable(ctx, DOCS).declareRow(ctx, new Doc("o", "in other"));
      }
    });
    app.update();
    assertThat(q("SELECT id, title FROM docs")).containsExactly("m|in main");
    assertThat(q(otherFile(), "SELECT id, title FROM docs")).containsExactly("o|in other");

    inOther[0] = false;
    app.update();
    assertThat(q("SELECT id, title FROM docs")).containsExactly("m|in main");
    assertThat(schema(otherFile())).isEmpty();
  }

  @Test
  void aTableMovedToAnotherDatabaseIsCreatedThereAndDroppedFromTheOldOne() throws Exception {
    boolean[] moved = {false};
    App app = app(ctx -> Sqlite.register(ctx, moved[0] ? OTHER : DB).mountTable(ctx, DOCS)
        .declareRow(ctx, new Doc("a", "Alpha")));
    app.update();
    moved[0] = true;
    app.update();

    assertThat(schema()).isEmpty();
    assertThat(q(otherFile(), "SELECT id, title FROM docs")).containsExactly("a|Alpha");
    app.update();
    assertThat(q(otherFile(), "SELECT id, title FROM docs")).containsExactly("a|Alpha");
  }

  @Test
  void aDatabaseProvidedUnderARenamedKeyKeepsItsTables() throws Exception {
    ContextKey<SqliteDatabase> renamed = ContextKey.of("renamed_db", SqliteDatabase.class);
    boolean[] isRenamed = {false};
    App app = app(environment().provide(renamed, db()).build(), ctx ->
        Sqlite.register(ctx, isRenamed[0] ? renamed : DB).mountTable(ctx, DOCS)
            .declareRow(ctx, new Doc("a", "Alpha")));
    app.update();
    isRenamed[0] = true;
    app.update();
    app.update();

    assertThat(schema()).containsExactly("table docs");
    assertThat(q("SELECT id, title FROM docs")).containsExactly("a|Alpha");
  }

  /**
   * The renamed key's database is the same file reached through a link to its folder (a deploy's
   * {@code current -> releases/N}): the table is handed over, not dropped as if it had moved to
   * another file (found by an adversarial review: it was dropped, rows and all, for good).
   */
  @Test
  void aDatabaseProvidedUnderARenamedKeyThroughALinkKeepsItsTables() throws Exception {
    Path link = java.nio.file.Files.createSymbolicLink(dir.resolve("link"), dir);
    ContextKey<SqliteDatabase> renamed = ContextKey.of("renamed_db", SqliteDatabase.class);
    SqliteDatabase throughLink = SqliteDatabase.open(link.resolve(dbFile().getFileName()));
    boolean[] isRenamed = {false};
    try (throughLink) {
      App app = app(environment().provide(renamed, throughLink).build(), ctx ->
          Sqlite.register(ctx, isRenamed[0] ? renamed : DB).mountTable(ctx, DOCS)
              .declareRow(ctx, new Doc("a", "Alpha")));
      app.update();
      isRenamed[0] = true;
      app.update();
      app.update();

      assertThat(schema()).containsExactly("table docs");
      assertThat(q("SELECT id, title FROM docs")).containsExactly("a|Alpha");
      app.close();
    }
  }

  @Test
  void aTableInADatabaseNoLongerProvidedIsKeptUntilItCanBeDropped() throws Exception {
    App app = app(ctx -> Sqlite.register(ctx, DB).database(OTHER).mountTable(ctx, DOCS)
        .declareRow(ctx, new Doc("a", "Alpha")));
    app.update();
    app.close();

    Environment withoutOther = Environment.builder().dbPath(dir.resolve("state"))
        .provide(DB, db()).build();
    App without = app(withoutOther, ctx -> Sqlite.register(ctx, DB));
    assertThatThrownBy(without::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("table docs is in the database of ContextKey 'other_db', which the"
            + " environment does not provide");
    assertThat(q(otherFile(), "SELECT id, title FROM docs")).containsExactly("a|Alpha");
    without.close();

    App with = app(ctx -> Sqlite.register(ctx, DB));
    with.update();
    assertThat(schema(otherFile())).isEmpty();
  }

  @Test
  void registeringTheProviderTwiceInARunSaysHowToReachAnotherDatabase() throws Exception {
    App app = app(ctx -> {
      Sqlite.register(ctx, DB).mountTable(ctx, DOCS).declareRow(ctx, new Doc("a", "Alpha"));
      Sqlite.register(ctx, OTHER).mountTable(ctx, DOCS).declareRow(ctx, new Doc("b", "Beta"));
    });

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("call Sqlite.register once per run and reach other databases"
            + " with sqlite.database(key)");
    assertThat(schema(otherFile())).isEmpty();
  }

  /** The main database's file opened a second time, under a key of its own. */
  static final ContextKey<SqliteDatabase> SAME_FILE =
      ContextKey.of("same_file_db", SqliteDatabase.class);

  App appWithTheMainFileTwice(Consumer<Ctx> main) {
    SqliteDatabase again = SqliteDatabase.open(dbFile());
    return app(environment().provide(SAME_FILE, again).build(), main);
  }

  record Item(String id, String title) {}

  /**
   * Table {@code a} under {@link #DB} and table {@code b} under {@link #SAME_FILE} (one file),
   * with a row each titled {@code title + name}, then {@code then} on the two.
   */
  static void tablesUnderTwoKeys(Ctx ctx, String title,
      BiConsumer<SqliteTable<Item>, SqliteTable<Item>> then) {
    Sqlite sqlite = Sqlite.register(ctx, DB);
    SqliteTable<Item> a = sqlite.mountTable(ctx, TableSchema.of("a", Item.class, "id"));
    SqliteTable<Item> b = sqlite.database(SAME_FILE)
        .mountTable(ctx, TableSchema.of("b", Item.class, "id"));
    a.declareRow(ctx, new Item("a1", title + "a"));
    b.declareRow(ctx, new Item("b1", title + "b"));
    then.accept(a, b);
  }

  @Test
  void aFullTextIndexMovedToATableOfTheSameFileUnderAnotherKeyEndsThere() throws Exception {
    boolean[] moved = {false};
    App app = appWithTheMainFileTwice(ctx -> tablesUnderTwoKeys(ctx, "fox in ", (a, b) ->
        (moved[0] ? b : a).declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title")))));
    app.update();
    moved[0] = true;
    app.update();
    app.update();

    assertThat(q("SELECT name || ' on ' || tbl_name FROM sqlite_master WHERE type = 'trigger'"
        + " ORDER BY name")).containsExactly("foo_ad on b", "foo_ai on b", "foo_au on b");
    assertThat(q("SELECT b.id FROM foo JOIN b ON b.rowid = foo.rowid WHERE foo MATCH 'fox'"))
        .containsExactly("b1");
  }

  @Test
  void oneFullTextIndexNameOnTablesOfTheSameFileUnderTwoKeysIsAnErrorNamingBoth()
      throws Exception {
    boolean[] both = {false};
    App app = appWithTheMainFileTwice(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> a = sqlite.mountTable(ctx, TableSchema.of("a", Item.class, "id"));
      a.declareRow(ctx, new Item("a1", "fox in a"));
      a.declareFullTextIndex(ctx, new FullTextIndex("foo", List.of("title")));
      if (both[0]) {
        sqlite.database(SAME_FILE).mountTable(ctx, TableSchema.of("b", Item.class, "id"))
            .declareFullTextIndex(ctx, new FullTextIndex("Foo", List.of("title")));
      }
    });
    app.update();
    both[0] = true;

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("full-text index Foo is declared on table a and on table b");
    assertThat(q("SELECT a.id FROM foo JOIN a ON a.rowid = foo.rowid WHERE foo MATCH 'fox'"))
        .containsExactly("a1");
  }

  @Test
  void aSqlCommandMovedToATableOfTheSameFileUnderAnotherKeyEndsThere() throws Exception {
    boolean[] moved = {false};
    App app = appWithTheMainFileTwice(ctx -> tablesUnderTwoKeys(ctx, "in ", (a, b) ->
        (moved[0] ? b : a).declareSqlCommand(ctx, new SqlCommand("titles", "CREATE VIEW titles AS"
            + " SELECT id, title FROM " + (moved[0] ? "b" : "a"), "DROP VIEW IF EXISTS titles"))));
    app.update();
    moved[0] = true;
    app.update();
    app.update();

    assertThat(schema()).containsExactly(
        "table a", "table b", "table cocoindex_sql_commands", "view titles");
    assertThat(q("SELECT * FROM titles")).containsExactly("b1|in b");
    assertThat(q("SELECT table_name, name FROM cocoindex_sql_commands"))
        .containsExactly("b|titles");
  }
}
