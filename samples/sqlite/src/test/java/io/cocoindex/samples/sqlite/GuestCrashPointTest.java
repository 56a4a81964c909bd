package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.App;
import io.cocoindex.testkit.CocoIndexExtension;
import io.cocoindex.testkit.CrashPoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A guest app's run killed at each of its precommits and commits after the owner's recreate of
 * the shared table (which drops the guest's rows, and counts it in {@link TableGuests}): the
 * guest's next process still writes its rows again, the memoized component's included. The
 * guest takes the count back in its table's action, before its rows are written and before its
 * own commits; a kill in between must not lose the signal. (PostgreSQL's counterpart:
 * {@code PostgresUserTableTest.aGuestsRunKilledAfterTheOwnersRecreateStillWritesItsRowsAgain}.)
 */
class GuestCrashPointTest {
  record Doc(String id, String title) {}

  record Numbered(double id, String title) {}

  private final Path dir = tempDir();
  private final SqliteDatabase db = SqliteDatabase.open(dir.resolve("main.sqlite"));

  @RegisterExtension
  final CocoIndexExtension coco =
      CocoIndexExtension.builder().provide(TargetDatabaseTest.DB, db).build();

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("cocoindex-guest-crash");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterEach
  void closeDatabase() throws Exception {
    db.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Test
  void aGuestsRunKilledAfterTheOwnersRecreateStillWritesItsRowsAgain() throws SQLException {
    int trial = 0;
    for (int n = 1; ; n++) {
      for (CrashPoint point : List.of(CrashPoint.afterPrecommit(n), CrashPoint.beforeCommit(n),
          CrashPoint.afterCommit(n))) {
        trial++;
        exec("DROP TABLE IF EXISTS docs");
        exec("DROP TABLE IF EXISTS " + TableGuests.TABLE);
        boolean[] recreated = {false};
        App owner = coco.app("owner" + trial, ctx -> {
          Sqlite sqlite = Sqlite.register(ctx, TargetDatabaseTest.DB);
          if (recreated[0]) {
            sqlite.mountTable(ctx, TableSchema.of("docs", Numbered.class, "id"))
                .declareRow(ctx, new Numbered(1, "owner's"));
          } else {
            sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"))
                .declareRow(ctx, new Doc("1", "owner's"));
          }
        });
        App guest = coco.app("guest" + trial, ctx -> {
          SqliteTable<Doc> t = Sqlite.register(ctx, TargetDatabaseTest.DB)
              .mountTable(ctx, TableSchema.userManaged("docs", Doc.class, "id"));
          t.declareRow(ctx, new Doc("b", "guest's"));
          ctx.mountMemo("memoized", Fingerprint.ofString("source"),
              c -> t.declareRow(c, new Doc("c", "guest's memoized")));
        });
        coco.update(owner);
        coco.update(guest);
        recreated[0] = true;
        coco.update(owner);

        boolean crashed = coco.updateCrashing(guest, point);
        App next = coco.restart(guest);
        coco.update(next);

        assertThat(TargetDatabaseTest.q(dir.resolve("main.sqlite"),
                "SELECT id, title FROM docs ORDER BY id"))
            .as(point.toString())
            .containsExactly("1.0|owner's", "b|guest's", "c|guest's memoized");
        if (!crashed) {
          assertThat(trial).as("runs killed before one completed").isGreaterThan(3);
          return;
        }
      }
    }
  }

  private void exec(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(
            "jdbc:sqlite:" + dir.resolve("main.sqlite").toAbsolutePath());
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
