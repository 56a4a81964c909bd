package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
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

  /**
   * A setup of two statements is refused, naming the command and its table: SQLite's driver
   * would run the first and drop the second without a word. A trigger, whose body's statements
   * end with semicolons, is one statement, and so is text with semicolons in strings, names and
   * comments, or a trailing one.
   */
  @Test
  void aCommandOfTwoStatementsIsRefusedAndATriggerIsOne() throws Exception {
    SqlCommand two = new SqlCommand("views",
        "CREATE VIEW v1 AS SELECT id FROM docs; CREATE VIEW v2 AS SELECT title FROM docs",
        "DROP VIEW IF EXISTS v1");
    App refused = app(ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "Alpha", 2001));
      t.declareSqlCommand(ctx, two);
    });
    assertThatThrownBy(refused::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the setup of SQL command views of table docs holds more than one"
            + " statement, and SQLite's driver runs only the first: declare one SQL command per"
            + " statement (CREATE VIEW v1 AS SELECT id FROM docs; ...)");
    assertThat(q("SELECT name FROM sqlite_master WHERE type = 'view'")).isEmpty();

    App app = app("other", environment().build(), ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.of("notes", Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "Alpha; or not", 2001));
      t.declareSqlCommand(ctx, new SqlCommand("log", "CREATE TRIGGER notes_log AFTER UPDATE ON"
          + " notes BEGIN UPDATE notes SET year = year + 1 WHERE id = new.id AND 0; SELECT 1;"
          + " END;", "DROP TRIGGER IF EXISTS notes_log"));
      t.declareSqlCommand(ctx, new SqlCommand("semi", "CREATE VIEW \"a;b\" AS SELECT ';' AS x"
          + " -- one; statement\n /* still; one */ ;", "DROP VIEW IF EXISTS \"a;b\";"));
    });
    app.update();
    assertThat(q("SELECT type, name FROM sqlite_master WHERE type IN ('view', 'trigger')"
        + " ORDER BY name")).containsExactly("view|a;b", "trigger|notes_log");
  }
}
