package io.cocoindex.samples.postgres;

import static io.cocoindex.samples.postgres.PostgresServer.execute;
import static io.cocoindex.samples.postgres.PostgresServer.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.testkit.CocoIndexExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One PostgreSQL database reached under two {@code ContextKey}s. The connector keeps no names of
 * a run in memory: what is schema-wide (index names, the SQL commands tables record) is read from
 * the database in the sink's transaction, so tables under either key see each other's.
 */
class PostgresDatabasesTest {
  static final ContextKey<DataSource> DB = ContextKey.of("main_db", DataSource.class);
  static final ContextKey<DataSource> SAME_DB = ContextKey.of("same_db", DataSource.class);
  static final ContextKey<DataSource> OTHER_DB = ContextKey.of("other_db", DataSource.class);
  /** A key provided with the very data source of {@link #POOLED_DB}: a pool of one connection. */
  static final ContextKey<DataSource> POOLED_DB = ContextKey.of("pooled_db", DataSource.class);
  static final ContextKey<DataSource> SAME_POOL = ContextKey.of("same_pool", DataSource.class);
  static final CountingDataSource COUNTING = new CountingDataSource(PostgresServer.DATA_SOURCE);
  static final DataSource POOL_OF_ONE =
      BoundedPool.of(COUNTING.dataSource(), 1, java.time.Duration.ofSeconds(2));
  /** Another database of the test server, made by {@link #setUp} if need be. */
  static final PGSimpleDataSource OTHER = new PGSimpleDataSource();

  static {
    String url = System.getenv(PostgresServer.URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      OTHER.setURL(url);
      OTHER.setDatabaseName("cocoindex_test_other");
    }
  }

  record Doc(long id, String title, int views) {}

  static final TableSchema<Doc> DOCS = TableSchema.of(Doc.class).primaryKey("id").build();

  @RegisterExtension
  final CocoIndexExtension coco = CocoIndexExtension.builder()
      .provide(DB, COUNTING.dataSource()).provide(SAME_DB, COUNTING.dataSource())
      .provide(OTHER_DB, OTHER).provide(POOLED_DB, POOL_OF_ONE).provide(SAME_POOL, POOL_OF_ONE)
      .build();

  String schema;
  BiConsumer<Ctx, Tables> declare;
  /** Whether the app declares its changed version. */
  final boolean[] changed = {false};
  App app;

  @BeforeEach
  void setUp(TestInfo info) {
    schema = PostgresServer.freshSchema(info);
    if (lines("SELECT 1 FROM pg_database WHERE datname = 'cocoindex_test_other'").isEmpty()) {
      execute("CREATE DATABASE cocoindex_test_other");
    }
    app = coco.app(ctx -> declare.accept(ctx,
        Tables.register(ctx, TableHandler.of(ctx, DB, SAME_DB, OTHER_DB, POOLED_DB, SAME_POOL))));
  }

  @AfterEach
  void dropSchema() {
    if (schema != null) { // null when setUp skipped the test: no server
      execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    }
  }

  /** Runs the app, then its changed version twice: the last run sends no statement. */
  void runChangedAndConverge() {
    coco.update(app);
    changed[0] = true;
    coco.update(app);
    COUNTING.take();
    coco.update(app);
    assertThat(COUNTING.take()).as("statements of the rerun after").isEmpty();
  }

  List<String> indexes() {
    return lines("SELECT tablename, indexname FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND indexname NOT LIKE '%_pkey' ORDER BY 1, 2");
  }

  List<String> recordedCommands() {
    return lines("SELECT c.relname || ' ' || e.key FROM pg_class c JOIN pg_namespace n ON n.oid"
        + " = c.relnamespace, jsonb_each(CAST(obj_description(c.oid, 'pg_class') AS jsonb)"
        + " -> 'cocoindex_sql_commands') e WHERE n.nspname = '" + schema + "' AND c.relkind = 'r'"
        + " ORDER BY 1");
  }

  SqlCommand titlesOver(String table) {
    return new SqlCommand("titles", "CREATE OR REPLACE VIEW \"" + schema
        + "\".titles AS SELECT id, title FROM \"" + schema + "\"." + table,
        "DROP VIEW IF EXISTS \"" + schema + "\".titles");
  }

  @Test
  void oneIndexNameOnTablesUnderTwoKeysIsAnIndexOfEachTable() {
    declare = (ctx, tables) -> {
      TableTarget a = tables.mountTable(ctx, DOCS.table(DB, schema, "a"));
      TableTarget b = tables.mountTable(ctx, DOCS.table(SAME_DB, schema, "b"));
      a.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      if (changed[0]) {
        b.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      }
    };
    runChangedAndConverge();

    assertThat(indexes()).containsExactly("a|a__by_title", "b|b__by_title");
  }

