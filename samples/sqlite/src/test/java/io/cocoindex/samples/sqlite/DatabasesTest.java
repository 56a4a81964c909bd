package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
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
}
