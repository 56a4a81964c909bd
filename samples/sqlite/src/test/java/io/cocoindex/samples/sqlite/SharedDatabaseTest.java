package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Several apps writing one database: each table's SQL names the app that made it ({@link
 * MadeBy}), so that no app takes, changes or drops a table another app made. (Full-text indexes
 * likewise: {@link FullTextIndexTest}.)
 */
class SharedDatabaseTest extends TargetDatabaseTest {
  record Doc(String id, String title) {}

  record DocWithViews(String id, String title, long views) {}

  /** An app's body: table docs, managed or written into as a user's, with {@code rows}. */
  private static Consumer<Ctx> docs(TableSchema<Doc> schema, Map<String, String> rows) {
    return ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, DB).mountTable(ctx, schema);
      rows.forEach((id, title) -> t.declareRow(ctx, new Doc(id, title)));
    };
  }

  @Test
  void aTableAnotherAppMadeIsAClearErrorAndKeepsItsRows() throws Exception {
    Environment env = environment().build();
    App first = app("first", env, docs(TableSchema.of("docs", Doc.class, "id"), Map.of("a", "A")));
    App second =
        app("second", env, docs(TableSchema.of("docs", Doc.class, "id"), Map.of("b", "B")));
    first.update();
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs'")).containsExactly(
        "CREATE TABLE \"docs\" /* cocoindex app: first */ (\"id\" TEXT, \"title\" TEXT,"
            + " PRIMARY KEY (\"id\"))");

    assertThatThrownBy(second::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("table docs cannot be managed by app 'second': app 'first' made"
            + " it, and two apps cannot both create, change and drop one table");
    assertThat(q("SELECT id, title FROM docs")).containsExactly("a|A");

    second.dropState(); // nothing of the second app's was written
    assertThat(q("SELECT id, title FROM docs")).containsExactly("a|A");
    long statements = db().statementsExecuted();
    first.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  @Test
  void anAppWritesItsRowsIntoAnotherAppsTableDeclaredAsAUsersTable() throws Exception {
    Environment env = environment().build();
    App first = app("first", env, docs(TableSchema.of("docs", Doc.class, "id"), Map.of("a", "A")));
    App second = app("second", env,
        docs(TableSchema.userManaged("docs", Doc.class, "id"), Map.of("b", "B")));
    first.update();
    second.update();
    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|A", "b|B");

    // Dropped, a user's table is abandoned, its rows with it (what the table's own app or its
    // user makes of them): nothing is deleted, and nothing of the second app's is tracked.
    second.dropState();
    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|A", "b|B");
    assertThat(second.status().providers()).isEmpty();
    // Its record as a guest of the table ({@link TableGuests}) goes too; the record table stays.
    assertThat(schema()).containsExactly("table cocoindex_table_guests", "table docs");
    assertThat(q("SELECT count(*) FROM cocoindex_table_guests")).containsExactly("0");
  }

  @Test
  void theTableNamesItsAppThroughAColumnAddedAndARebuild() throws Exception {
    boolean[] views = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (views[0]) {
        sqlite.mountTable(ctx, TableSchema.of("docs", DocWithViews.class, "id"))
            .declareRow(ctx, new DocWithViews("a", "A", 3));
      } else {
        sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("a", "A"));
      }
    });
    app.update();
    views[0] = true; // a column added
    app.update();
    views[0] = false; // and dropped: a rebuild
    app.update();
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs'")).containsExactly(
        "CREATE TABLE \"docs\" /* cocoindex app: test */ (\"id\" TEXT, \"title\" TEXT,"
            + " PRIMARY KEY (\"id\"))");
    assertThat(q("SELECT id, title FROM docs")).containsExactly("a|A");
  }

  /** A table whose SQL names no app (made by hand, or before apps were recorded) is taken. */
  @Test
  void aTableMadeBeforeAppsWereRecordedIsTakenOverAsBefore() throws Exception {
    exec("CREATE TABLE docs (id TEXT, title TEXT, PRIMARY KEY (id))");
    exec("INSERT INTO docs VALUES ('z', 'kept')");
    App app = app(docs(TableSchema.of("docs", Doc.class, "id"), Map.of("a", "A")));
    app.update();
    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|A", "z|kept");
  }

  /**
   * An app that took over a table made by hand (before tables named their app) no longer
   * declares it, after another app made it anew: the table, now the other app's, is not dropped.
   */
  @Test
  void aTableAnotherAppMadeIsNotDroppedByAnAppThatNoLongerDeclaresIt() throws Exception {
    exec("CREATE TABLE docs (id TEXT, title TEXT, PRIMARY KEY (id))");
    Environment env = environment().build();
    Map<String, String> olderRows = new TreeMap<>(Map.of("a", "A"));
    boolean[] declared = {true};
    App older = app("older", env, ctx -> {
      if (declared[0]) {
        docs(TableSchema.of("docs", Doc.class, "id"), olderRows).accept(ctx);
      } else {
        Sqlite.register(ctx, DB);
      }
    });
    older.update();
    exec("DROP TABLE docs");
    App newer = app("newer", env, docs(TableSchema.of("docs", Doc.class, "id"), Map.of("n", "N")));
    newer.update();

    declared[0] = false;
    older.update();
    assertThat(q("SELECT id, title FROM docs")).containsExactly("n|N");
  }

  /**
   * A guest app writing rows into the owner's table (as a user's table) and declaring an index
   * of the owner's index's name is refused, naming the owner; once it no longer declares it,
   * the owner's index stays.
   */
  @Test
  void aGuestAppCannotTakeOrDropTheOwnersIndexOfTheSameName() throws Exception {
    App owner = app("owner", environment().build(), ctx -> {
      SqliteTable<Doc> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "A"));
      t.declareIndex(ctx, IndexSpec.of("by_title", "title"));
    });
    owner.update();
    boolean[] withIndex = {true};
    App guest = app("guest", environment().build(), ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("g", "G"));
      if (withIndex[0]) {
        t.declareIndex(ctx, IndexSpec.of("by_title", "title"));
      }
    });

    assertThatThrownBy(guest::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("index by_title of table docs cannot be created as docs__by_title:"
            + " app 'owner' made an index of that name on the table");
    withIndex[0] = false;
    guest.update();

    assertThat(q("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
        .containsExactly("docs__by_title");
    assertThat(q("SELECT id FROM docs ORDER BY id")).containsExactly("a", "g");
  }

  /** The owner's view over docs, and a guest's view of the same command name. */
  private static final SqlCommand OWNERS_VIEW = new SqlCommand("titles",
      "CREATE VIEW docs_titles AS SELECT id, title FROM docs", "DROP VIEW IF EXISTS docs_titles");

  private static final SqlCommand GUESTS_VIEW = new SqlCommand("titles",
      "CREATE VIEW guest_titles AS SELECT title FROM docs", "DROP VIEW IF EXISTS guest_titles");

  /**
   * A guest app declaring, on the owner's table (as a user's table), a SQL command of the name of
   * one the owner declares there is refused, naming the command, the table and both apps, before
   * anything of its runs; once it no longer declares it, the owner's command stays as it was.
   */
  @Test
  void aGuestAppCannotSetUpOrTearDownTheOwnersCommandOfTheSameName() throws Exception {
    App owner = app("owner", environment().build(), ctx -> {
      SqliteTable<Doc> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "A"));
      t.declareSqlCommand(ctx, OWNERS_VIEW);
    });
    owner.update();
    boolean[] withCommand = {true};
    App guest = app("guest", environment().build(), ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("g", "G"));
      if (withCommand[0]) {
        t.declareSqlCommand(ctx, GUESTS_VIEW);
      }
    });

    assertThatThrownBy(guest::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("SQL command titles of table docs cannot be set up by app 'guest':"
            + " app 'owner' set up a command of that name on the table (recorded in"
            + " cocoindex_sql_commands), and two apps cannot both set up and tear down one"
            + " command: declare another command name");
    // The guest's table action applied, recording it as a guest of the owner's table.
    assertThat(schema()).containsExactly("table cocoindex_sql_commands",
        "table cocoindex_table_guests", "table docs", "view docs_titles");
    assertThat(q("SELECT table_name, name, teardown, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|DROP VIEW IF EXISTS docs_titles|owner");

    withCommand[0] = false;
    guest.update();
    assertThat(schema()).containsExactly("table cocoindex_sql_commands",
        "table cocoindex_table_guests", "table docs", "view docs_titles");
    assertThat(q("SELECT table_name, name, teardown, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|DROP VIEW IF EXISTS docs_titles|owner");
    assertThat(q("SELECT id, title FROM docs_titles ORDER BY id")).containsExactly("a|A", "g|G");
    long statements = db().statementsExecuted();
    owner.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  /**
   * The same refusal the other way round: the guest set its command up first, and the owner's of
   * that name is refused; the guest's stays.
   */
  @Test
  void anOwnerAppCannotSetUpOverAGuestsCommandOfTheSameName() throws Exception {
    exec("CREATE TABLE docs (id TEXT PRIMARY KEY, title TEXT)");
    App guest = app("guest", environment().build(), ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
        .declareSqlCommand(ctx, GUESTS_VIEW));
    guest.update();
    App owner = app("owner", environment().build(), ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
        .declareSqlCommand(ctx, OWNERS_VIEW));

    assertThatThrownBy(owner::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("SQL command titles of table docs cannot be set up by app 'owner':"
            + " app 'guest' set up a command of that name on the table");
    assertThat(schema()).containsExactly(
        "table cocoindex_sql_commands", "table docs", "view guest_titles");
    assertThat(q("SELECT table_name, name, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|guest");
  }

  /**
   * A command recorded before commands recorded their app (a records table without the column)
   * is the app's that declares it, as an index naming no app is: set up again over, recorded
   * with the app's name, and torn down when no longer declared.
   */
  @Test
  void aCommandRecordedBeforeAppsWereIsTakenByTheAppDeclaringIt() throws Exception {
    exec("CREATE TABLE docs (id TEXT, title TEXT, PRIMARY KEY (id))");
    exec("CREATE VIEW docs_titles AS SELECT id, title FROM docs");
    exec("CREATE TABLE cocoindex_sql_commands (table_name TEXT NOT NULL, name TEXT NOT NULL,"
        + " teardown TEXT NOT NULL, PRIMARY KEY (table_name, name))");
    exec("INSERT INTO cocoindex_sql_commands VALUES ('docs', 'titles',"
        + " 'DROP VIEW IF EXISTS docs_titles')");
    boolean[] withCommand = {true};
    App app = app(ctx -> {
      SqliteTable<Doc> t =
          Sqlite.register(ctx, DB).mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("a", "A"));
      if (withCommand[0]) {
        t.declareSqlCommand(ctx, OWNERS_VIEW);
      }
    });
    app.update();
    assertThat(schema()).containsExactly(
        "table cocoindex_sql_commands", "table docs", "view docs_titles");
    assertThat(q("SELECT table_name, name, teardown, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|DROP VIEW IF EXISTS docs_titles|test");

    withCommand[0] = false;
    app.update();
    assertThat(schema()).containsExactly("table docs");
  }
  /**
   * The owner rebuilds its table (a dropped column), then recreates it (a new primary key),
   * while a guest app (writing into it as a user's table) has a view, an index and a full-text
   * index over it: the guest's command is torn down before each change and set up again after
   * it, recorded as the guest's, and its indexes are made again, naming the guest, the full-text
   * one rebuilt from the table's rows; the guest's next run changes nothing. (They were lost:
   * the guest's records, unchanged, planned nothing.)
   */
  @Test
  void theOwnersRebuildAndRecreateSetAGuestsCommandAndIndexesUpAgain() throws Exception {
    int[] version = {0};
    App owner = app("owner", environment().build(), ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (version[0] == 0) {
        sqlite.mountTable(ctx, TableSchema.of("docs", DocWithViews.class, "id"))
            .declareRow(ctx, new DocWithViews("a", "A", 3));
      } else {
        sqlite.mountTable(ctx, version[0] == 1 ? TableSchema.of("docs", Doc.class, "id")
                : TableSchema.of("docs", Doc.class, "id", "title"))
            .declareRow(ctx, new Doc("a", "A"));
      }
    });
    owner.update();
    App guest = app("guest", environment().build(), ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("g", "G"));
      t.declareSqlCommand(ctx, GUESTS_VIEW);
      t.declareIndex(ctx, IndexSpec.of("guest_by_title", "title"));
      t.declareFullTextIndex(ctx, new FullTextIndex("guest_fts", List.of("title")));
    });
    guest.update();
    List<String> withTheGuests = List.of("index docs__guest_by_title",
        "table cocoindex_sql_commands", "table cocoindex_table_guests", "table docs",
        "table guest_fts", "table guest_fts_config",
        "table guest_fts_data", "table guest_fts_docsize", "table guest_fts_idx",
        "trigger guest_fts_ad", "trigger guest_fts_ai", "trigger guest_fts_au",
        "view guest_titles");
    assertThat(schema()).isEqualTo(withTheGuests);

    version[0] = 1; // column views dropped: a rebuild
    owner.update();
    assertThat(schema()).isEqualTo(withTheGuests);
    assertThat(q("SELECT table_name, name, teardown, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|DROP VIEW IF EXISTS guest_titles|guest");
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs__guest_by_title'"))
        .containsExactly("CREATE INDEX \"docs__guest_by_title\" /* cocoindex app: guest */ ON"
            + " \"docs\" (\"title\")");
    assertThat(q("SELECT title FROM guest_titles ORDER BY 1")).containsExactly("A", "G");
    assertThat(q("SELECT title FROM guest_fts WHERE guest_fts MATCH 'g'")).containsExactly("G");
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'guest_fts'")).singleElement()
        .asString().contains("/* cocoindex app: guest */");

    version[0] = 2; // primary key (id, title): recreated, with the owner's row only
    owner.update();
    assertThat(schema()).isEqualTo(withTheGuests);
    assertThat(q("SELECT table_name, name, teardown, app FROM cocoindex_sql_commands"))
        .containsExactly("docs|titles|DROP VIEW IF EXISTS guest_titles|guest");
    assertThat(q("SELECT sql FROM sqlite_master WHERE name = 'docs__guest_by_title'"))
        .containsExactly("CREATE INDEX \"docs__guest_by_title\" /* cocoindex app: guest */ ON"
            + " \"docs\" (\"title\")");
    assertThat(q("SELECT title FROM guest_titles ORDER BY 1")).containsExactly("A");
    assertThat(q("SELECT title FROM guest_fts WHERE guest_fts MATCH 'a'")).containsExactly("A");
    exec("INSERT INTO docs VALUES ('h', 'H')"); // its triggers keep it in step
    assertThat(q("SELECT title FROM guest_fts WHERE guest_fts MATCH 'h'")).containsExactly("H");
    exec("DELETE FROM docs WHERE id = 'h'");

    // Its row, lost with the recreate, is written again ({@link TableGuests}); here the guest's
    // primary key (id) no longer fits the table's (id, title), and the write says so.
    assertThatThrownBy(guest::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("ON CONFLICT clause does not match any PRIMARY KEY");
    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|A");
  }

  record Numbered(double id, String title) {}

  /**
   * A guest app writes rows into the owner's table as its user's table, one from a memoized
   * component; the owner changes the table's primary key (its type, to REAL: an INTEGER one would
   * be the rowid, refusing the guest's text keys), which drops and recreates
   * the table, the guest's rows with it, while the guest's records of them are unchanged. The
   * guest's next run writes them again, the memo not holding (the recreate is counted for the
   * table's guests, whose rows' handler finds the count), and the run after that sends nothing.
   * (It wrote nothing: the guest's rows were gone until a full reprocess.)
   */
  @Test
  void aGuestsRowsLostToTheOwnersRecreateAreWrittenAgainInTheGuestsNextRun() throws Exception {
    Environment env = environment().build();
    boolean[] recreated = {false};
    App owner = app("owner", env, ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (recreated[0]) {
        sqlite.mountTable(ctx, TableSchema.of("docs", Numbered.class, "id"))
            .declareRow(ctx, new Numbered(1, "owner's"));
      } else {
        sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("1", "owner's"));
      }
    });
    App guest = app("guest", env, ctx -> {
      SqliteTable<Doc> t = Sqlite.register(ctx, DB)
          .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
      t.declareRow(ctx, new Doc("b", "guest's"));
      ctx.mountMemo("memoized", Fingerprint.ofString("source"),
          c -> t.declareRow(c, new Doc("c", "guest's memoized")));
    });
    owner.update();
    guest.update();
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("1|owner's", "b|guest's", "c|guest's memoized");

    recreated[0] = true;
    owner.update();
    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly("1.0|owner's");

    guest.update();
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("1.0|owner's", "b|guest's", "c|guest's memoized");
    assertThat(q("SELECT table_name, app, lost FROM cocoindex_table_guests"))
        .containsExactly("docs|guest|0");
    long statements = db().statementsExecuted();
    guest.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  /**
   * A guest whose rows are tracked but that is not recorded as a guest of the table (its rows
   * were written by a version that kept no record of guests; here the record is deleted to
   * stand for that): the owner's recreate cannot count for it, so the guest, finding itself
   * unrecorded, writes its rows again once, and registers; the run after that sends nothing.
   * (Its rows lost to the recreate stayed lost until a full reprocess.)
   */
  @Test
  void aGuestNotYetRecordedWritesItsRowsAgainOnceSoThatNoneLostBeforeStaysLost()
      throws Exception {
    Environment env = environment().build();
    boolean[] recreated = {false};
    App owner = app("owner", env, ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (recreated[0]) {
        sqlite.mountTable(ctx, TableSchema.of("docs", Numbered.class, "id"))
            .declareRow(ctx, new Numbered(1, "owner's"));
      } else {
        sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("1", "owner's"));
      }
    });
    App guest = app("guest", env, ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
        .declareRow(ctx, new Doc("b", "guest's")));
    owner.update();
    guest.update();
    exec("DELETE FROM cocoindex_table_guests");

    recreated[0] = true;
    owner.update();
    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly("1.0|owner's");

    guest.update();
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("1.0|owner's", "b|guest's");
    assertThat(q("SELECT table_name, app, lost FROM cocoindex_table_guests"))
        .containsExactly("docs|guest|0");
    long statements = db().statementsExecuted();
    guest.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }

  /**
   * The owner drops a column (no longer declared: the table is rebuilt without it) and adds it
   * back in a later run: the guest's values in it went with the rebuild, while the guest's
   * records say its row holds them. The rebuild is counted for the table's guests as a recreate
   * is, and the guest's next run writes its row again. (It wrote nothing: the guest's row kept a
   * null there until a full reprocess.)
   */
  @Test
  void aGuestsValuesInAColumnTheOwnerDropsAndAddsAgainAreWrittenAgain() throws Exception {
    Environment env = environment().build();
    boolean[] dropped = {false};
    App owner = app("owner", env, ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (dropped[0]) {
        sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("a", "owner's"));
      } else {
        sqlite.mountTable(ctx, TableSchema.of("docs", DocWithViews.class, "id"))
            .declareRow(ctx, new DocWithViews("a", "owner's", 1));
      }
    });
    App guest = app("guest", env, ctx -> Sqlite.register(ctx, DB)
        .mountTable(ctx, TableSchema.userManaged("docs", DocWithViews.class, "id"))
        .declareRow(ctx, new DocWithViews("b", "guest's", 5)));
    owner.update();
    guest.update();

    dropped[0] = true;
    owner.update();
    dropped[0] = false;
    owner.update();
    assertThat(q("SELECT id, title, views FROM docs ORDER BY id"))
        .containsExactly("a|owner's|1", "b|guest's|null");

    guest.update();
    assertThat(q("SELECT id, title, views FROM docs ORDER BY id"))
        .containsExactly("a|owner's|1", "b|guest's|5");
    assertThat(q("SELECT table_name, app, lost FROM cocoindex_table_guests"))
        .containsExactly("docs|guest|0");
  }

  /**
   * A guest (in another process, so not ordered by this one's lock) looks at the owner's table
   * while the table's last other guest, no longer declaring it, forgets its record between the
   * look's two reads: that forget dropped the record table once empty, and the look failed with
   * SQLite's {@code no such table}, failing the guest's run. The record table stays now, empty,
   * and the look finds the owner and no record of the guest.
   */
  @Test
  void aGuestsLookWhileTheLastOtherGuestForgetsItsRecordStillReadsIt() throws Exception {
    Environment env = environment().build();
    App owner = app("owner", env, docs(TableSchema.of("docs", Doc.class, "id"), Map.of("a", "A")));
    boolean[] declares = {true};
    App leaving = app("leaving", env, ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (declares[0]) {
        sqlite.mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("l", "leaving's"));
      }
    });
    owner.update();
    leaving.update();

    declares[0] = false;
    TableGuests.Look look;
    try (Connection plain =
        DriverManager.getConnection("jdbc:sqlite:" + dbFile().toAbsolutePath())) {
      // The look's connection, on which the leaving guest's run goes between the two reads.
      Connection racing = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {Connection.class}, (proxy, method, args) -> {
            if (method.getName().equals("prepareStatement")
                && ((String) args[0]).startsWith("SELECT lost")) {
              leaving.update();
            }
            try {
              return method.invoke(plain, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
      look = TableGuests.look(racing, "docs", "arriving");
    }

    assertThat(look).isEqualTo(new TableGuests.Look("owner", false, 0));
    assertThat(q("SELECT count(*) FROM cocoindex_table_guests")).containsExactly("0");
    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|A", "l|leaving's");
  }

  /**
   * The owner's table is dropped by hand, the guest's row with it; the owner's next run creates
   * it again (found missing), and the guest's next run writes its row again.
   */
  @Test
  void aGuestsRowsLostWithTheOwnersTableDroppedByHandAreWrittenAgainOnceItIsBack()
      throws Exception {
    Environment env = environment().build();
    App owner = app("owner", env, docs(TableSchema.of("docs", Doc.class, "id"), Map.of("a", "A")));
    App guest = app("guest", env,
        docs(TableSchema.userManaged("docs", Doc.class, "id"), Map.of("b", "B")));
    owner.update();
    guest.update();
    exec("DROP TABLE docs");

    owner.update();
    guest.update();

    assertThat(q("SELECT id, title FROM docs ORDER BY id")).containsExactly("a|A", "b|B");
  }

  /**
   * Two guests of the owner's table; one stops declaring it (its record as a guest goes, its
   * rows stay, a user's table being abandoned as it is); the owner recreates the table. The
   * other guest's rows come back in its next run, its count taken back, and the guest that left
   * is neither counted nor told.
   */
  @Test
  void withTwoGuestsOneThatStopsDeclaringTheTableIsForgottenAndTheOtherStillGetsItsRowsBack()
      throws Exception {
    Environment env = environment().build();
    boolean[] recreated = {false};
    App owner = app("owner", env, ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (recreated[0]) {
        sqlite.mountTable(ctx, TableSchema.of("docs", Numbered.class, "id"))
            .declareRow(ctx, new Numbered(1, "owner's"));
      } else {
        sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("1", "owner's"));
      }
    });
    App first = app("first", env,
        docs(TableSchema.userManaged("docs", Doc.class, "id"), Map.of("f", "first's")));
    boolean[] secondDeclares = {true};
    App second = app("second", env, ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (secondDeclares[0]) {
        sqlite.mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"))
            .declareRow(ctx, new Doc("s", "second's"));
      }
    });
    owner.update();
    first.update();
    second.update();
    assertThat(q("SELECT table_name, app, lost FROM cocoindex_table_guests ORDER BY app"))
        .containsExactly("docs|first|0", "docs|second|0");

    secondDeclares[0] = false;
    second.update();
    assertThat(q("SELECT table_name, app, lost FROM cocoindex_table_guests ORDER BY app"))
        .containsExactly("docs|first|0");
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("1|owner's", "f|first's", "s|second's");

    recreated[0] = true;
    owner.update();
    assertThat(q("SELECT table_name, app, lost FROM cocoindex_table_guests ORDER BY app"))
        .containsExactly("docs|first|1");
    first.update();
    second.update();
    assertThat(q("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("1.0|owner's", "f|first's");
    assertThat(q("SELECT table_name, app, lost FROM cocoindex_table_guests ORDER BY app"))
        .containsExactly("docs|first|0");
    long statements = db().statementsExecuted();
    first.update();
    second.update();
    owner.update();
    assertThat(db().statementsExecuted()).isEqualTo(statements);
  }
}
