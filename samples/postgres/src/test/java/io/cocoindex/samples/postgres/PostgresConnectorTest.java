package io.cocoindex.samples.postgres;

import static io.cocoindex.samples.postgres.PostgresServer.execute;
import static io.cocoindex.samples.postgres.PostgresServer.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.testkit.CocoIndexExtension;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The PostgreSQL connector against a real server, checked through the server's own catalogs. */
class PostgresConnectorTest {
  static final ContextKey<DataSource> DB = ContextKey.of("main_db", DataSource.class);
  static final CountingDataSource COUNTING = new CountingDataSource(PostgresServer.DATA_SOURCE);
  static final String TABLE = "cocoindex.io/postgres/table";

  record Doc(long id, String title, int views) {}

  static final TableSchema<Doc> DOCS = TableSchema.of(Doc.class).primaryKey("id").build();

  @RegisterExtension
  final CocoIndexExtension coco =
      CocoIndexExtension.builder().provide(DB, COUNTING.dataSource()).build();

  String schema;
  /** What the app declares on its next run; tests change it between runs. */
  BiConsumer<Ctx, Tables> declare = (ctx, tables) -> {};
  final List<Doc> docs = new ArrayList<>();
  App app;

  @BeforeEach
  void setUp(TestInfo info) {
    schema = PostgresServer.freshSchema(info);
    app = coco.app(ctx -> declare.accept(ctx, Tables.register(ctx, TableHandler.of(ctx, DB))));
    COUNTING.take();
    COUNTING.takeConnections();
    COUNTING.takeLookUps();
  }

  @AfterEach
  void dropSchema() {
    if (schema != null) {
      execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
    }
  }

