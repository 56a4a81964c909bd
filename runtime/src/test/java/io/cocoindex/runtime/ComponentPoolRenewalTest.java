package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetStateProvider;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An app whose component pool has started its share of workers runs its next update on a new
 * pool, and the worn one ends: on JDK 17 before 17.0.17 a pool kept long enough stops waking its
 * workers (see {@code ComponentPool#worn}), so no pool is kept that long.
 */
class ComponentPoolRenewalTest extends EngineTestBase {
  private static final String RENEW_AFTER = "cocoindex.componentPool.renewAfterWorkers";

  @AfterEach
  void restore() {
    System.clearProperty(RENEW_AFTER);
  }

  @Test
  void anAppTakesANewPoolOnceItsPoolHasStartedItsShareOfWorkers() throws Exception {
    System.setProperty(RENEW_AFTER, "2");
    Rows rows = new Rows();
    Set<ForkJoinPool> pools = ConcurrentHashMap.newKeySet();
    CountDownLatch[] bothStarted = new CountDownLatch[1];
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (String key : List.of("a", "b")) {
        ctx.mount(key, c -> {
          pools.add(((ForkJoinWorkerThread) Thread.currentThread()).getPool());
          // Both bodies at once: the pool starts its two workers.
          bothStarted[0].countDown();
          try {
            bothStarted[0].await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          declareTargetState(c, p.targetState(key, "v"));
        });
      }
    });

    bothStarted[0] = new CountDownLatch(2);
    assertThat(app.update().total().created()).isEqualTo(2);
    assertThat(pools).hasSize(1);
    ForkJoinPool first = pools.iterator().next();
    assertThat(first.isShutdown()).as("the first run's pool, in use").isFalse();

    pools.clear();
    bothStarted[0] = new CountDownLatch(2);
    UpdateStats second = app.update();

    assertThat(second.total().unchanged()).isEqualTo(2);
    assertThat(pools).hasSize(1).doesNotContain(first);
    assertThat(first.isShutdown()).as("the worn pool, let go").isTrue();
    assertThat(rows.log).containsExactlyInAnyOrder("create a=v", "create b=v");
  }
}
