package io.cocoindex.runtime;

import io.cocoindex.Ctx;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens apps on a temporary store and closes them after each test. The engine's acceptance tests
 * run on both stores: the embedded SQLite store by default, and the shared PostgreSQL store when
 * the system property {@code cocoindex.test.store=postgres} is set (a second surefire execution),
 * each test in a schema of its own.
 */
abstract class EngineTestBase {
  static final boolean ON_POSTGRES = "postgres".equals(System.getProperty("cocoindex.test.store"));

  @TempDir Path dbPath;
  /** On PostgreSQL, this test's schema: made as the test opens its store, dropped after it. */
  @RegisterExtension final ThrowawaySchema postgresSchema = ThrowawaySchema.madeWhenUsed("t_");
  private final List<App> apps = new ArrayList<>();
  private final List<StateStore> stores = new ArrayList<>();

  App app(Consumer<Ctx> main) {
    return app("test", main);
  }

  App app(String name, Consumer<Ctx> main) {
    return app(name, environment(), main);
  }

  /** A new environment on this test's store (on SQLite: the embedded store under dbPath). */
  Environment environment() {
    return environmentBuilder().build();
  }

  /** A builder of {@link #environment()}, for a test that adds to it. */
  Environment.Builder environmentBuilder() {
    return ON_POSTGRES ? Environment.builder().stateStore(store())
        : Environment.builder().dbPath(dbPath);
  }

  /** An app on {@code env}, closed after the test. */
  App app(String name, Environment env, Consumer<Ctx> main) {
    App app = App.create(name, env, main);
    apps.add(app);
    return app;
  }

  /** A store on this test's state, for inspection or decoration; closed after the test. */
  StateStore store() {
    if (ON_POSTGRES) {
      if (stores.isEmpty()) {
        stores.add(PostgresStateStore.open(postgresUrl()));
      }
      return stores.get(0);
    }
    StateStore s = SqliteStateStore.open(dbPath);
    stores.add(s);
    return s;
  }

  /**
   * On PostgreSQL, a store of another worker on this test's state (a connection of its own, as
   * another process would have), closed after the test.
   */
  StateStore anotherWorkersStore() {
    return anotherWorkersStore(null);
  }

  /**
   * As {@link #anotherWorkersStore()}, its server sessions named {@code sessions} (their {@code
   * application_name}, unless null), so that the test can tell them from the other workers'.
   */
  StateStore anotherWorkersStore(String sessions) {
    if (!ON_POSTGRES) {
      throw new IllegalStateException("the embedded store has one writer at a time");
    }
    store(); // the first worker's, which the tests's inspection uses
    StateStore s = PostgresStateStore.open(
        sessions == null ? postgresUrl() : postgresUrl() + "&ApplicationName=" + sessions);
    stores.add(s);
    return s;
  }

  private String postgresUrl() {
    return postgresSchema.url();
  }

  /**
   * Closes the test's apps, then the stores they run on even when an app's close fails; on
   * PostgreSQL the extension drops the schema after, whatever failed here.
   */
  @AfterEach
  void closeApps() throws Exception {
    try {
      apps.forEach(App::close);
    } finally {
      stores.forEach(StateStore::close);
    }
  }
}
