package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.Run;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Workers on one PostgreSQL store share a round of slow components: a worker claims only the
 * components it is about to run, so a worker that starts later finds the rest unclaimed.
 */
class WorkSharingTest {
  static final int COMPONENTS = 19;
  static final int THREADS = 2;

  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("ws_");

  App worker(Consumer<Ctx> main) {
    return worker(UnaryOperator.identity(), main);
  }

  /** A worker on its own store, seen by the run through {@code view}. */
  App worker(UnaryOperator<StateStore> view, Consumer<Ctx> main) {
    PostgresStateStore store = PostgresStateStore.open(pg.url());
    App app = App.create("w", Environment.builder().stateStore(view.apply(store))
        .parallelism(THREADS).build(), main);
    pg.closeLast(store);
    pg.closeLast(app);
    return app;
  }

  /** A main that mounts {@code n} components, each declaring its row, counting its bodies. */
  static Consumer<Ctx> mountingRows(int n, Rows rows, AtomicInteger bodies) {
    return mountingRows(n, 0, rows, bodies);
  }

  /** As above, each body taking {@code bodyMillis} (a slow call). */
  static Consumer<Ctx> mountingRows(int n, long bodyMillis, Rows rows, AtomicInteger bodies) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < n; i++) {
        String key = "c" + i;
        ctx.mount(key, c -> {
          bodies.incrementAndGet();
          if (bodyMillis > 0) {
            try {
              Thread.sleep(bodyMillis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(e);
            }
          }
          declareTargetState(c, p.targetState(key, "v"));
        });
      }
    };
  }

  /**
   * B's run starts, then A processes the whole round of quick components before B mounts any:
   * B finds every one claimed. It skips them in batches that widen by one per skip, doubling
   * each round trip: a handful of round trips. Leased at two per thread, as
   * before any body of its own had run, B took one round trip per four components; a worker
   * starting a few hundred milliseconds after another so trailed it through a round of quick
   * components, skipping no faster than the other processed them, and never got any.
   */
  @Test
  void aWorkerFindingTheComponentsAheadClaimedSkipsThemInWideBatches() throws Exception {
    int n = 320;
    Rows rows = new Rows();
    AtomicInteger byA = new AtomicInteger();
    AtomicInteger byB = new AtomicInteger();
    List<Integer> bBatches = new CopyOnWriteArrayList<>();
    CountDownLatch bStarted = new CountDownLatch(1);
    CountDownLatch aDone = new CountDownLatch(1);
    App a = worker(mountingRows(n, rows, byA));
    Consumer<Ctx> bMain = mountingRows(n, rows, byB);
    App b = worker(store -> new ForwardingStateStore(store) {
      @Override
      public List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
        bBatches.add(componentPaths.size());
        return super.leaseComponents(app, componentPaths);
      }
    }, ctx -> {
      bStarted.countDown();
      await(aDone); // B's run started first: what A claims is claimed in B's round
      bMain.accept(ctx);
    });

    CompletableFuture<UpdateStats> runB = CompletableFuture.supplyAsync(b::update,
        ThreadPerTask.INSTANCE);
    try {
      await(bStarted);
      a.update();
    } finally {
      aDone.countDown();
    }
    runB.get(1, TimeUnit.MINUTES);

    assertThat(byA.get()).as("components A processed").isEqualTo(n);
    assertThat(byB.get()).as("components B processed").isZero();
    assertThat(bBatches.stream().mapToInt(Integer::intValue).sum()).as("components B leased")
        .isEqualTo(n);
    // Five round trips of 64 at best; at four a round trip, 80.
    assertThat(bBatches.size()).as("B's lease round trips, of sizes %s", bBatches)
        .isLessThanOrEqualTo(n / (4 * Run.LEASED_AHEAD_PER_THREAD * THREADS));
  }

  /**
   * Two workers started together on a round of 60 slow components (50 ms each) share it about
   * evenly, each component processed once. With a skipped component counted as a body of no
   * time, the first skips had widened a worker's gate for good, and it then leased far ahead of
   * what it ran: splits of 1 to 59 and 56 to 4, the round taking up to twice as long.
   */
  @Test
  void twoWorkersStartedTogetherShareSlowComponentsAboutEvenly() throws Exception {
    int n = 60;
    Rows rows = new Rows();
    AtomicInteger byA = new AtomicInteger();
    AtomicInteger byB = new AtomicInteger();
    App a = worker(mountingRows(n, 50, rows, byA));
    App b = worker(mountingRows(n, 50, rows, byB));
    CompletableFuture<UpdateStats> runA =
        CompletableFuture.supplyAsync(a::update, ThreadPerTask.INSTANCE);
    CompletableFuture<UpdateStats> runB =
        CompletableFuture.supplyAsync(b::update, ThreadPerTask.INSTANCE);
    runA.get(1, TimeUnit.MINUTES);
    runB.get(1, TimeUnit.MINUTES);
    assertThat(rows.takeLog()).hasSize(n).allMatch(line -> line.startsWith("create c"));
    assertThat(byA.get() + byB.get()).isEqualTo(n);
    assertThat(Math.min(byA.get(), byB.get())).as("A %s, B %s", byA, byB)
        .isGreaterThanOrEqualTo(n / 4);
  }

  /**
   * A's run mounts 19 components whose bodies wait (a slow model call, say) on its pool of two
   * threads. B, starting meanwhile, processes every component A has not claimed: A claims the
   * ones it started and at most two per thread ahead of them. (A leased all 19 at once, its
   * in-flight bound being 64, and B skipped every one: B did nothing while A worked through
   * them two by two.) Each component is processed once.
   */
  @Test
  void aWorkerClaimsOnlyWhatItIsAboutToRunAndLeavesTheRestToAnother() throws Exception {
    Rows rows = new Rows();
    CountDownLatch aRunning = new CountDownLatch(THREADS);
    CountDownLatch aMayGoOn = new CountDownLatch(1);
    AtomicInteger byA = new AtomicInteger();
    AtomicInteger byB = new AtomicInteger();
    App a = worker(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < COMPONENTS; i++) {
        String key = "c" + i;
        ctx.mount(key, c -> {
          byA.incrementAndGet();
          aRunning.countDown();
          await(aMayGoOn);
          declareTargetState(c, p.targetState(key, "v"));
        });
      }
    });
    App b = worker(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < COMPONENTS; i++) {
        String key = "c" + i;
        ctx.mount(key, c -> {
          byB.incrementAndGet();
          declareTargetState(c, p.targetState(key, "v"));
        });
      }
    });

    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update,
        ThreadPerTask.INSTANCE);
    CompletableFuture<UpdateStats> runB;
    long claimedByA;
    try {
      assertThat(aRunning.await(1, TimeUnit.MINUTES)).as("A runs two bodies").isTrue();
      claimedByA = settledClaims();
      // Its pool may have added a thread or two while its own waits blocked (managed blocks):
      // what it claimed is what it started, and a few per thread ahead of them (fewer when the
      // lease batch for the next ones waits for a thread of the pool, which the bodies hold).
      assertThat(claimedByA).as("components A claimed, having started %s", byA.get())
          .isLessThanOrEqualTo(byA.get() + Run.LEASED_AHEAD_PER_THREAD * THREADS);

      // B's sweep waits for the components A holds: A goes on once B processed the others.
      runB = CompletableFuture.supplyAsync(b::update, ThreadPerTask.INSTANCE);
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (byB.get() < COMPONENTS - claimedByA) {
        assertThat(System.nanoTime()).as("B processing the rest").isLessThan(deadline);
        Thread.sleep(10);
      }
    } finally {
      aMayGoOn.countDown();
    }
    runA.get(1, TimeUnit.MINUTES);
    runB.get(1, TimeUnit.MINUTES);

    assertThat(byA.get()).as("components A processed").isEqualTo(claimedByA);
    assertThat(byB.get()).as("components B processed").isEqualTo(COMPONENTS - claimedByA);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < COMPONENTS; i++) {
      expected.add("create c" + i + "=v");
    }
    assertThat(rows.takeLog()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /**
   * The components claimed, once their count held for half a second: A's bodies wait, and its
   * leases ahead of them are taken.
   */
  private long settledClaims() throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    long last = -1;
    long since = System.nanoTime();
    while (true) {
      long now = claims();
      if (now != last) {
        last = now;
        since = System.nanoTime();
      } else if (System.nanoTime() - since > 500_000_000L) {
        return now;
      }
      assertThat(System.nanoTime()).as("claims settling").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /** The components claimed in the test's schema so far. */
  private long claims() throws Exception {
    try (Connection c = DriverManager.getConnection(pg.serverUrl());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + pg.name() + ".cocoindex_claim")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(1, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the test's latch was not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
