package io.cocoindex.samples.sqlite;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.testkit.ChildJvm;
import java.nio.file.Path;

/**
 * The child JVM of {@link SqliteKillTest}: one update of {@code SqliteKillWorld.of(seed,
 * generation)} into the database file, whose start and end {@link ChildJvm#update} announces to
 * the test.
 *
 * <p>Args: stateDir databaseFile seed generation.
 */
public final class SqliteKillChild {
  public static void main(String[] args) throws Exception {
    SqliteKillWorld world = SqliteKillWorld.of(Long.parseLong(args[2]), Integer.parseInt(args[3]));
    try (SqliteDatabase db = SqliteDatabase.open(Path.of(args[1]));
        App app = App.create("kill", Environment.builder().dbPath(Path.of(args[0]))
            .provide(SqliteKillWorld.DB, db).build(), world.main())) {
      ChildJvm.update(app);
    }
  }
}
