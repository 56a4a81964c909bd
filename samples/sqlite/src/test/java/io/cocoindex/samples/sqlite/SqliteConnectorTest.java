package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.testkit.CocoIndexExtension;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The SQLite connector against a real SQLite database, checked with SQLite's own catalog. */
class SqliteConnectorTest {
  static final ContextKey<SqliteDatabase> DB = ContextKey.of("test_db", SqliteDatabase.class);

  @TempDir static Path dir;
  static SqliteDatabase db;

  @RegisterExtension
  final CocoIndexExtension coco = CocoIndexExtension.builder().provide(DB, database()).build();

  record Doc(String id, String title) {}

  record DocWithYear(String id, String title, long year) {}

  record DocYearAsText(String id, String title, String year) {}

  record DocOnlyId(String id) {}

  record DocNewKey(String id, String title, long version) {}

  static SqliteDatabase database() {
    if (db == null) {
      db = SqliteDatabase.open(dir.resolve("target.sqlite"));
    }
    return db;
  }

  @AfterEach
  void dropEverything() throws SQLException {
    for (String table : tables()) {
      db.inTransaction(c -> {
        try (Statement s = c.createStatement()) {
          s.execute("DROP TABLE IF EXISTS \"" + table + "\"");
        }
        return null;
      });
    }
  }

