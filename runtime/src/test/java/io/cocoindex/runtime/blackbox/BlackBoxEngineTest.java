package io.cocoindex.runtime.blackbox;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateStats;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The engine's promises tested through the public API alone (written by an adversarial review):
 * failing bodies and sinks converge on a rerun, duplicate keys are errors naming them, keys of
 * every kind round-trip, a drop and an update recreate everything once.
 */
class BlackBoxEngineTest extends BlackBoxBase {
  final Kv kv = new Kv();
  /** component -> (key -> value) */
  final Map<String, Map<String, String>> world = new ConcurrentHashMap<>();
  final Map<String, RuntimeException> throwAfterDeclaring = new ConcurrentHashMap<>();
  final Map<String, Integer> declareOnlyFirst = new ConcurrentHashMap<>();

  Consumer<Ctx> main() {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      new TreeMap<>(world).forEach((comp, states) -> ctx.mount(comp, c -> {
        int n = 0;
        int limit = declareOnlyFirst.getOrDefault(comp, Integer.MAX_VALUE);
        for (Map.Entry<String, String> e : new TreeMap<>(states).entrySet()) {
          if (n++ >= limit) {
            break;
          }
          declareTargetState(c, p.targetState(e.getKey(), e.getValue()));
        }
        RuntimeException ex = throwAfterDeclaring.get(comp);
        if (ex != null) {
          throw ex;
        }
      }));
    };
  }

  Map<String, String> declared() {
    Map<String, String> all = new TreeMap<>();
    world.values().forEach(all::putAll);
    return all;
  }

  void put(String comp, String key, String value) {
    world.computeIfAbsent(comp, c -> new ConcurrentHashMap<>()).put(key, value);
  }

  @Test
  void componentThrowingAfterDeclaringSomeStatesChangesNothingOfItsOwnAndRerunConverges() {
    App app = app(main());
    put("c1", "a", "1");
    put("c1", "b", "1");
    put("c1", "c", "1");
    put("c2", "x", "1");
    app.update();
    assertThat(kv.snapshot()).isEqualTo(declared());
    kv.take();

    // c1 now would declare a=2 and drop c, but only declares a=2 then throws
    put("c1", "a", "2");
    world.get("c1").remove("c");
    put("c2", "x", "2");
    declareOnlyFirst.put("c1", 1);
    throwAfterDeclaring.put("c1", new IllegalStateException("boom in c1"));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("boom in c1");
    assertThat(kv.take()).containsExactly("update x=2");
    assertThat(kv.snapshot()).isEqualTo(Map.of("a", "1", "b", "1", "c", "1", "x", "2"));

    declareOnlyFirst.clear();
    throwAfterDeclaring.clear();
    app.update();
    assertThat(kv.take()).containsExactly("delete c", "update a=2");
    assertThat(kv.snapshot()).isEqualTo(declared());
    assertThat(app.preview().changes()).isEmpty();
  }

  @Test
  void sinkFailingOnDeletesOnlyThenCleanRerunConverges() {
    App app = app(main());
    for (int i = 0; i < 20; i++) {
      put("c" + (i % 4), "k" + i, "v");
    }
    app.update();
    kv.take();
    // move half, delete a quarter, change a quarter
    for (int i = 0; i < 20; i++) {
      String comp = "c" + (i % 4);
      if (i % 4 == 0) {
        world.get(comp).remove("k" + i);
      } else if (i % 4 == 1) {
        world.get(comp).remove("k" + i);
        put("c" + ((i + 1) % 4), "k" + i, "v");
      } else if (i % 4 == 2) {
        put(comp, "k" + i, "w");
      }
    }
    kv.failWhen = a -> a instanceof TargetAction.Delete<?>;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    Map<String, String> expectedNow = new TreeMap<>(declared());
    for (int i = 0; i < 20; i += 4) {
      expectedNow.put("k" + i, "v"); // deletes failed
    }
    assertThat(kv.snapshot()).isEqualTo(expectedNow);
    kv.take();

    kv.failWhen = a -> false;
    app.update();
    assertThat(kv.take()).containsExactlyInAnyOrder(
        "delete k0", "delete k4", "delete k8", "delete k12", "delete k16");
    assertThat(kv.snapshot()).isEqualTo(declared());
    assertThat(app.preview().changes()).isEmpty();
    app.update();
    assertThat(kv.take()).isEmpty();
  }

  @Test
  void sameKeyTwiceInOneComponentIsAnErrorNamingItAndNothingStoredIsLost() {
    App app = app(main());
    put("c1", "a", "1");
    app.update();
    kv.take();
    App dup = app("blackbox", ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      ctx.mount("c1", c -> {
        declareTargetState(c, p.targetState("a", "2"));
        declareTargetState(c, p.targetState("a", "3"));
      });
    });
    app.close();
    assertThatThrownBy(dup::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("\"a\"").hasMessageContaining("twice");
    assertThat(kv.take()).isEmpty();
    assertThat(kv.snapshot()).isEqualTo(Map.of("a", "1"));
  }

  @Test
  void sameKeyInTwoComponentsIsAnErrorNamingBothAndRerunConverges() {
    App app = app(main());
    put("c1", "a", "1");
    app.update();
    kv.take();
    put("c2", "a", "2");
    Throwable t = null;
    try {
      app.update();
    } catch (UpdateFailedException e) {
      t = e;
    }
    assertThat(t).as("two components declaring one key in one run must fail").isNotNull();
    assertThat(t.getMessage()).contains("c1").contains("c2");
    world.get("c1").remove("a");
    app.update();
    assertThat(kv.snapshot()).isEqualTo(Map.of("a", "2"));
    assertThat(app.preview().changes()).isEmpty();
  }

  @Test
  void integerAndLongAndShortKeysAreOneStateAcrossRuns() {
    Object[] key = {1};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      declareTargetState(ctx, p.targetState(key[0], "v"));
    });
    app.update();
    assertThat(kv.take()).containsExactly("create 1=v");
    key[0] = 1L;
    app.update();
    key[0] = (short) 1;
    app.update();
    key[0] = (byte) 1;
    app.update();
    assertThat(kv.take()).isEmpty();
  }

  @Test
  void edgeCaseKeysRoundTripAndAreDistinct() {
    List<Object> keys = List.of("", "\u0000", "a\u0000", "a", "A", "\uD83D\uDE00", "e\u0301",
        "\u00e9", "x".repeat(100_000), List.of(), List.of(""), List.of(List.of()),
        List.of("a", "b"), List.of("a,b"), new byte[0], new byte[] {0}, Long.MIN_VALUE,
        Long.MAX_VALUE, 0, true, false,
        StableKey.symbol("a"), new java.util.UUID(0, 0));
    java.util.List<Object> nullable = new java.util.ArrayList<>(keys);
    nullable.add(null);
    boolean[] declare = {true};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      if (declare[0]) {
        for (Object k : nullable) {
          declareTargetState(ctx, p.targetState(k instanceof byte[] b ? b.clone() : k, "v"));
        }
      }
    });
    UpdateStats s = app.update();
    assertThat(s.of("kv").created()).isEqualTo(nullable.size());
    assertThat(kv.external).hasSize(nullable.size());
    kv.take();
    app.update();
    assertThat(kv.take()).isEmpty();
    assertThat(app.preview().changes()).isEmpty();
    declare[0] = false;
    app.update();
    assertThat(kv.external).isEmpty();
    assertThat(app.status().total()).isEqualTo(0);
  }

  @Test
  void dropStateThenUpdateRecreatesEverythingOnceThenNothing() {
    App app = app(main());
    put("c1", "a", "1");
    put("c2", "b", "1");
    app.update();
    app.dropState();
    assertThat(kv.external).isEmpty();
    kv.take();
    app.update();
    assertThat(kv.take()).containsExactly("create a=1", "create b=1");
    app.update();
    assertThat(kv.take()).isEmpty();
    app.dropState();
    app.dropState();
    assertThat(kv.take()).containsExactly("delete a", "delete b");
  }

  @Test
  void updateCalledFromInsideMainIsAClearErrorNotADeadlock() {
    App[] self = new App[1];
    Throwable[] inner = new Throwable[1];
    self[0] = app(ctx -> {
      registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      if (inner[0] == null) {
        try {
          self[0].update();
          inner[0] = new AssertionError("reentrant update returned");
        } catch (Throwable t) {
          inner[0] = t;
        }
      }
    });
    self[0].update();
    assertThat(inner[0]).isNotInstanceOf(AssertionError.class);
    assertThat(inner[0]).hasMessageContaining("blackbox");
  }

  @Test
  void previewWhileAnotherThreadUpdatesIsRefusedOrWaitsButNeverInterferes() throws Exception {
    java.util.concurrent.CountDownLatch inMain = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    boolean[] block = {true};
    put("c1", "a", "1");
    Consumer<Ctx> inner = main();
    App app = app(ctx -> {
      inner.accept(ctx);
      if (block[0]) {
        inMain.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new RuntimeException(e);
        }
      }
    });
    Thread t = new Thread(app::update);
    t.start();
    inMain.await();
    Throwable previewError = null;
    try {
      app.preview();
    } catch (Throwable e) {
      previewError = e;
    }
    go.countDown();
    t.join();
    block[0] = false;
    assertThat(previewError).isNotNull();
    assertThat(kv.snapshot()).isEqualTo(Map.of("a", "1"));
    assertThat(app.preview().changes()).isEmpty();
  }
}
