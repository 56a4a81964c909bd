package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** SQL commands are torn down whatever removes them: their own removal or their table's. */
class SqlCommandTest extends TargetDatabaseTest {
  record Doc(String id, String title, long year) {}

  static final SqlCommand VIEW = new SqlCommand("titles",
      "CREATE VIEW docs_titles AS SELECT id, title FROM docs", "DROP VIEW docs_titles");

  /** Table docs, keyed by id (or by id and year), with the view {@link #VIEW}. */
  static Consumer<Ctx> docs(boolean[] declared, boolean[] byYear) {
    return ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (declared[0]) {
        SqliteTable<Doc> t = sqlite.mountTable(ctx, byYear[0]
            ? TableSchema.of("docs", Doc.class, "id", "year")
            : TableSchema.of("docs", Doc.class, "id"));
        t.declareRow(ctx, new Doc("a", "Alpha", 2001));
        t.declareSqlCommand(ctx, VIEW);
      }
    };
  }

  @Test
  void aTableNoLongerDeclaredHasItsCommandsTornDown() throws Exception {
    boolean[] declared = {true};
    App app = app(docs(declared, new boolean[] {false}));
    app.update();
    assertThat(q("SELECT id, title FROM docs_titles")).containsExactly("a|Alpha");

    declared[0] = false;
    app.update();
    assertThat(schema()).isEmpty();
  }

  @Test
  void droppingTheStateOfAnAppInANewProcessTearsDownItsCommands() throws Exception {
    App app = app(docs(new boolean[] {true}, new boolean[] {false}));
    app.update();
    app.close();

    // A new App knows the table only from its tracking record, and its command not at all.
    App again = app(docs(new boolean[] {true}, new boolean[] {false}));
    again.dropState();
    assertThat(schema()).isEmpty();
  }

  @Test
  void aCommandDeclaredUnderANewKeyIsTornDownBeforeItIsSetUpAgain() throws Exception {
    ContextKey<SqliteDatabase> renamed = ContextKey.of("renamed_db", SqliteDatabase.class);
    boolean[] isRenamed = {false};
    App app = app(environment().provide(renamed, db()).build(), ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, isRenamed[0] ? renamed : DB)
          .mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "Alpha", 2001));
      t.declareSqlCommand(ctx, VIEW);
    });
    app.update();
    isRenamed[0] = true; // the same database: the table and its view are handed over
    app.update();
    app.update();

    assertThat(q("SELECT id, title FROM docs_titles")).containsExactly("a|Alpha");
    assertThat(q("SELECT table_name, name, teardown FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|DROP VIEW docs_titles");
  }

  @Test
  void aPrimaryKeyChangeSetsTheCommandsUpAgainInItsFirstRun() throws Exception {
    boolean[] byYear = {false};
    App app = app(docs(new boolean[] {true}, byYear));
    app.update();
    byYear[0] = true;
    app.update();

    assertThat(q("SELECT name FROM pragma_table_info('docs') WHERE pk > 0 ORDER BY pk"))
        .containsExactly("id", "year");
    assertThat(q("SELECT id, title FROM docs_titles")).containsExactly("a|Alpha");
    assertThat(q("SELECT table_name, name, teardown FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|DROP VIEW docs_titles");
  }
}
