package io.cocoindex.testkit;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateStats;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that gives each test a fresh embedded state store, builds apps on it,
 * records every applied action, and closes everything afterwards.
 *
 * <pre>{@code
 * @RegisterExtension
 * final CocoIndexExtension coco = CocoIndexExtension.builder()
 *     .provide(MY_DB, dataSource)
 *     .build();
 *
 * @Test
 * void unchangedRerunOnlyRefreshesTheTable() {
 *   App app = coco.app(ctx -> Tables.register(ctx, handler).mountTable(ctx, spec)...);
 *   coco.update(app);
 *   assertThat(coco.update(app))                    // the actions of the second run:
 *       .containsExactly("example.com/db/table update \"docs\"");  // the table's refresh
 * }
 * }</pre>
 *
 * <p>Every action a sink applied is listed, a container's <em>refresh</em> included: the
 * Create or Update a container's handler returns on every run the container is declared, even
 * unchanged, because that action resolves its children's handler ({@code docs/CONNECTORS.md},
 * "Containers"). So a rerun that changes nothing lists an update for each container it
 * declares (a memoized component that is skipped declares none), and each container's sink is
 * called with it; {@link UpdateStats} counts it as unchanged ({@link #updateWithStats}), and a
 * preview leaves it out of {@code changes()}. The listener the kit records with is told of
 * applied actions only, not which were refreshes, so this list cannot leave them out.
 */
public final class CocoIndexExtension implements BeforeEachCallback, AfterEachCallback {
  private final Map<ContextKey<?>, Object> context;
  private final List<AppliedAction> applied = Collections.synchronizedList(new ArrayList<>());
  private final List<App> apps = new ArrayList<>();
  private Path dbPath;
  private int appCount;

  private CocoIndexExtension(Builder b) {
    this.context = Map.copyOf(b.context);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void beforeEach(ExtensionContext ctx) throws IOException {
    dbPath = Files.createTempDirectory("cocoindex-test");
    applied.clear();
  }

  @Override
  public void afterEach(ExtensionContext ctx) throws IOException {
    for (App app : apps) {
      app.close();
    }
    apps.clear();
    if (dbPath != null) {
      deleteTree(dbPath);
    }
  }

  /** The state directory of the current test. */
  public Path dbPath() {
    return dbPath;
  }

  /** A new environment on the current test's store, recording applied actions. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Environment environment() {
    Environment.Builder b = Environment.builder().dbPath(dbPath)
        .listener((provider, key, action) -> applied.add(new AppliedAction(provider, key, action)));
    context.forEach((k, v) -> b.provide((ContextKey) k, v));
    return b.build();
  }

  /** An app named {@code test-N} on the current test's store; closed after the test. */
  public App app(Consumer<Ctx> main) {
    return app("test-" + (++appCount), main);
  }

  /** An app on the current test's store; closed after the test. */
  public App app(String name, Consumer<Ctx> main) {
    App app = App.create(name, environment(), main);
    apps.add(app);
    return app;
  }

  /**
   * Runs an update and returns the actions it applied, as {@code "<provider> <verb> <key>"}
   * sorted (components run concurrently), containers' refreshes included (see above).
   *
   * @throws UpdateFailedException when a component failed
   */
  public List<String> update(App app) {
    applied.clear();
    app.update();
    return takeApplied();
  }

  /** Runs an update, returning its statistics; {@link #takeApplied()} has its actions. */
  public UpdateStats updateWithStats(App app) {
    applied.clear();
    return app.update();
  }

  /**
   * Runs {@code app} once, applies {@code change} (e.g. edits the source data), runs it again and
   * returns the second run's actions: the shape of most connector tests.
   */
  public List<String> updateTwice(App app, Runnable change) {
    update(app);
    Objects.requireNonNull(change, "change").run();
    return update(app);
  }

  /** The actions applied since the last call, sorted, and forgets them. */
  public List<String> takeApplied() {
    synchronized (applied) {
      List<String> out = new ArrayList<>();
      for (AppliedAction a : applied) {
        out.add(a.summary());
      }
      applied.clear();
      Collections.sort(out);
      return out;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        Files.deleteIfExists(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /** Builds a {@link CocoIndexExtension}. */
  public static final class Builder {
    private final Map<ContextKey<?>, Object> context = new LinkedHashMap<>();

    private Builder() {}

    /** Provides a context value to every app of the extension. */
    public <T> Builder provide(ContextKey<T> key, T value) {
      context.put(Objects.requireNonNull(key, "key"), value);
      return this;
    }

    public CocoIndexExtension build() {
      return new CocoIndexExtension(this);
    }
  }
}
