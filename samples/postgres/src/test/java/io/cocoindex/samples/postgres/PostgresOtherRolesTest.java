package io.cocoindex.samples.postgres;

import static io.cocoindex.samples.postgres.PostgresServer.execute;
import static io.cocoindex.samples.postgres.PostgresServer.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.testkit.CocoIndexExtension;
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
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An app connecting as a role of its own, in a database where another role keeps its schema to
 * itself: what another app recorded in that schema ({@code cocoindex_sql_commands} of its user's
 * table) is none of this app's business, and must not fail its runs.
 */
class PostgresOtherRolesTest {
  static final ContextKey<DataSource> DB = ContextKey.of("main_db", DataSource.class);
  static final String ROLE = "cocoindex_test_own_role";

  record Doc(long id, String title, int views) {}

  static final TableSchema<Doc> DOCS = TableSchema.of(Doc.class).primaryKey("id").build();

  /** The server's URL, connecting as {@link #ROLE}. */
  static final PGSimpleDataSource AS_ROLE = new PGSimpleDataSource();

  static {
    String url = System.getenv(PostgresServer.URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      AS_ROLE.setURL(url);
      AS_ROLE.setUser(ROLE);
    }
  }

  @RegisterExtension
  final CocoIndexExtension coco = CocoIndexExtension.builder().provide(DB, AS_ROLE).build();

  String schema;
  String others;
  @TempDir Path guestStore;

  @BeforeEach
  void schemas(TestInfo info) {
    schema = PostgresServer.freshSchema(info);
    others = schema + "_others";
    execute("DO $$ BEGIN CREATE ROLE " + ROLE + " LOGIN; EXCEPTION WHEN duplicate_object"
        + " THEN NULL; END $$",
        "GRANT CREATE ON DATABASE " + PostgresServer.lines("SELECT current_database()").get(0)
            + " TO " + ROLE,
        "CREATE SCHEMA \"" + schema + "\" AUTHORIZATION " + ROLE,
        // Another app's user's table, in a schema this role has no USAGE on.
        "DROP SCHEMA IF EXISTS \"" + others + "\" CASCADE",
        "CREATE SCHEMA \"" + others + "\"",
        "CREATE TABLE \"" + others + "\".docs (id bigint PRIMARY KEY, title text)",
        "CREATE TABLE \"" + others + "\".cocoindex_sql_commands (table_name text NOT NULL,"
            + " name text NOT NULL, app text NOT NULL, setup text NOT NULL, teardown text,"
            + " seq bigint NOT NULL, PRIMARY KEY (table_name, name))",
        "INSERT INTO \"" + others + "\".cocoindex_sql_commands VALUES ('docs', 'other', 'other',"
            + " 'SELECT 1', 'SELECT 1', 1)");
  }

