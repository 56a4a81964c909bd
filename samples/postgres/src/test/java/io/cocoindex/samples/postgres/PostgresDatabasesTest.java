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
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One PostgreSQL database reached under two {@code ContextKey}s. The connector keeps no names of
 * a run in memory: what is schema-wide (index names, the SQL commands tables record) is read from
 * the database in the sink's transaction, so tables under either key see each other's.
 */
class PostgresDatabasesTest {
  static final ContextKey<DataSource> DB = ContextKey.of("main_db", DataSource.class);
  static final ContextKey<DataSource> SAME_DB = ContextKey.of("same_db", DataSource.class);
  static final CountingDataSource COUNTING = new CountingDataSource(PostgresServer.DATA_SOURCE);

  record Doc(long id, String title, int views) {}

  static final TableSchema<Doc> DOCS = TableSchema.of(Doc.class).primaryKey("id").build();

  @RegisterExtension
  final CocoIndexExtension coco = CocoIndexExtension.builder()
      .provide(DB, COUNTING.dataSource()).provide(SAME_DB, COUNTING.dataSource()).build();

  String schema;
  BiConsumer<Ctx, Tables> declare;
  /** Whether the app declares its changed version. */
  final boolean[] changed = {false};
  App app;

  @BeforeEach
  void setUp(TestInfo info) {
    PostgresServer.require();
    String method = info.getTestMethod().orElseThrow().getName().toLowerCase(Locale.ROOT);
    schema = "t_" + method.substring(0, Math.min(40, method.length())) + "_"
        + Long.toHexString(System.nanoTime() & 0xffffff);
    execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    app = coco.app(ctx ->
        declare.accept(ctx, Tables.register(ctx, TableHandler.of(ctx, DB, SAME_DB))));
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
}
