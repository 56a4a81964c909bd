package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateOptions;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an app makes on a user-managed table (its indexes, SQL commands and full-text indexes)
 * is the app's: it goes when the app no longer declares it, or no longer declares the table,
 * while the user's table, its rows and what the user made on it stay as they are.
 */
class UserManagedTableTest extends TargetDatabaseTest {
  record Doc(String id, String title) {}

  static final SqlCommand VIEW = new SqlCommand("titles",
      "CREATE VIEW docs_titles AS SELECT id, title FROM docs", "DROP VIEW IF EXISTS docs_titles");

  /** The user's table, with a row and an index of the user's own. */
  @BeforeEach
  void usersTable() throws Exception {
    exec("CREATE TABLE docs (id TEXT PRIMARY KEY, title TEXT)");
    exec("CREATE INDEX docs_by_user ON docs (title)");
    exec("INSERT INTO docs VALUES ('u', 'the user''s')");
  }

  /** Everything the app makes on the user's table, in sqlite_master's terms. */
  private static final List<String> WITH_THE_APPS = List.of(
      "index docs__by_title", "index docs_by_user", "table cocoindex_sql_commands", "table docs",
      "table docs_fts", "table docs_fts_config", "table docs_fts_data", "table docs_fts_docsize",
      "table docs_fts_idx", "trigger docs_fts_ad", "trigger docs_fts_ai", "trigger docs_fts_au",
      "view docs_titles");

  /** The user's table as the user made it: what {@link #usersTable} creates. */
  private static final List<String> THE_USERS =
      List.of("index docs_by_user", "table docs");

