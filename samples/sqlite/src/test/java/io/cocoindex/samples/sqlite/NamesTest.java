package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.App;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SQLite compares names case-insensitively, and so do tables, columns and indexes here. */
class NamesTest extends TargetDatabaseTest {
  record Doc(String id, String title) {}

  record DocTitleCase(String id, String Title) {}

  @Test
  void aTableRenamedByCaseOnlyIsTheSameTable() throws Exception {
    String[] name = {"Docs"};
    App app = app(ctx -> {
      SqliteTable<Doc> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of(name[0], Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "Alpha"));
      t.declareRow(ctx, new Doc("b", "Beta"));
      t.declareIndex(ctx, IndexSpec.of("docs_by_title", "title"));
      t.declareSqlCommand(ctx, new SqlCommand("titles",
          "CREATE VIEW docs_titles AS SELECT title FROM docs", "DROP VIEW docs_titles"));
    });
    app.update();
    List<String> rows = q("SELECT rowid, id, title FROM docs ORDER BY id");
    List<String> schema = schema();
    long statements = db().statementsExecuted();
    name[0] = "docs";
    app.update();
    app.update();

    // Nothing to do: not even the view, whose setup would fail now that it exists.
    assertThat(db().statementsExecuted()).isEqualTo(statements);
    assertThat(q("SELECT rowid, id, title FROM docs ORDER BY id")).isEqualTo(rows).hasSize(2);
    assertThat(schema()).isEqualTo(schema)
        .contains("table Docs", "index docs_by_title", "view docs_titles");
  }

  @Test
  void aTableAndIndexTrackedUnderTheirNamesAsWrittenAreKeptUnderCaseFoldedKeys()
      throws Exception {
    boolean[] folded = {false};
    TableSchema<Doc> docs = TableSchema.of("Docs", Doc.class, "id");
    IndexSpec byTitle = IndexSpec.of("Docs_By_Title", "title");
    App app = app(ctx -> {
      if (folded[0]) {
        SqliteTable<Doc> t = Sqlite.register(ctx, DB).mountTable(ctx, docs);
        t.declareRow(ctx, new Doc("a", "Alpha"));
        t.declareIndex(ctx, byTitle);
      } else { // keyed by the names as written, as before keys were case-folded
        TableTarget t = SqliteTables.register(ctx, new TableHandler(ctx))
            .mountTable(ctx, docs.spec(DB.name()));
        t.declareRow(ctx, docs.row(new Doc("a", "Alpha")));
        t.declareIndex(ctx, byTitle);
      }
    });
    app.update();
    folded[0] = true;
    app.update();
    app.update();

    assertThat(q("SELECT id, title FROM docs")).containsExactly("a|Alpha");
    assertThat(schema()).containsExactly("index Docs_By_Title", "table Docs");
  }

  @Test
  void aColumnRenamedByCaseOnlyKeepsItsColumn() throws Exception {
    boolean[] lower = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (lower[0]) {
        sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("a", "Alpha 2"));
      } else {
        sqlite.mountTable(ctx, TableSchema.of("docs", DocTitleCase.class, "id"))
            .declareRow(ctx, new DocTitleCase("a", "Alpha"));
      }
    });
    app.update();
    lower[0] = true;
    app.update();
    app.update();

    assertThat(q("SELECT name || ' ' || type FROM pragma_table_info('docs')"))
        .containsExactly("id TEXT", "Title TEXT");
    assertThat(q("SELECT id, title FROM docs")).containsExactly("a|Alpha 2");
  }

  @Test
  void anIndexRenamedByCaseOnlyIsRenamedNotDropped() throws Exception {
    String[] index = {"docs_By_Title"};
    App app = app(ctx -> {
      SqliteTable<Doc> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "Alpha"));
      t.declareIndex(ctx, IndexSpec.of(index[0], "title"));
    });
    app.update();
    index[0] = "docs_by_title";
    app.update();
    app.update();

    assertThat(q("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
        .containsExactly("docs_by_title|CREATE INDEX \"docs_by_title\" /* cocoindex app: test */"
            + " ON \"docs\" (\"title\")");
  }

  record Twice(String id, String title, String Title) {}

  @Test
  void componentsThatDifferByCaseOnlyAreRejected() {
    assertThatThrownBy(() -> TableSchema.of("docs", Twice.class, "id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("components 'title' and 'Title' of " + Twice.class.getName()
            + " would be one column: SQLite names are case-insensitive");
  }

  @Test
  void namesStartingWithTheConnectorsPrefixAreRejected() {
    assertThatThrownBy(() -> TableSchema.of("Cocoindex_docs", Doc.class, "id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid table name 'Cocoindex_docs': names starting with"
            + " cocoindex_ are reserved for the connector");
    SqliteTable<Doc> docs = new SqliteTable<>(TableSchema.of("docs", Doc.class, "id"), null);
    assertThatThrownBy(() -> docs.declareIndex(null, IndexSpec.of("cocoindex_rebuild", "title")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid index name 'cocoindex_rebuild'");
  }
}
