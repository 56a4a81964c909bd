package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two workers on one PostgreSQL store, one of which dies in the middle of a round (its server
 * sessions end, as when its process is killed): the other finishes what it had claimed in the
 * same round, rather than leaving it to the next run.
 */
class WorkerDiedMidRoundTest {
  String baseUrl;
  String schema;
  final List<AutoCloseable> closeLast = new ArrayList<>();
  /** Released in the rerun: B mounts "x" once A died; A's body waits until B is done. */
  volatile CountDownLatch bMayMount = new CountDownLatch(0);
  volatile CountDownLatch aInBody = new CountDownLatch(0);
  volatile CountDownLatch aMayGoOn = new CountDownLatch(0);

  @BeforeEach
  void schema() throws Exception {
    baseUrl = TestPostgres.url();
    schema = "d_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = DriverManager.getConnection(baseUrl); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
  }

  @AfterEach
  void drop() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      try {
        closeLast.get(i).close();
      } catch (RuntimeException sessionsGone) {
        // the dead worker's
      }
    }
    if (schema == null) {
      return; // no server: the test was skipped
    }
    try (Connection c = DriverManager.getConnection(baseUrl); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA " + schema + " CASCADE");
    }
  }

  App worker(String name, Consumer<Ctx> main) {
    PostgresStateStore store = PostgresStateStore.open(
        TestPostgres.inSchema(baseUrl, schema) + "&ApplicationName=" + name);
    App app = App.create("w", Environment.builder().stateStore(store).build(), main);
    closeLast.add(store);
    closeLast.add(app);
    return app;
  }

  /**
   * Worker B's run starts, and its {@code main} waits. Worker A's run then mounts "x" (claiming
   * it in the round) and dies in its body. B mounts "x" next: claimed since B's run started, by
   * a run that neither holds its lock nor ended, so B takes it over and writes "x1=v2" in this
   * round. (B skipped it as another worker's, and "x1" stayed at v1 until the next run.)
   */
  @Test
  void aComponentClaimedByAWorkerThatDiedIsFinishedByAnotherInTheSameRound() throws Exception {
    Rows rows = new Rows();
    String[] value = {"v1"};
    Consumer<Ctx> mainA = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("x", c -> {
        aInBody.countDown();
        await(aMayGoOn);
        declareTargetState(c, p.targetState("x1", value[0]));
      });
    };
    Consumer<Ctx> mainB = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      await(bMayMount);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", value[0])));
    };
    App b = worker(schema + "_b", mainB);
    b.update();
    assertThat(rows.takeLog()).containsExactly("create x1=v1");

    value[0] = "v2";
    bMayMount = new CountDownLatch(1);
    aInBody = new CountDownLatch(1);
    aMayGoOn = new CountDownLatch(1);
    CompletableFuture<UpdateStats> runB = CompletableFuture.supplyAsync(b::update);
    awaitRunsAlive(1); // B's run has started: its version is allocated, its lock held

    App a = worker(schema + "_a", mainA);
    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update);
    assertThat(aInBody.await(1, TimeUnit.MINUTES)).as("A in x's body").isTrue();
    TestPostgres.terminateSessions(baseUrl, schema + "_a");
    bMayMount.countDown();

    UpdateStats stats = runB.get(1, TimeUnit.MINUTES);
    assertThat(rows.takeLog()).as("B took x over in this round").containsExactly("update x1=v2");
    assertThat(stats.total().changed()).isEqualTo(1);

    aMayGoOn.countDown(); // A's body ends; its run cannot commit
    try {
      runA.get(1, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException expected) {
      // its sessions are gone
    }
    assertThat(rows.takeLog()).as("nothing more from A").isEmpty();
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

  /** Waits until {@code n} runs of this test's stores hold their shared run locks. */
  private void awaitRunsAlive(int n) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    try (Connection c = DriverManager.getConnection(baseUrl);
        PreparedStatement q = c.prepareStatement("SELECT count(*) FROM pg_locks"
            + " WHERE locktype = 'advisory' AND granted AND mode = 'ShareLock' AND pid IN"
            + " (SELECT pid FROM pg_stat_activity WHERE application_name LIKE ?)")) {
      q.setString(1, schema + "\\_%");
      while (true) {
        try (ResultSet rs = q.executeQuery()) {
          rs.next();
          if (rs.getLong(1) >= n) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("runs started").isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }
}