  static List<String> tables() throws SQLException {
    return query("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        + " AND name NOT LIKE '%fts%' ORDER BY name");
  }

  static List<String> query(String sql) throws SQLException {
    return SqlRows.of(db, sql);
  }

  static List<String> columns(String table) throws SQLException {
    return query("SELECT name || ' ' || type FROM pragma_table_info('" + table + "')");
  }

  final Map<String, String> docs = new LinkedHashMap<>();

  App docsApp(BiConsumer<Ctx, SqliteTable<Doc>> more) {
    return coco.app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Doc> t = sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      docs.forEach((id, title) -> ctx.mount(id, c -> t.declareRow(c, new Doc(id, title))));
      more.accept(ctx, t);
    });
  }

  /**
   * A table dropped by hand is noticed by the next run, which looks for each table it would not
   * otherwise touch, and created again with every row (see {@link DroppedTableTest}).
   */
  @Test
  void aTableDroppedByHandComesBackInTheNextRun() throws SQLException {
    App app = docsApp((ctx, t) -> {});
    docs.put("a", "Alpha");
    docs.put("b", "Beta");
    coco.update(app);
    db.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("DROP TABLE docs");
      }
      return null;
    });

    assertThat(coco.update(app)).containsExactly(
        "cocoindex/sqlite/table update [\"test_db\", \"docs\"]",
        "cocoindex/sqlite/table/[\"test_db\", \"docs\"] create \"a\"",
        "cocoindex/sqlite/table/[\"test_db\", \"docs\"] create \"b\"");
    assertThat(query("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|Alpha", "b|Beta");
  }

  @Test
  void createsTheTableAndRowsUpdatesAndDeletesRows() throws SQLException {
    App app = docsApp((ctx, t) -> {});
    docs.put("a", "Alpha");
    docs.put("b", "Beta");
    coco.update(app);
    assertThat(columns("docs")).containsExactly("id TEXT", "title TEXT");
    assertThat(query("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|Alpha", "b|Beta");

    docs.put("a", "ALPHA");
    docs.remove("b");
    assertThat(coco.update(app)).contains(
        "cocoindex/sqlite/table/[\"test_db\", \"docs\"] update \"a\"",
        "cocoindex/sqlite/table/[\"test_db\", \"docs\"] delete \"b\"");
    assertThat(query("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|ALPHA");
  }

  @Test
  void unchangedRerunSendsNoStatementAndLeavesIdenticalData() throws SQLException {
    App app = docsApp((ctx, t) -> {});
    docs.put("a", "Alpha");
    docs.put("b", "Beta");
    coco.update(app);
    List<String> before = query("SELECT rowid, id, title FROM docs ORDER BY id");
    long statements = db.statementsExecuted();
    long transactions = db.transactionsBegun();

    coco.update(app);
    assertThat(db.statementsExecuted()).isEqualTo(statements);
    // The table is refreshed (a container's action comes on every run) without a transaction.
    assertThat(db.transactionsBegun()).isEqualTo(transactions);
    assertThat(query("SELECT rowid, id, title FROM docs ORDER BY id")).isEqualTo(before);
  }

  @Test
  void tableNoLongerDeclaredIsDroppedAndTwoTablesLiveSideBySide() throws SQLException {
    boolean[] both = {true};
    App app = coco.app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Doc> a = sqlite.mountTable(ctx, TableSchema.of("docs_a", Doc.class, "id"));
      a.declareRow(ctx, new Doc("1", "in a"));
      if (both[0]) {
        SqliteTable<Doc> b = sqlite.mountTable(ctx, TableSchema.of("docs_b", Doc.class, "id"));
        b.declareRow(ctx, new Doc("1", "in b"));
      }
    });
    coco.update(app);
    assertThat(tables()).containsExactly("docs_a", "docs_b");
    assertThat(query("SELECT title FROM docs_b")).containsExactly("in b");

    both[0] = false;
    coco.update(app);
    assertThat(tables()).containsExactly("docs_a");
    assertThat(query("SELECT title FROM docs_a")).containsExactly("in a");
  }

  @Test
  void userManagedTableIsNeverCreatedOrDroppedButItsRowsAreManaged() throws SQLException {
    db.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE mine (id TEXT PRIMARY KEY, title TEXT, extra TEXT)");
        s.execute("INSERT INTO mine VALUES ('keep', 'user row', 'x')");
      }
      return null;
    });
    boolean[] declared = {true};
    App app = coco.app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (declared[0]) {
        sqlite.mountTable(ctx, TableSchema.userManaged("mine", Doc.class, "id"))
            .declareRow(ctx, new Doc("app", "app row"));
      }
    });
    coco.update(app);
    assertThat(query("SELECT id, title FROM mine ORDER BY id"))
        .containsExactly("app|app row", "keep|user row");
    assertThat(columns("mine")).containsExactly("id TEXT", "title TEXT", "extra TEXT");

    declared[0] = false;
    coco.update(app);
    assertThat(tables()).contains("mine");
    assertThat(query("SELECT id FROM mine ORDER BY id")).containsExactly("app", "keep");
  }

  @Test
  void addedColumnIsAddedInPlaceKeepingRows() throws SQLException {
    int[] version = {1};
    App app = coco.app(ctx -> schemaVersions(ctx, version[0]));
    coco.update(app);
    long rowid = Long.parseLong(query("SELECT rowid FROM docs WHERE id='a'").get(0));
    version[0] = 2;
    coco.update(app);
    assertThat(columns("docs")).containsExactly("id TEXT", "title TEXT", "year INTEGER");
    assertThat(query("SELECT rowid, id, title, year FROM docs"))
        .containsExactly(rowid + "|a|Alpha|2001");
  }

  @Test
  void droppedColumnIsRemovedAndRowsAreRewrittenOnce() throws SQLException {
    int[] version = {2};
    App app = coco.app(ctx -> schemaVersions(ctx, version[0]));
    coco.update(app);
    version[0] = 4;
    List<String> actions = coco.update(app);
    assertThat(columns("docs")).containsExactly("id TEXT");
    assertThat(query("SELECT id FROM docs")).containsExactly("a");
    assertThat(actions).contains("cocoindex/sqlite/table/[\"test_db\", \"docs\"] update \"a\"");
    assertThat(coco.update(app)).hasSize(1); // only the table's ensure
  }

  @Test
  void typeChangeThatConvertsKeepsTheDataAndOneThatCannotIsRestoredFromDeclarations()
      throws SQLException {
    int[] version = {2};
    App app = coco.app(ctx -> schemaVersions(ctx, version[0]));
    coco.update(app);
    version[0] = 3; // year INTEGER -> TEXT: converts
    coco.update(app);
    assertThat(columns("docs")).containsExactly("id TEXT", "title TEXT", "year TEXT");
    assertThat(query("SELECT year, typeof(year) FROM docs")).containsExactly("MMI|text");

    version[0] = 2; // 'MMI' TEXT -> INTEGER cannot convert: the LOSSY rewrite restores 2001
    coco.update(app);
    assertThat(columns("docs")).containsExactly("id TEXT", "title TEXT", "year INTEGER");
    assertThat(query("SELECT year, typeof(year) FROM docs")).containsExactly("2001|integer");
  }

  @Test
  void primaryKeyChangeRecreatesTheTableAndWritesEveryRowAsNew() throws SQLException {
    int[] version = {2};
    App app = coco.app(ctx -> schemaVersions(ctx, version[0]));
    coco.update(app);
    version[0] = 5;
    List<String> actions = coco.update(app);
    assertThat(actions).contains(
        "cocoindex/sqlite/table/[\"test_db\", \"docs\"] create [\"a\", 1]");
    assertThat(query("SELECT name FROM pragma_table_info('docs') WHERE pk > 0 ORDER BY pk"))
        .containsExactly("id", "version");
    assertThat(query("SELECT id, version FROM docs")).containsExactly("a|1");
  }

  /** Versions of one table "docs": 1 (id, title), 2 (+year), 3 (year as TEXT), 4 (id only), 5. */
  static void schemaVersions(Ctx ctx, int version) {
    Sqlite sqlite = Sqlite.register(ctx, DB);
    switch (version) {
      case 1:
        sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("a", "Alpha"));
        break;
      case 2:
        sqlite.mountTable(ctx, TableSchema.of("docs", DocWithYear.class, "id"))
            .declareRow(ctx, new DocWithYear("a", "Alpha", 2001));
        break;
      case 3:
        sqlite.mountTable(ctx, TableSchema.of("docs", DocYearAsText.class, "id"))
            .declareRow(ctx, new DocYearAsText("a", "Alpha", "MMI"));
        break;
      case 4:
        sqlite.mountTable(ctx, TableSchema.of("docs", DocOnlyId.class, "id"))
            .declareRow(ctx, new DocOnlyId("a"));
        break;
      default:
        sqlite.mountTable(ctx, TableSchema.of("docs", DocNewKey.class, "id", "version"))
            .declareRow(ctx, new DocNewKey("a", "Alpha", 1));
    }
  }

  @Test
  void indexSpecChangeRecreatesItUnderTheSameNameAndAnIdenticalSpecDoesNothing()
      throws SQLException {
    IndexSpec[] index = {IndexSpec.of("docs_by_title", "title")};
    App app = docsApp((ctx, t) -> t.declareIndex(ctx, index[0]));
    docs.put("a", "Alpha");
    coco.update(app);
    assertThat(query("SELECT sql FROM sqlite_master WHERE name='docs_by_title'"))
        .containsExactly("CREATE INDEX \"docs_by_title\" /* cocoindex app: test-1 */ ON \"docs\""
            + " (\"title\")");
    long statements = db.statementsExecuted();
    coco.update(app);
    assertThat(db.statementsExecuted()).isEqualTo(statements);

    index[0] = new IndexSpec("docs_by_title", List.of("title", "id"), true);
    coco.update(app);
    assertThat(query("SELECT sql FROM sqlite_master WHERE name='docs_by_title'"))
        .containsExactly("CREATE UNIQUE INDEX \"docs_by_title\" /* cocoindex app: test-1 */ ON"
            + " \"docs\" (\"title\", \"id\")");
  }

  @Test
  void sqlCommandTeardownRunsBeforeTheNewSetupAndOnRemoval() throws SQLException {
    db.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS audit (seq INTEGER PRIMARY KEY, what TEXT)");
      }
      return null;
    });
    SqlCommand[] command = {new SqlCommand("titles",
        "INSERT INTO audit(what) VALUES ('setup v1')",
        "INSERT INTO audit(what) VALUES ('teardown v1')")};
    App app = coco.app(ctx -> {
      SqliteTable<Doc> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      if (command[0] != null) {
        t.declareSqlCommand(ctx, command[0]);
      }
    });
    coco.update(app);
    command[0] = new SqlCommand("titles", "INSERT INTO audit(what) VALUES ('setup v2')",
        "INSERT INTO audit(what) VALUES ('teardown v2')");
    coco.update(app);
    coco.update(app);
    command[0] = null;
    coco.update(app);
    assertThat(query("SELECT what FROM audit ORDER BY seq"))
        .containsExactly("setup v1", "teardown v1", "setup v2", "teardown v2");
  }

  @Test
  void fullTextIndexFindsRowsAndFollowsRowChanges() throws SQLException {
    App app = docsApp((ctx, t) -> t.declareFullTextIndex(ctx,
        new FullTextIndex("docs_fts", List.of("title"))));
    docs.put("a", "the quick brown fox");
    docs.put("b", "lazy dogs sleep");
    coco.update(app);
    assertThat(query("SELECT d.id FROM docs_fts f JOIN docs d ON d.rowid = f.rowid"
        + " WHERE docs_fts MATCH 'fox'")).containsExactly("a");

    docs.put("b", "a fox jumps");
    docs.remove("a");
    coco.update(app);
    assertThat(query("SELECT d.id FROM docs_fts f JOIN docs d ON d.rowid = f.rowid"
        + " WHERE docs_fts MATCH 'fox'")).containsExactly("b");

    // Dropping the table takes its full-text index with it.
    app.dropState();
    assertThat(query("SELECT name FROM sqlite_master WHERE name LIKE 'docs%'")).isEmpty();
  }

  record Blob(byte[] key, byte[] data, boolean flag, double score) {}

  @Test
  void blobKeysAndValuesAreWrittenExactlyAndARerunOfEqualArraysSendsNothing()
      throws SQLException {
    Map<String, Blob> blobs = new LinkedHashMap<>();
    blobs.put("k1", new Blob(new byte[] {0, 1}, new byte[] {(byte) 0xca, (byte) 0xfe}, true, 0.5));
    blobs.put("k2", new Blob(new byte[] {(byte) 0xff}, new byte[0], false, -2.0));
    App app = coco.app(ctx -> {
      SqliteTable<Blob> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.of("blobs", Blob.class, "key"));
      blobs.forEach((name, b) -> ctx.mount(name, c -> t.declareRow(c, b)));
    });
    coco.update(app);
    assertThat(columns("blobs"))
        .containsExactly("key BLOB", "data BLOB", "flag INTEGER", "score REAL");
    String read = "SELECT hex(key), hex(data), flag, score FROM blobs ORDER BY key";
    assertThat(query(read)).containsExactly("0001|CAFE|1|0.5", "FF||0|-2.0");

    // Equal arrays, other instances: nothing to do.
    blobs.replaceAll((name, b) ->
        new Blob(b.key().clone(), b.data().clone(), b.flag(), b.score()));
    long statements = db.statementsExecuted();
    coco.update(app);
    assertThat(db.statementsExecuted()).isEqualTo(statements);

    // One byte changes in one row, and the other row goes: deleted by its blob key.
    blobs.put("k1", new Blob(new byte[] {0, 1}, new byte[] {(byte) 0xca, (byte) 0xff}, true, 0.5));
    blobs.remove("k2");
    assertThat(coco.update(app)).containsExactlyInAnyOrder(
        "cocoindex/sqlite/table update [\"test_db\", \"blobs\"]",
        "cocoindex/sqlite/table/[\"test_db\", \"blobs\"] update b'0001'",
        "cocoindex/sqlite/table/[\"test_db\", \"blobs\"] delete b'ff'");
    assertThat(query(read)).containsExactly("0001|CAFF|1|0.5");
  }

  @Test
  void nullPrimaryKeyIsAClearErrorAndChangesNothing() throws SQLException {
    App app = coco.app(ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
        .declareRow(ctx, new Doc(null, "no id")));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("null primary-key column 'id'");
    assertThat(query("SELECT count(*) FROM docs")).containsExactly("0");
  }

  @Test
  void maliciousIdentifiersAreRejectedBeforeAnySqlRuns() throws SQLException {
    assertThatThrownBy(() -> TableSchema.of("docs; DROP TABLE x", Doc.class, "id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid table name 'docs; DROP TABLE x'");
    App app = docsApp((ctx, t) -> t.declareIndex(ctx, IndexSpec.of("i\"; DROP TABLE docs;--",
        "title")));
    docs.put("a", "Alpha");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("invalid index name 'i\"; DROP TABLE docs;--'");
    assertThat(query("SELECT count(*) FROM docs")).containsExactly("1");
    assertThat(query("SELECT count(*) FROM sqlite_master WHERE type='index'"
        + " AND name LIKE 'i%'")).containsExactly("0");
  }
}
