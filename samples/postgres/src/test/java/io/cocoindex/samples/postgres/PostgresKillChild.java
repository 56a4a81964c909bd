package io.cocoindex.samples.postgres;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.testkit.ChildJvm;
import java.nio.file.Path;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The child JVM of {@link PostgresKillTest}: one update of {@code PostgresKillWorld.of(schema,
 * seed, generation)} against {@code COCOINDEX_TEST_POSTGRES_URL}, whose start and end {@link
 * ChildJvm#update} announces to the test.
 *
 * <p>Args: stateDir schema seed generation.
 */
public final class PostgresKillChild {
  public static void main(String[] args) throws Exception {
    PostgresKillWorld world = PostgresKillWorld.of(args[1], Long.parseLong(args[2]),
        Integer.parseInt(args[3]));
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(System.getenv(PostgresServer.URL_VARIABLE));
    try (App app = App.create("kill", Environment.builder().dbPath(Path.of(args[0]))
        .provide(PostgresKillWorld.DB, dataSource).build(), world.main())) {
      ChildJvm.update(app);
    }
  }
}
