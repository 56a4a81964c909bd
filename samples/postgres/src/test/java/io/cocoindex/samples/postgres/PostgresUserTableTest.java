package io.cocoindex.samples.postgres;

import static io.cocoindex.samples.postgres.PostgresServer.execute;
import static io.cocoindex.samples.postgres.PostgresServer.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateOptions;
import io.cocoindex.testkit.CocoIndexExtension;
import io.cocoindex.testkit.CrashPoint;
import io.cocoindex.testkit.ThreadPerTask;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What apps make on user-managed tables, and who owns it: the indexes and SQL commands an app
 * made on a user's table are the app's, removed when it no longer declares them or the table,
 * while the table, its rows, its comment and what the user or another app made stay; and a SQL
 * command of a name another app set up on a table is an error naming both apps, never torn down.
 * Checked through the server's catalogs.
 */
class PostgresUserTableTest {
  static final ContextKey<DataSource> DB = ContextKey.of("main_db", DataSource.class);
  static final String TABLE = "cocoindex.io/postgres/table";

  record Doc(long id, String title, int views) {}

  static final TableSchema<Doc> DOCS = TableSchema.of(Doc.class).primaryKey("id").build();

  @RegisterExtension
  final CocoIndexExtension coco =
      CocoIndexExtension.builder().provide(DB, PostgresServer.DATA_SOURCE).build();

  String schema;

  @BeforeEach
  void usersTable(TestInfo info) {
    schema = PostgresServer.freshSchema(info);
    execute("CREATE SCHEMA \"" + schema + "\"",
        "CREATE TABLE \"" + schema + "\".docs (id bigint PRIMARY KEY, title text, views integer)",
        "CREATE INDEX docs_by_user ON \"" + schema + "\".docs (views)",
        "COMMENT ON TABLE \"" + schema + "\".docs IS 'the user''s'",
        "INSERT INTO \"" + schema + "\".docs VALUES (9, 'the user''s', 0)");
  }

  @AfterEach
  void dropSchema() {
    if (schema != null) { // null: no server, the test was skipped
      execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    }
  }

  /** A command making view {@code name} over docs. */
  SqlCommand view(String command, String name) {
    return new SqlCommand(command, "CREATE OR REPLACE VIEW \"" + schema + "\"." + name
        + " AS SELECT id, title FROM \"" + schema + "\".docs",
        "DROP VIEW IF EXISTS \"" + schema + "\"." + name);
  }

