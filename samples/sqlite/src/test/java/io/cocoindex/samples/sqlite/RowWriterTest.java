package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.TargetAction;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The row writer packs many rows into each statement: whatever the count, every row ends written
 * or deleted exactly as one statement per row would leave it.
 */
class RowWriterTest {
  @TempDir Path dir;
  SqliteDatabase db;
  RowWriter writer;

  static final List<String> DOC = List.of("id", "title");
  static final List<String> PAIR = List.of("a", "b", "title");

  @BeforeEach
  void open() throws SQLException {
    db = SqliteDatabase.open(dir.resolve("t.sqlite"));
    writer = new RowWriter(db);
    db.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, title TEXT)");
        s.execute("CREATE TABLE pairs (a INTEGER, b TEXT, title TEXT, PRIMARY KEY (a, b))");
      }
      return null;
    });
  }

  @AfterEach
  void close() throws SQLException {
    db.close();
  }

  static TargetAction<RowAction> upsert(long id, String title) {
    return TargetAction.create(new RowAction("docs", DOC, List.of("id"),
        List.of(SqlValue.of(id), SqlValue.of((Object) title)), false));
  }

  static TargetAction<RowAction> delete(long id) {
    return TargetAction.delete(
        new RowAction("docs", DOC, List.of("id"), List.of(SqlValue.of(id)), true));
  }

  static TargetAction<RowAction> upsertPair(long a, String b, String title) {
    return TargetAction.create(new RowAction("pairs", PAIR, List.of("a", "b"),
        List.of(SqlValue.of(a), SqlValue.of((Object) b), SqlValue.of((Object) title)), false));
  }

  static TargetAction<RowAction> deletePair(long a, String b) {
    return TargetAction.delete(new RowAction("pairs", PAIR, List.of("a", "b"),
        List.of(SqlValue.of(a), SqlValue.of((Object) b)), true));
  }

  List<String> rows(String sql) throws SQLException {
    return SqlRows.of(db, sql);
  }

  static List<String> expectedDocs(IntStream ids, String title) {
    return ids.mapToObj(i -> i + "|" + title + i).toList();
  }

  @Test
  void writesTwoFullStatementsAndTheRowsLeftOverInOneTransaction() throws SQLException {
    int n = 2 * RowWriter.MAX_ROWS_PER_STATEMENT + 37;
    List<TargetAction<RowAction>> batch = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      batch.add(upsert(i, "t" + i));
    }
    long statements = db.statementsExecuted();
    long transactions = db.transactionsBegun();

    writer.apply(batch);

    assertThat(rows("SELECT id, title FROM docs ORDER BY id"))
        .isEqualTo(expectedDocs(IntStream.range(0, n), "t"));
    assertThat(db.statementsExecuted() - statements).as("a full statement and a shorter one")
        .isEqualTo(2);
    assertThat(db.transactionsBegun() - transactions).isEqualTo(1);
  }

  @Test
  void fewerRowsThanAStatementHoldsGoInOne() throws SQLException {
    long statements = db.statementsExecuted();
    writer.apply(List.of(upsert(1, "one"), upsert(2, "two"), upsert(3, "three")));

    assertThat(rows("SELECT id, title FROM docs ORDER BY id"))
        .containsExactly("1|one", "2|two", "3|three");
    assertThat(db.statementsExecuted() - statements).isEqualTo(1);
  }

  @Test
  void aKeyRepeatedInOneStatementEndsWithItsLastValue() throws SQLException {
    writer.apply(List.of(upsert(1, "first"), upsert(2, "two"), upsert(1, "last")));

    assertThat(rows("SELECT id, title FROM docs ORDER BY id")).containsExactly("1|last", "2|two");
  }

  @Test
  void upsertsOverwriteRowsAlreadyThere() throws SQLException {
    List<TargetAction<RowAction>> first = new ArrayList<>();
    List<TargetAction<RowAction>> second = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      first.add(upsert(i, "old" + i));
      second.add(upsert(i, "new" + i));
    }
    writer.apply(first);
    writer.apply(second);

    assertThat(rows("SELECT id, title FROM docs ORDER BY id"))
        .isEqualTo(expectedDocs(IntStream.range(0, 150), "new"));
  }

  @Test
  void deletesManyRowsByASingleColumnKey() throws SQLException {
    List<TargetAction<RowAction>> create = new ArrayList<>();
    List<TargetAction<RowAction>> remove = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      create.add(upsert(i, "t" + i));
      if (i % 2 == 0) {
        remove.add(delete(i)); // 150 deletes: one full statement and 50 rows left over
      }
    }
    writer.apply(create);
    remove.add(delete(10_000)); // not there: deleting it changes nothing

    writer.apply(remove);

    assertThat(rows("SELECT id, title FROM docs ORDER BY id"))
        .isEqualTo(expectedDocs(IntStream.range(0, 300).filter(i -> i % 2 == 1), "t"));
  }

  @Test
  void deletesManyRowsByATwoColumnKey() throws SQLException {
    List<TargetAction<RowAction>> create = new ArrayList<>();
    List<TargetAction<RowAction>> remove = new ArrayList<>();
    for (int i = 0; i < 130; i++) {
      create.add(upsertPair(i / 2, "b" + i % 2, "t" + i));
      if (i % 2 == 1) {
        remove.add(deletePair(i / 2, "b1"));
      }
    }
    remove.add(deletePair(0, "b9")); // half a key that matches: nothing deleted
    writer.apply(create);

    writer.apply(remove);

    assertThat(rows("SELECT a, b, title FROM pairs ORDER BY a, b")).isEqualTo(
        IntStream.range(0, 65).mapToObj(a -> a + "|b0|t" + 2 * a).toList());
  }

  @Test
  void deletesApplyBeforeUpsertsInOneBatch() throws SQLException {
    writer.apply(List.of(upsert(1, "one")));

    writer.apply(List.of(upsert(1, "again"), delete(1)));

    assertThat(rows("SELECT id, title FROM docs")).containsExactly("1|again");
  }

  @Test
  void aWideTableStaysWithinSqlitesParameterLimit() throws SQLException {
    List<String> columns = new ArrayList<>(List.of("id"));
    StringBuilder ddl = new StringBuilder("CREATE TABLE wide (id INTEGER PRIMARY KEY");
    for (int i = 0; i < 99; i++) {
      columns.add("c" + i);
      ddl.append(", c").append(i).append(" INTEGER");
    }
    db.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute(ddl + ")");
      }
      return null;
    });
    List<TargetAction<RowAction>> batch = new ArrayList<>();
    for (int row = 0; row < 25; row++) { // 100 values a row: 9 rows to a statement at most
      List<SqlValue> values = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        values.add(SqlValue.of((long) row * 1000 + i));
      }
      batch.add(TargetAction.create(new RowAction("wide", columns, List.of("id"), values, false)));
    }
    long statements = db.statementsExecuted();

    writer.apply(batch);

    assertThat(rows("SELECT id, c0, c98 FROM wide ORDER BY id")).isEqualTo(
        IntStream.range(0, 25).mapToObj(r -> r * 1000 + "|" + (r * 1000 + 1) + "|"
            + (r * 1000 + 99)).toList());
    assertThat(db.statementsExecuted() - statements).isEqualTo(2);
  }

  @Test
  void anActionWithTooFewValuesIsRejectedAndNothingIsWritten() throws SQLException {
    TargetAction<RowAction> short1 = TargetAction.create(
        new RowAction("docs", DOC, List.of("id"), List.of(SqlValue.of(2L)), false));

    assertThatThrownBy(() -> writer.apply(List.of(upsert(1, "one"), short1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a row action on table docs has 1 values for the columns [id, title]");
    assertThat(rows("SELECT id FROM docs")).isEmpty();
  }
}
