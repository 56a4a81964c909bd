package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Index names are database-wide in SQLite (one namespace with tables and views), but an index
 * is declared on its table: it is named {@code <table>__<name>} in the database, or as declared
 * when its name already starts with its table's ({@code docs_by_title} on {@code docs}).
 */
class IndexNamesTest extends TargetDatabaseTest {
  record Doc(String id, String title, long views) {}

  /** The indexes in the database but SQLite's automatic ones (which have no SQL), "table name". */
  List<String> indexes() throws SQLException {
    return q("SELECT tbl_name || ' ' || name FROM sqlite_master WHERE type = 'index'"
        + " AND sql IS NOT NULL ORDER BY tbl_name, name");
  }

  @Test
  void twoTablesDeclaringOneIndexNameHaveAnIndexEach() throws Exception {
    boolean[] onA = {true};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Doc> a = sqlite.mountTable(ctx, TableSchema.of("a", Doc.class, "id"));
      SqliteTable<Doc> b = sqlite.mountTable(ctx, TableSchema.of("b", Doc.class, "id"));
      if (onA[0]) {
        a.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      }
      b.declareIndex(ctx, IndexSpec.of("by_title", "title"));
    });
    app.update();
    assertThat(indexes()).containsExactly("a a__by_title", "b b__by_title");

    onA[0] = false;
    app.update();
    assertThat(indexes()).containsExactly("b b__by_title");
  }

  @Test
  void aNameThatStartsWithAnotherTablesNameIsScopedByItsOwnTable() throws Exception {
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      sqlite.mountTable(ctx, TableSchema.of("a", Doc.class, "id"))
          .declareIndex(ctx, IndexSpec.of("a_by_title", "title"));
      sqlite.mountTable(ctx, TableSchema.of("b", Doc.class, "id"))
          .declareIndex(ctx, IndexSpec.of("a_by_title", "title"));
    });
    app.update();

    assertThat(indexes()).containsExactly("a a_by_title", "b b__a_by_title");
  }

  @Test
  void anIndexMovedToAnotherTableEndsOnThatTable() throws Exception {
    String[] on = {"a"};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Doc> a = sqlite.mountTable(ctx, TableSchema.of("a", Doc.class, "id"));
      SqliteTable<Doc> b = sqlite.mountTable(ctx, TableSchema.of("b", Doc.class, "id"));
      (on[0].equals("a") ? a : b).declareIndex(ctx, IndexSpec.of("by_title", "title"));
    });
    app.update();
    assertThat(indexes()).containsExactly("a a__by_title");

    on[0] = "b"; // b's index is created in the run, a's dropped at its end
    app.update();
    assertThat(indexes()).containsExactly("b b__by_title");
    long statements = db().statementsExecuted();
    app.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
    assertThat(indexes()).containsExactly("b b__by_title");
  }

  @Test
  void anIndexOfAnotherTableUnderTheDeclaredNameIsLeftAlone() throws Exception {
    exec("CREATE TABLE notes (id TEXT PRIMARY KEY, title TEXT)");
    exec("CREATE INDEX by_title ON notes (title)");
    boolean[] declared = {true};
    App app = app(ctx -> {
      SqliteTable<Doc> docs =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      if (declared[0]) {
        docs.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      }
    });
    app.update();
    assertThat(indexes()).containsExactly("docs docs__by_title", "notes by_title");

    declared[0] = false;
    app.update();
    assertThat(indexes()).containsExactly("notes by_title");
  }

  @Test
  void anIndexNameATableHoldsIsAnErrorNamingItThatDropsNothing() throws Exception {
    exec("CREATE TABLE docs__by_title (id TEXT)");
    exec("INSERT INTO docs__by_title VALUES ('kept')");
    App app = app(ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
        .declareIndex(ctx, IndexSpec.of("by_title", "title")));

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("index by_title of table docs cannot be created as docs__by_title:"
            + " table docs__by_title has that name (SQLite names are case-insensitive, shared by"
            + " tables, views and indexes): declare another index name");
    assertThat(indexes()).isEmpty();
    assertThat(q("SELECT id FROM docs__by_title")).containsExactly("kept");
  }

  @Test
  void anIndexNameAViewHoldsIsAnErrorNamingIt() throws Exception {
    exec("CREATE VIEW Docs_By_Title AS SELECT 1 AS one");
    App app = app(ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
        .declareIndex(ctx, IndexSpec.of("docs_by_title", "title")));

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("index docs_by_title of table docs cannot be created:"
            + " view Docs_By_Title has that name");
    assertThat(indexes()).isEmpty();
    assertThat(schema()).containsExactly("table docs", "view Docs_By_Title");
  }

  @Test
  void anIndexNameAnotherTablesIndexHoldsIsAnErrorThatKeepsThatIndex() throws Exception {
    boolean[] both = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
          .declareIndex(ctx, IndexSpec.of("docs_by_title", "title"));
      if (both[0]) { // "docs_by_title" starts with "docs_by_" too: named as declared on both
        sqlite.mountTable(ctx, TableSchema.of("docs_by", Doc.class, "id"))
            .declareIndex(ctx, IndexSpec.of("docs_by_title", "views"));
      }
    });
    app.update();
    both[0] = true;

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("index docs_by_title of table docs_by cannot be created:"
            + " index docs_by_title of table docs has that name");
    assertThat(indexes()).containsExactly("docs docs_by_title");
  }

  @Test
  void anIndexWithoutColumnsOrNamingOneTheTableLacksIsRejectedWhenDeclared() {
    SqliteTable<Doc> docs = new SqliteTable<>(TableSchema.of("docs", Doc.class, "id"), null);
    assertThatThrownBy(() -> docs.declareIndex(null, IndexSpec.of("docs_by_nothing")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("index docs_by_nothing of table docs has no columns");
    assertThatThrownBy(() -> docs.declareIndex(null, IndexSpec.of("docs_by_author", "author")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("index docs_by_author names column 'author', which table docs does not have");
  }

  @Test
  void anIndexNamedLikeAnAutomaticIndexIsRejectedWhenDeclared() {
    SqliteTable<Doc> docs = new SqliteTable<>(TableSchema.of("docs", Doc.class, "id"), null);
    assertThatThrownBy(() -> docs.declareIndex(null, IndexSpec.of("sqlite_autoindex_docs_1", "id")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid index name 'sqlite_autoindex_docs_1': names starting with"
            + " sqlite_ are reserved");
  }

  @Test
  void indexesOfAnEarlierVersionAreRenamedOnceUnlessTheirNameStartsWithTheTables()
      throws Exception {
    boolean[] upgraded = {false};
    TableSchema<Doc> docs = TableSchema.of("docs", Doc.class, "id");
    List<IndexSpec> specs =
        List.of(IndexSpec.of("by_title", "title"), IndexSpec.of("docs_by_views", "views"));
    App app = app(ctx -> {
      if (upgraded[0]) {
        SqliteTable<Doc> t = Sqlite.register(ctx, DB).mountTable(ctx, docs);
        specs.forEach(i -> t.declareIndex(ctx, i));
      } else { // keyed by the declared name, as earlier versions did
        TableTarget t = SqliteTables.register(ctx, new TableHandler(ctx))
            .mountTable(ctx, docs.spec(DB.name()));
        specs.forEach(i -> t.declareIndex(ctx, i));
      }
    });
    app.update();
    // What an earlier version left in the database: every index under its declared name.
    exec("DROP INDEX IF EXISTS docs__by_title");
    exec("CREATE INDEX IF NOT EXISTS \"by_title\" ON \"docs\" (\"title\")");
    assertThat(indexes()).containsExactly("docs by_title", "docs docs_by_views");

    upgraded[0] = true;
    app.update();
    assertThat(q("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        + " ORDER BY name")).containsExactly(
        "docs__by_title|CREATE INDEX \"docs__by_title\" /* cocoindex app: test */ ON \"docs\""
            + " (\"title\")",
        "docs_by_views|CREATE INDEX \"docs_by_views\" /* cocoindex app: test */ ON \"docs\""
            + " (\"views\")");
    long statements = db().statementsExecuted();
    app.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  @Test
  void aNameTooLongForATableOfALongNameIsShortenedWithAHashNotTruncated() throws Exception {
    String table = "t" + "x".repeat(59);
    App app = app(ctx -> {
      SqliteTable<Doc> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of(table, Doc.class, "id"));
      t.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      t.declareIndex(ctx, IndexSpec.of("by_views", "views"));
    });
    app.update();

    List<String> names = q("SELECT name FROM sqlite_master WHERE type = 'index'"
        + " AND sql IS NOT NULL ORDER BY name");
    // 60 + 2 + 8 characters: cut to 55 and 8 hex digits of a fingerprint, 64 in all.
    assertThat(names).hasSize(2).allMatch(n -> n.matches("tx{54}_[0-9a-f]{8}"));
    assertThat(names.get(0)).isNotEqualTo(names.get(1));
  }
}