  /** Declares the docs table with the rows of {@link #docs}. */
  void declareDocs() {
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, DOCS.table(DB, schema, "docs"));
      docs.forEach(d -> t.declareRow(ctx, DOCS.row(d)));
    };
  }

  List<String> columns(String table) {
    return lines("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema"
        + " = '" + schema + "' AND table_name = '" + table + "' ORDER BY ordinal_position");
  }

  List<String> tables() {
    return lines("SELECT table_name FROM information_schema.tables WHERE table_schema = '"
        + schema + "' ORDER BY table_name");
  }

  List<String> rows(String table) {
    return lines("SELECT * FROM \"" + schema + "\".\"" + table + "\" ORDER BY 1");
  }

  /** The column's attribute number: unchanged by an in-place type change, new after a re-add. */
  String attnum(String table, String column) {
    return lines("SELECT attnum FROM pg_attribute WHERE attrelid = '\"" + schema + "\".\"" + table
        + "\"'::regclass AND attname = '" + column + "' AND NOT attisdropped").get(0);
  }

  @Test
  void createsTheTableAndItsRows() {
    docs.add(new Doc(1, "alpha", 10));
    docs.add(new Doc(2, "beta", 20));
    declareDocs();
    assertThat(coco.update(app)).hasSize(3).anyMatch(a -> a.startsWith(TABLE + " create"));
    assertThat(columns("docs"))
        .containsExactly("id|bigint", "title|text", "views|integer");
    assertThat(lines("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid ="
        + " i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND i.indrelid = '\""
        + schema + "\".docs'::regclass")).containsExactly("id");
    assertThat(rows("docs")).containsExactly("1|alpha|10", "2|beta|20");
  }

  enum Kind { PLAIN, SPECIAL }

  /** A component of every Java type the schema derives a column type for. */
  record Every(UUID id, short small, byte tiny, float ratio, boolean flag, byte[] blob,
      BigDecimal amount, LocalDate day, LocalTime at, LocalDateTime local, Instant instant,
      OffsetDateTime offset, Kind kind) {}

  @Test
  void everyDerivedColumnTypeIsWrittenAndReadBackAndAnUnchangedRerunSendsNothing() {
    TableSchema<Every> schemaOfEvery = TableSchema.of(Every.class).primaryKey("id").build();
    List<Every> every = new ArrayList<>(List.of(
        new Every(UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), (short) -7, (byte) 3,
            0.5f, true, new byte[] {0, 1, (byte) 0xff}, new BigDecimal("12.30"),
            LocalDate.of(2024, 2, 29), LocalTime.of(23, 59, 58, 123_456_000),
            LocalDateTime.of(2024, 3, 1, 10, 0), Instant.parse("2024-03-01T10:00:00Z"),
            OffsetDateTime.parse("2024-03-01T12:00:00+02:00"), Kind.SPECIAL),
        new Every(UUID.fromString("00000000-0000-0000-0000-000000000001"), (short) 0, (byte) 0,
            -1.25f, false, new byte[0], BigDecimal.ZERO, LocalDate.of(1970, 1, 1),
            LocalTime.MIDNIGHT, LocalDateTime.of(1999, 12, 31, 23, 59, 59),
            Instant.EPOCH, OffsetDateTime.parse("1970-01-01T00:00:00Z"), Kind.PLAIN)));
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, schemaOfEvery.table(DB, schema, "every"));
      every.forEach(e -> t.declareRow(ctx, schemaOfEvery.row(e)));
    };
    coco.update(app);

    assertThat(columns("every")).containsExactly("id|uuid", "small|smallint", "tiny|smallint",
        "ratio|real", "flag|boolean", "blob|bytea", "amount|numeric", "day|date",
        "at|time without time zone", "local|timestamp without time zone",
        "instant|timestamp with time zone", "offset|timestamp with time zone", "kind|text");
    // Each column as the server prints it (those with a time zone, in UTC).
    String read = "SELECT id::text, small::text, tiny::text, ratio::text, flag::text,"
        + " encode(blob, 'hex') AS blob, amount::text, day::text, at::text, local::text,"
        + " (instant AT TIME ZONE 'UTC')::text AS instant, (\"offset\" AT TIME ZONE 'UTC')::text"
        + " AS \"offset\", kind FROM \"" + schema + "\".every ORDER BY id";
    assertThat(lines(read)).containsExactly(
        "00000000-0000-0000-0000-000000000001|0|0|-1.25|false||0|1970-01-01|00:00:00"
            + "|1999-12-31 23:59:59|1970-01-01 00:00:00|1970-01-01 00:00:00|PLAIN",
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|-7|3|0.5|true|0001ff|12.30|2024-02-29"
            + "|23:59:58.123456|2024-03-01 10:00:00|2024-03-01 10:00:00|2024-03-01 10:00:00"
            + "|SPECIAL");
    COUNTING.take();
    COUNTING.takeConnections();

    coco.update(app);
    assertThat(COUNTING.take()).as("an unchanged rerun").isEmpty();

    // The same values built anew (equal content, other instances) change nothing either.
    every.replaceAll(e -> new Every(e.id(), e.small(), e.tiny(), e.ratio(), e.flag(),
        e.blob().clone(), new BigDecimal(e.amount().toPlainString()), e.day(), e.at(), e.local(),
        e.instant(), e.offset(), e.kind()));
    coco.update(app);
    assertThat(COUNTING.take()).as("a rerun of equal values").isEmpty();

    // One byte of one blob changes: that row alone is written.
    every.set(0, new Every(every.get(0).id(), (short) -7, (byte) 3, 0.5f, true,
        new byte[] {0, 1, (byte) 0xfe}, new BigDecimal("12.30"), every.get(0).day(),
        every.get(0).at(), every.get(0).local(), every.get(0).instant(), every.get(0).offset(),
        Kind.SPECIAL));
    assertThat(coco.update(app)).filteredOn(a -> !a.startsWith(TABLE + " ")).hasSize(1);
    assertThat(lines("SELECT encode(blob, 'hex') FROM \"" + schema + "\".every ORDER BY id"))
        .containsExactly("", "0001fe");
  }

  /** An app declaring table docs, as its own or as a user's, with these rows. */
  App docsApp(String name, boolean userTable, Doc... rows) {
    return coco.app(name, ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB)).declareTable(ctx,
          userTable ? DOCS.userTable(DB, schema, "docs") : DOCS.table(DB, schema, "docs"));
      for (Doc d : rows) {
        t.declareRow(ctx, DOCS.row(d));
      }
    });
  }

  String comment(String table) {
    return lines("SELECT obj_description('\"" + schema + "\"." + table + "'::regclass,"
        + " 'pg_class')").get(0);
  }

  @Test
  void aTableAnotherAppMadeIsAClearErrorAndKeepsItsRows() {
    App first = docsApp("first", false, new Doc(1, "alpha", 10));
    App second = docsApp("second", false, new Doc(2, "beta", 20));
    coco.update(first);
    assertThat(comment("docs")).isEqualTo("{\"cocoindex_app\": \"first\"}");

    assertThatThrownBy(() -> coco.update(second)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("table " + schema + ".docs cannot be managed by app 'second': app"
            + " 'first' made it (its COMMENT records so), and two apps cannot both create, change"
            + " and drop one table");
    assertThat(rows("docs")).containsExactly("1|alpha|10");
    second.dropState();
    assertThat(rows("docs")).containsExactly("1|alpha|10");

    // Declared as a user's table, the second app writes its rows there, and leaves the table.
    App writer = docsApp("writer", true, new Doc(2, "beta", 20));
    coco.update(writer);
    assertThat(rows("docs")).containsExactly("1|alpha|10", "2|beta|20");
    assertThat(comment("docs")).isEqualTo("{\"cocoindex_app\": \"first\"}");
  }

  @Test
  void aTableMadeByHandIsTakenOverAndThenRecordsItsAppUnlessItHasAUsersComment() {
    execute("CREATE SCHEMA \"" + schema + "\"",
        "CREATE TABLE \"" + schema + "\".docs (id bigint PRIMARY KEY, title text, views integer)",
        "CREATE TABLE \"" + schema + "\".notes (id bigint PRIMARY KEY, title text, views integer)",
        "COMMENT ON TABLE \"" + schema + "\".notes IS 'the team''s notes'");
    App app = coco.app("taker", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      for (String table : List.of("docs", "notes")) {
        tables.declareTable(ctx, DOCS.table(DB, schema, table))
            .declareRow(ctx, DOCS.row(new Doc(1, table, 1)));
      }
    });
    coco.update(app);
    assertThat(rows("docs")).containsExactly("1|docs|1");
    assertThat(comment("docs")).isEqualTo("{\"cocoindex_app\": \"taker\"}");
    assertThat(comment("notes")).isEqualTo("the team's notes");
  }

  /**
   * An app that took over a table before it recorded its app (here: a table whose record a
   * by-hand drop took away) no longer declares it, after another app made it anew: the table,
   * now the other app's, is not dropped.
   */
  @Test
  void aTableAnotherAppMadeIsNotDroppedByAnAppThatNoLongerDeclaresIt() {
    boolean[] declared = {true};
    App older = coco.app("older", ctx -> {
      Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
      if (declared[0]) {
        tables.declareTable(ctx, DOCS.table(DB, schema, "docs"))
            .declareRow(ctx, DOCS.row(new Doc(1, "old", 1)));
      }
    });
    coco.update(older);
    execute("DROP TABLE \"" + schema + "\".docs");
    coco.update(docsApp("newer", false, new Doc(9, "new", 9)));

    declared[0] = false;
    coco.update(older);
    assertThat(rows("docs")).containsExactly("9|new|9");
    assertThat(comment("docs")).isEqualTo("{\"cocoindex_app\": \"newer\"}");
  }

  @Test
  void updatesAndDeletesRows() {
    docs.add(new Doc(1, "alpha", 10));
    docs.add(new Doc(2, "beta", 20));
    declareDocs();
    coco.update(app);

    docs.set(0, new Doc(1, "alpha v2", 11));
    docs.remove(1);
    docs.add(new Doc(3, "gamma", 30));
    List<String> applied = coco.update(app);
    assertThat(applied).filteredOn(a -> !a.startsWith(TABLE + " ")).hasSize(3)
        .anyMatch(a -> a.contains(" update ") && a.endsWith(" 1"))
        .anyMatch(a -> a.contains(" delete ") && a.endsWith(" 2"))
        .anyMatch(a -> a.contains(" create ") && a.endsWith(" 3"));
    assertThat(rows("docs")).containsExactly("1|alpha v2|11", "3|gamma|30");
  }

  @Test
  void unchangedRerunSendsNoStatementAndKeepsTheData() {
    docs.add(new Doc(1, "alpha", 10));
    docs.add(new Doc(2, "beta", 20));
    declareDocs();
    coco.update(app);
    assertThat(COUNTING.take()).isNotEmpty();
    COUNTING.takeConnections();

    // Only the container's own (empty) update runs: it is what resolves the rows' handler,
    // which looks the table up (dropped by hand?) on a connection of its own.
    assertThat(coco.update(app)).containsExactly(TABLE + " update [\"main_db\", \"" + schema
        + "\", \"docs\"]");
    assertThat(COUNTING.take()).isEmpty();
    assertThat(COUNTING.takeLookUps()).isOne();
    assertThat(COUNTING.takeConnections()).isOne();
    assertThat(rows("docs")).containsExactly("1|alpha|10", "2|beta|20");
  }

  /**
   * A table dropped by hand (with its index and, by CASCADE, its view) comes back whole in the
   * next run: every row, memoized components' included, its index and its view; a preview before
   * shows them and creates nothing.
   */
  @Test
  void aTableDroppedByHandComesBackWholeInTheNextRun() {
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
      t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      t.declareSqlCommand(ctx, viewOver("docs"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "alpha", 10)));
      for (long id : new long[] {2, 3}) {
        ctx.mountMemo(id, Fingerprint.ofString("source of " + id),
            c -> t.declareRow(c, DOCS.row(new Doc(id, "doc " + id, (int) id))));
      }
    };
    coco.update(app);
    execute("DROP TABLE \"" + schema + "\".docs CASCADE");

    assertThat(app.preview().changes()).hasSize(5);
    assertThat(tables()).isEmpty();

    UpdateStats stats = app.update();
    assertThat(rows("docs")).containsExactly("1|alpha|10", "2|doc 2|2", "3|doc 3|3");
    assertThat(indexes()).containsExactly("docs|docs__by_title");
    assertThat(views()).containsExactly("v");
    assertThat(comment("docs")).startsWith("{\"cocoindex_app\": \"" + app.name() + "\", ");
    assertThat(stats.componentsMemoized()).isZero();

    assertThat(app.update().componentsMemoized()).isEqualTo(2);
  }

  /** A user's table dropped by hand is the user's to create again: the connector does not. */
  @Test
  void aUsersTableDroppedByHandIsNotCreatedAgain() {
    execute("CREATE SCHEMA \"" + schema + "\"");
    execute("CREATE TABLE \"" + schema + "\".docs (id bigint PRIMARY KEY, title text, views int)");
    declare = (ctx, tables) -> tables.declareTable(ctx, DOCS.userTable(DB, schema, "docs"))
        .declareRow(ctx, DOCS.row(new Doc(1, "alpha", 10)));
    coco.update(app);
    execute("DROP TABLE \"" + schema + "\".docs");
    COUNTING.takeLookUps();

    coco.update(app);
    assertThat(tables()).isEmpty();
    // Its comment is looked at (whose table is it?), not created.
    assertThat(COUNTING.takeLookUps()).isOne();
  }

  @Test
  void tableNoLongerDeclaredIsDropped() {
    docs.add(new Doc(1, "alpha", 10));
    declareDocs();
    coco.update(app);
    assertThat(tables()).containsExactly("docs");

    declare = (ctx, tables) -> {};
    assertThat(coco.update(app))
        .containsExactly(TABLE + " delete [\"main_db\", \"" + schema + "\", \"docs\"]");
    assertThat(tables()).isEmpty();
  }

  @Test
  void twoTablesSideBySide() {
    declare = (ctx, tables) -> {
      TableTarget a = tables.mountTable(ctx, DOCS.table(DB, schema, "docs_a"));
      TableTarget b = tables.mountTable(ctx, DOCS.table(DB, schema, "docs_b"));
      a.declareRow(ctx, DOCS.row(new Doc(1, "in a", 1)));
      b.declareRow(ctx, DOCS.row(new Doc(1, "in b", 2)));
      b.declareRow(ctx, DOCS.row(new Doc(2, "also in b", 3)));
    };
    coco.update(app);
    assertThat(tables()).containsExactly("docs_a", "docs_b");
    assertThat(rows("docs_a")).containsExactly("1|in a|1");
    assertThat(rows("docs_b")).containsExactly("1|in b|2", "2|also in b|3");

    declare = (ctx, tables) -> {
      TableTarget b = tables.mountTable(ctx, DOCS.table(DB, schema, "docs_b"));
      b.declareRow(ctx, DOCS.row(new Doc(1, "in b", 2)));
      b.declareRow(ctx, DOCS.row(new Doc(2, "also in b", 3)));
    };
    coco.update(app);
    assertThat(tables()).containsExactly("docs_b");
    assertThat(rows("docs_b")).containsExactly("1|in b|2", "2|also in b|3");
  }

  @Test
  void userManagedTableGetsRowsButNoDdlAndSurvivesRemoval() {
    execute("CREATE SCHEMA \"" + schema + "\"",
        "CREATE TABLE \"" + schema + "\".mine (id bigint PRIMARY KEY, title text, views integer,"
            + " note text DEFAULT 'user column')");
    COUNTING.take();
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, DOCS.userTable(DB, schema, "mine"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "alpha", 10)));
    };
    coco.update(app);
    assertThat(COUNTING.take()).allMatch(sql -> sql.startsWith("INSERT INTO"));
    assertThat(rows("mine")).containsExactly("1|alpha|10|user column");

    // No longer declared: its Delete looks for what the app made on it (nothing here) and
    // changes nothing (PostgresUserTableTest).
    declare = (ctx, tables) -> {};
    assertThat(coco.update(app))
        .containsExactly(TABLE + " delete [\"main_db\", \"" + schema + "\", \"mine\"]");
    assertThat(COUNTING.take()).isNotEmpty().allMatch(sql -> sql.startsWith("SELECT"));
    assertThat(coco.update(app)).isEmpty();
    assertThat(COUNTING.take()).isEmpty();
    assertThat(columns("mine")).hasSize(4);
    assertThat(rows("mine")).containsExactly("1|alpha|10|user column");
  }

  record DocV1(long id, String title) {}

  record DocV2(long id, String title, String body) {}

  @Test
  void addedColumnIsAddedInPlace() {
    TableSchema<DocV1> v1 = TableSchema.of(DocV1.class).primaryKey("id").build();
    TableSchema<DocV2> v2 = TableSchema.of(DocV2.class).primaryKey("id").build();
    declare = (ctx, tables) -> tables.declareTable(ctx, v1.table(DB, schema, "docs"))
        .declareRow(ctx, v1.row(new DocV1(1, "alpha")));
    coco.update(app);
    String titleAttnum = attnum("docs", "title");

    declare = (ctx, tables) -> tables.declareTable(ctx, v2.table(DB, schema, "docs"))
        .declareRow(ctx, v2.row(new DocV2(1, "alpha", "text")));
    coco.update(app);
    assertThat(COUNTING.take()).anyMatch(sql -> sql.contains("ADD COLUMN IF NOT EXISTS \"body\""))
        .noneMatch(sql -> sql.contains("DROP TABLE"));
    assertThat(columns("docs")).containsExactly("id|bigint", "title|text", "body|text");
    assertThat(attnum("docs", "title")).isEqualTo(titleAttnum);
    assertThat(rows("docs")).containsExactly("1|alpha|text");
  }

  @Test
  void droppedColumnIsDroppedAndRowsAreRewritten() {
    TableSchema<DocV2> v2 = TableSchema.of(DocV2.class).primaryKey("id").build();
    TableSchema<DocV1> v1 = TableSchema.of(DocV1.class).primaryKey("id").build();
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, v2.table(DB, schema, "docs"));
      t.declareRow(ctx, v2.row(new DocV2(1, "alpha", "text")));
      t.declareRow(ctx, v2.row(new DocV2(2, "beta", "more")));
    };
    coco.update(app);

    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, v1.table(DB, schema, "docs"));
      t.declareRow(ctx, v1.row(new DocV1(1, "alpha")));
      t.declareRow(ctx, v1.row(new DocV1(2, "beta")));
    };
    coco.update(app);
    assertThat(columns("docs")).containsExactly("id|bigint", "title|text");
    assertThat(rows("docs")).containsExactly("1|alpha", "2|beta");
  }

  record Counter(long id, int views) {}

  @Test
  void typeChangeThatKeepsDataConvertsInPlace() {
    TableSchema<Counter> asInteger = TableSchema.of(Counter.class).primaryKey("id").build();
    TableSchema<Counter> asBigint =
        TableSchema.of(Counter.class).primaryKey("id").columnType("views", "BIGINT").build();
    declare = (ctx, tables) -> tables.declareTable(ctx, asInteger.table(DB, schema, "counters"))
        .declareRow(ctx, asInteger.row(new Counter(1, 42)));
    coco.update(app);
    String before = attnum("counters", "views");
    COUNTING.take();

    declare = (ctx, tables) -> tables.declareTable(ctx, asBigint.table(DB, schema, "counters"))
        .declareRow(ctx, asBigint.row(new Counter(1, 42)));
    coco.update(app);
    assertThat(COUNTING.take())
        .anyMatch(sql -> sql.contains("ALTER COLUMN \"views\" TYPE bigint"))
        .noneMatch(sql -> sql.contains("DROP COLUMN"));
    assertThat(columns("counters")).containsExactly("id|bigint", "views|bigint");
    assertThat(attnum("counters", "views")).isEqualTo(before);
    assertThat(rows("counters")).containsExactly("1|42");
  }

  @Test
  void aSynonymOfTheColumnTypeIsNoTypeChange() {
    TableSchema<Counter> asInt =
        TableSchema.of(Counter.class).primaryKey("id").columnType("views", "int").build();
    TableSchema<Counter> asInteger =
        TableSchema.of(Counter.class).primaryKey("id").columnType("views", "INTEGER").build();
    declare = (ctx, tables) -> tables.declareTable(ctx, asInt.table(DB, schema, "counters"))
        .declareRow(ctx, asInt.row(new Counter(1, 42)));
    coco.update(app);
    COUNTING.take();

    declare = (ctx, tables) -> tables.declareTable(ctx, asInteger.table(DB, schema, "counters"))
        .declareRow(ctx, asInteger.row(new Counter(1, 42)));
    assertThat(coco.update(app)).containsExactly(
        TABLE + " update [\"main_db\", \"" + schema + "\", \"counters\"]");
    assertThat(COUNTING.take()).isEmpty();
    assertThat(columns("counters")).containsExactly("id|bigint", "views|integer");
  }

  record Coded(long id, String code) {}

  record CodedNumber(long id, int code) {}

  @Test
  void typeChangeThatCannotConvertDropsAndReaddsTheColumn() {
    TableSchema<Coded> text = TableSchema.of(Coded.class).primaryKey("id").build();
    TableSchema<CodedNumber> number = TableSchema.of(CodedNumber.class).primaryKey("id").build();
    declare = (ctx, tables) -> tables.declareTable(ctx, text.table(DB, schema, "codes"))
        .declareRow(ctx, text.row(new Coded(1, "not a number")));
    coco.update(app);
    String before = attnum("codes", "code");
    COUNTING.take();

    declare = (ctx, tables) -> tables.declareTable(ctx, number.table(DB, schema, "codes"))
        .declareRow(ctx, number.row(new CodedNumber(1, 7)));
    String log = captureStandardError(() -> coco.update(app));
    assertThat(log).contains("WARN").contains("column code of \"" + schema + "\".\"codes\" cannot"
        + " be converted to integer").contains("dropping and re-adding it");
    assertThat(COUNTING.take())
        .anyMatch(sql -> sql.contains("ALTER COLUMN \"code\" TYPE integer"))
        .anyMatch(sql -> sql.contains("DROP COLUMN IF EXISTS \"code\""))
        .anyMatch(sql -> sql.contains("ADD COLUMN \"code\" integer"));
    assertThat(columns("codes")).containsExactly("id|bigint", "code|integer");
    assertThat(attnum("codes", "code")).isNotEqualTo(before);
    assertThat(rows("codes")).containsExactly("1|7");
  }

  /** What slf4j-simple (which writes to the current System.err) logged while {@code body} ran. */
  static String captureStandardError(Runnable body) {
    java.io.PrintStream original = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(original);
    }
    String text = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
    original.print(text);
    return text;
  }

  record Keyed(String tenant, long id, String title) {}

  @Test
  void primaryKeyChangeRecreatesTheTableAndItsRows() {
    TableSchema<Keyed> byId = TableSchema.of(Keyed.class).primaryKey("id").build();
    TableSchema<Keyed> byTenantAndId =
        TableSchema.of(Keyed.class).primaryKey("tenant", "id").build();
    List<Keyed> rows = List.of(new Keyed("a", 1, "one"), new Keyed("b", 2, "two"));
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, byId.table(DB, schema, "keyed"));
      rows.forEach(r -> t.declareRow(ctx, byId.row(r)));
    };
    coco.update(app);
    execute("INSERT INTO \"" + schema + "\".keyed VALUES ('z', 99, 'stray row')");

    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, byTenantAndId.table(DB, schema, "keyed"));
      rows.forEach(r -> t.declareRow(ctx, byTenantAndId.row(r)));
    };
    List<String> applied = coco.update(app);
    // DESTRUCTIVE: the rows are created anew, and no delete is sent for the old keys.
    assertThat(applied).filteredOn(a -> !a.startsWith(TABLE + " ")).hasSize(2)
        .allMatch(a -> a.contains(" create "));
    assertThat(lines("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid ="
        + " i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND i.indrelid = '\""
        + schema + "\".keyed'::regclass ORDER BY a.attname")).containsExactly("id", "tenant");
    assertThat(lines("SELECT tenant, id, title FROM \"" + schema + "\".keyed ORDER BY id"))
        .containsExactly("a|1|one", "b|2|two");
  }

  String indexDef(String name) {
    List<String> defs = lines("SELECT indexdef FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND indexname = '" + name + "'");
    return defs.isEmpty() ? null : defs.get(0);
  }

  String indexOid(String name) {
    return lines("SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        + " WHERE n.nspname = '" + schema + "' AND c.relname = '" + name + "'").get(0);
  }

  @Test
  void indexSpecChangeRecreatesItUnderTheSameNameAndAnIdenticalSpecDoesNothing() {
    docs.add(new Doc(1, "alpha", 10));
    IndexSpec[] index = {IndexSpec.btree("docs_lookup", "title")};
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
      docs.forEach(d -> t.declareRow(ctx, DOCS.row(d)));
      t.declareIndex(ctx, index[0]);
    };
    coco.update(app);
    // Named <table>__<name> in the database: index names are unique per schema.
    assertThat(indexDef("docs__docs_lookup")).contains("USING btree (title)");
    String oid = indexOid("docs__docs_lookup");
    COUNTING.take();

    coco.update(app);
    assertThat(COUNTING.take()).isEmpty();
    assertThat(indexOid("docs__docs_lookup")).isEqualTo(oid);

    index[0] = new IndexSpec("docs_lookup", List.of("title", "views"), true, "btree");
    assertThat(coco.update(app)).anyMatch(a -> a.contains(" update ") && a.endsWith("docs_lookup\""));
    assertThat(COUNTING.take()).filteredOn(sql -> !sql.startsWith("SELECT")).containsExactly(
        "DROP INDEX IF EXISTS \"" + schema + "\".\"docs__docs_lookup\"",
        "CREATE UNIQUE INDEX IF NOT EXISTS \"docs__docs_lookup\" ON \"" + schema + "\".\"docs\""
            + " USING btree (\"title\", \"views\")",
        "COMMENT ON INDEX \"" + schema + "\".\"docs__docs_lookup\" IS '{\"cocoindex_app\":"
            + " \"" + app.name() + "\"}'");
    assertThat(indexDef("docs__docs_lookup")).contains("UNIQUE INDEX docs__docs_lookup")
        .contains("USING btree (title, views)");
    assertThat(indexOid("docs__docs_lookup")).isNotEqualTo(oid);
  }

  @Test
  void indexNoLongerDeclaredIsDropped() {
    boolean[] withIndex = {true};
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "alpha", 10)));
      if (withIndex[0]) {
        t.declareIndex(ctx, IndexSpec.btree("docs_views", "views"));
      }
    };
    coco.update(app);
    assertThat(indexDef("docs__docs_views")).isNotNull();

    withIndex[0] = false;
    coco.update(app);
    assertThat(indexDef("docs__docs_views")).isNull();
    assertThat(rows("docs")).containsExactly("1|alpha|10");
  }

  List<String> indexes() {
    return lines("SELECT tablename, indexname FROM pg_indexes WHERE schemaname = '" + schema
        + "' AND indexname NOT LIKE '%_pkey' ORDER BY 1, 2");
  }

  @Test
  void twoTablesMayDeclareIndexesOfTheSameName() {
    declare = (ctx, tables) -> {
      tables.mountTable(ctx, DOCS.table(DB, schema, "a"))
          .declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      tables.mountTable(ctx, DOCS.table(DB, schema, "b"))
          .declareIndex(ctx, IndexSpec.btree("by_title", "title"));
    };
    coco.update(app);
    assertThat(indexes()).containsExactly("a|a__by_title", "b|b__by_title");

    declare = (ctx, tables) -> {
      tables.mountTable(ctx, DOCS.table(DB, schema, "a"));
      tables.mountTable(ctx, DOCS.table(DB, schema, "b"))
          .declareIndex(ctx, IndexSpec.btree("by_title", "title"));
    };
    coco.update(app);
    assertThat(indexes()).containsExactly("b|b__by_title");
  }

  @Test
  void anIndexMovedToAnotherTableEndsOnThatTable() {
    String[] on = {"a"};
    declare = (ctx, tables) -> {
      TableTarget a = tables.mountTable(ctx, DOCS.table(DB, schema, "a"));
      TableTarget b = tables.mountTable(ctx, DOCS.table(DB, schema, "b"));
      (on[0].equals("a") ? a : b).declareIndex(ctx, IndexSpec.btree("by_title", "title"));
    };
    coco.update(app);
    assertThat(indexes()).containsExactly("a|a__by_title");

    on[0] = "b"; // b's index is created before a's is dropped, at the end of the run
    coco.update(app);
    assertThat(indexes()).containsExactly("b|b__by_title");
    assertThat(coco.update(app)).allMatch(a -> a.startsWith(TABLE + " update "));
    assertThat(indexes()).containsExactly("b|b__by_title");
  }

  @Test
  void anIndexNamedLikeThePrimaryKeyIsItsOwnIndex() {
    boolean[] declared = {true};
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
      if (declared[0]) {
        t.declareIndex(ctx, IndexSpec.btree("docs_pkey", "title"));
      }
    };
    coco.update(app);
    assertThat(lines("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = '" + schema
        + "' ORDER BY 1")).containsExactly(
        "docs__docs_pkey|CREATE INDEX docs__docs_pkey ON " + schema + ".docs USING btree (title)",
        "docs_pkey|CREATE UNIQUE INDEX docs_pkey ON " + schema + ".docs USING btree (id)");

    declared[0] = false;
    coco.update(app);
    assertThat(lines("SELECT indexname FROM pg_indexes WHERE schemaname = '" + schema + "'"))
        .containsExactly("docs_pkey");
  }

  @Test
  void anIndexNameAnotherRelationHoldsIsAnErrorNamingIt() {
    execute("CREATE SCHEMA \"" + schema + "\"",
        "CREATE TABLE \"" + schema + "\".docs__by_title (id bigint)");
    declare = (ctx, tables) -> tables.mountTable(ctx, DOCS.table(DB, schema, "docs"))
        .declareIndex(ctx, IndexSpec.btree("by_title", "title"));
    assertThatThrownBy(() -> coco.update(app)).hasMessageContaining(
        "index by_title of table " + schema + ".docs cannot be created as " + schema
            + ".docs__by_title: that name is the table " + schema + ".docs__by_title (index"
            + " names are unique in a schema): declare another index name");
    assertThat(tables()).containsExactly("docs", "docs__by_title");
    assertThat(indexes()).isEmpty();
  }

  /**
   * Relation names are schema-wide: a table named as another table's index ({@code docs} with
   * index {@code by_title} is {@code docs__by_title}) is an error naming the index, not the raw
   * error of an {@code ALTER} on an index; the index and its table stay.
   */
  @Test
  void aTableNameAnIndexHoldsIsAnErrorNamingIt() {
    declare = (ctx, tables) -> tables.mountTable(ctx, DOCS.table(DB, schema, "docs"))
        .declareIndex(ctx, IndexSpec.btree("by_title", "title"));
    coco.update(app);
    declare = declare.andThen((ctx, tables) ->
        tables.declareTable(ctx, DOCS.table(DB, schema, "docs__by_title")));

    assertThatThrownBy(() -> coco.update(app)).hasMessageContaining(
        "table " + schema + ".docs__by_title cannot be created: that name is an index of table "
            + schema + ".docs (relation names are unique in a schema): declare another table name");
    assertThat(tables()).containsExactly("docs");
    assertThat(indexes()).containsExactly("docs|docs__by_title");
  }

  @Test
  void aLongIndexNameIsShortenedWithAHashNotTruncated() {
    String table = "t".repeat(60);
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, table));
      t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      t.declareIndex(ctx, IndexSpec.btree("by_views", "views"));
    };
    coco.update(app);
    assertThat(indexes()).containsExactlyInAnyOrder(table + "|" + IndexNames.of(table, "by_title"),
        table + "|" + IndexNames.of(table, "by_views"));
    // 60 + 2 + 8 characters would be truncated by PostgreSQL to one name for both.
    assertThat(IndexNames.of(table, "by_title")).matches("t{54}_[0-9a-f]{8}")
        .isNotEqualTo(IndexNames.of(table, "by_views"));
  }

  @Test
  void sqlCommandTeardownRunsBeforeTheNewSetupAndOnRemoval() {
    execute("CREATE SCHEMA \"" + schema + "\"",
        "CREATE TABLE \"" + schema + "\".log (seq serial PRIMARY KEY, entry text)");
    String log = "\"" + schema + "\".log";
    SqlCommand[] command = {new SqlCommand("audit",
        "INSERT INTO " + log + " (entry) VALUES ('setup v1')",
        "INSERT INTO " + log + " (entry) VALUES ('teardown v1')")};
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
      if (command[0] != null) {
        t.declareSqlCommand(ctx, command[0]);
      }
    };
    coco.update(app);
    coco.update(app); // unchanged: nothing runs again
    assertThat(lines("SELECT entry FROM " + log + " ORDER BY seq")).containsExactly("setup v1");

    command[0] = new SqlCommand("audit",
        "INSERT INTO " + log + " (entry) VALUES ('setup v2')",
        "INSERT INTO " + log + " (entry) VALUES ('teardown v2')");
    coco.update(app);
    assertThat(lines("SELECT entry FROM " + log + " ORDER BY seq"))
        .containsExactly("setup v1", "teardown v1", "setup v2");

    command[0] = null;
    coco.update(app);
    assertThat(lines("SELECT entry FROM " + log + " ORDER BY seq"))
        .containsExactly("setup v1", "teardown v1", "setup v2", "teardown v2");
  }

  /** A command making the view {@code v} over {@code table}, as SqlCommand's Javadoc suggests. */
  SqlCommand viewOver(String table) {
    return new SqlCommand("v",
        "CREATE OR REPLACE VIEW \"" + schema + "\".v AS SELECT id, title FROM \"" + schema + "\"."
            + table, "DROP VIEW IF EXISTS \"" + schema + "\".v");
  }

  List<String> views() {
    return lines("SELECT table_name FROM information_schema.views WHERE table_schema = '" + schema
        + "' ORDER BY 1");
  }

  @Test
  void aTableIsDroppedAfterTheTeardownsOfItsSqlCommands() {
    boolean[] declared = {true};
    declare = (ctx, tables) -> {
      if (declared[0]) {
        TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
        t.declareRow(ctx, DOCS.row(new Doc(1, "alpha", 10)));
        t.declareSqlCommand(ctx, viewOver("docs"));
      }
    };
    coco.update(app);
    assertThat(lines("SELECT * FROM \"" + schema + "\".v")).containsExactly("1|alpha");
    // The table's comment records the app that made it and its commands: its Delete alone
    // runs when it goes.
    assertThat(lines("SELECT obj_description('\"" + schema + "\".docs'::regclass, 'pg_class')"))
        .containsExactly("{\"cocoindex_app\": \"" + app.name() + "\", \"cocoindex_sql_commands\":"
            + " {\"v\": {\"app\": \"" + app.name() + "\", \"seq\": 1, \"setup\": \""
            + viewOver("docs").setup().replace("\"", "\\\"") + "\", \"teardown\": \""
            + viewOver("docs").teardown().replace("\"", "\\\"") + "\"}}}");

    declared[0] = false;
    assertThat(coco.update(app))
        .containsExactly(TABLE + " delete [\"main_db\", \"" + schema + "\", \"docs\"]");
    assertThat(tables()).isEmpty();
  }

  /**
   * A command recorded in the table's comment before commands recorded their app is the
   * declaring app's, as an index naming no app is: set up again over and recorded with the app,
   * then torn down when no longer declared.
   */
  @Test
  void aCommandRecordedBeforeAppsWereIsTakenByTheAppDeclaringIt() {
    SqlCommand v = viewOver("docs");
    execute("CREATE SCHEMA \"" + schema + "\"",
        "CREATE TABLE \"" + schema + "\".docs (id bigint PRIMARY KEY, title text, views integer)",
        v.setup(),
        "COMMENT ON TABLE \"" + schema + "\".docs IS '" + ("{\"cocoindex_sql_commands\": {\"v\":"
            + " {\"seq\": 1, \"setup\": \"" + v.setup().replace("\"", "\\\"") + "\","
            + " \"teardown\": \"" + v.teardown().replace("\"", "\\\"") + "\"}}}")
            .replace("'", "''") + "'");
    boolean[] withCommand = {true};
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "alpha", 10)));
      if (withCommand[0]) {
        t.declareSqlCommand(ctx, v);
      }
    };
    coco.update(app);
    assertThat(lines("SELECT obj_description('\"" + schema + "\".docs'::regclass, 'pg_class')"
        + "::jsonb -> 'cocoindex_sql_commands' -> 'v' ->> 'app'")).containsExactly(app.name());
    assertThat(lines("SELECT * FROM \"" + schema + "\".v")).containsExactly("1|alpha");

    withCommand[0] = false;
    coco.update(app);
    assertThat(views()).isEmpty();
    assertThat(comment("docs")).isEqualTo("{\"cocoindex_app\": \"" + app.name() + "\"}");
  }

  @Test
  void dropStateRunsTheTeardownsOfATablesSqlCommandsFirst() {
    declare = (ctx, tables) -> {
      TableTarget t = tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "alpha", 10)));
      t.declareSqlCommand(ctx, viewOver("docs"));
    };
    coco.update(app);
    assertThat(views()).containsExactly("v");

    app.dropState();
    assertThat(tables()).isEmpty();
  }

  record DocByTitle(long id, String title, int views) {}

  @Test
  void aPrimaryKeyChangeRunsTheTeardownsFirstAndTheSetupsAgain() {
    TableSchema<DocByTitle> byTitle =
        TableSchema.of(DocByTitle.class).primaryKey("id", "title").build();
    boolean[] changed = {false};
    declare = (ctx, tables) -> {
      TableTarget t = changed[0]
          ? tables.mountTable(ctx, byTitle.table(DB, schema, "docs"))
          : tables.mountTable(ctx, DOCS.table(DB, schema, "docs"));
      t.declareRow(ctx, changed[0] ? byTitle.row(new DocByTitle(2, "beta", 20))
          : DOCS.row(new Doc(1, "alpha", 10)));
      t.declareSqlCommand(ctx, viewOver("docs"));
    };
    coco.update(app);

    changed[0] = true;
    coco.update(app);
    assertThat(lines("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid ="
        + " i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND i.indrelid = '\""
        + schema + "\".docs'::regclass ORDER BY a.attname")).containsExactly("id", "title");
    assertThat(lines("SELECT * FROM \"" + schema + "\".v")).containsExactly("2|beta");
  }

  @Test
  void anSqlCommandMovedToAnotherTableUnderItsNameEndsOnThatTable() {
    String[] on = {"a"};
    declare = (ctx, tables) -> {
      TableTarget a = tables.mountTable(ctx, DOCS.table(DB, schema, "a"));
      TableTarget b = tables.mountTable(ctx, DOCS.table(DB, schema, "b"));
      a.declareRow(ctx, DOCS.row(new Doc(1, "in a", 1)));
      b.declareRow(ctx, DOCS.row(new Doc(2, "in b", 2)));
      (on[0].equals("a") ? a : b).declareSqlCommand(ctx, viewOver(on[0]));
    };
    coco.update(app);
    assertThat(lines("SELECT * FROM \"" + schema + "\".v")).containsExactly("1|in a");

    // b's setup runs first; a's teardown, at the end of the run, hands the name back to b.
    on[0] = "b";
    coco.update(app);
    assertThat(lines("SELECT * FROM \"" + schema + "\".v")).containsExactly("2|in b");
    coco.update(app);
    assertThat(lines("SELECT * FROM \"" + schema + "\".v")).containsExactly("2|in b");

    // Moved again, and the table it leaves dropped in the same run.
    declare = (ctx, tables) -> tables.mountTable(ctx, DOCS.table(DB, schema, "c"))
        .declareSqlCommand(ctx, viewOver("c"));
    coco.update(app);
    assertThat(tables()).containsExactly("c", "v");
    assertThat(views()).containsExactly("v");
    assertThat(lines("SELECT * FROM \"" + schema + "\".v")).isEmpty();
  }

  record Nullable(Long id, String title) {}

  @Test
  void nullPrimaryKeyIsAClearErrorAndChangesNothing() {
    TableSchema<Nullable> schemaOf = TableSchema.of(Nullable.class).primaryKey("id").build();
    List<Nullable> rows = new ArrayList<>(List.of(new Nullable(1L, "alpha")));
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, schemaOf.table(DB, schema, "docs"));
      rows.forEach(r -> t.declareRow(ctx, schemaOf.row(r)));
    };
    coco.update(app);
    COUNTING.take();

    rows.set(0, new Nullable(1L, "alpha v2"));
    rows.add(new Nullable(null, "no key"));
    assertThatThrownBy(() -> coco.update(app))
        .hasMessageContaining("null value for primary key column 'id'");
    assertThat(COUNTING.take()).isEmpty();
    assertThat(rows("docs")).containsExactly("1|alpha");
  }

  @Test
  void rowMissingItsPrimaryKeyIsAClearErrorAndChangesNothing() {
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, DOCS.table(DB, schema, "docs"));
      t.declareRow(ctx, new Row(io.cocoindex.StableKey.of(1L),
          Map.of("title", SqlValue.ofText("no id"))));
    };
    assertThatThrownBy(() -> coco.update(app))
        .hasMessageContaining("table " + schema + ".docs has no value for primary key column 'id'");
    assertThat(COUNTING.take()).isEmpty();
    assertThat(tables()).isEmpty();
  }

  record Price(BigDecimal amount, String label) {}

  record Reading(double value, String label) {}

  @Test
  void aKeyWrittenInAnotherFormOfAnEqualValueKeepsItsRow() {
    TableSchema<Price> prices = TableSchema.of(Price.class).primaryKey("amount").build();
    TableSchema<Reading> readings = TableSchema.of(Reading.class).primaryKey("value").build();
    Object[] run = {new BigDecimal("1.0"), 0.0, "v1"};
    declare = (ctx, tables) -> {
      tables.declareTable(ctx, prices.table(DB, schema, "prices"))
          .declareRow(ctx, prices.row(new Price((BigDecimal) run[0], (String) run[2])));
      tables.declareTable(ctx, readings.table(DB, schema, "readings"))
          .declareRow(ctx, readings.row(new Reading((double) run[1], (String) run[2])));
    };
    coco.update(app);

    run[0] = new BigDecimal("1.00");
    run[1] = -0.0;
    run[2] = "v2";
    // One key per row (numeric 1, double 0.0): an update each, and no delete of the old form.
    assertThat(coco.update(app)).filteredOn(a -> !a.startsWith(TABLE + " ")).containsExactly(
        TABLE + "/[\"main_db\", \"" + schema + "\", \"prices\"] update \"1\"",
        TABLE + "/[\"main_db\", \"" + schema + "\", \"readings\"] update \"0.0\"");
    assertThat(rows("prices")).containsExactly("1.0|v2");
    assertThat(rows("readings")).containsExactly("0.0|v2");
  }

  record Event(OffsetDateTime at, String label) {}

  @Test
  void aTimestampKeyOfTheSameInstantKeepsItsRow() {
    TableSchema<Event> events = TableSchema.of(Event.class).primaryKey("at").build();
    Instant at = Instant.parse("2024-03-01T10:00:00Z");
    List<Event> declared = new ArrayList<>(List.of(new Event(at.atOffset(ZoneOffset.UTC), "v1")));
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, events.table(DB, schema, "events"));
      declared.forEach(e -> t.declareRow(ctx, events.row(e)));
    };
    coco.update(app);

    // The same instant at another offset, then 300 ns later: the server stores microseconds.
    declared.set(0, new Event(at.atOffset(ZoneOffset.ofHours(2)), "v2"));
    coco.update(app);
    declared.set(0, new Event(at.plusNanos(300).atOffset(ZoneOffset.ofHours(-5)), "v3"));
    assertThat(coco.update(app)).filteredOn(a -> !a.startsWith(TABLE + " ")).containsExactly(
        TABLE + "/[\"main_db\", \"" + schema + "\", \"events\"] update"
            + " \"2024-03-01T10:00:00Z\"");
    assertThat(lines("SELECT at = '2024-03-01T10:00:00Z', label FROM \"" + schema + "\".events"))
        .containsExactly("true|v3");
  }

  @Test
  void aKeyInAFormItsColumnTypeComparesOtherwiseIsRejectedUnlessTheTableKeysIt() {
    docs.add(new Doc(1, "alpha", 10));
    declareDocs();
    coco.update(app);
    COUNTING.take();

    TableSpec spec = DOCS.table(DB, schema, "docs");
    Map<String, SqlValue> asText = Map.of("id", SqlValue.ofText("1"),
        "title", SqlValue.ofText("alpha v2"), "views", SqlValue.ofLong(11));
    declare = (ctx, tables) -> tables.declareTable(ctx, spec)
        .declareRow(ctx, Row.of("docs", List.of("id"), asText));
    assertThatThrownBy(() -> coco.update(app)).hasMessageContaining(
        "row of table " + schema + ".docs is declared under key \"1\" but PostgreSQL compares"
            + " its primary key [id] [bigint] as 1: build the row with TableSchema.row or"
            + " Row.of(tableSpec, values), which key it so");
    assertThat(COUNTING.take()).isEmpty();
    assertThat(rows("docs")).containsExactly("1|alpha|10");

    declare = (ctx, tables) -> tables.declareTable(ctx, spec)
        .declareRow(ctx, Row.of(spec, asText));
    assertThat(coco.update(app)).filteredOn(a -> !a.startsWith(TABLE + " ")).containsExactly(
        TABLE + "/[\"main_db\", \"" + schema + "\", \"docs\"] update 1");
    assertThat(rows("docs")).containsExactly("1|alpha v2|11");
  }

  @Test
  void twoDeclarationsOfOneRowInOneRunAreAnErrorNamingTableAndKey() {
    TableSchema<Price> prices = TableSchema.of(Price.class).primaryKey("amount").build();
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, prices.table(DB, schema, "prices"));
      t.declareRow(ctx, prices.row(new Price(new BigDecimal("1.0"), "a")));
      t.declareRow(ctx, prices.row(new Price(new BigDecimal("1.00"), "b")));
    };
    assertThatThrownBy(() -> coco.update(app)).hasMessageContaining(
        "key \"1\" of provider '" + TABLE + "/[\"main_db\", \"" + schema + "\", \"prices\"]' is"
            + " declared twice");
    assertThat(tables()).isEmpty();
  }

  record Keyed2(String k, String v) {}

  @Test
  void nulCharactersAreRemovedFromTextAsCocoIndexDoes() {
    TableSchema<Keyed2> keyed = TableSchema.of(Keyed2.class).primaryKey("k").build();
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, keyed.table(DB, schema, "nul"));
      t.declareRow(ctx, keyed.row(new Keyed2("a\0b", "bad\0byte")));
      t.declareRow(ctx, keyed.row(new Keyed2("ok", "fine")));
    };
    coco.update(app);
    assertThat(rows("nul")).containsExactly("ab|badbyte", "ok|fine");
    COUNTING.take();
    coco.update(app);
    assertThat(COUNTING.take()).isEmpty();
    assertThat(rows("nul")).containsExactly("ab|badbyte", "ok|fine");
  }

  record Typed(long id, String n) {}

  @Test
  void aValueTheServerRefusesFailsNamingTableRowAndColumn() {
    TableSchema<Typed> typed =
        TableSchema.of(Typed.class).primaryKey("id").columnType("n", "integer").build();
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, typed.table(DB, schema, "typed"));
      t.declareRow(ctx, typed.row(new Typed(1, "5")));
      t.declareRow(ctx, typed.row(new Typed(2, "five")));
    };
    assertThatThrownBy(() -> coco.update(app)).hasMessageContaining(
        "writing rows of table " + schema + ".typed failed at the row of key [2], column 'n':"
            + " ERROR: invalid input syntax for type integer: \"five\"");
    assertThat(rows("typed")).isEmpty();
  }

  @Test
  void maliciousIdentifiersAreRejectedBeforeAnythingRuns() {
    String evil = "docs\"; DROP TABLE victims; --";
    declare = (ctx, tables) -> tables.declareTable(ctx, DOCS.table(DB, schema, evil));
    assertThatThrownBy(() -> coco.update(app))
        .hasMessageContaining("invalid table name '" + evil + "'");

    assertThatThrownBy(() -> TableSchema.of(Doc.class).primaryKey("id")
        .columnType("title", "text); DROP TABLE victims; --").build())
        .hasMessageContaining("invalid SQL type 'text); DROP TABLE victims; --' of column 'title'");
    assertThatThrownBy(() -> IndexSpec.btree("ok_index", "title\" DESC; --"))
        .hasMessageContaining("invalid column of index ok_index name 'title\" DESC; --'");
    assertThatThrownBy(() -> new ColumnDef("a b", "text"))
        .hasMessageContaining("invalid column name 'a b'");
    record WithCtid(long id, String ctid) {}
    assertThatThrownBy(() -> TableSchema.of(WithCtid.class).primaryKey("id").build())
        .hasMessageContaining("invalid column name 'ctid': every PostgreSQL table has a system"
            + " column of that name");

    declare = (ctx, tables) -> {
      IndexSpec index = IndexSpec.btree("x; DROP SCHEMA public", "title"); // fails here
      tables.mountTable(ctx, DOCS.table(DB, schema, "docs")).declareIndex(ctx, index);
    };
    assertThatThrownBy(() -> coco.update(app))
        .hasMessageContaining("invalid index name 'x; DROP SCHEMA public'");
    assertThat(COUNTING.take()).isEmpty();
    assertThat(COUNTING.takeConnections()).isZero();
    assertThat(tables()).isEmpty();
  }

  record Wide(long id, String a, String b, String c, String d, String e, String f, String g,
      String h, String i) {}

  @Test
  void upsertsAndDeletesInChunksUnderTheBindParameterLimit() {
    TableSchema<Wide> wide = TableSchema.of(Wide.class).primaryKey("id").build();
    int n = 4_000; // 10 columns: 40,000 parameters, more than one statement may bind
    boolean[] declared = {true};
    declare = (ctx, tables) -> {
      TableTarget t = tables.declareTable(ctx, wide.table(DB, schema, "wide"));
      if (declared[0]) {
        for (int i = 0; i < n; i++) {
          t.declareRow(ctx, wide.row(new Wide(i, "a" + i, "b" + i, "c", "d", "e", "f", "g", "h",
              "i")));
        }
      }
    };
    coco.update(app);
    assertThat(COUNTING.take()).filteredOn(sql -> sql.startsWith("INSERT INTO")).hasSize(2);
    assertThat(lines("SELECT count(*) AS n, count(DISTINCT b) AS distinct_b FROM \"" + schema + "\".wide"))
        .containsExactly(n + "|" + n);

    declared[0] = false;
    coco.update(app);
    // The end-of-run sweep applies its deletions in chunks of at most 2,048: one statement each.
    assertThat(COUNTING.take()).filteredOn(sql -> sql.startsWith("DELETE FROM")).hasSize(2);
    assertThat(lines("SELECT count(*) FROM \"" + schema + "\".wide")).containsExactly("0");
  }

  @Test
  void rowsOfSeveralTablesOfADatabaseLandInOneTransaction() {
    declare = (ctx, tables) -> {
      TableTarget a = tables.declareTable(ctx, DOCS.table(DB, schema, "docs_a"));
      TableTarget b = tables.declareTable(ctx, DOCS.table(DB, schema, "docs_b"));
      a.declareRow(ctx, DOCS.row(new Doc(1, "a", 1)));
      b.declareRow(ctx, DOCS.row(new Doc(1, "b", 1)));
    };
    coco.update(app);
    // One connection for both tables' DDL, one for both tables' rows.
    assertThat(COUNTING.takeConnections()).isEqualTo(2);
    assertThat(COUNTING.take()).filteredOn(sql -> sql.startsWith("INSERT INTO")).hasSize(2);
  }

  @Test
  void previewPlansTheTableAndItsRowsWithoutTouchingTheDatabase() {
    docs.add(new Doc(1, "alpha", 10));
    docs.add(new Doc(2, "beta", 20));
    declareDocs();
    List<String> planned = app.preview().actions().stream()
        .map(a -> a.provider() + " " + a.action().verb() + " " + a.key()).sorted().toList();
    assertThat(planned).containsExactly(
        TABLE + " create [\"main_db\", \"" + schema + "\", \"docs\"]",
        TABLE + "/[\"main_db\", \"" + schema + "\", \"docs\"] create 1",
        TABLE + "/[\"main_db\", \"" + schema + "\", \"docs\"] create 2");
    assertThat(COUNTING.take()).isEmpty();
    assertThat(COUNTING.takeConnections()).isZero();
    assertThat(tables()).isEmpty();
  }

  /** A preview line names the row by its table and key, with its values, not its columns' types. */
  @Test
  void aPreviewShowsEachRowByItsTableKeyAndValues() {
    docs.add(new Doc(1, "alpha", 10));
    docs.add(new Doc(2, "it's", 20));
    declareDocs();
    coco.update(app);
    docs.set(0, new Doc(1, "alpha, again", 11));
    docs.remove(1);

    List<String> planned = app.preview().changes().stream().map(p -> p.action().verb() + " "
        + p.action().value().toString().replace(schema + ".", "")).sorted().toList();

    assertThat(planned).containsExactly(
        "delete docs (id=2)", "update docs (id=1): title='alpha, again', views=11");
  }

  @Test
  void dropStateDropsEveryTableTheAppCreated() {
    docs.add(new Doc(1, "alpha", 10));
    declareDocs();
    coco.update(app);
    app.dropState();
    assertThat(tables()).isEmpty();
  }

  record Code(String code, String title) {}

  /**
   * A value too long for a {@code varchar(n)} column fails its batch naming the table, the row's
   * key and the column, as any value the server refuses; an explicit cast would have cut it to
   * fit without a word. A key cut alike would have been one row for two keys: the row declared
   * under the new key would then be deleted with the old one.
   */
  @Test
  void aValueTooLongForAVarcharColumnFailsNamingItsRowAndIsNotCut() {
    TableSchema<Code> codes = TableSchema.of(Code.class).primaryKey("code")
        .columnType("code", "varchar(3)").columnType("title", "varchar(3)").build();
    String[] row = {"abc", "abcdef"};
    declare = (ctx, tables) -> tables.declareTable(ctx, codes.table(DB, schema, "codes"))
        .declareRow(ctx, codes.row(new Code(row[0], row[1])));

    assertThatThrownBy(() -> app.update()).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("rows of table " + schema + ".codes failed at the row of key"
            + " ['abc'], column 'title'")
        .hasMessageContaining("value too long for type character varying(3)");
    assertThat(rows("codes")).isEmpty();

    row[0] = "abcd"; // a key too long is refused too, never cut to the key abc
    row[1] = "t";
    assertThatThrownBy(() -> app.update()).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("column 'code'");
    row[0] = "abc";
    app.update();
    assertThat(rows("codes")).containsExactly("abc|t");
  }

  /**
   * A jsonb key reformatted between runs (a serializer's spacing) is the same key: the row keeps
   * its new value, where the delete of the old form used to remove the row just written.
   */
  @Test
  void aJsonbKeyReformattedBetweenRunsKeepsItsRow() {
    TableSchema<Code> byJson = TableSchema.of(Code.class).primaryKey("code")
        .columnType("code", "jsonb").build();
    Code[] row = {new Code("{\"a\": 1, \"b\": 2}", "first")};
    declare = (ctx, tables) -> tables.declareTable(ctx, byJson.table(DB, schema, "codes"))
        .declareRow(ctx, byJson.row(row[0]));
    app.update();

    row[0] = new Code("{\"b\":2,\"a\":1}", "second");
    app.update();

    assertThat(rows("codes")).containsExactly("{\"a\": 1, \"b\": 2}|second");
  }

  /**
   * Two apps on one table: the owner makes docs with index by_title; a guest writes rows into it
   * as a user's table and declares an index of the same name: an error naming the owner. Once
   * the guest no longer declares it, the owner's index stays.
   */
  @Test
  void aGuestAppCannotTakeOrDropTheOwnersIndexOfTheSameName() {
    App owner = coco.app("owner", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.table(DB, schema, "docs"));
      t.declareRow(ctx, DOCS.row(new Doc(1, "owner's", 1)));
      t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
    });
    coco.update(owner);
    boolean[] withIndex = {true};
    App guest = coco.app("guest", ctx -> {
      TableTarget t = Tables.register(ctx, TableHandler.of(ctx, DB))
          .mountTable(ctx, DOCS.userTable(DB, schema, "docs"));
      t.declareRow(ctx, DOCS.row(new Doc(2, "guest's", 2)));
      if (withIndex[0]) {
        t.declareIndex(ctx, IndexSpec.btree("by_title", "title"));
      }
    });

    assertThatThrownBy(guest::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("cannot be created as " + schema + ".docs__by_title: app 'owner'"
            + " made an index of that name on the table");
    withIndex[0] = false;
    guest.update();

    assertThat(indexes()).containsExactly("docs|docs__by_title");
    assertThat(rows("docs")).containsExactly("1|owner's|1", "2|guest's|2");
  }

  record Count(long id, int n) {}

  record WideCount(long id, long n) {}

  /**
   * A column retyped while the app's own command has a view over it: PostgreSQL refuses to alter
   * (or drop) a column a view uses, so the table's commands are torn down first, and set up
   * again by their own reconciliation in the same run. Before, every run failed.
   */
  @Test
  void aColumnRetypedUnderTheAppsOwnViewConverges() {
    TableSchema<Count> narrow = TableSchema.of(Count.class).primaryKey("id").build();
    TableSchema<WideCount> wide = TableSchema.of(WideCount.class).primaryKey("id").build();
    SqlCommand view = new SqlCommand("v", "CREATE OR REPLACE VIEW \"" + schema + "\".v AS SELECT n"
        + " FROM \"" + schema + "\".counts", "DROP VIEW IF EXISTS \"" + schema + "\".v");
    boolean[] widened = {false};
    declare = (ctx, tables) -> {
      if (widened[0]) {
        TableTarget t = tables.mountTable(ctx, wide.table(DB, schema, "counts"));
        t.declareRow(ctx, wide.row(new WideCount(1, 1L << 40)));
        t.declareSqlCommand(ctx, view);
      } else {
        TableTarget t = tables.mountTable(ctx, narrow.table(DB, schema, "counts"));
        t.declareRow(ctx, narrow.row(new Count(1, 7)));
        t.declareSqlCommand(ctx, view);
      }
    };
    app.update();
    assertThat(lines("SELECT n FROM \"" + schema + "\".v")).containsExactly("7");

    widened[0] = true;
    app.update();

    assertThat(lines("SELECT n FROM \"" + schema + "\".v")).containsExactly(
        String.valueOf(1L << 40));
    assertThat(columns("counts")).containsExactly("id|bigint", "n|bigint");
    assertThat(app.preview().changes()).isEmpty();
  }

  /**
   * The database key a table is tracked under, renamed in the app's code and no longer passed,
   * fails naming the table and the ways out, rather than a bare "no DataSource"; the table and
   * its rows stay.
   */
  @Test
  void aTableTrackedUnderAKeyNoLongerPassedNamesTheWaysOut() {
    ContextKey<DataSource> renamedKey = ContextKey.of("renamed_db", DataSource.class);
    boolean[] renamed = {false};
    App moved = coco.app(ctx -> {
      ContextKey<DataSource> key = renamed[0] ? renamedKey : DB;
      Tables.register(ctx, new TableHandler(Map.of(key.name(), COUNTING.dataSource())))
          .declareTable(ctx, DOCS.table(key, schema, "docs"))
          .declareRow(ctx, DOCS.row(new Doc(1, "alpha", 1)));
    });
    coco.update(moved);
    renamed[0] = true;
    assertThatThrownBy(() -> coco.update(moved)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("no DataSource for database 'main_db' (known: [renamed_db]): the app"
            + " tracks table " + schema + ".docs under it")
        .hasMessageContaining("TableHandler.of(ctx, OLD, NEW)");
    assertThat(rows("docs")).containsExactly("1|alpha|1");
  }

  /**
   * A constraint written into a column's type ({@code integer not null}) looked like a type
   * name: the table was created with it, and then every row failed with PostgreSQL's "syntax
   * error at or near "not"", the value being cast to it. It is rejected when the schema is
   * built, naming the column and the type to give.
   */
  @Test
  void aConstraintInAColumnTypeIsRejectedNamingTheTypeToGive() {
    assertThatThrownBy(() -> TableSchema.of(Doc.class).primaryKey("id")
        .columnType("views", "integer not null").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid SQL type 'integer not null' of column 'views': 'not' begins"
            + " a constraint")
        .hasMessageContaining("give the type alone ('integer')");
    assertThatThrownBy(() -> new ColumnDef("title", "text DEFAULT x"))
        .hasMessageContaining("give the type alone ('text')");
    assertThat(new ColumnDef("at", "timestamp(3) with time zone").type())
        .isEqualTo("timestamptz(3)");
    assertThat(new ColumnDef("span", "interval day to second").type())
        .isEqualTo("interval day to second");
  }
}
