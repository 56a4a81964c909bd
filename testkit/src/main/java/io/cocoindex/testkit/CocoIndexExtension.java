package io.cocoindex.testkit;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.state.SqliteStateStore;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
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
 *
 * <h2>Crash points</h2>
 *
 * <p>{@link #updateCrashing} runs an update that dies at a {@link CrashPoint} (after a
 * precommit, before or after a commit), leaving the store exactly as a {@code kill -9} there
 * would; {@link #restart} then opens the app anew, as the next process would, and its update
 * must converge: the external system equals what is declared, and {@link #pending} is empty.
 * A crash inside the sink's own I/O (a torn write) needs a real kill: {@link ChildJvm}.
 *
 * <pre>{@code
 * App app = coco.app("kv", main);
 * coco.update(app);
 * source.remove("b");                                          // a change, then a crash
 * assertThat(coco.updateCrashing(app, CrashPoint.beforeCommit(1))).isTrue();
 * App next = coco.restart(app);                               // a fresh process
 * coco.update(next);
 * assertThat(service.keys()).containsExactly("a");
 * assertThat(coco.pending(next)).isEmpty();                   // converged: nothing left to do
 * }</pre>
 */
public final class CocoIndexExtension implements BeforeEachCallback, AfterEachCallback {
  private final Map<ContextKey<?>, Object> context;
  private final List<AppliedAction> applied = Collections.synchronizedList(new ArrayList<>());
  private final List<App> apps = new ArrayList<>();
  /** The stores the environments of this test opened, closed after it. */
  private final List<CrashingStateStore> stores = new ArrayList<>();
  /** How each app of {@link #app} was made, for {@link #restart} and {@link #updateCrashing}. */
  private final Map<App, Made> made = Collections.synchronizedMap(new IdentityHashMap<>());
  private Path dbPath;
  private int appCount;

  private CocoIndexExtension(Builder b) {
    this.context = Map.copyOf(b.context);
  }

  /**
   * A builder of the extension, to hold in a {@code @RegisterExtension} field (one fresh store
   * per test): {@code CocoIndexExtension.builder().provide(DB, db).build()}.
   *
   * @return a new builder with no context value
   */
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
    made.clear();
    for (CrashingStateStore store : stores) {
      store.close();
    }
    stores.clear();
    if (dbPath != null) {
      deleteTree(dbPath);
    }
  }

  /**
   * The state directory of the current test.
   *
   * @return the temporary directory the test's stores open, deleted after the test; null
   *     before the first test
   */
  public Path dbPath() {
    return dbPath;
  }

  /**
   * A new environment on the current test's store, recording applied actions. It opens a store
   * of its own on {@link #dbPath()}, as a process would, closed after the test.
   *
   * @return an environment with the extension's context values, whose applied actions {@link
   *     #takeApplied()} returns
   * @throws IllegalStateException when no test is running (the extension is not on an instance
   *     field)
   */
  public Environment environment() {
    return environment(openStore());
  }

  private CrashingStateStore openStore() {
    if (dbPath == null) {
      throw new IllegalStateException("no test is running: CocoIndexExtension needs"
          + " @RegisterExtension on an instance field (not a static one)");
    }
    CrashingStateStore store = new CrashingStateStore(SqliteStateStore.open(dbPath));
    stores.add(store);
    return store;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Environment environment(CrashingStateStore store) {
    Environment.Builder b = Environment.builder().stateStore(store)
        .listener((provider, key, action) -> applied.add(new AppliedAction(provider, key, action)));
    context.forEach((k, v) -> b.provide((ContextKey) k, v));
    return b.build();
  }

  /**
   * An app named {@code test-N} on the current test's store; closed after the test.
   *
   * @param main the app's main component
   * @return the app, not run yet
   */
  public App app(Consumer<Ctx> main) {
    return app("test-" + (++appCount), main);
  }

  /**
   * An app on the current test's store; closed after the test.
   *
   * @param name the app's name, under which its state is kept
   * @param main the app's main component
   * @return the app, not run yet
   */
  public App app(String name, Consumer<Ctx> main) {
    Objects.requireNonNull(main, "main");
    CrashingStateStore store = openStore();
    App app = App.create(name, environment(store), main);
    apps.add(app);
    made.put(app, new Made(name, main, store));
    return app;
  }

  /**
   * The app as the next process opens it after {@code app}'s: a new {@link App} of the same name
   * and {@code main}, on a newly opened store of the current test, with nothing carried over in
   * memory. {@code app} is closed (if a crash has not closed it already).
   *
   * @param app an app of {@link #app}
   * @return the new app, not run yet
   * @throws IllegalArgumentException when {@code app} was not made by this extension in this test
   */
  public App restart(App app) {
    Made m = made(app, "restart");
    app.close();
    return app(m.name(), m.main());
  }

  /**
   * Runs an update of {@code app} that dies at {@code point}: from that moment nothing more is
   * written to the state store, as if the process had been killed there; {@code app} is then
   * closed, and the test goes on with {@link #restart}{@code (app)}. The sinks keep what they
   * applied. Actions of other components whose precommit was already durable may still be
   * applied while the run winds down, as if the process had died a moment later; their commits
   * are lost as well. Nothing the dead run does after the crash is recorded by the kit.
   *
   * @param app an app of {@link #app}
   * @param point where the update dies
   * @return true when the update reached {@code point} and died; false when it completed without
   *     reaching it (a run with fewer precommits or commits than asked), and then it is a normal
   *     update, whose actions {@link #takeApplied()} has
   * @throws UpdateFailedException when the update failed before reaching {@code point}
   */
  public boolean updateCrashing(App app, CrashPoint point) {
    Objects.requireNonNull(point, "point");
    Made m = made(app, "updateCrashing");
    applied.clear();
    m.store().arm(point);
    try {
      app.update();
    } catch (RuntimeException e) {
      if (!m.store().crashed()) {
        throw e;
      }
    } finally {
      m.store().disarm();
    }
    if (!m.store().crashed()) {
      return false;
    }
    applied.clear();
    app.close();
    return true;
  }

  /**
   * What an update of {@code app} would still change, as {@code "<provider> <verb> <key>"}
   * sorted, from a preview (nothing is applied or written; containers' refreshes are left out):
   * empty once the app has converged. {@code assertThat(coco.pending(app)).isEmpty()} names what
   * is left when it fails.
   *
   * @param app the app to preview
   * @return the pending changes, one {@code "<provider> <verb> <key>"} each; empty once converged
   */
  public List<String> pending(App app) {
    List<String> out = new ArrayList<>();
    for (PlannedAction a : app.preview().changes()) {
      out.add(a.provider() + " " + a.action().verb() + " " + a.key());
    }
    Collections.sort(out);
    return out;
  }

  /**
   * {@link #pending} of {@code app}, checking that the preview behind it left the external system
   * as it was: {@code external} reads what your connector's target holds (the rows, files or keys
   * it may touch, as a value with {@code equals}), once before the preview and once after. A
   * preview calls every handler's {@code reconcile} and the child-handler factories, and applies
   * nothing; a target it changed means one of those does I/O, which {@code docs/CONNECTORS.md}
   * forbids (it would run in a preview, and again on every retry).
   *
   * @param app the app to preview
   * @param external reads what the connector's target holds, as a value with {@code equals}
   * @return the pending changes, as {@link #pending} gives them
   * @throws AssertionError naming what the target held before and after, when they differ
   */
  public List<String> pendingLeavingTheTargetAsItWas(App app, Supplier<?> external) {
    Objects.requireNonNull(external, "external");
    Object before = external.get();
    List<String> pending = pending(app);
    Object after = external.get();
    if (!Objects.equals(before, after)) {
      throw new AssertionError("a preview of app '" + app.name() + "' changed the target: "
          + before + " before, " + after + " after. A handler's reconcile and a child-handler"
          + " factory must do no I/O (docs/CONNECTORS.md): move it to the sink");
    }
    return pending;
  }

  private Made made(App app, String what) {
    Made m = made.get(Objects.requireNonNull(app, "app"));
    if (m == null) {
      throw new IllegalArgumentException(what + " needs an app made by this extension's app(...)"
          + " in the current test; " + app.name() + " was not");
    }
    return m;
  }

  private record Made(String name, Consumer<Ctx> main, CrashingStateStore store) {}

  /**
   * Runs an update and returns the actions it applied, as {@code "<provider> <verb> <key>"}
   * sorted (components run concurrently), containers' refreshes included (see above).
   *
   * @param app the app to update
   * @return the applied actions, one {@code "<provider> <verb> <key>"} each
   * @throws UpdateFailedException when a component failed; the healthy components' actions were
   *     applied and committed all the same, and {@link #takeApplied()} has them
   */
  public List<String> update(App app) {
    applied.clear();
    app.update();
    return takeApplied();
  }

  /**
   * Runs an update, returning its statistics; {@link #takeApplied()} has its actions.
   *
   * @param app the app to update
   * @return the update's statistics
   * @throws UpdateFailedException when a component failed, as {@link #update} does
   */
  public UpdateStats updateWithStats(App app) {
    applied.clear();
    return app.update();
  }

  /**
   * Runs {@code app} once, applies {@code change} (e.g. edits the source data), runs it again and
   * returns the second run's actions: the shape of most connector tests.
   *
   * @param app the app to update
   * @param change what changes between the two runs, such as an edit of the source data
   * @return the second run's applied actions, as {@link #update} gives them
   * @throws UpdateFailedException when a component of either run failed
   */
  public List<String> updateTwice(App app, Runnable change) {
    update(app);
    Objects.requireNonNull(change, "change").run();
    return update(app);
  }

  /**
   * The actions applied since the last call, sorted, and forgets them.
   *
   * @return the applied actions, one {@code "<provider> <verb> <key>"} each
   */
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

    /**
     * Provides a context value to every app of the extension.
     *
     * @param key the key the connector reads the value by
     * @param value the value, such as a client or a fake service
     * @param <T> the value type
     * @return this builder, for chaining
     */
    public <T> Builder provide(ContextKey<T> key, T value) {
      context.put(Objects.requireNonNull(key, "key"), value);
      return this;
    }

    /**
     * The extension, giving every app it makes the context values provided so far.
     *
     * @return the extension, to hold in a {@code @RegisterExtension} instance field
     */
    public CocoIndexExtension build() {
      return new CocoIndexExtension(this);
    }
  }
}
