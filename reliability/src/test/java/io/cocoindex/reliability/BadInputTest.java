package io.cocoindex.reliability;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStoreException;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.StoreLockedException;
import io.cocoindex.testkit.ThreadPerTask;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bad-input catalogue of docs/RELIABILITY.md: each case gives a clear error naming the
 * culprit, commits the healthy components, loses nothing stored before, and the next run
 * converges. The external system is {@link ModelConnectors.External}'s key-value map.
 */
class BadInputTest {
  @TempDir Path dir;
  final ModelConnectors conn = new ModelConnectors();
  final Map<String, String> declared = new TreeMap<>(); // key -> value, one component per key
  final List<App> apps = new ArrayList<>();

  @AfterEach
  void close() {
    apps.forEach(App::close);
  }

  Consumer<Ctx> kvMain() {
    return ctx -> {
      TargetStateProvider<String> kv =
          registerRootTargetStatesProvider(ctx, "kv", conn.new KvHandler());
      declared.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, kv.targetState(k, v))));
    };
  }

  App app(Consumer<Ctx> main) {
    App app = App.create("bad", Environment.builder().dbPath(dir).build(), main);
    apps.add(app);
    return app;
  }

  void assertConverged(App app) {
    app.update();
    assertThat(conn.ext.kv).isEqualTo(declared);
    assertThat(app.status().unsettled()).isEmpty();
  }

  @Test
  void corruptStateFileIsAClearErrorNamingTheFileAndIsLeftUntouched() throws Exception {
    Files.write(dir.resolve("state.db"), "this is not a database, just some text".repeat(200)
        .getBytes());
    byte[] before = Files.readAllBytes(dir.resolve("state.db"));
    assertThatThrownBy(() -> app(kvMain()))
        .isInstanceOf(StateStoreException.class)
        .hasMessageContaining(dir.resolve("state.db").toString())
        .hasMessageContaining("is it a cocoindex state database? move it away");
    assertThat(Files.readAllBytes(dir.resolve("state.db"))).isEqualTo(before);
  }

  @Test
  void truncatedStateFileIsAClearErrorAndMovingItAwayStartsAfresh() throws Exception {
    declared.put("a", "1");
    try (App app = App.create("bad", Environment.builder().dbPath(dir).build(), kvMain())) {
      for (int i = 0; i < 200; i++) {
        declared.put("k" + i, "v" + i);
      }
      app.update();
    }
    Path db = dir.resolve("state.db");
    try (RandomAccessFile f = new RandomAccessFile(db.toFile(), "rw")) {
      f.setLength(f.length() / 3);
    }
    Files.deleteIfExists(dir.resolve("state.db-wal"));
    Throwable error = null;
    try (App app = App.create("bad", Environment.builder().dbPath(dir).build(), kvMain())) {
      app.update();
    } catch (RuntimeException e) {
      error = e;
    }
    assertThat(error).as("a truncated store must not be used silently").isNotNull();
    assertThat(error).hasMessageContaining(db.toString());
    // The documented way out: move the file away; the sinks' upserts make a fresh run converge.
    Files.move(db, dir.resolve("state.db.broken"));
    try (App app = App.create("bad", Environment.builder().dbPath(dir).build(), kvMain())) {
      assertConverged(app);
    }
  }

  @Test
  void storeOfANewerVersionIsRefusedAndNotModified() throws Exception {
    declared.put("a", "1");
    try (App app = App.create("bad", Environment.builder().dbPath(dir).build(), kvMain())) {
      app.update();
    }
    String url = "jdbc:sqlite:" + dir.resolve("state.db");
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("UPDATE meta SET value='99' WHERE key='schema_version'");
    }
    assertThatThrownBy(() -> app(kvMain()))
        .isInstanceOf(StateStoreException.class)
        .hasMessageContaining("newer cocoindex (schema version 99")
        .hasMessageContaining(dir.resolve("state.db").toString());
    try (Connection c = DriverManager.getConnection(url)) {
      assertThat(Convergence.query(c, "SELECT value FROM meta WHERE key='schema_version'"))
          .containsExactly("99");
      assertThat(Convergence.query(c, "SELECT count(*) FROM owner_range")).containsExactly("1");
    }
  }

  @Test
  void statesOfAProviderWhoseCodeWasRemovedAreKeptShownAndDroppedOnceRegisteredAgain() {
    boolean[] registerOld = {true};
    ModelConnectors old = new ModelConnectors();
    App app = app(ctx -> {
      kvMain().accept(ctx);
      if (registerOld[0]) {
        TargetStateProvider<String> p =
            registerRootTargetStatesProvider(ctx, "old", old.new KvHandler());
        declareTargetState(ctx, p.targetState("x", "1"));
      }
    });
    declared.put("a", "1");
    app.update();
    assertThat(old.ext.kv).containsEntry("x", "1");

    registerOld[0] = false; // the provider's code is gone
    app.update();
    assertThat(old.ext.kv).as("kept, not deleted blindly").containsEntry("x", "1");
    assertThat(app.status().providers()).containsKey("old");
    assertThat(app.status().providers().get("old")).containsExactly(StableKey.of("x"));

    // Registered again (with nothing declared), the next update deletes it through its handler.
    App again = app(ctx -> {
      kvMain().accept(ctx);
      registerRootTargetStatesProvider(ctx, "old", old.new KvHandler());
    });
    again.update();
    assertThat(old.ext.kv).isEmpty();
    assertThat(again.status().providers()).doesNotContainKey("old");
    again.dropState();
    assertThat(conn.ext.kv).isEmpty();
  }

  record RecordV1(String value) {}

  record RecordV2(long number, List<String> parts) {}

  /** Same provider, tracking record of another shape: an incompatible change. */
  static final class V1Handler implements TargetHandler<String, RecordV1, String> {
    final TargetActionSink<String> sink = TargetActionSink.of(a -> {});

    @Override
    public TargetReconcileOutput<String, RecordV1> reconcile(
        StableKey key, String desired, List<RecordV1> prev, boolean mbm) {
      return desired == null ? TargetReconcileOutput.of(TargetAction.delete("x"), sink, null)
          : TargetReconcileOutput.of(TargetAction.create(desired), sink, new RecordV1(desired));
    }
  }

  static final class V2Handler implements TargetHandler<String, RecordV2, String> {
    final List<String> applied = new ArrayList<>();
    final TargetActionSink<String> sink = TargetActionSink.of(a -> a.forEach(x -> applied.add(
        x.verb() + " " + x.value())));

    @Override
    public TargetReconcileOutput<String, RecordV2> reconcile(
        StableKey key, String desired, List<RecordV2> prev, boolean mbm) {
      return desired == null ? TargetReconcileOutput.of(TargetAction.delete("x"), sink, null)
          : TargetReconcileOutput.of(TargetAction.update(desired), sink,
              new RecordV2(desired.length(), List.of(desired)));
    }
  }

  @Test
  void trackingRecordClassChangedIncompatiblyIsAnErrorNamingProviderAndKey() {
    App v1 = app(ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "docs", new V1Handler()).targetState("a", "one")));
    v1.update();
    V2Handler h2 = new V2Handler();
    App v2 = app(ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "docs", h2).targetState("a", "two")));
    assertThatThrownBy(v2::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("docs")
        .hasMessageContaining("\"a\"");
    assertThat(h2.applied).isEmpty();
    assertThat(v2.status().providers().get("docs")).containsExactly(StableKey.of("a"));
  }

  /** A kv handler that throws for one key. */
  final class ThrowingKv implements TargetHandler<String, String, ModelConnectors.KvAction> {
    @Override
    public TargetReconcileOutput<ModelConnectors.KvAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      if (ModelConnectors.str(key).equals("bad")) {
        throw new IllegalArgumentException("cannot handle this key");
      }
      return conn.new KvHandler().reconcile(key, desired, prev, mbm);
    }
  }

  @Test
  void handlerThrowingInReconcileFailsOnlyItsComponentNamingHandlerAndKey() {
    App app = app(ctx -> {
      TargetStateProvider<String> kv = registerRootTargetStatesProvider(ctx, "kv", new ThrowingKv());
      declared.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, kv.targetState(k, v))));
    });
    declared.put("a", "1");
    declared.put("bad", "1");
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("1 component failed")
        .hasMessageContaining("ThrowingKv")
        .hasMessageContaining("\"bad\"")
        .hasMessageContaining("cannot handle this key");
    assertThat(conn.ext.kv).containsExactly(Map.entry("a", "1"));
    declared.remove("bad");
    assertConverged(app);
  }

  @Test
  void sinkThrowingOnOneActionFailsOnlyThatComponentAndTheNextRunRetriesIt() {
    App app = app(kvMain());
    for (int i = 0; i < 20; i++) {
      declared.put("k" + i, "v" + i);
    }
    app.update();
    declared.replaceAll((k, v) -> v + "'");
    conn.faults.failOn = id -> id.equals("kv:k7");
    UpdateFailedException e = org.junit.jupiter.api.Assertions.assertThrows(
        UpdateFailedException.class, app::update);
    assertThat(e.failures()).hasSize(1);
    assertThat(e.failures().get(0).component()).contains("k7");
    assertThat(e.getMessage()).contains("injected sink failure on kv:k7");
    assertThat(conn.ext.kv).hasSize(20).containsEntry("k7", "v7").containsEntry("k8", "v8'");
    assertThat(app.status().unsettled()).hasSize(1);
    conn.faults.failOn = id -> false;
    assertConverged(app);
  }

  @Test
  void childFactoryThrowingIsAnErrorNamingTheContainerAndNothingIsLost() {
    boolean[] fail = {false};
    List<String> rows = new ArrayList<>();
    TargetActionSink<String> rowSink = TargetActionSink.of(a -> a.forEach(x -> rows.add(x.verb()
        + " " + x.value())));
    final class RowH implements TargetHandler<String, String, String> {
      @Override
      public TargetReconcileOutput<String, String> reconcile(
          StableKey key, String desired, List<String> prev, boolean mbm) {
        return desired == null ? TargetReconcileOutput.of(TargetAction.delete("-" + key), rowSink, null)
            : prev.contains(desired) && !mbm ? null
            : TargetReconcileOutput.of(TargetAction.create(desired), rowSink, desired);
      }
    }
    final class TableH implements TargetHandler<String, String, String> {
      final TargetActionSink<String> sink = TargetActionSink.withChildHandler(a -> {}, a -> {
        if (fail[0]) {
          throw new IllegalStateException("factory exploded");
        }
        return ChildTargetDef.of(new RowH());
      });

      @Override
      public TargetReconcileOutput<String, String> reconcile(
          StableKey key, String desired, List<String> prev, boolean mbm) {
        return desired == null ? TargetReconcileOutput.of(TargetAction.delete("t"), sink, null)
            : TargetReconcileOutput.of(prev.isEmpty() ? TargetAction.create("t")
                : TargetAction.update("t"), sink, desired);
      }
    }
    App app = app(ctx -> {
      TargetStateProvider<String> tables = registerRootTargetStatesProvider(ctx, "tables", new TableH());
      TargetStateProvider<String> kv = registerRootTargetStatesProvider(ctx, "kv", conn.new KvHandler());
      ctx.mount("kv", c -> declareTargetState(c, kv.targetState("a", "1")));
      ctx.mount("table", c -> {
        TargetStateProvider<String> t = mountTarget(c, tables.targetState("docs", "spec"));
        declareTargetState(c, t.targetState("r1", "x"));
      });
    });
    app.update();
    assertThat(rows).containsExactly("create x");
    fail[0] = true;
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("child-handler factory of container")
        .hasMessageContaining("docs")
        .hasMessageContaining("factory exploded");
    assertThat(app.status().providers().get("tables/docs")).containsExactly(StableKey.of("r1"));
    fail[0] = false;
    rows.clear();
    app.update();
    assertThat(rows).isEmpty(); // nothing was lost, nothing to redo
    assertThat(app.status().unsettled()).isEmpty();
  }

  /** Not serializable: a value holding a thread. */
  record Holder(String name, Thread thread) {}

  static final class HolderHandler implements TargetHandler<Holder, String, String> {
    @Override
    public TargetReconcileOutput<String, String> reconcile(
        StableKey key, Holder desired, List<String> prev, boolean mbm) {
      return null;
    }
  }

  @Test
  void nonSerializableValueIsRejectedAtDeclarationNamingTheType() {
    App app = app(ctx -> {
      kvMain().accept(ctx);
      TargetStateProvider<Holder> p =
          registerRootTargetStatesProvider(ctx, "holders", new HolderHandler());
      ctx.mount("holder", c -> declareTargetState(c,
          p.targetState("h", new Holder("h", Thread.currentThread()))));
    });
    declared.put("a", "1");
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("1 component failed")
        .hasMessageContaining("holder");
    assertThat(conn.ext.kv).containsEntry("a", "1");
  }

  /** Tracks a value by its fingerprint, as a connector of large values should. */
  final class FingerprintKv implements TargetHandler<String, Fingerprint, ModelConnectors.KvAction> {
    @Override
    public TargetReconcileOutput<ModelConnectors.KvAction, Fingerprint> reconcile(
        StableKey key, String desired, List<Fingerprint> prev, boolean mbm) {
      String k = ModelConnectors.str(key);
      if (desired == null) {
        return TargetReconcileOutput.of(
            TargetAction.delete(new ModelConnectors.KvAction(k, null)), conn.kvSink, null);
      }
      Fingerprint fp = Fingerprint.ofString(desired);
      if (!mbm && !prev.isEmpty() && prev.stream().allMatch(fp::equals)) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.create(new ModelConnectors.KvAction(k, desired)),
          conn.kvSink, fp);
    }
  }

  @Test
  void hundredMegabyteValueIsAppliedAndTrackedByItsFingerprint() {
    String big = "x".repeat(100 * 1024 * 1024);
    declared.put("big", big);
    declared.put("small", "1");
    App app = app(ctx -> {
      TargetStateProvider<String> kv = registerRootTargetStatesProvider(ctx, "kv", new FingerprintKv());
      declared.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, kv.targetState(k, v))));
    });
    app.update();
    assertThat(conn.ext.kv.get("big")).hasSize(big.length());
    declared.remove("big");
    assertConverged(app);
  }

  @Test
  void nullAndUnsupportedKeysAreClearErrors() {
    assertThatThrownBy(() -> StableKey.of(new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Object");
    App app = app(ctx -> {
      kvMain().accept(ctx);
      TargetStateProvider<String> p =
          registerRootTargetStatesProvider(ctx, "other", conn.new KvHandler());
      ctx.mount("unsupported", c -> declareTargetState(c, p.targetState(3.5, "v")));
    });
    declared.put("a", "1");
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("java.lang.Double");
    assertThat(conn.ext.kv).containsEntry("a", "1");
  }

  /**
   * A string key with an unpaired surrogate (text cut in the middle of a pair, say) fails its
   * component, naming the key: it has no UTF-8 form, and stored as '?' it was one state with the
   * key holding a '?' there. The key with the '?' of its own is a state like any other.
   */
  @Test
  void aKeyWithAnUnpairedSurrogateFailsItsComponentNamingIt() {
    App app = app(ctx -> {
      kvMain().accept(ctx);
      TargetStateProvider<String> p =
          registerRootTargetStatesProvider(ctx, "other", conn.new KvHandler());
      ctx.mount("cut", c -> declareTargetState(c, p.targetState("caf\uD83D", "v")));
      ctx.mount("fine", c -> declareTargetState(c, p.targetState("caf?", "w")));
    });
    declared.put("a", "1");
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the key string \"caf?\" holds an unpaired surrogate (\\ud83d at"
            + " index 3)");
    assertThat(conn.ext.kv).containsEntry("a", "1").containsEntry("caf?", "w").hasSize(2);
  }

  @Test
  @Timeout(60)
  void secondUpdaterOfTheSameStoreGetsStoreLockedExceptionNamingTheHolder() throws Exception {
    CountDownLatch inSink = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    conn.faults.failOn = id -> {
      inSink.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return false;
    };
    declared.put("a", "1");
    App first = app(kvMain());
    CompletableFuture<Void> running = CompletableFuture.runAsync(first::update,
        ThreadPerTask.INSTANCE);
    assertThat(inSink.await(30, TimeUnit.SECONDS)).isTrue();
    try (App second = App.create("bad", Environment.builder().dbPath(dir).build(), kvMain())) {
      assertThatThrownBy(second::update)
          .isInstanceOf(StoreLockedException.class)
          .hasMessageContaining("pid " + ProcessHandle.current().pid());
    }
    release.countDown();
    running.get(30, TimeUnit.SECONDS);
    assertConverged(first);
  }

  @Test
  void diskFullDuringCommitFailsTheRunNamingTheStoreAndLosesNothing() {
    boolean[] full = {false};
    ForwardingStateStore store = new ForwardingStateStore(SqliteStateStore.open(dir)) {
      @Override
      public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
        if (full[0] && ForwardingStateStore.isCommit(writes)) {
          return CompletableFuture.failedFuture(new StateStoreException(
              "state store " + dir + ": cannot commit tracking records: [SQLITE_FULL] database"
                  + " or disk is full"));
        }
        return super.write(app, writes);
      }
    };
    try (App app = App.create("bad", Environment.builder().stateStore(store).build(), kvMain())) {
      declared.put("a", "1");
      declared.put("b", "1");
      app.update();
      full[0] = true;
      declared.put("a", "2");
      declared.remove("b");
      assertThatThrownBy(app::update)
          .isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("SQLITE_FULL");
      assertThat(app.status().unsettled()).isNotEmpty(); // both possibilities are remembered
      full[0] = false;
      assertConverged(app);
    } finally {
      store.close();
    }
  }

  @Test
  @Timeout(60)
  void interruptOfTheUpdatingThreadEndsTheRunAndTheNextRunConverges() throws Exception {
    App app = app(kvMain());
    for (int i = 0; i < 50; i++) {
      declared.put("k" + i, "v" + i);
    }
    CountDownLatch inSink = new CountDownLatch(1);
    conn.faults.failOn = id -> {
      inSink.countDown();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return false;
    };
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread updater = new Thread(() -> {
      try {
        app.update();
      } catch (Throwable t) {
        outcome.set(t);
      }
    });
    updater.start();
    assertThat(inSink.await(30, TimeUnit.SECONDS)).isTrue();
    updater.interrupt();
    updater.join(30_000);
    assertThat(updater.isAlive()).as("the interrupted update returned").isFalse();
    conn.faults.failOn = id -> false;
    assertConverged(app);
  }
}