  /**
   * App {@code name} writing row {@code id} into the user's docs, with index {@code by_<app>} and
   * a view {@code <app>_titles} of command {@code titles}, while {@code table[0]} and
   * {@code attachments[0]} say so.
   */
  App app(String name, long id, boolean[] table, boolean[] attachments) {
    return coco.app(name, ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (table[0]) {
        TableTarget t = tables.mountTable(ctx, DOCS.userTable(DB, schema, "docs"));
        t.declareRow(ctx, DOCS.row(new Doc(id, name + "'s", 1)));
        if (attachments[0]) {
          t.declareIndex(ctx, IndexSpec.btree("by_" + name, "title"));
          t.declareSqlCommand(ctx, view("titles_" + name, name + "_titles"));
        }
      }
    });
  }

  /** Every relation of the schema, as "kind name", sorted. */
  List<String> relations() {
    return lines("SELECT c.relkind::text || ' ' || c.relname FROM pg_class c JOIN pg_namespace n"
        + " ON n.oid = c.relnamespace WHERE n.nspname = '" + schema + "' ORDER BY 1");
  }

  List<String> rows() {
    return lines("SELECT * FROM \"" + schema + "\".docs ORDER BY 1");
  }

  String comment(String relation) {
    return lines("SELECT obj_description('\"" + schema + "\".\"" + relation + "\"'::regclass,"
        + " 'pg_class')").get(0);
  }

  /** The user's schema as the user made it. */
  static final List<String> THE_USERS =
      List.of("i docs_by_user", "i docs_pkey", "r docs");

  @Test
  void aUsersTableNoLongerDeclaredLosesWhatTheAppMadeOnItAndKeepsTheRest() {
    boolean[] table = {true};
    App app = app("indexer", 1, table, new boolean[] {true});
    coco.update(app);
    assertThat(relations()).containsExactly("i cocoindex_sql_commands_pkey",
        "i docs__by_indexer", "i docs_by_user", "i docs_pkey", "r cocoindex_sql_commands",
        "r docs", "v indexer_titles");
    assertThat(comment("docs__by_indexer")).isEqualTo("{\"cocoindex_app\": \"indexer\"}");
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("docs|titles_indexer|indexer");

    table[0] = false;
    assertThat(coco.update(app))
        .containsExactly(TABLE + " delete [\"main_db\", \"" + schema + "\", \"docs\"]");

    assertThat(relations()).isEqualTo(THE_USERS);
    assertThat(comment("docs")).isEqualTo("the user's");
    // Rows are abandoned with the table: the app's row stays, as the user's does.
    assertThat(rows()).containsExactly("1|indexer's|1", "9|the user's|0");
    assertThat(coco.update(app)).isEmpty();
  }

  @Test
  void attachmentsNoLongerDeclaredOnAUsersTableAreRemoved() {
    boolean[] attachments = {true};
    App app = app("indexer", 1, new boolean[] {true}, attachments);
    coco.update(app);

    attachments[0] = false;
    coco.update(app);

    assertThat(relations()).isEqualTo(THE_USERS);
    assertThat(rows()).containsExactly("1|indexer's|1", "9|the user's|0");
  }

  @Test
  void droppingTheAppsStateRemovesWhatItMadeOnAUsersTable() {
    App app = app("indexer", 1, new boolean[] {true}, new boolean[] {true});
    coco.update(app);

    app.dropState();

    assertThat(relations()).isEqualTo(THE_USERS);
    assertThat(comment("docs")).isEqualTo("the user's");
    assertThat(rows()).containsExactly("1|indexer's|1", "9|the user's|0");
  }

  /**
   * Two apps write into one user's table, each with its own index and view: the one that no
   * longer declares the table removes its own, and the other's stay.
   */
  @Test
  void anAppNoLongerDeclaringASharedUsersTableRemovesOnlyWhatItMade() {
    boolean[] secondDeclares = {true};
    App first = app("first", 1, new boolean[] {true}, new boolean[] {true});
    App second = app("second", 2, secondDeclares, new boolean[] {true});
    coco.update(first);
    coco.update(second);
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands ORDER BY name"))
        .containsExactly("docs|titles_first|first", "docs|titles_second|second");

    secondDeclares[0] = false;
    coco.update(second);

    assertThat(relations()).containsExactly("i cocoindex_sql_commands_pkey",
        "i docs__by_first", "i docs_by_user", "i docs_pkey", "r cocoindex_sql_commands",
        "r docs", "v first_titles");
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("docs|titles_first|first");
    assertThat(rows()).containsExactly("1|first's|1", "2|second's|1", "9|the user's|0");
    assertThat(coco.update(first))
        .containsExactly(TABLE + " update [\"main_db\", \"" + schema + "\", \"docs\"]");
  }

  /**
   * A guest app declaring, on the owner's table (as a user's table), a SQL command of the name
   * of the owner's is refused, naming the command, the table and both apps, before any of its SQL
   * runs; once it no longer declares it, the owner's stays as it was.
   */
  @Test
  void aGuestAppCannotSetUpOrTearDownTheOwnersCommandOfTheSameName() {
    App owner = coco.app("owner", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.table(DB, schema, "owned"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1)));
      t.declareSqlCommand(ctx, new SqlCommand("titles", "CREATE OR REPLACE VIEW \"" + schema
          + "\".owner_titles AS SELECT title FROM \"" + schema + "\".owned",
          "DROP VIEW IF EXISTS \"" + schema + "\".owner_titles"));
    });
    coco.update(owner);
    boolean[] withCommand = {true};
    App guest = coco.app("guest", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "owned"));
      t.declareRow(ctx, DOCS.row(new Doc(2, "guest's", 2)));
      if (withCommand[0]) {
        t.declareSqlCommand(ctx, new SqlCommand("titles", "CREATE VIEW \"" + schema
            + "\".guest_titles AS SELECT id FROM \"" + schema + "\".owned",
            "DROP VIEW IF EXISTS \"" + schema + "\".guest_titles"));
      }
    });

    assertThatThrownBy(guest::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("SQL command titles of table " + schema + ".owned cannot be set up"
            + " by app 'guest': app 'owner' set up a command of that name on the table, and two"
            + " apps cannot both set up and tear down one command: declare another command name");
    assertThat(lines("SELECT table_name FROM information_schema.views WHERE table_schema = '"
        + schema + "'")).containsExactly("owner_titles");

    withCommand[0] = false;
    guest.update();
    assertThat(lines("SELECT table_name FROM information_schema.views WHERE table_schema = '"
        + schema + "'")).containsExactly("owner_titles");
    assertThat(lines("SELECT title FROM \"" + schema + "\".owner_titles ORDER BY 1"))
        .containsExactly("guest's", "owner's");
    assertThat(lines("SELECT obj_description('\"" + schema + "\".owned'::regclass, 'pg_class')"
        + "::jsonb -> 'cocoindex_sql_commands' -> 'titles' ->> 'app'")).containsExactly("owner");
    assertThat(coco.update(owner)).containsExactly(
        TABLE + " update [\"main_db\", \"" + schema + "\", \"owned\"]");
  }

  /** The same refusal the other way round: the guest was first, the owner's is refused. */
  @Test
  void anAppCannotSetUpOverAnotherAppsCommandOnAUsersTable() {
    App first = coco.app("first", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "docs"))
        .declareSqlCommand(ctx, view("titles", "first_titles")));
    App second = coco.app("second", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "docs"))
        .declareSqlCommand(ctx, view("titles", "second_titles")));
    coco.update(first);

    assertThatThrownBy(second::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("SQL command titles of table " + schema + ".docs cannot be set up"
            + " by app 'second': app 'first' set up a command of that name on the table");
    assertThat(relations()).containsExactly("i cocoindex_sql_commands_pkey", "i docs_by_user",
        "i docs_pkey", "r cocoindex_sql_commands", "r docs", "v first_titles");
  }

  /**
   * The owner drops its table, over which a guest app (writing into it as a user's table) set up
   * a view: the guest's command is torn down first, as the owner's are, since the view would
   * block {@code DROP TABLE}, and nothing made over the table outlives it.
   */
  @Test
  void theOwnersDropTearsDownAGuestsCommandOverItsTable() {
    boolean[] ownerDeclares = {true};
    App owner = coco.app("owner", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (ownerDeclares[0]) {
        tables.mountTable(ctx, DOCS.table(DB, schema, "owned"))
            .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1)));
      }
    });
    coco.update(owner);
    App guest = coco.app("guest", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "owned"));
      t.declareRow(ctx, DOCS.row(new Doc(2, "guest's", 2)));
      t.declareSqlCommand(ctx, new SqlCommand("titles", "CREATE OR REPLACE VIEW \"" + schema
          + "\".guest_titles AS SELECT title FROM \"" + schema + "\".owned",
          "DROP VIEW IF EXISTS \"" + schema + "\".guest_titles"));
    });
    coco.update(guest);
    assertThat(relations()).containsExactly("i cocoindex_sql_commands_pkey",
        "i cocoindex_table_guests_pkey", "i docs_by_user", "i docs_pkey", "i owned_pkey",
        "r cocoindex_sql_commands", "r cocoindex_table_guests", "r docs", "r owned",
        "v guest_titles");

    ownerDeclares[0] = false;
    coco.update(owner);

    // The guest's record that it writes into the table stays until the guest releases it.
    assertThat(relations()).containsExactly("i cocoindex_table_guests_pkey", "i docs_by_user",
        "i docs_pkey", "r cocoindex_table_guests", "r docs");
    assertThat(lines("SELECT * FROM \"" + schema + "\".cocoindex_table_guests"))
        .containsExactly("owned|guest|0");
  }

  record Titled(long id, String title) {}

  /**
   * The owner drops a column of its table, then changes its primary key (a recreate), while a
   * guest app's view is over the table: the guest's command is torn down before each change (it
   * would block it) and set up again after it, as it was, still recorded as the guest's.
   */
  @Test
  void theOwnersChangesSetAGuestsCommandUpAgainOverItsTable() {
    TableSchema<Titled> titled = TableSchema.of(Titled.class).primaryKey("id").build();
    TableSchema<Titled> byTitle = TableSchema.of(Titled.class).primaryKey("id", "title").build();
    int[] version = {0};
    App owner = coco.app("owner", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (version[0] == 0) {
        tables.mountTable(ctx, DOCS.table(DB, schema, "owned"))
            .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1)));
      } else {
        TableSchema<Titled> s = version[0] == 1 ? titled : byTitle;
        tables.mountTable(ctx, s.table(DB, schema, "owned"))
            .declareRow(ctx, s.row(new Titled(1, "owner's")));
      }
    });
    coco.update(owner);
    App guest = coco.app("guest", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "owned"));
      t.declareRow(ctx, DOCS.row(new Doc(2, "guest's", 2)));
      t.declareSqlCommand(ctx, new SqlCommand("titles", "CREATE OR REPLACE VIEW \"" + schema
          + "\".guest_titles AS SELECT title FROM \"" + schema + "\".owned",
          "DROP VIEW IF EXISTS \"" + schema + "\".guest_titles"));
    });
    coco.update(guest);

    version[0] = 1; // column views dropped
    coco.update(owner);
    assertThat(lines("SELECT title FROM \"" + schema + "\".guest_titles ORDER BY 1"))
        .containsExactly("guest's", "owner's");
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("owned|titles|guest");

    version[0] = 2; // primary key (id, title): recreated, with the owner's rows only
    coco.update(owner);
    assertThat(lines("SELECT title FROM \"" + schema + "\".guest_titles ORDER BY 1"))
        .containsExactly("owner's");
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("owned|titles|guest");
  }
  /**
   * App {@code indexer}'s table {@code notes} with a view of command {@code titles} whose
   * teardown fails when the view is gone (a teardown run twice is an error, not a no-op):
   * system-managed while {@code state[0]} is 1, user-managed while 2, not declared while 0.
   */
  App switchingOwner(int[] state) {
    SqlCommand titles = new SqlCommand("titles", "CREATE VIEW \"" + schema + "\".notes_titles"
        + " AS SELECT id, title FROM \"" + schema + "\".notes",
        "DROP VIEW \"" + schema + "\".notes_titles");
    return coco.app("indexer", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (state[0] != 0) {
        TableTarget t = tables.mountTable(ctx, state[0] == 1
            ? DOCS.table(DB, schema, "notes") : DOCS.userTable(DB, schema, "notes"));
        t.declareRow(ctx, DOCS.row(new Doc(1, "indexer's", 1)));
        t.declareSqlCommand(ctx, titles);
      }
    });
  }

  /**
   * A system-managed table declared as a user's table keeps its SQL commands, now recorded as
   * commands of a user's table: no longer declared, the table stays with its rows and the
   * command's view is torn down (its record, left in the table's comment, was never read).
   */
  @Test
  void aTableHandedToItsUserKeepsItsCommandsAsAUsersTableCommands() {
    int[] state = {1};
    App app = switchingOwner(state);
    coco.update(app);
    assertThat(relations()).contains("r notes", "v notes_titles");

    state[0] = 2;
    coco.update(app);
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("notes|titles|indexer");
    assertThat(lines("SELECT coalesce(obj_description('\"" + schema + "\".notes'::regclass,"
        + " 'pg_class')::jsonb -> 'cocoindex_sql_commands', 'null')"))
        .containsExactly("null");

    state[0] = 0;
    coco.update(app);
    assertThat(relations()).containsExactly(
        "i docs_by_user", "i docs_pkey", "i notes_pkey", "r docs", "r notes");
    assertThat(lines("SELECT * FROM \"" + schema + "\".notes")).containsExactly("1|indexer's|1");
  }

  /**
   * A user's table the app then manages keeps its SQL commands, now recorded in the table's
   * comment: its drop tears each down once (the record left among the user's tables' ran it a
   * second time, failing the drop).
   */
  @Test
  void aUsersTableTakenOverByTheAppKeepsItsCommandsAsItsOwn() {
    execute("CREATE TABLE \"" + schema + "\".notes (id bigint PRIMARY KEY, title text,"
        + " views integer)");
    int[] state = {2};
    App app = switchingOwner(state);
    coco.update(app);
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("notes|titles|indexer");

    state[0] = 1;
    coco.update(app);
    assertThat(relations()).containsExactly("i docs_by_user", "i docs_pkey", "i notes_pkey",
        "r docs", "r notes", "v notes_titles");
    assertThat(lines("SELECT obj_description('\"" + schema + "\".notes'::regclass, 'pg_class')"
        + "::jsonb -> 'cocoindex_sql_commands' -> 'titles' ->> 'app'"))
        .containsExactly("indexer");

    state[0] = 0;
    coco.update(app);
    assertThat(relations()).isEqualTo(THE_USERS);
  }
  /**
   * The owner changes its table's primary key (a recreate) while a guest app (writing into it as
   * a user's table) has an index on it: the guest's index is made again on the new table, its
   * comment naming the guest; the guest's next run, told of the recreate, finds it there, and the
   * one after changes nothing but its table's refresh. (It was lost: the guest's record,
   * unchanged, planned nothing.)
   */
  @Test
  void theOwnersRecreateMakesAGuestsIndexAgain() {
    TableSchema<Titled> byTitle = TableSchema.of(Titled.class).primaryKey("id", "title").build();
    boolean[] recreated = {false};
    App owner = coco.app("owner", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (recreated[0]) {
        tables.mountTable(ctx, byTitle.table(DB, schema, "owned"))
            .declareRow(ctx, byTitle.row(new Titled(1, "owner's")));
      } else {
        tables.mountTable(ctx, DOCS.table(DB, schema, "owned"))
            .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1)));
      }
    });
    coco.update(owner);
    App guest = coco.app("guest", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "owned"));
      t.declareIndex(ctx, IndexSpec.btree("by_guest", "title"));
    });
    coco.update(guest);
    assertThat(relations()).contains("i owned__by_guest");

    recreated[0] = true;
    coco.update(owner);

    assertThat(relations()).containsExactly("i cocoindex_table_guests_pkey", "i docs_by_user",
        "i docs_pkey", "i owned__by_guest", "i owned_pkey", "r cocoindex_table_guests", "r docs",
        "r owned");
    assertThat(lines("SELECT indexdef FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND indexname = 'owned__by_guest'")).containsExactly("CREATE INDEX owned__by_guest"
            + " ON " + schema + ".owned USING btree (title)");
    assertThat(comment("owned__by_guest")).isEqualTo("{\"cocoindex_app\": \"guest\"}");
    // The guest hears of the recreate ({@link TableGuests}): what it declares on the table is
    // reconciled once as possibly missing (the index there already: IF NOT EXISTS), then nothing.
    String owned = TABLE + " update [\"main_db\", \"" + schema + "\", \"owned\"]";
    assertThat(coco.update(guest)).containsExactly(owned, TABLE + "/[\"main_db\", \"" + schema
        + "\", \"owned\"]@index update \"by_guest\"");
    assertThat(coco.update(guest)).containsExactly(owned);
  }
  /** A command granting reads of docs to everyone: its teardown names the table. */
  SqlCommand grant() {
    return new SqlCommand("public_reads", "GRANT SELECT ON \"" + schema + "\".docs TO PUBLIC",
        "REVOKE SELECT ON \"" + schema + "\".docs FROM PUBLIC");
  }

  /**
   * The user drops their table by hand, with the index and the command the app made on it; the
   * app then no longer declares them: the command's teardown, which names the table, fails on
   * the missing table and is let go (what it undoes went with the table), its record forgotten,
   * and the run succeeds, as every later one does.
   */
  @Test
  void attachmentsOfAUsersTableDroppedByHandAreForgottenWhenNoLongerDeclared() {
    boolean[] attachments = {true};
    App app = coco.app("indexer", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "docs"));
      if (attachments[0]) {
        t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
        t.declareSqlCommand(ctx, grant());
      }
    });
    coco.update(app);
    execute("DROP TABLE \"" + schema + "\".docs");

    attachments[0] = false;
    coco.update(app);

    assertThat(relations()).isEmpty();
    assertThat(coco.update(app))
        .containsExactly(TABLE + " update [\"main_db\", \"" + schema + "\", \"docs\"]");
  }

  /**
   * The user drops their table by hand; the app then no longer declares it: its release lets go
   * of the command's teardown that fails on the missing table, forgets its record, and succeeds.
   */
  @Test
  void aUsersTableDroppedByHandIsReleasedWhenNoLongerDeclared() {
    boolean[] table = {true};
    App app = coco.app("indexer", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (table[0]) {
        TableTarget t = tables.mountTable(ctx, DOCS.userTable(DB, schema, "docs"));
        t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
        t.declareSqlCommand(ctx, grant());
      }
    });
    coco.update(app);
    execute("DROP TABLE \"" + schema + "\".docs");

    table[0] = false;
    assertThat(coco.update(app))
        .containsExactly(TABLE + " delete [\"main_db\", \"" + schema + "\", \"docs\"]");

    assertThat(relations()).isEmpty();
    assertThat(coco.update(app)).isEmpty();
  }
  /**
   * A command moved from the app's own table onto the user's table under its name (one view,
   * made over either): set up on the user's table first, it survives the old table's teardown at
   * the end of the run, set up again after it, and stays recorded on the user's table.
   */
  @Test
  void aCommandMovedOntoAUsersTableIsSetUpAgainAfterTheOldTablesTeardown() {
    boolean[] moved = {false};
    App app = coco.app("indexer", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      TableTarget own = tables.mountTable(ctx, DOCS.table(DB, schema, "own"));
      own.declareRow(ctx, DOCS.row(new Doc(1, "own", 1)));
      TableTarget users = tables.mountTable(ctx, DOCS.userTable(DB, schema, "docs"));
      String over = moved[0] ? "docs" : "own";
      (moved[0] ? users : own).declareSqlCommand(ctx, new SqlCommand("titles",
          "CREATE OR REPLACE VIEW \"" + schema + "\".titles AS SELECT id, title FROM \"" + schema
              + "\"." + over, "DROP VIEW IF EXISTS \"" + schema + "\".titles"));
    });
    coco.update(app);
    assertThat(lines("SELECT title FROM \"" + schema + "\".titles")).containsExactly("own");

    moved[0] = true;
    coco.update(app);

    assertThat(lines("SELECT title FROM \"" + schema + "\".titles")).containsExactly("the user's");
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("docs|titles|indexer");
    assertThat(lines("SELECT obj_description('\"" + schema + "\".own'::regclass, 'pg_class')"
        + "::jsonb -> 'cocoindex_sql_commands'")).containsExactly("null");
  }
  /**
   * Two apps, each with a command named {@code titles} on a table of its own, set up by a plain
   * {@code CREATE VIEW} (not to be run twice). One app's teardown of its command hands the name
   * over to its own records only: the other app's setup is not run again under this app (it
   * failed as the view exists, and failed the run every time), and its view stays.
   */
  @Test
  void aCommandsTeardownSetsUpAgainNoOtherAppsCommandOfItsName() {
    boolean[] declared = {true};
    App first = coco.app("first", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.table(DB, schema, "first_docs"));
      if (declared[0]) {
        t.declareSqlCommand(ctx, new SqlCommand("titles", "CREATE VIEW \"" + schema
            + "\".first_titles AS SELECT id FROM \"" + schema + "\".first_docs",
            "DROP VIEW \"" + schema + "\".first_titles"));
      }
    });
    App second = coco.app("second", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.table(DB, schema, "second_docs"))
        .declareSqlCommand(ctx, new SqlCommand("titles", "CREATE VIEW \"" + schema
            + "\".second_titles AS SELECT id FROM \"" + schema + "\".second_docs",
            "DROP VIEW \"" + schema + "\".second_titles")));
    coco.update(first);
    coco.update(second);

    declared[0] = false;
    String firstDocs = "[\"main_db\", \"" + schema + "\", \"first_docs\"]";
    assertThat(coco.update(first)).containsExactly(TABLE + " update " + firstDocs,
        TABLE + "/" + firstDocs + "@sql_command delete \"titles\"");

    assertThat(relations()).contains("v second_titles").doesNotContain("v first_titles");
    // A declared table's action comes every run (its rows' handler is built from it): no SQL.
    assertThat(coco.update(first)).containsExactly(TABLE + " update " + firstDocs);
  }

  /**
   * What an earlier version made on a user's table records no app: an index without a comment,
   * a command not recorded. One full reprocess while the table is declared adopts them for the
   * app that declares them (the index's comment, the command's record), so that the table's
   * release then removes them; the user's own index and comment stay.
   */
  @Test
  void aFullReprocessAdoptsWhatAnEarlierVersionMadeOnAUsersTable() {
    boolean[] table = {true};
    App app = app("indexer", 1, table, new boolean[] {true});
    coco.update(app);
    // As the version before apps were recorded left them.
    execute("COMMENT ON INDEX \"" + schema + "\".docs__by_indexer IS NULL",
        "DROP TABLE \"" + schema + "\".cocoindex_sql_commands");

    app.update(UpdateOptions.fullReprocess());

    assertThat(comment("docs__by_indexer")).isEqualTo("{\"cocoindex_app\": \"indexer\"}");
    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("docs|titles_indexer|indexer");

    table[0] = false;
    coco.update(app);
    assertThat(relations()).isEqualTo(THE_USERS);
    assertThat(comment("docs")).isEqualTo("the user's");
  }
  /**
   * An app writing into another app's table as a user's tries to declare it system-managed: the
   * run fails, naming the maker (the table is not the app's to manage). Declared a user's table
   * again, the next run must succeed as before the attempt: the failed attempt's record (system
   * managed, kept beside the user one as possibly current) must not make the app try to move its
   * commands' records, which fails on the maker's comment every run.
   */
  @Test
  void aFailedSwitchToSystemManagedOfAnotherAppsTableDoesNotBlockItsUseAsAUsersTable() {
    App maker = coco.app("maker", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.table(DB, schema, "made"))
        .declareRow(ctx, DOCS.row(new Doc(1, "maker's", 1))));
    coco.update(maker);
    boolean[] system = {false};
    App writer = coco.app("writer", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      TableTarget t = tables.mountTable(ctx, system[0] ? DOCS.table(DB, schema, "made")
          : DOCS.userTable(DB, schema, "made"));
      t.declareRow(ctx, DOCS.row(new Doc(2, "writer's", 1)));
    });
    coco.update(writer);

    system[0] = true;
    assertThatThrownBy(() -> coco.update(writer)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("app 'maker' made it");

    system[0] = false;
    coco.update(writer);
    assertThat(lines("SELECT id FROM \"" + schema + "\".made ORDER BY 1"))
        .containsExactly("1", "2");
    assertThat(comment("made")).isEqualTo("{\"cocoindex_app\": \"maker\"}");
  }
  record Coded(long id, String code) {}

  record CodedNumber(long id, int code) {}

  /**
   * The owner retypes a column its rows cannot convert: the column is dropped and added again,
   * which takes with it a guest app's index on it (the guest writes into the table as a user's).
   * The guest's record of the index is unchanged, so nothing but the owner's change can make it
   * again, as a recreate does.
   */
  @Test
  void aGuestsIndexOnAColumnTheOwnerDropsAndReaddsIsMadeAgain() {
    TableSchema<Coded> text = TableSchema.of(Coded.class).primaryKey("id").build();
    TableSchema<CodedNumber> number = TableSchema.of(CodedNumber.class).primaryKey("id").build();
    boolean[] retyped = {false};
    App owner = coco.app("owner", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (retyped[0]) {
        tables.mountTable(ctx, number.table(DB, schema, "codes"))
            .declareRow(ctx, number.row(new CodedNumber(1, 7)));
      } else {
        tables.mountTable(ctx, text.table(DB, schema, "codes"))
            .declareRow(ctx, text.row(new Coded(1, "not a number")));
      }
    });
    coco.update(owner);
    App guest = coco.app("guest", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, text.userTable(DB, schema, "codes"))
        .declareIndex(ctx, IndexSpec.btree("by_code", "code")));
    coco.update(guest);
    List<String> indexes = lines("SELECT indexname FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND tablename = 'codes' ORDER BY 1");
    assertThat(indexes).hasSize(2);

    retyped[0] = true;
    coco.update(owner);

    assertThat(lines("SELECT indexname FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND tablename = 'codes' ORDER BY 1")).isEqualTo(indexes);
  }

  /**
   * The owner drops a column (no longer declared) and adds it back in a later run: the guest's
   * values in it went with the drop, while the guest's records say its row holds them. The drop
   * is counted for the table's guests as a recreate is, and the guest's next run writes its row
   * again. (It wrote nothing: the guest's row kept a null there until a full reprocess.)
   */
  @Test
  void aGuestsValuesInAColumnTheOwnerDropsAndAddsAgainAreWrittenAgain() {
    TableSchema<Titled> titled = TableSchema.of(Titled.class).primaryKey("id").build();
    boolean[] dropped = {false};
    App owner = coco.app("owner", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (dropped[0]) {
        tables.mountTable(ctx, titled.table(DB, schema, "shared"))
            .declareRow(ctx, titled.row(new Titled(1, "owner's")));
      } else {
        tables.mountTable(ctx, DOCS.table(DB, schema, "shared"))
            .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1)));
      }
    });
    App guest = coco.app("guest", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(2, "guest's", 5))));
    coco.update(owner);
    coco.update(guest);

    dropped[0] = true;
    coco.update(owner);
    dropped[0] = false;
    coco.update(owner);
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1", "2|guest's|null");

    String shared = TABLE + " update [\"main_db\", \"" + schema + "\", \"shared\"]";
    String rows = TABLE + "/[\"main_db\", \"" + schema + "\", \"shared\"] update ";
    assertThat(coco.update(guest)).containsExactlyInAnyOrder(shared, rows + "2");
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1", "2|guest's|5");
    assertThat(lines("SELECT * FROM \"" + schema + "\".cocoindex_table_guests"))
        .containsExactly("shared|guest|0");
  }

  /**
   * As above, the guest running between the drop and the add: told of the drop, it writes its
   * row again, which fails naming the column gone (it wrote nothing, its row's values silently
   * lost), and its run after the add writes the row, the failed write being retried.
   */
  @Test
  void aGuestWritingAColumnTheOwnerDroppedFailsUntilTheColumnIsBack() {
    TableSchema<Titled> titled = TableSchema.of(Titled.class).primaryKey("id").build();
    boolean[] dropped = {false};
    App owner = coco.app("owner", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (dropped[0]) {
        tables.mountTable(ctx, titled.table(DB, schema, "shared"))
            .declareRow(ctx, titled.row(new Titled(1, "owner's")));
      } else {
        tables.mountTable(ctx, DOCS.table(DB, schema, "shared"))
            .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1)));
      }
    });
    App guest = coco.app("guest", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(2, "guest's", 5))));
    coco.update(owner);
    coco.update(guest);

    dropped[0] = true;
    coco.update(owner);
    assertThatThrownBy(() -> coco.update(guest)).hasMessageContaining("writing rows of table "
        + schema + ".shared: ERROR: column \"views\" of relation \"shared\" does not exist");
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's", "2|guest's");

    dropped[0] = false;
    coco.update(owner);
    coco.update(guest);
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1", "2|guest's|5");
  }

  record GuestCode(long id, long code) {}

  /**
   * The owner retypes a column its own values cannot convert, so it is dropped and added again
   * empty in one change: the guest's values in it go too, and the guest's next run writes them
   * again, as after a recreate.
   */
  @Test
  void aGuestsValuesInAColumnTheOwnerRetypesByDroppingItAreWrittenAgain() {
    TableSchema<Coded> text = TableSchema.of(Coded.class).primaryKey("id").build();
    TableSchema<CodedNumber> number = TableSchema.of(CodedNumber.class).primaryKey("id").build();
    boolean[] retyped = {false};
    App owner = coco.app("owner", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (retyped[0]) {
        tables.mountTable(ctx, number.table(DB, schema, "codes"))
            .declareRow(ctx, number.row(new CodedNumber(1, 7)));
      } else {
        tables.mountTable(ctx, text.table(DB, schema, "codes"))
            .declareRow(ctx, text.row(new Coded(1, "not a number")));
      }
    });
    TableSchema<GuestCode> guests = TableSchema.of(GuestCode.class).primaryKey("id").build();
    App guest = coco.app("guest", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, guests.userTable(DB, schema, "codes"))
        .declareRow(ctx, guests.row(new GuestCode(2, 42))));
    coco.update(owner);
    coco.update(guest);
    assertThat(lines("SELECT * FROM \"" + schema + "\".codes ORDER BY 1"))
        .containsExactly("1|not a number", "2|42");

    retyped[0] = true;
    coco.update(owner);
    assertThat(lines("SELECT * FROM \"" + schema + "\".codes ORDER BY 1"))
        .containsExactly("1|7", "2|null");

    coco.update(guest);
    assertThat(lines("SELECT * FROM \"" + schema + "\".codes ORDER BY 1"))
        .containsExactly("1|7", "2|42");
  }

  /** App indexer declaring index {@code by_indexer} on the user's docs, nothing else. */
  App indexing() {
    return coco.app("indexer", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "docs"))
        .declareIndex(ctx, IndexSpec.btree("by_indexer", "title")));
  }

  String indexDef(String index) {
    return lines("SELECT pg_get_indexdef('\"" + schema + "\"." + index + "'::regclass)").get(0);
  }

  /**
   * The app sets up with no tracking (its first run, or its state store lost: every state new,
   * as on a full reprocess), and the user has made by hand an index under the name the app's
   * takes, with another definition: nothing says it is the app's, so it is neither kept as the
   * app's by {@code IF NOT EXISTS} (its comment then naming the app, and the app's release
   * dropping it) nor replaced. The run fails naming the index, the table and what to do; the
   * user's index stays as it was, and once the user has dropped it the app makes its own.
   */
  @Test
  void aHandMadeIndexOfTheAppsNameWithAnotherDefinitionIsNotTaken() {
    execute("CREATE INDEX docs__by_indexer ON \"" + schema + "\".docs (views)");
    String users = indexDef("docs__by_indexer");
    App app = indexing();

    assertThatThrownBy(() -> coco.update(app)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("index by_indexer of table " + schema + ".docs cannot be created as "
            + schema + ".docs__by_indexer: an index of that name on the table, not recorded as"
            + " this app's, has another definition");
    assertThat(indexDef("docs__by_indexer")).isEqualTo(users);
    assertThat(comment("docs__by_indexer")).isEqualTo("null");

    execute("DROP INDEX \"" + schema + "\".docs__by_indexer");
    coco.update(app);
    assertThat(indexDef("docs__by_indexer"))
        .isEqualTo("CREATE INDEX docs__by_indexer ON " + schema + ".docs USING btree (title)");
    assertThat(comment("docs__by_indexer")).isEqualTo("{\"cocoindex_app\": \"indexer\"}");
  }

  /**
   * The same, with a hand-made index of the app's definition: it is the app's index in all but
   * the record of its maker, so it is taken (its comment naming the app), and the app's release
   * drops it.
   */
  @Test
  void aHandMadeIndexOfTheAppsNameAndDefinitionIsTakenAndReleased() {
    execute("CREATE INDEX docs__by_indexer ON \"" + schema + "\".docs (title)");
    App app = indexing();

    coco.update(app);
    assertThat(comment("docs__by_indexer")).isEqualTo("{\"cocoindex_app\": \"indexer\"}");
    app.dropState();
    assertThat(relations()).isEqualTo(THE_USERS);
  }

  /** A command making view {@code <app>_titles} over {@code table} with a plain CREATE VIEW. */
  SqlCommand plainView(String app, String table) {
    return new SqlCommand("titles", "CREATE VIEW \"" + schema + "\"." + app + "_titles AS"
        + " SELECT id, title FROM \"" + schema + "\"." + table,
        "DROP VIEW IF EXISTS \"" + schema + "\"." + app + "_titles");
  }

  /**
   * The app's state store is lost, and the app sets up again, every state new: its command,
   * whose setup is a plain {@code CREATE VIEW} (which fails over a view it did not make, so that
   * a user's view of that name is never taken), finds its own view, recorded as its own beside
   * its table: that recorded teardown runs first, then the setup, where the setup failed every
   * run before.
   */
  @Test
  void aCommandRecordedAsTheAppsIsTornDownBeforeItsSetupWhenTheAppsTrackingIsLost(
      @TempDir Path lostStore) {
    Consumer<Ctx> main = ctx -> {
      TableTarget own = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.table(DB, schema, "own"));
      own.declareRow(ctx, DOCS.row(new Doc(1, "own", 1)));
      own.declareSqlCommand(ctx, plainView("indexer", "own"));
    };
    coco.update(coco.app("indexer", main));

    try (App again = App.create("indexer", Environment.builder().dbPath(lostStore)
        .provide(DB, PostgresServer.DATA_SOURCE).build(), main)) {
      again.update();
    }

    assertThat(lines("SELECT * FROM \"" + schema + "\".indexer_titles")).containsExactly("1|own");
    assertThat(lines("SELECT obj_description('\"" + schema + "\".own'::regclass, 'pg_class')"
        + "::jsonb -> 'cocoindex_sql_commands' -> 'titles' ->> 'app'")).containsExactly("indexer");
  }

  /**
   * A view the user made under the name of the app's command's view, recorded nowhere: the
   * command's plain {@code CREATE VIEW} fails, naming the command and its table, and the user's
   * view stays as it was (a {@code CREATE OR REPLACE VIEW} or {@code IF NOT EXISTS} setup would
   * take it, for the command's teardown to drop later: the connector cannot see what a
   * command's SQL makes).
   */
  @Test
  void aUsersViewOfTheNameOfACommandsPlainCreateViewFailsItsSetup() {
    execute("CREATE VIEW \"" + schema + "\".indexer_titles AS SELECT 'the user''s' AS v");
    App app = coco.app("indexer", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "docs"))
        .declareSqlCommand(ctx, plainView("indexer", "docs")));

    assertThatThrownBy(() -> coco.update(app)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the setup of SQL command titles of table " + schema
            + ".docs failed")
        .hasMessageContaining("already exists");
    assertThat(lines("SELECT * FROM \"" + schema + "\".indexer_titles"))
        .containsExactly("the user's");
  }

  /**
   * A guest app writes rows into the owner's table as its user's table, one from a memoized
   * component; the owner changes the table's primary key (its type), which drops and recreates
   * the table, the guest's rows with it, while the guest's records of them are unchanged. The
   * guest's next run writes them again, the memo not holding (the recreate is counted for the
   * guests of the table, whose rows' handler finds the count), and the run after that writes
   * nothing. (It wrote nothing: the guest's rows were gone until a full reprocess.)
   */
  /**
   * Two guests' first runs at once (here, another guest's registration still uncommitted, made by
   * the test): PostgreSQL's CREATE TABLE IF NOT EXISTS of the guests' record table waits for the
   * other transaction, then fails with a unique violation on pg_type (it does not see the table
   * the other made). The guest's run failed; now it goes on with the table the other made.
   */
  @Test
  void aGuestsFirstRegistrationRacingAnothersCreationOfTheRecordTableStillRegisters()
      throws Exception {
    App owner = coco.app("owner", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.table(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1))));
    App guest = coco.app("guest", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(2, "guest's", 1))));
    coco.update(owner);

    String guests = "\"" + schema + "\".cocoindex_table_guests";
    try (java.sql.Connection other = PostgresServer.DATA_SOURCE.getConnection()) {
      other.setAutoCommit(false);
      try (java.sql.Statement st = other.createStatement()) {
        st.execute("CREATE TABLE " + guests + " (table_name text NOT NULL, app text NOT NULL,"
            + " lost bigint NOT NULL, PRIMARY KEY (table_name, app))");
        st.execute("INSERT INTO " + guests + " VALUES ('shared', 'another', 0)");
      }
      java.util.concurrent.CompletableFuture<List<String>> update =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> coco.update(guest),
              ThreadPerTask.INSTANCE);
      // Until the guest's CREATE TABLE waits for the other transaction.
      for (int i = 0; i < 400 && lines("SELECT count(*) FROM pg_stat_activity WHERE"
          + " wait_event_type = 'Lock' AND query LIKE 'CREATE TABLE IF NOT EXISTS %"
          + "cocoindex_table_guests%'").equals(List.of("0")); i++) {
        Thread.sleep(25);
      }
      other.commit();
      update.get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1", "2|guest's|1");
    assertThat(lines("SELECT * FROM " + guests + " ORDER BY app"))
        .containsExactly("shared|another|0", "shared|guest|0");
  }

  /**
   * A guest no longer declaring the table forgets its record while another guest's first
   * registration is still uncommitted (made by the test): the forget saw the record table empty
   * and dropped it, waiting for the registration's commit, which it then lost. The record table
   * is never dropped now, and both the other guest's record and its count stay.
   */
  @Test
  void aGuestForgettingItsRecordWhileAnotherRegistersKeepsTheOthersRecord() throws Exception {
    App owner = coco.app("owner", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.table(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1))));
    boolean[] declares = {true};
    App guest = coco.app("guest", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (declares[0]) {
        tables.mountTable(ctx, DOCS.userTable(DB, schema, "shared"))
            .declareRow(ctx, DOCS.row(new Doc(2, "guest's", 1)));
      }
    });
    coco.update(owner);
    coco.update(guest);

    String guests = "\"" + schema + "\".cocoindex_table_guests";
    declares[0] = false;
    try (java.sql.Connection other = PostgresServer.DATA_SOURCE.getConnection()) {
      other.setAutoCommit(false);
      try (java.sql.Statement st = other.createStatement()) {
        st.execute("INSERT INTO " + guests + " VALUES ('shared', 'another', 0)");
      }
      java.util.concurrent.CompletableFuture<List<String>> update =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> coco.update(guest),
              ThreadPerTask.INSTANCE);
      // Until the guest's run is done, or waits for the other transaction.
      for (int i = 0; i < 400 && !update.isDone() && lines("SELECT count(*) FROM"
          + " pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%"
          + "cocoindex_table_guests%'").equals(List.of("0")); i++) {
        Thread.sleep(25);
      }
      other.commit();
      update.get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    assertThat(lines("SELECT * FROM " + guests + " ORDER BY app"))
        .containsExactly("shared|another|0");
    // The owner's creation of its table again, dropped by hand, counts for the other guest.
    execute("DROP TABLE \"" + schema + "\".shared");
    coco.update(owner);
    assertThat(lines("SELECT * FROM " + guests + " ORDER BY app"))
        .containsExactly("shared|another|1");
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1");
  }

  @Test
  void aGuestsRowsLostToTheOwnersRecreateAreWrittenAgainInTheGuestsNextRun() {
    TableSchema<Doc> integerKey =
        TableSchema.of(Doc.class).primaryKey("id").columnType("id", "integer").build();
    boolean[] recreated = {false};
    App owner = coco.app("owner", ctx -> {
      TableSchema<Doc> docs = recreated[0] ? integerKey : DOCS;
      Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, docs.table(DB, schema, "shared"))
          .declareRow(ctx, docs.row(new Doc(1, "owner's", 1)));
    });
    App guest = coco.app("guest", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "shared"));
      t.declareRow(ctx, DOCS.row(new Doc(2, "guest's", 1)));
      ctx.mountMemo("memoized", Fingerprint.ofString("source"),
          c -> t.declareRow(c, DOCS.row(new Doc(3, "guest's memoized", 1))));
    });
    coco.update(owner);
    coco.update(guest);
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1", "2|guest's|1", "3|guest's memoized|1");

    recreated[0] = true;
    coco.update(owner);
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1");

    String shared = TABLE + " update [\"main_db\", \"" + schema + "\", \"shared\"]";
    String rows = TABLE + "/[\"main_db\", \"" + schema + "\", \"shared\"] update ";
    assertThat(coco.update(guest)).containsExactlyInAnyOrder(shared, rows + "2", rows + "3");
    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1", "2|guest's|1", "3|guest's memoized|1");
    assertThat(lines("SELECT * FROM \"" + schema + "\".cocoindex_table_guests"))
        .containsExactly("shared|guest|0");
    assertThat(coco.update(guest)).containsExactly(shared);

    guest.dropState(); // its record as a guest goes; the record table stays, empty
    assertThat(lines("SELECT count(*) FROM \"" + schema + "\".cocoindex_table_guests"))
        .containsExactly("0");
  }

  /**
   * The owner's table is dropped by hand, the guest's row with it; the owner's next run creates
   * it again (found missing), and the guest's next run writes its row again.
   */
  @Test
  void aGuestsRowsLostWithTheOwnersTableDroppedByHandAreWrittenAgainOnceItIsBack() {
    App owner = coco.app("owner", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.table(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1))));
    App guest = coco.app("guest", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(2, "guest's", 1))));
    coco.update(owner);
    coco.update(guest);
    execute("DROP TABLE \"" + schema + "\".shared");

    coco.update(owner);
    coco.update(guest);

    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1", "2|guest's|1");
  }

  /**
   * As above, the guest's run after the recreate killed at each of its precommits and commits
   * in turn (its table's action, which takes the count back, may be applied before its rows are
   * written): the next process's run still writes every row.
   */
  @Test
  void aGuestsRunKilledAfterTheOwnersRecreateStillWritesItsRowsAgain() {
    TableSchema<Doc> integerKey =
        TableSchema.of(Doc.class).primaryKey("id").columnType("id", "integer").build();
    int trial = 0;
    for (int n = 1; ; n++) {
      for (CrashPoint point : List.of(CrashPoint.afterPrecommit(n), CrashPoint.beforeCommit(n),
          CrashPoint.afterCommit(n))) {
        trial++;
        execute("DROP TABLE IF EXISTS \"" + schema + "\".shared",
            "DROP TABLE IF EXISTS \"" + schema + "\".cocoindex_table_guests");
        boolean[] recreated = {false};
        App owner = coco.app("owner" + trial, ctx -> {
          TableSchema<Doc> docs = recreated[0] ? integerKey : DOCS;
          Tables.register(ctx, TableHandler.of(ctx, DB))
              .mountTable(ctx, docs.table(DB, schema, "shared"))
              .declareRow(ctx, docs.row(new Doc(1, "owner's", 1)));
        });
        App guest = coco.app("guest" + trial, ctx -> {
          TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
              .mountTable(ctx, DOCS.userTable(DB, schema, "shared"));
          t.declareRow(ctx, DOCS.row(new Doc(2, "guest's", 1)));
          ctx.mountMemo("memoized", Fingerprint.ofString("source"),
              c -> t.declareRow(c, DOCS.row(new Doc(3, "guest's memoized", 1))));
        });
        coco.update(owner);
        coco.update(guest);
        recreated[0] = true;
        coco.update(owner);

        boolean crashed = coco.updateCrashing(guest, point);
        App next = coco.restart(guest);
        coco.update(next);

        assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
            .as(point.toString()).containsExactly("1|owner's|1", "2|guest's|1", "3|guest's memoized|1");
        if (!crashed) {
          assertThat(trial).as("runs killed before one completed").isGreaterThan(3);
          return;
        }
      }
    }
  }

  /**
   * The app's index, replaced by hand under its name with another definition (no comment naming
   * the app): once the app no longer declares it, the user's index is not dropped, since nothing
   * says it is the app's (it names no app, and is not the definition the app's record made), and
   * the app forgets its own.
   */
  @Test
  void anIndexReplacedByHandUnderTheAppsNameIsNotDroppedWhenNoLongerDeclared() {
    boolean[] declares = {true};
    App app = coco.app("indexer", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "docs"));
      if (declares[0]) {
        t.declareIndex(ctx, IndexSpec.btree("by_indexer", "title"));
      }
    });
    coco.update(app);
    execute("DROP INDEX \"" + schema + "\".docs__by_indexer",
        "CREATE INDEX docs__by_indexer ON \"" + schema + "\".docs (views)");
    String users = indexDef("docs__by_indexer");

    declares[0] = false;
    coco.update(app);

    assertThat(indexDef("docs__by_indexer")).isEqualTo(users);
    assertThat(coco.update(app))
        .containsExactly(TABLE + " update [\"main_db\", \"" + schema + "\", \"docs\"]");
  }

  /**
   * As an earlier version left it (no comment, its definition the app's record's), an index no
   * longer declared is the app's, and dropped.
   */
  @Test
  void anIndexAsAnEarlierVersionMadeItIsDroppedWhenNoLongerDeclared() {
    boolean[] declares = {true};
    App app = coco.app("indexer", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "docs"));
      if (declares[0]) {
        t.declareIndex(ctx, IndexSpec.btree("by_indexer", "title"));
      }
    });
    coco.update(app);
    execute("COMMENT ON INDEX \"" + schema + "\".docs__by_indexer IS NULL");

    declares[0] = false;
    coco.update(app);

    assertThat(relations()).isEqualTo(THE_USERS);
  }
}
