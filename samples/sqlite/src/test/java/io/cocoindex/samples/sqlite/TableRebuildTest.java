package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * A dropped or retyped column rebuilds the table (copy into a new table, drop, rename), which
 * must work whatever else names the table and whatever its name.
 */
class TableRebuildTest extends TargetDatabaseTest {
  record Doc(String id, String title, long year) {}

  record DocYearAsText(String id, String title, String year) {}

  final boolean[] retyped = {false};

  App docs(String table, BiConsumer<Ctx, SqliteTable<?>> more) {
    return app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<?> t;
      if (retyped[0]) {
        SqliteTable<DocYearAsText> v2 =
            sqlite.mountTable(ctx, TableSchema.of(table, DocYearAsText.class, "id"));
        v2.declareRow(ctx, new DocYearAsText("a", "Alpha", "MMI"));
        t = v2;
      } else {
        SqliteTable<Doc> v1 = sqlite.mountTable(ctx, TableSchema.of(table, Doc.class, "id"));
        v1.declareRow(ctx, new Doc("a", "Alpha", 2001));
        t = v1;
      }
      more.accept(ctx, t);
    });
  }

  @Test
  void aRetypedColumnRebuildsATableThatAViewNames() throws Exception {
    App app = docs("docs", (ctx, t) -> t.declareSqlCommand(ctx, new SqlCommand("titles",
        "CREATE VIEW docs_titles AS SELECT id, title, year FROM docs",
        "DROP VIEW IF EXISTS docs_titles")));
    app.update();
    retyped[0] = true;
    app.update();
    app.update();

    assertThat(q("SELECT name || ' ' || type FROM pragma_table_info('docs')"))
        .containsExactly("id TEXT", "title TEXT", "year TEXT");
    assertThat(q("SELECT id, title, year, typeof(year) FROM docs_titles"))
        .containsExactly("a|Alpha|MMI|text");
    assertThat(schema())
        .containsExactly("table cocoindex_sql_commands", "table docs", "view docs_titles");
  }

  @Test
  void aTableWithTheLongestNameCanBeRebuilt() throws Exception {
    String name = "t" + "x".repeat(63);
    App app = docs(name, (ctx, t) -> {});
    app.update();
    retyped[0] = true;
    app.update();
    app.update();

    assertThat(q("SELECT name || ' ' || type FROM pragma_table_info('" + name + "')"))
        .containsExactly("id TEXT", "title TEXT", "year TEXT");
    assertThat(q("SELECT id, title, year FROM " + name)).containsExactly("a|Alpha|MMI");
    assertThat(schema()).containsExactly("table " + name);
  }
}
