package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateStats;
import java.nio.file.Files;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A table dropped by hand between runs (or its whole database file deleted, the app staying
 * open) comes back in the next run with every declared row, memoized components' rows included, and with its indexes,
 * SQL commands and full-text index, without a full reprocess; a preview shows the rows to write
 * and writes nothing.
 */
class DroppedTableTest extends TargetDatabaseTest {
  record Doc(String id, String title) {}

  static final SqlCommand VIEW = new SqlCommand("titles",
      "CREATE VIEW docs_titles AS SELECT title FROM docs", "DROP VIEW docs_titles");

  static final List<String> SCHEMA = List.of("index docs_by_title",
      "table cocoindex_sql_commands", "table docs",
      "table docs_fts", "table docs_fts_config", "table docs_fts_data", "table docs_fts_docsize",
      "table docs_fts_idx", "trigger docs_fts_ad", "trigger docs_fts_ai", "trigger docs_fts_au",
      "view docs_titles");

  /**
   * Table docs declared by the main component, with an index, a view and a full-text index; row
   * a declared by main itself, rows b and c by memoized components whose input never changes.
   */
  static Consumer<Ctx> docs() {
    return ctx -> {
      SqliteTable<Doc> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      t.declareIndex(ctx, IndexSpec.of("docs_by_title", "title"));
      t.declareSqlCommand(ctx, VIEW);
      t.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title")));
      t.declareRow(ctx, new Doc("a", "alpha fox"));
      for (String id : List.of("b", "c")) {
        ctx.mountMemo(id, Fingerprint.ofString("source of " + id),
            c -> t.declareRow(c, new Doc(id, id + " cat")));
      }
    };
  }

  @Test
  void aTableDroppedByHandComesBackWholeInTheNextRun() throws Exception {
    App app = app(docs());
    app.update();
    exec("DROP TABLE docs"); // its index and the full-text index's triggers go with it

    UpdateStats stats = app.update();

    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("a|alpha fox", "b|b cat", "c|c cat");
    assertThat(schema()).isEqualTo(SCHEMA);
    assertThat(q("SELECT title FROM docs_titles ORDER BY title"))
        .containsExactly("alpha fox", "b cat", "c cat");
    assertThat(q("SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'cat' ORDER BY rowid"))
        .isEqualTo(q("SELECT rowid FROM docs WHERE id IN ('b', 'c') ORDER BY rowid"));
    assertThat(stats.componentsMemoized()).isZero();

    // Back to normal: nothing written, and the memos hold again.
    long statements = db().statementsExecuted();
    assertThat(app.update().componentsMemoized()).isEqualTo(2);
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  @Test
  void aPreviewShowsTheRowsOfADroppedTableAndWritesNothing() throws Exception {
    App app = app(docs());
    app.update();
    exec("DROP TABLE docs");
    List<String> schema = schema();

    // Each as the table's provider, and what follows its name (its attachments' types).
    String table = "cocoindex/sqlite/table/[\"main_db\", \"docs\"]";
    List<String> planned = app.preview().changes().stream()
        .map(p -> p.provider().replace(table, "docs") + " " + p.action().verb() + " " + p.key())
        .toList();

    assertThat(planned).containsExactlyInAnyOrder("docs create \"a\"", "docs create \"b\"",
        "docs create \"c\"", "docs@index create \"docs_by_title\"",
        "docs@sql_command create \"titles\"", "docs@full_text_index create \"docs_fts\"");
    assertThat(schema()).isEqualTo(schema);
  }

  /** A preview line names the row by its table and key, with its values. */
  @Test
  void aPreviewShowsEachRowByItsTableKeyAndValues() throws Exception {
    App app = app(docs());
    app.update();
    exec("DROP TABLE docs");

    List<String> planned = app.preview().changes().stream()
        .filter(p -> p.key().toString().equals("\"a\""))
        .map(p -> p.action().verb() + " " + p.action().value()).toList();

    assertThat(planned).containsExactly("create docs (id='a'): title='alpha fox'");
  }

  @Test
  void aPreviewOfADeletedDatabaseFileDoesNotCreateIt() throws Exception {
    App app = app(docs());
    app.update();
    deleteDatabaseFile();

    assertThat(app.preview().hasChanges()).isTrue();
    assertThat(dbFile()).doesNotExist();
  }

  @Test
  void aUsersTableDroppedByHandIsNotCreatedAgain() throws Exception {
    exec("CREATE TABLE docs (id TEXT PRIMARY KEY, title TEXT)");
    App app = app(ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
        .declareRow(ctx, new Doc("a", "alpha")));
    app.update();
    exec("DROP TABLE docs");

    app.update();

    assertThat(schema()).isEmpty();
  }

  /**
   * The database file deleted by hand while the app (and its database) stays open, as a service
   * keeps them: the connection, still on the deleted file, is opened again on the new one, and
   * the next update writes the table and its rows there, not into a file nobody sees.
   */
  @Test
  void aDatabaseFileDeletedWhileTheAppStaysOpenComesBackInTheNextRun() throws Exception {
    App app = app(docs());
    app.update();
    deleteDatabaseFile();

    app.update();

    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("a|alpha fox", "b|b cat", "c|c cat");
    assertThat(schema()).isEqualTo(SCHEMA);
  }

  /** Deletes the database file by hand, with its WAL, while the app's database stays open. */
  private void deleteDatabaseFile() throws java.io.IOException {
    Files.delete(dbFile());
    Files.deleteIfExists(dir.resolve("main.sqlite-wal"));
    Files.deleteIfExists(dir.resolve("main.sqlite-shm"));
  }
}