  @AfterEach
  void dropSchemas() {
    if (schema != null) {
      execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE",
          "DROP SCHEMA IF EXISTS \"" + others + "\" CASCADE");
    }
  }

  @Test
  void aCommandsTeardownDoesNotReadSchemasTheRoleCannotUse() {
    boolean[] command = {true};
    App app = coco.app("indexer", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      TableTarget own = tables.mountTable(ctx, DOCS.table(DB, schema, "own"));
      own.declareRow(ctx, DOCS.row(new Doc(1, "own", 1)));
      if (command[0]) {
        own.declareSqlCommand(ctx, new SqlCommand("titles",
            "CREATE OR REPLACE VIEW \"" + schema + "\".titles AS SELECT id, title FROM \""
                + schema + "\".own", "DROP VIEW IF EXISTS \"" + schema + "\".titles"));
      }
    });
    coco.update(app);
    assertThat(lines("SELECT title FROM \"" + schema + "\".titles")).containsExactly("own");

    command[0] = false;
    coco.update(app);

    assertThat(lines("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid ="
        + " c.relnamespace WHERE n.nspname = '" + schema + "' AND c.relname = 'titles'"))
        .containsExactly("0");
  }

  /**
   * The user drops their table by hand, and takes back the app's right to undo what its command
   * did elsewhere; the app then no longer declares the command: its teardown fails with
   * "permission denied", not on the missing table, so the run fails naming the command and the
   * table, the command stays recorded and tracked, and once the right is given back the next
   * run tears it down and forgets it.
   */
  @Test
  void aTeardownDeniedOnATableDroppedByHandFailsTheRunUntilItSucceeds() {
    execute("CREATE TABLE \"" + schema + "\".docs (id bigint PRIMARY KEY, title text, views"
            + " integer)",
        "CREATE TABLE \"" + schema + "\".audit (source text)",
        "GRANT SELECT, INSERT, DELETE ON \"" + schema + "\".audit TO " + ROLE);
    boolean[] command = {true};
    App app = coco.app("indexer", ctx -> {
      TableTarget docs = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "docs"));
      if (command[0]) {
        docs.declareSqlCommand(ctx, new SqlCommand("audited", "INSERT INTO \"" + schema
            + "\".audit VALUES ('docs')", "DELETE FROM \"" + schema + "\".audit"));
      }
    });
    coco.update(app);
    execute("DROP TABLE \"" + schema + "\".docs",
        "REVOKE DELETE ON \"" + schema + "\".audit FROM " + ROLE);

    command[0] = false;
    assertThatThrownBy(() -> coco.update(app)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the teardown of SQL command audited of table " + schema
            + ".docs failed")
        .hasMessageContaining("permission denied for table audit");

    assertThat(lines("SELECT table_name, name, app FROM \"" + schema
        + "\".cocoindex_sql_commands")).containsExactly("docs|audited|indexer");
    assertThat(lines("SELECT source FROM \"" + schema + "\".audit")).containsExactly("docs");
    execute("GRANT DELETE ON \"" + schema + "\".audit TO " + ROLE);
    coco.update(app);
    assertThat(lines("SELECT count(*) FROM \"" + schema + "\".audit")).containsExactly("0");
    assertThat(lines("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid ="
        + " c.relnamespace WHERE n.nspname = '" + schema + "' AND c.relkind = 'r'"))
        .containsExactly("audit");
  }

  /**
   * The owner app connects as a role of its own; a guest app, as another role, writes into its
   * table as a user's table and records itself as its guest, in a table the owner's role may not
   * write. The owner's recreate (a primary-key change) must not fail on that: it goes through,
   * with a warning that the guests of the table cannot be told, as before guests were recorded.
   */
  @Test
  void anOwnerThatCannotWriteTheGuestsRecordsStillRecreatesItsTable() {
    TableSchema<Doc> integerKey =
        TableSchema.of(Doc.class).primaryKey("id").columnType("id", "integer").build();
    boolean[] recreated = {false};
    App owner = coco.app("owner", ctx -> {
      TableSchema<Doc> docs = recreated[0] ? integerKey : DOCS;
      Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, docs.table(DB, schema, "shared"))
          .declareRow(ctx, docs.row(new Doc(1, "owner's", 1)));
    });
    coco.update(owner);
    try (App guest = App.create("guest", Environment.builder().dbPath(guestStore)
        .provide(DB, PostgresServer.DATA_SOURCE).build(),
        ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
            .mountTable(ctx, DOCS.userTable(DB, schema, "shared"))
            .declareRow(ctx, DOCS.row(new Doc(2, "guest's", 1))))) {
      guest.update();
    }
    assertThat(lines("SELECT * FROM \"" + schema + "\".cocoindex_table_guests"))
        .containsExactly("shared|guest|0");

    recreated[0] = true;
    coco.update(owner);

    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1");
    assertThat(lines("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid ="
        + " '\"" + schema + "\".shared'::regclass AND attname = 'id'")).containsExactly("integer");
  }

  /**
   * A guest app connecting as a role of its own writes into another app's table, whose guests
   * another role already recorded in a table this role may not read or write: its rows are
   * written all the same, with a warning that it cannot hear of the owner's recreates.
   */
  @Test
  void aGuestThatCannotUseTheGuestsRecordsStillWritesItsRows() {
    Consumer<Ctx> owner = ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.table(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1)));
    Consumer<Ctx> firstGuest = ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(2, "first guest's", 1)));
    for (String name : List.of("owner", "first")) {
      try (App app = App.create(name, Environment.builder().dbPath(guestStore.resolve(name))
          .provide(DB, PostgresServer.DATA_SOURCE).build(),
          name.equals("owner") ? owner : firstGuest)) {
        app.update();
      }
    }
    execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \"" + schema + "\".shared TO " + ROLE,
        "REVOKE ALL ON \"" + schema + "\".cocoindex_table_guests FROM " + ROLE);
    App second = coco.app("second", ctx -> Tables.register(ctx, TableHandler.of(ctx, DB))
        .mountTable(ctx, DOCS.userTable(DB, schema, "shared"))
        .declareRow(ctx, DOCS.row(new Doc(3, "second guest's", 1))));

    coco.update(second);

    assertThat(lines("SELECT * FROM \"" + schema + "\".shared ORDER BY 1"))
        .containsExactly("1|owner's|1", "2|first guest's|1", "3|second guest's|1");
    assertThat(lines("SELECT * FROM \"" + schema + "\".cocoindex_table_guests"))
        .containsExactly("shared|first|0");
  }
}
