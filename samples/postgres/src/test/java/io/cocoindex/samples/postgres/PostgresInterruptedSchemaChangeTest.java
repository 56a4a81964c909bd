package io.cocoindex.samples.postgres;

import static io.cocoindex.samples.postgres.PostgresServer.execute;
import static io.cocoindex.samples.postgres.PostgresServer.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.testkit.CocoIndexExtension;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An index moved between tables and a renamed table, each interrupted at one statement (it fails
 * before it runs, or its transaction commits and the engine is told it failed, as when the
 * process dies there), then run again: the rerun ends with exactly the declared schema and rows,
 * and the run after it sends no statement.
 */
class PostgresInterruptedSchemaChangeTest {
  static final ContextKey<DataSource> DB = ContextKey.of("main_db", DataSource.class);
  static final CountingDataSource COUNTING = new CountingDataSource(PostgresServer.DATA_SOURCE);

  record Doc(long id, String title, int views) {}

  static final TableSchema<Doc> DOCS = TableSchema.of(Doc.class).primaryKey("id").build();

  @RegisterExtension
  final CocoIndexExtension coco =
      CocoIndexExtension.builder().provide(DB, COUNTING.dataSource()).build();

  String schema;
  BiConsumer<Ctx, Tables> declare;
  final boolean[] changed = {false};
  App app;

  @BeforeEach
  void setUp(TestInfo info) {
    PostgresServer.require();
    String method = info.getTestMethod().orElseThrow().getName().toLowerCase(Locale.ROOT);
    schema = "t_" + method.substring(0, Math.min(40, method.length())) + "_"
        + Long.toHexString(System.nanoTime() & 0xffffff);
    execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    app = coco.app(ctx -> declare.accept(ctx, Tables.register(ctx, TableHandler.of(ctx, DB))));
  }

  @AfterEach
  void dropSchema() {
    COUNTING.failBefore(null);
    COUNTING.failAfterCommit(null);
    if (schema != null) { // null when setUp skipped the test: no server
      execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    }
  }

  /**
   * Runs the app, changes it and runs it with {@code fault} ("none", "before:SQL" or
   * "after:SQL", SQL being the start of the statement to fail at: that update must fail), then
   * runs it again, and once more, which must send no statement.
   */
  void interruptAndConverge(String fault) {
    coco.update(app);
    changed[0] = true;
    if (!fault.equals("none")) {
      String at = fault.substring(fault.indexOf(':') + 1);
      if (fault.startsWith("before:")) {
        COUNTING.failBefore(sql -> sql.startsWith(at));
      } else {
        COUNTING.failAfterCommit(sql -> sql.startsWith(at));
      }
      try {
        assertThatThrownBy(() -> coco.update(app)).hasMessageContaining("injected failure");
      } finally {
        COUNTING.failBefore(null);
        COUNTING.failAfterCommit(null);
      }
    }
    coco.update(app);
    COUNTING.take();
    coco.update(app);
    assertThat(COUNTING.take()).as("statements of the rerun after").isEmpty();
  }

  List<String> indexes() {
    return lines("SELECT tablename, indexname FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND indexname NOT LIKE '%_pkey' ORDER BY 1, 2");
  }

  List<String> relations() {
    return lines("SELECT c.relname || ' ' || c.relkind::text FROM pg_class c JOIN pg_namespace n"
        + " ON n.oid = c.relnamespace WHERE n.nspname = '" + schema + "' AND c.relkind IN"
        + " ('r', 'v', 'i') AND c.relname NOT LIKE '%_pkey' ORDER BY 1");
  }

  List<String> rows(String table) {
    return lines("SELECT * FROM \"" + schema + "\".\"" + table + "\" ORDER BY 1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE INDEX", "after:CREATE INDEX",
      "before:DROP INDEX", "after:DROP INDEX"})
  void anIndexMovedToAnotherTableEndsOnThatTable(String fault) {
    declare = (ctx, tables) -> {
      TableTarget a = tables.mountTable(ctx, DOCS.table(DB, schema, "a"));
      TableTarget b = tables.mountTable(ctx, DOCS.table(DB, schema, "b"));
      a.declareRow(ctx, DOCS.row(new Doc(1, "in a", 1)));
      b.declareRow(ctx, DOCS.row(new Doc(2, "in b", 2)));
      (changed[0] ? b : a).declareIndex(ctx, IndexSpec.btree("by_title", "title"));
    };
    interruptAndConverge(fault);

    assertThat(indexes()).containsExactly("b|b__by_title");
    assertThat(rows("a")).containsExactly("1|in a|1");
    assertThat(rows("b")).containsExactly("2|in b|2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "before:CREATE TABLE", "after:CREATE TABLE",
      "before:INSERT INTO", "after:INSERT INTO", "before:CREATE INDEX", "after:CREATE INDEX",
      "before:CREATE OR REPLACE VIEW", "after:CREATE OR REPLACE VIEW",
      "before:DROP TABLE", "after:DROP TABLE"})
  void aRenamedTableEndsUnderItsNewNameWithItsRowsIndexAndView(String fault) {
    declare = (ctx, tables) -> {
      String name = changed[0] ? "b" : "a";
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, name));
      t.declareRow(ctx, DOCS.row(new Doc(1, "red fox", 1)));
      t.declareRow(ctx, DOCS.row(new Doc(2, "blue whale", 2)));
      t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      t.declareSqlCommand(ctx, new SqlCommand("titles", "CREATE OR REPLACE VIEW \"" + schema
          + "\".titles AS SELECT id, title FROM \"" + schema + "\"." + name,
          "DROP VIEW IF EXISTS \"" + schema + "\".titles"));
    };
    interruptAndConverge(fault);

    assertThat(relations()).containsExactly("b r", "b__by_title i", "titles v");
    assertThat(rows("b")).containsExactly("1|red fox|1", "2|blue whale|2");
    assertThat(lines("SELECT * FROM \"" + schema + "\".titles ORDER BY 1"))
        .containsExactly("1|red fox", "2|blue whale");
  }
}
