package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.Run;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Workers on one PostgreSQL store share a round of slow components: a worker claims only the
 * components it is about to run, so a worker that starts later finds the rest unclaimed.
 */
class WorkSharingTest {
  static final int COMPONENTS = 19;
  static final int THREADS = 2;

  String baseUrl;
  String schema;
  final List<AutoCloseable> closeLast = new ArrayList<>();

  @BeforeEach
  void schema() throws Exception {
    baseUrl = TestPostgres.url();
    schema = "ws_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = DriverManager.getConnection(baseUrl); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
  }

  @AfterEach
  void drop() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
    if (schema == null) {
      return; // no server: the test was skipped
    }
    try (Connection c = DriverManager.getConnection(baseUrl); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA " + schema + " CASCADE");
    }
  }

  App worker(Consumer<Ctx> main) {
    PostgresStateStore store = PostgresStateStore.open(TestPostgres.inSchema(baseUrl, schema));
    App app = App.create("w", Environment.builder().stateStore(store).parallelism(THREADS)
        .build(), main);
    closeLast.add(store);
    closeLast.add(app);
    return app;
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
    try (Connection c = DriverManager.getConnection(baseUrl); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + ".cocoindex_claim")) {
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
