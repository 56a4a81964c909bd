package io.cocoindex.runtime.workers;

import static io.cocoindex.runtime.workers.BatchLeaseTest.path;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.TestPostgres;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What keeps an orphan sweep and a takeover of the same state apart on the shared store: a
 * state's lease is held by one worker at a time, and the sweep waits for the components other
 * workers still hold.
 */
class StateLeaseTest {
  String baseUrl;
  String url;
  String schema;

  @BeforeEach
  void schema() throws Exception {
    baseUrl = TestPostgres.url();
    schema = "s_" + UUID.randomUUID().toString().replace("-", "");
    url = TestPostgres.inSchema(baseUrl, schema);
    MultiWorkerTest.sql(baseUrl, "CREATE SCHEMA " + schema);
  }

  @AfterEach
  void drop() throws Exception {
    if (schema != null) {
      MultiWorkerTest.sql(baseUrl, "DROP SCHEMA " + schema + " CASCADE");
    }
  }

  @Test
  void aStateLeaseIsHeldByOneWorkerAtATime() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      AutoCloseable held = a.leaseState("app", path("rows/x"));
      CompletableFuture<AutoCloseable> waiting =
          CompletableFuture.supplyAsync(() -> b.leaseState("app", path("rows/x")));
      Thread.sleep(300);
      assertThat(waiting).isNotDone();
      // Another state's lease is free meanwhile.
      b.leaseState("app", path("rows/y")).close();

      held.close();
      waiting.get(5, TimeUnit.SECONDS).close();
    }
  }

  @Test
  void aStateLeaseAndAComponentLeaseOfTheSameBytesAreDifferentLocks() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      AutoCloseable component = a.leaseComponent("app", path("p"), true);
      CompletableFuture<AutoCloseable> state =
          CompletableFuture.supplyAsync(() -> b.leaseState("app", path("p")));
      state.get(5, TimeUnit.SECONDS).close();
      component.close();
    }
  }

  @Test
  void theSweepWaitsForTheComponentsAnotherWorkerStillHolds() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      AutoCloseable c1 = a.leaseComponent("app", path("c1"), true);
      CompletableFuture<Void> sweep = CompletableFuture.runAsync(
          () -> b.awaitComponentsReleased("app", List.of(path("c1"), path("c2"))));
      Thread.sleep(300);
      assertThat(sweep).isNotDone();

      c1.close();
      sweep.get(5, TimeUnit.SECONDS);
      // Nothing held: no wait at all.
      b.awaitComponentsReleased("app", List.of(path("c1"), path("c2")));
    }
  }
}
