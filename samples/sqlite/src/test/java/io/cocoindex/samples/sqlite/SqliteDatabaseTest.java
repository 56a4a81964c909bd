package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.testkit.ThreadPerTask;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The connector's database is shared with whatever else writes the file. */
class SqliteDatabaseTest {
  @TempDir Path dir;

  @Test
  void aTransactionThatReadsBeforeWritingWaitsForAnotherWriterRatherThanFailing()
      throws Exception {
    Path file = dir.resolve("shared.sqlite");
    try (SqliteDatabase db = SqliteDatabase.open(file)) {
      db.inTransaction(c -> {
        try (Statement s = c.createStatement()) {
          s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
        }
        return null;
      });
      try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file)) {
        other.setAutoCommit(false);
        try (Statement s = other.createStatement()) {
          s.execute("INSERT INTO t (id, v) VALUES (1, 'another writer')");
        }
        // Reads the table's columns, then writes, as a table change does.
        CompletableFuture<Void> change = CompletableFuture.runAsync(() -> {
          try {
            db.inTransaction(c -> {
              assertThat(TableColumns.of(db, c, "t")).containsExactly("id", "v");
              try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO t (id, v) VALUES (2, 'the connector')");
              }
              return null;
            });
          } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
          }
        }, ThreadPerTask.INSTANCE);
        Thread.sleep(300);
        assertThat(change).isNotDone();
        other.commit();
        change.get(10, TimeUnit.SECONDS);
      }
      String values = db.read(c -> {
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery(
                "SELECT group_concat(v, ', ') FROM (SELECT v FROM t ORDER BY id)")) {
          rs.next();
          return rs.getString(1);
        }
      });
      assertThat(values).isEqualTo("another writer, the connector");
    }
  }

  /** An app may write several databases and keep its state in another: an error names its file. */
  @Test
  void aFailedTransactionNamesItsDatabaseFile() throws Exception {
    try (SqliteDatabase db = SqliteDatabase.open(dir.resolve("named.sqlite"))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> db.inTransaction(c -> {
        try (Statement s = c.createStatement()) {
          s.execute("INSERT INTO missing VALUES (1)");
        }
        return null;
      })).isInstanceOf(java.sql.SQLException.class)
          .hasMessageStartingWith("database " + dir.toRealPath().resolve("named.sqlite") + ": ")
          .hasMessageContaining("no such table: missing");
    }
  }
}
