package io.cocoindex.runtime;

import io.cocoindex.Ctx;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** Opens apps on a temporary embedded store and closes them after each test. */
abstract class EngineTestBase {
  @TempDir Path dbPath;
  private final List<App> apps = new ArrayList<>();

  App app(Consumer<Ctx> main) {
    return app("test", main);
  }

  App app(String name, Consumer<Ctx> main) {
    App app = App.create(name, Environment.builder().dbPath(dbPath).build(), main);
    apps.add(app);
    return app;
  }

  @AfterEach
  void closeApps() {
    apps.forEach(App::close);
  }
}