  @Test
  void anIndexMovedToATableOfTheSameDatabaseUnderAnotherKeyEndsThere() {
    declare = (ctx, tables) -> {
      TableTarget a = tables.mountTable(ctx, DOCS.table(DB, schema, "a"));
      TableTarget b = tables.mountTable(ctx, DOCS.table(SAME_DB, schema, "b"));
      (changed[0] ? b : a).declareIndex(ctx, IndexSpec.btree("by_title", "title"));
    };
    runChangedAndConverge();

    assertThat(indexes()).containsExactly("b|b__by_title");
  }

  /**
   * Table {@code a}'s index {@code b__c} and table {@code a__b}'s index {@code c} are one name in
   * the schema, {@code a__b__c}: declared under the other key, the second is the error naming
   * both tables, and the first stays.
   */
  @Test
  void anIndexNameTwoTablesUnderTwoKeysWouldShareIsAnErrorNamingBoth() {
    declare = (ctx, tables) -> {
      tables.mountTable(ctx, DOCS.table(DB, schema, "a"))
          .declareIndex(ctx, IndexSpec.btree("b__c", "title"));
      if (changed[0]) {
        tables.mountTable(ctx, DOCS.table(SAME_DB, schema, "a__b"))
            .declareIndex(ctx, IndexSpec.btree("c", "views"));
      }
    };
    coco.update(app);
    changed[0] = true;

    assertThatThrownBy(() -> coco.update(app)).hasMessageContaining("index c of table " + schema
        + ".a__b cannot be created as " + schema + ".a__b__c: that name is an index of table "
        + schema + ".a (index names are unique in a schema): declare another index name");
    assertThat(lines("SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND indexname = 'a__b__c'"))
        .containsExactly("a|CREATE INDEX a__b__c ON " + schema + ".a USING btree (title)");
  }

  @Test
  void aSqlCommandMovedToATableOfTheSameDatabaseUnderAnotherKeyEndsThere() {
    declare = (ctx, tables) -> {
      TableTarget a = tables.mountTable(ctx, DOCS.table(DB, schema, "a"));
      TableTarget b = tables.mountTable(ctx, DOCS.table(SAME_DB, schema, "b"));
      a.declareRow(ctx, DOCS.row(new Doc(1, "in a", 1)));
      b.declareRow(ctx, DOCS.row(new Doc(2, "in b", 2)));
      (changed[0] ? b : a).declareSqlCommand(ctx, titlesOver(changed[0] ? "b" : "a"));
    };
    runChangedAndConverge();

    assertThat(lines("SELECT * FROM \"" + schema + "\".titles")).containsExactly("2|in b");
    assertThat(recordedCommands()).containsExactly("b titles");
  }

  /**
   * As above, both declared in one run: the two keys' batches are two transactions at once. The
   * one that takes the name first keeps its index, and the other is the same error naming both,
   * not an index silently missing because another table's was created between its look-up of
   * the name and its {@code CREATE INDEX IF NOT EXISTS} (a's creation is held back for that).
   */
  @Test
  void anIndexNameTwoTablesUnderTwoKeysShareInOneRunIsAnErrorNamingBoth() {
    declare = (ctx, tables) -> {
      tables.mountTable(ctx, DOCS.table(DB, schema, "a"))
          .declareIndex(ctx, IndexSpec.btree("b__c", "title"));
      tables.mountTable(ctx, DOCS.table(SAME_DB, schema, "a__b"))
          .declareIndex(ctx, IndexSpec.btree("c", "views"));
    };
    // a's creation waits for b's to start, and b's for a's look-up to be done.
    CountDownLatch aLookedUp = new CountDownLatch(1);
    COUNTING.failBefore(sql -> {
      try {
        if (sql.startsWith("CREATE INDEX") && sql.contains(".\"a\" USING")) {
          aLookedUp.countDown();
          Thread.sleep(500);
        } else if (sql.startsWith("CREATE INDEX")) {
          aLookedUp.await(2, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return false;
    });
    Throwable failure;
    try {
      failure = catchThrowable(() -> coco.update(app));
    } finally {
      COUNTING.failBefore(null);
    }

    List<String> index = indexes();
    assertThat(index).hasSize(1);
    String other = index.get(0).startsWith("a|") ? "a__b" : "a";
    String taker = other.equals("a") ? "a__b" : "a";
    String error = "index " + (other.equals("a") ? "b__c" : "c") + " of table "
        + schema + "." + other + " cannot be created as " + schema + ".a__b__c: that name is an"
        + " index of table " + schema + "." + taker + " (index names are unique in a schema):"
        + " declare another index name";
    assertThat(failure).hasMessageContaining(error);
    assertThatThrownBy(() -> coco.update(app)).hasMessageContaining(error);
    assertThat(indexes()).isEqualTo(index);
  }

  /**
   * A table declared under the other key of its database (the key renamed, both still provided)
   * is the same table: the old key's drop at the end of the run leaves it, with its rows, index
   * and view, to the key that declares it now; moved back, it stays too.
   */
  @Test
  void aTableMovedToTheOtherKeyOfItsDatabaseIsHandedOverNotDropped() {
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(changed[0] ? SAME_DB : DB, schema, "a"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "red fox", 1)));
      t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      t.declareSqlCommand(ctx, titlesOver("a"));
    };
    runChangedAndConverge();

    assertThat(indexes()).containsExactly("a|a__by_title");
    assertThat(lines("SELECT * FROM \"" + schema + "\".a")).containsExactly("1|red fox|1");
    assertThat(lines("SELECT * FROM \"" + schema + "\".titles")).containsExactly("1|red fox");
    assertThat(recordedCommands()).containsExactly("a titles");

    changed[0] = false;
    coco.update(app);
    COUNTING.take();
    coco.update(app);
    assertThat(COUNTING.take()).as("statements of the rerun after").isEmpty();
    assertThat(indexes()).containsExactly("a|a__by_title");
    assertThat(lines("SELECT * FROM \"" + schema + "\".a")).containsExactly("1|red fox|1");
    assertThat(lines("SELECT * FROM \"" + schema + "\".titles")).containsExactly("1|red fox");
  }

