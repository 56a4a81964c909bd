package io.cocoindex.runtime.blackbox;

import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** Apps on a temporary embedded store, closed after each test: the public API, nothing else. */
abstract class BlackBoxBase {
  @TempDir Path dbPath;
  private final List<App> apps = new ArrayList<>();

  App app(Consumer<Ctx> main) {
    return app("blackbox", main);
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