  /** An app writing a row into the user's table, with an index, a view and a full-text index. */
  private App app(boolean[] table, boolean[] attachments) {
    return app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (table[0]) {
        SqliteTable<Doc> docs =
            sqlite.mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
        docs.declareRow(ctx, new Doc("a", "the app's"));
        if (attachments[0]) {
          docs.declareIndex(ctx, IndexSpec.of("by_title", "title"));
          docs.declareSqlCommand(ctx, VIEW);
          docs.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title")));
        }
      }
    });
  }

  @Test
  void aUsersTableNoLongerDeclaredLosesWhatTheAppMadeOnItAndKeepsTheRest() throws Exception {
    boolean[] table = {true};
    App app = app(table, new boolean[] {true});
    app.update();
    assertThat(schema()).isEqualTo(WITH_THE_APPS);

    table[0] = false;
    app.update();

    assertThat(schema()).isEqualTo(THE_USERS);
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs'"))
        .containsExactly("CREATE TABLE docs (id TEXT PRIMARY KEY, title TEXT)");
    // Rows are abandoned with the table: the app's row stays, as the user's does.
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("a|the app's", "u|the user's");
  }

  @Test
  void attachmentsNoLongerDeclaredOnAUsersTableAreRemoved() throws Exception {
    boolean[] attachments = {true};
    App app = app(new boolean[] {true}, attachments);
    app.update();
    assertThat(schema()).isEqualTo(WITH_THE_APPS);

    attachments[0] = false;
    app.update();

    assertThat(schema()).isEqualTo(THE_USERS);
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("a|the app's", "u|the user's");
  }

  @Test
  void droppingTheAppsStateRemovesWhatItMadeOnAUsersTable() throws Exception {
    App app = app(new boolean[] {true}, new boolean[] {true});
    app.update();
    app.close();

    // A new process knows the table from its tracking record only.
    app(new boolean[] {true}, new boolean[] {true}).dropState();

    assertThat(schema()).isEqualTo(THE_USERS);
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("a|the app's", "u|the user's");
  }

  /**
   * Two apps write into one user's table, each with its own index, command and full-text index:
   * the one that no longer declares the table removes its own, and the other's stay as they
   * were, still in use.
   */
  @Test
  void anAppNoLongerDeclaringASharedUsersTableRemovesOnlyWhatItMade() throws Exception {
    boolean[] secondDeclares = {true};
    App first = app("first", environment().build(), ctx -> {
      SqliteTable<Doc> docs = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      docs.declareRow(ctx, new Doc("a", "the first app's"));
      docs.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      docs.declareSqlCommand(ctx, VIEW);
      docs.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title")));
    });
    App second = app("second", environment().build(), ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (secondDeclares[0]) {
        SqliteTable<Doc> docs =
            sqlite.mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
        docs.declareRow(ctx, new Doc("b", "the second app's"));
        docs.declareIndex(ctx, IndexSpec.of("by_id_title", "id", "title"));
        docs.declareSqlCommand(ctx, new SqlCommand("ids",
            "CREATE VIEW docs_ids AS SELECT id FROM docs", "DROP VIEW IF EXISTS docs_ids"));
        docs.declareFullTextIndex(ctx, new FullTextIndex("docs_fts2", List.of("title")));
      }
    });
    first.update();
    second.update();
    assertThat(q("SELECT table_name, name, app FROM cocoindex_sql_commands ORDER BY name"))
        .containsExactly("docs|ids|second", "docs|titles|first");

    secondDeclares[0] = false;
    second.update();

    assertThat(schema()).isEqualTo(WITH_THE_APPS);
    assertThat(q("SELECT table_name, name, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|first");
    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly(
        "a|the first app's", "b|the second app's", "u|the user's");
    // The first app's full-text index still follows the table.
    exec("INSERT INTO docs VALUES ('c', 'written later')");
    assertThat(q("SELECT id FROM docs JOIN docs_fts ON docs_fts.rowid = docs.rowid"
        + " WHERE docs_fts MATCH 'later'")).containsExactly("c");
    long statements = db().statementsExecuted();
    first.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  /**
   * A command recorded before records named their app, on a user's table, is left when the
   * table is no longer declared: nothing says which app set it up (the table may be shared),
   * and its tracking went with the table's.
   */
  @Test
  void aCommandRecordedBeforeAppsWereIsLeftWithTheUsersTable() throws Exception {
    exec("CREATE VIEW docs_titles AS SELECT id, title FROM docs");
    exec("CREATE TABLE cocoindex_sql_commands (table_name TEXT NOT NULL, name TEXT NOT NULL,"
        + " teardown TEXT NOT NULL, PRIMARY KEY (table_name, name))");
    exec("INSERT INTO cocoindex_sql_commands VALUES ('docs', 'titles',"
        + " 'DROP VIEW IF EXISTS docs_titles')");
    boolean[] table = {true};
    App app = app(table, new boolean[] {false});
    app.update();

    table[0] = false;
    app.update();

    assertThat(schema()).containsExactly("index docs_by_user", "table cocoindex_sql_commands",
        "table docs", "view docs_titles");
    assertThat(q("SELECT table_name, name, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|null");
  }

  /**
   * A user's table declared under a renamed ContextKey of the same database is handed over: the
   * old key's Delete removes nothing, and what the app made on the table stays, now tracked
   * under the new key.
   */
  @Test
  void aUsersTableHandedOverToARenamedKeyKeepsWhatTheAppMadeOnIt() throws Exception {
    ContextKey<SqliteDatabase> renamed = ContextKey.of("renamed_db", SqliteDatabase.class);
    boolean[] isRenamed = {false};
    App app = app(environment().provide(renamed, db()).build(), ctx -> {
      SqliteTable<Doc> docs = Sqlite.register(ctx, isRenamed[0] ? renamed : DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      docs.declareRow(ctx, new Doc("a", "the app's"));
      docs.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      docs.declareSqlCommand(ctx, VIEW);
      docs.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title")));
    });
    app.update();

    isRenamed[0] = true;
    app.update();
    assertThat(schema()).isEqualTo(WITH_THE_APPS);

    app.dropState(); // the new key's Delete, which knows them
    assertThat(schema()).isEqualTo(THE_USERS);
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("a|the app's", "u|the user's");
  }
  /** A command writing a row of its own into docs: its teardown names the table. */
  static final SqlCommand SEED = new SqlCommand("seed",
      "INSERT OR REPLACE INTO docs (id, title) VALUES ('seed', 'seeded')",
      "DELETE FROM docs WHERE id = 'seed'");

  /**
   * An app declaring the user's table while {@code table[0]}, with an index, {@link #SEED} and a
   * full-text index on it while {@code attachments[0]}.
   */
  private App seeding(boolean[] table, boolean[] attachments) {
    return app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (table[0]) {
        SqliteTable<Doc> docs =
            sqlite.mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
        if (attachments[0]) {
          docs.declareIndex(ctx, IndexSpec.of("by_title", "title"));
          docs.declareSqlCommand(ctx, SEED);
          docs.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title")));
        }
      }
    });
  }

  /**
   * The user drops their table by hand; the app then no longer declares what it made on it: the
   * command's teardown, which names the table, fails on the missing table and is let go (what it
   * undoes went with the table), its record forgotten; the full-text index's FTS5 table, left
   * behind by the drop, goes; the run succeeds, and the next one changes nothing.
   */
  @Test
  void attachmentsOfAUsersTableDroppedByHandAreForgottenWhenNoLongerDeclared() throws Exception {
    boolean[] attachments = {true};
    App app = seeding(new boolean[] {true}, attachments);
    app.update();
    assertThat(q("SELECT id FROM docs ORDER BY id")).containsExactly("seed", "u");
    exec("DROP TABLE docs");

    attachments[0] = false;
    app.update();

    assertThat(schema()).isEmpty();
    long statements = db().statementsExecuted();
    app.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  /**
   * The user drops their table by hand; the app then no longer declares its command, whose
   * teardown fails for another reason than a missing object (the user's audit trigger refuses
   * it): the run fails naming the command and the table, the command stays recorded in the
   * database and tracked, and the run after the cause is gone tears it down and forgets it.
   */
  @Test
  void aTeardownFailingForAnotherReasonOnATableDroppedByHandFailsTheRunUntilItSucceeds()
      throws Exception {
    exec("CREATE TABLE audit (source TEXT)");
    exec("CREATE TRIGGER audit_kept BEFORE DELETE ON audit"
        + " BEGIN SELECT RAISE(ABORT, 'audit rows are kept'); END");
    boolean[] command = {true};
    App app = app(ctx -> {
      SqliteTable<Doc> docs = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      if (command[0]) {
        docs.declareSqlCommand(ctx, new SqlCommand("audited",
            "INSERT INTO audit VALUES ('docs')", "DELETE FROM audit WHERE source = 'docs'"));
      }
    });
    app.update();
    exec("DROP TABLE docs");

    command[0] = false;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the teardown of SQL command audited of table docs failed")
        .hasMessageContaining("audit rows are kept");

    assertThat(q("SELECT table_name, name, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|audited|test");
    assertThat(q("SELECT source FROM audit")).containsExactly("docs");
    exec("DROP TRIGGER audit_kept");
    app.update();
    assertThat(schema()).containsExactly("table audit");
    assertThat(q("SELECT count(*) FROM audit")).containsExactly("0");
  }

  /**
   * The user drops their table by hand; the app then no longer declares it: its release lets go
   * of the command's teardown that fails on the missing table, forgets its record, drops the
   * full-text index left behind, and succeeds.
   */
  @Test
  void aUsersTableDroppedByHandIsReleasedWhenNoLongerDeclared() throws Exception {
    boolean[] table = {true};
    App app = seeding(table, new boolean[] {true});
    app.update();
    exec("DROP TABLE docs");

    table[0] = false;
    app.update();

    assertThat(schema()).isEmpty();
    assertThat(app.status().providers()).isEmpty();
  }
  /**
   * What an earlier version made on a user's table names no app: an index and a full-text index
   * without the comment, a command recorded without it. One full reprocess while the table is
   * declared adopts them for the app that declares them (made again naming it, recorded as its),
   * so that the table's release then removes them; the user's own index stays.
   */
  @Test
  void aFullReprocessAdoptsWhatAnEarlierVersionMadeOnAUsersTable() throws Exception {
    boolean[] table = {true};
    App app = app(table, new boolean[] {true});
    app.update();
    // As the version before apps were recorded left them.
    for (String name : List.of("docs__by_title", "docs_fts")) {
      String sql = q("SELECT sql FROM sqlite_master WHERE name = '" + name + "'").get(0);
      exec((name.endsWith("_fts") ? "DROP TABLE " : "DROP INDEX ") + name);
      exec(sql.replace(" /* cocoindex app: test */", ""));
    }
    exec("INSERT INTO docs_fts (docs_fts) VALUES ('rebuild')");
    exec("UPDATE cocoindex_sql_commands SET app = NULL");
    assertThat(q("SELECT count(*) FROM sqlite_master WHERE sql LIKE '%cocoindex app%'"))
        .containsExactly("0");

    app.update(UpdateOptions.fullReprocess());

    assertThat(q("SELECT name FROM sqlite_master WHERE sql LIKE '%/* cocoindex app: test */%'"
        + " ORDER BY name")).containsExactly("docs__by_title", "docs_fts");
    assertThat(q("SELECT table_name, name, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|test");
    assertThat(schema()).isEqualTo(WITH_THE_APPS);

    table[0] = false;
    app.update();
    assertThat(schema()).isEqualTo(THE_USERS);
  }

  /** An app declaring index {@code by_title} on the user's table, nothing else. */
  private App indexing() {
    return app(ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
        .declareIndex(ctx, IndexSpec.of("by_title", "title")));
  }

  /**
   * The app sets up with no tracking (its first run, or its state store lost: every state new,
   * as on a full reprocess), and the user has made by hand an index under the name the app's
   * takes, with another definition: nothing says it is the app's, so it is neither taken (made
   * again as the app's, then dropped with the app's release) nor kept as if it were. The run
   * fails naming the index, the table and what to do, the user's index stays as it was, and once
   * the user has dropped it the app makes its own.
   */
  @Test
  void aHandMadeIndexOfTheAppsNameWithAnotherDefinitionIsNotTaken() throws Exception {
    exec("CREATE INDEX docs__by_title ON docs (title, id)");
    App app = indexing();

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("index by_title of table docs cannot be created as docs__by_title:"
            + " an index of that name on the table names no app and has another definition");
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs__by_title'"))
        .containsExactly("CREATE INDEX docs__by_title ON docs (title, id)");

    exec("DROP INDEX docs__by_title");
    app.update();
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs__by_title'")).containsExactly(
        "CREATE INDEX \"docs__by_title\" /* cocoindex app: test */ ON \"docs\" (\"title\")");
  }

  /**
   * The same, with a hand-made index of the app's definition, written another way: it is the
   * app's index in all but the name of its maker, so it is taken (made again naming the app),
   * and the app's release drops it.
   */
  @Test
  void aHandMadeIndexOfTheAppsNameAndDefinitionIsTakenAndReleased() throws Exception {
    exec("create index Docs__By_Title on DOCS ( [Title] ) -- the user's copy");
    App app = indexing();

    app.update();
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs__by_title'")).containsExactly(
        "CREATE INDEX \"docs__by_title\" /* cocoindex app: test */ ON \"docs\" (\"title\")");
    app.dropState();
    assertThat(schema()).isEqualTo(THE_USERS);
  }

  /** An app declaring full-text index {@code docs_fts} over title on the user's table. */
  private App fullTextIndexing(String name) {
    return app(name, environment().build(), ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
        .declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title"))));
  }

  /**
   * A full-text index as an earlier version made it (naming no app) but over other columns,
   * found by an app setting up with no tracking: nothing says it is this app's, so it is not
   * dropped and made again as the app's; the run fails naming it, its table and what to do.
   */
  @Test
  void aFullTextIndexNamingNoAppWithOtherColumnsIsNotTaken() throws Exception {
    String earlier = "CREATE VIRTUAL TABLE \"docs_fts\" USING fts5(\"id\", content='docs',"
        + " content_rowid='rowid')";
    exec(earlier);

    assertThatThrownBy(fullTextIndexing("test")::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("full-text index docs_fts of table docs cannot be created: an FTS5"
            + " table of that name on the table names no app and has another definition ("
            + earlier + ") than the app's");
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'"))
        .containsExactly(earlier);
  }

  /**
   * Another app's full-text index of the name, on the user's table both write: an error naming
   * that app, and it stays as that app made it (it was dropped and made again as this app's).
   */
  @Test
  void anotherAppsFullTextIndexOfTheNameOnASharedTableIsNotTaken() throws Exception {
    fullTextIndexing("other").update();
    List<String> others = q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'");
    boolean[] declares = {true};
    App app = app(ctx -> {
      SqliteTable<Doc> docs = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      if (declares[0]) {
        docs.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", List.of("title")));
      }
    });

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("full-text index docs_fts of table docs cannot be created: app"
            + " 'other' made an index of that name on the table");
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'")).isEqualTo(others);

    // No longer declared, its failed creation is removed: the other app's index stays.
    declares[0] = false;
    app.update();
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'")).isEqualTo(others);
    assertThat(q("SELECT count(*) FROM sqlite_master WHERE name LIKE 'docs_fts_a_'"))
        .containsExactly("3");
  }

  /**
   * The app's state store is lost, and the app sets up again, every state new: its command,
   * whose setup is a plain {@code CREATE VIEW} (which fails over a view it did not make, so that
   * a user's view of the name is never taken), finds its own view, recorded as its own in the
   * database: that recorded teardown runs first, then the setup. A view of the name the user
   * made, recorded nowhere, fails the setup and stays.
   */
  @Test
  void aCommandRecordedAsTheAppsIsTornDownBeforeItsSetupWhenTheAppsTrackingIsLost()
      throws Exception {
    Consumer<Ctx> main = ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
        .declareSqlCommand(ctx, VIEW);
    app(main).update();

    app("test", environment().dbPath(dir.resolve("lost")).build(), main).update();

    assertThat(q("SELECT * FROM docs_titles")).containsExactly("u|the user's");
    assertThat(q("SELECT table_name, name, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|test");

    exec("DROP VIEW docs_titles");
    exec("DELETE FROM cocoindex_sql_commands");
    exec("CREATE VIEW docs_titles AS SELECT 'the user''s view' AS v");
    assertThatThrownBy(app("test", environment().dbPath(dir.resolve("lost again")).build(),
        main)::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("already exists");
    assertThat(q("SELECT * FROM docs_titles")).containsExactly("the user's view");
  }

  /**
   * The app's index, replaced by hand under its name with another definition (naming no app):
   * once the app no longer declares it, the user's index is not dropped, since nothing says it
   * is the app's (it names no app, and is not the definition the app's record made), and the
   * app forgets its own.
   */
  @Test
  void anIndexReplacedByHandUnderTheAppsNameIsNotDroppedWhenNoLongerDeclared() throws Exception {
    boolean[] declares = {true};
    App app = app(ctx -> {
      SqliteTable<Doc> docs = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      if (declares[0]) {
        docs.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      }
    });
    app.update();
    exec("DROP INDEX docs__by_title");
    exec("CREATE INDEX docs__by_title ON docs (title, id)");

    declares[0] = false;
    app.update();

    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs__by_title'"))
        .containsExactly("CREATE INDEX docs__by_title ON docs (title, id)");
    long statements = db().statementsExecuted();
    app.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  /**
   * As an earlier version left it (naming no app, its definition the app's record's), an index
   * no longer declared is the app's, and dropped.
   */
  @Test
  void anIndexAsAnEarlierVersionMadeItIsDroppedWhenNoLongerDeclared() throws Exception {
    boolean[] declares = {true};
    App app = app(ctx -> {
      SqliteTable<Doc> docs = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      if (declares[0]) {
        docs.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      }
    });
    app.update();
    exec("DROP INDEX docs__by_title");
    exec("CREATE INDEX \"docs__by_title\" ON \"docs\" (\"title\")");

    declares[0] = false;
    app.update();

    assertThat(schema()).isEqualTo(THE_USERS);
  }
  /** An app declaring full-text index {@code docs_fts} on the user's table over {@code columns}. */
  private App fullTextIndexingOver(List<String>[] columns) {
    return app(ctx -> {
      SqliteTable<Doc> docs = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      if (columns[0] != null) {
        docs.declareFullTextIndex(ctx, new FullTextIndex("docs_fts", columns[0]));
      }
    });
  }

  /** Replaces the app's full-text index docs_fts by the user's FTS5 table {@code sql}. */
  private void replaceFullTextIndexByHand(String sql) throws Exception {
    for (String suffix : List.of("_ai", "_ad", "_au")) {
      exec("DROP TRIGGER docs_fts" + suffix);
    }
    exec("DROP TABLE docs_fts");
    exec(sql);
  }

  /**
   * The app's full-text index, replaced by hand under its name with an FTS5 table over other
   * columns (in the form the connector writes, naming no app): once the app respecifies its
   * index, the user's table is neither dropped nor taken, since nothing says it is the app's
   * (it names no app, and is neither what the app's record made nor what it would make now).
   * The run fails naming it, its table and both definitions, and it stays as the user made it.
   */
  @Test
  void aFullTextIndexReplacedByHandIsNotDroppedWhenRespecified() throws Exception {
    @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array, as the helper takes
    List<String>[] columns = new List[] {List.of("title")};
    App app = fullTextIndexingOver(columns);
    app.update();
    String users = "CREATE VIRTUAL TABLE \"docs_fts\" USING fts5(\"id\", content='docs',"
        + " content_rowid='rowid')";
    replaceFullTextIndexByHand(users);

    columns[0] = List.of("title", "id");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("full-text index docs_fts of table docs cannot be created: an FTS5"
            + " table of that name on the table names no app and has another definition ("
            + users + ") than the app's (CREATE VIRTUAL TABLE \"docs_fts\" /* cocoindex app:"
            + " test */ USING fts5(\"title\", \"id\", content='docs', content_rowid='rowid'))");
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'"))
        .containsExactly(users);
    assertThat(q("SELECT name FROM sqlite_master WHERE type = 'trigger'")).isEmpty();
  }

  /**
   * The same, the index no longer declared: the user's FTS5 table stays, with a warning, as a
   * user's index under an index's name does, and the app forgets its own.
   */
  @Test
  void aFullTextIndexReplacedByHandIsNotDroppedWhenNoLongerDeclared() throws Exception {
    @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array, as the helper takes
    List<String>[] columns = new List[] {List.of("title")};
    App app = fullTextIndexingOver(columns);
    app.update();
    String users = "CREATE VIRTUAL TABLE \"docs_fts\" USING fts5(\"id\", content='docs',"
        + " content_rowid='rowid')";
    replaceFullTextIndexByHand(users);

    columns[0] = null;
    app.update();

    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'"))
        .containsExactly(users);
    long statements = db().statementsExecuted();
    app.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  /**
   * As an earlier version left it (naming no app, its definition the app's record's), a
   * full-text index respecified is the app's: dropped and made anew over the declared columns.
   */
  @Test
  void aFullTextIndexAsAnEarlierVersionMadeItIsRespecified() throws Exception {
    @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array, as the helper takes
    List<String>[] columns = new List[] {List.of("title")};
    App app = fullTextIndexingOver(columns);
    app.update();
    String earlier = q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'").get(0)
        .replace(" /* cocoindex app: test */", "");
    replaceFullTextIndexByHand(earlier);

    columns[0] = List.of("title", "id");
    app.update();

    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'")).containsExactly(
        "CREATE VIRTUAL TABLE \"docs_fts\" /* cocoindex app: test */ USING fts5(\"title\","
            + " \"id\", content='docs', content_rowid='rowid')");
    // Rebuilt from the user's row, its id indexed now.
    assertThat(q("SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'u'")).containsExactly("1");
  }
}