  /**
   * As above, with both keys provided one pool of a single connection: the sink, holding it, must
   * not wait for a second one to tell that the keys reach one database (one data source does).
   */
  @Test
  void aTableMovedToAKeyOfTheSamePoolOfOneConnectionIsHandedOver() {
    declare = (ctx, tables) -> {
      TableTarget t =
          tables.mountTable(ctx, DOCS.table(changed[0] ? SAME_POOL : POOLED_DB, schema, "a"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "red fox", 1)));
    };
    runChangedAndConverge();

    assertThat(lines("SELECT * FROM \"" + schema + "\".a")).containsExactly("1|red fox|1");
  }

  /**
   * As above, the move interrupted (the table created under the new key, the old key's drop at
   * the end of the run not reached, or its commit lost) and then moved back: the drop under the
   * new key is a hand-over too, though the old key's record changed nothing.
   */
  @ParameterizedTest
  @ValueSource(strings = {"after:CREATE TABLE", "after:INSERT INTO", "after:CREATE INDEX",
      "after:CREATE OR REPLACE VIEW"})
  void aTableMovedBackAfterAnInterruptedMoveToTheOtherKeyIsKept(String fault) {
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(changed[0] ? SAME_DB : DB, schema, "a"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "red fox", 1)));
      t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      t.declareSqlCommand(ctx, titlesOver("a"));
    };
    coco.update(app);
    changed[0] = true;
    String at = fault.substring(fault.indexOf(':') + 1);
    COUNTING.failAfterCommit(sql -> sql.startsWith(at));
    try {
      assertThatThrownBy(() -> coco.update(app)).hasMessageContaining("injected failure");
    } finally {
      COUNTING.failAfterCommit(null);
    }
    changed[0] = false;
    coco.update(app);
    COUNTING.take();
    coco.update(app);
    assertThat(COUNTING.take()).as("statements of the rerun after").isEmpty();

    assertThat(indexes()).containsExactly("a|a__by_title");
    assertThat(lines("SELECT * FROM \"" + schema + "\".a")).containsExactly("1|red fox|1");
    assertThat(lines("SELECT * FROM \"" + schema + "\".titles")).containsExactly("1|red fox");
    assertThat(recordedCommands()).containsExactly("a titles");
  }

  /**
   * A table moved to a key of another database of the same server, under the same schema and
   * name, is created there and dropped from the first: the keys are told apart by the databases
   * they reach, not by the table's name.
   */
  @Test
  void aTableMovedToAnotherDatabaseUnderItsNameIsDroppedFromTheFirst() {
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(changed[0] ? OTHER_DB : DB, schema, "a"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "red fox", 1)));
    };
    try {
      runChangedAndConverge();

      assertThat(lines("SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'"))
          .containsExactly("1");
      assertThat(lines("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid ="
          + " c.relnamespace WHERE n.nspname = '" + schema + "'")).containsExactly("0");
      assertThat(otherLines("SELECT * FROM \"" + schema + "\".a")).containsExactly(
          "1|red fox|1");
    } finally {
      otherLines("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    }
  }

  /** A statement on the other database; its rows as "v1|v2|...". */
  static List<String> otherLines(String sql) {
    try (Connection c = OTHER.getConnection(); Statement st = c.createStatement()) {
      List<String> out = new ArrayList<>();
      if (st.execute(sql)) {
        try (ResultSet rs = st.getResultSet()) {
          while (rs.next()) {
            List<String> cells = new ArrayList<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
              cells.add(String.valueOf(rs.getObject(i)));
            }
            out.add(String.join("|", cells));
          }
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
