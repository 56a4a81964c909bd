package io.cocoindex.runtime.blackbox;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Apps of related or colliding names on one store stay apart: updated at once, dropped one by
 * one, locked each on its own (an adversarial review).
 */
class AppIsolationTest extends BlackBoxBase {

  Consumer<Ctx> main(Kv kv, int[] n, String prefix) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      for (int c = 0; c < 20; c++) {
        int comp = c;
        ctx.mount(comp, cc -> {
          for (int i = comp; i < n[0]; i += 20) {
            declareTargetState(cc, p.targetState(prefix + i, "v" + i));
          }
        });
      }
    };
  }

  @Test
  void appsWhoseNamesExtendEachOtherUpdatedConcurrentlyAndOneDroppedStayApart() throws Exception {
    List<String> names = List.of("docs", "docs2", "docs/", "docs\u0000", "Docs");
    List<Kv> kvs = new ArrayList<>();
    List<App> apps = new ArrayList<>();
    int[] n = {2000};
    for (String name : names) {
      Kv kv = new Kv();
      kvs.add(kv);
      apps.add(app(name, main(kv, n, name.length() + ":")));
    }
    ExecutorService pool = Executors.newFixedThreadPool(names.size());
    try {
      for (int round = 0; round < 3; round++) {
        List<Future<?>> fs = new ArrayList<>();
        for (App a : apps) {
          fs.add(pool.submit(() -> a.update()));
        }
        for (Future<?> f : fs) {
          f.get();
        }
        n[0] -= 500;
      }
    } finally {
      pool.shutdown();
    }
    n[0] += 500;
    for (int i = 0; i < apps.size(); i++) {
      assertThat(kvs.get(i).external).as(names.get(i)).hasSize(n[0]);
      assertThat(apps.get(i).status().total()).as(names.get(i)).isEqualTo(n[0]);
    }
    apps.get(0).dropState();
    assertThat(kvs.get(0).external).isEmpty();
    for (int i = 1; i < apps.size(); i++) {
      kvs.get(i).take();
      apps.get(i).update();
      assertThat(kvs.get(i).take()).as(names.get(i)).isEmpty();
      assertThat(apps.get(i).status().total()).as(names.get(i)).isEqualTo(n[0]);
    }
  }

  @Test
  void aVeryLongAppNameWorksOrIsRejectedAtCreate() {
    Kv kv = new Kv();
    String name = "app-".repeat(100);
    App app;
    try {
      app = app(name, main(kv, new int[] {10}, "k"));
    } catch (IllegalArgumentException rejected) {
      assertThat(rejected).hasMessageContaining("name");
      return;
    }
    app.update();
    assertThat(kv.external).hasSize(10);
  }

  /**
   * "x!@" and "x\"!" sanitize to one lock-file stem and have one String.hashCode: two distinct
   * apps must still be updatable at the same time.
   */
  @Test
  void twoAppsWhoseLockFileNamesCollideDoNotBlockEachOther() throws Exception {
    assertThat("x!@".hashCode()).isEqualTo("x\"!".hashCode());
    java.util.concurrent.CountDownLatch inMain = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    Kv kv1 = new Kv();
    Kv kv2 = new Kv();
    Consumer<Ctx> first = main(kv1, new int[] {5}, "a");
    App a = app("x!@", ctx -> {
      first.accept(ctx);
      inMain.countDown();
      try {
        go.await();
      } catch (InterruptedException e) {
        throw new RuntimeException(e);
      }
    });
    App b = app("x\"!", main(kv2, new int[] {5}, "b"));
    Thread t = new Thread(a::update);
    t.start();
    inMain.await();
    Throwable error = null;
    try {
      b.update();
    } catch (Throwable e) {
      error = e;
    } finally {
      go.countDown();
      t.join();
    }
    assertThat(error).as("app x\"! while app x!@ updates").isNull();
    assertThat(kv2.external).hasSize(5);
  }
}
