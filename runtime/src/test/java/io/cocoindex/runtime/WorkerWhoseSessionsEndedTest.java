package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.state.ContainerChangedException;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.SessionsLostException;
import io.cocoindex.runtime.state.StateStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A worker whose database sessions end while its process lives on, in the middle of a sink
 * call (an idle-session timeout, a network cut, {@code pg_terminate_backend}): its run's lock
 * goes with them. The other workers take it for alive for a grace (here 2 s, {@link
 * PostgresStateStore#DEAD_RUN_GRACE_PROPERTY}) from when they first see its lock missing, and
 * the worker stops its run within a fraction of it, starting no further sink call. The review
 * of the container checks (fifty-sixth session) found the run taken for dead at once: another
 * worker's change of a container applied while its child's write was under way, which then
 * landed below the leaf.
 */
class WorkerWhoseSessionsEndedTest extends TwoWorkersTestBase {
  static final long GRACE_MILLIS = 2000;
  private String graceBefore;

  @BeforeEach
  void sharedWithAGrace() {
    graceBefore = System.getProperty(PostgresStateStore.DEAD_RUN_GRACE_PROPERTY);
    // Read as each store opens: every store of the test has it.
    System.setProperty(PostgresStateStore.DEAD_RUN_GRACE_PROPERTY, "" + GRACE_MILLIS);
  }

  @AfterEach
  void graceAsItWas() {
    if (graceBefore == null) {
      System.clearProperty(PostgresStateStore.DEAD_RUN_GRACE_PROPERTY);
    } else {
      System.setProperty(PostgresStateStore.DEAD_RUN_GRACE_PROPERTY, graceBefore);
    }
  }

  /**
   * Worker 0's row r2 is precommitted and its create under way in the sink, its component b's
   * row r3 precommitted and waiting for the sink behind it, when worker 0's sessions end. Worker
   * 1's change of docs to a leaf finds r2's and r3's writes in flight (worker 0's run within
   * its grace) and fails before its action. Worker 0 tells its sessions lost within an eighth of
   * the grace; r2's create, already started, lands, and r3's sink call never starts: worker 0's
   * update fails saying why. Once the grace has passed, worker 1's change goes through, and its
   * clean run converges.
   */
  @Test
  void aChildsWriteUnderWayInAWorkerWhoseSessionsEndedHoldsTheChangeBackForTheGrace()
      throws Exception {
    String dying = postgresSchema.name() + "_dying";
    StateStore dyingStore =
        PostgresStateStore.open(postgresSchema.url() + "&ApplicationName=" + dying);
    Worker w0 = new Worker(dyingStore, dying, false, false);
    Worker w1 = worker(1);
    CountDownLatch release = new CountDownLatch(1);
    try {
      w1.update();
      assertThat(shelf.takeLog())
          .containsExactly("create docs=table after []?", "create docs/r1=v1 after []?");

      w0.rowsOfA = List.of("r1", "r2");
      w0.rowsOfB = List.of("r3");
      CountDownLatch bDeclares = new CountDownLatch(1);
      w0.bWaitsFor = bDeclares;
      CountDownLatch applying = new CountDownLatch(1);
      w0.beforeRow = put -> {
        if (put.key().equals("docs/r2")) {
          applying.countDown();
          await(release);
        }
      };
      CountDownLatch r3Precommitted = w0.store.signal(w -> precommits(w, "r3"));
      CompletableFuture<Void> first = w0.updateAsync();
      assertThat(applying.await(1, TimeUnit.MINUTES)).as("worker 0 applying r2").isTrue();
      bDeclares.countDown();
      assertThat(r3Precommitted.await(1, TimeUnit.MINUTES)).as("r3 precommitted").isTrue();
      long w0Version = w0.store.lastVersion;

      TestPostgres.terminateSessions(postgresSchema.serverUrl(), dying);
      long ended = System.nanoTime();
      assertThat(awaitSessionsLost(dyingStore, "shelf", w0Version) - ended)
          .as("worker 0 tells its sessions lost within an eighth of the grace, and a probe")
          .isLessThan(TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS / 2));
      w1.table = false;
      Throwable refused = failureOf(w1.updateAsync());
      long refusedAt = System.nanoTime();
      assertThat(refused).as("worker 1's t and the root's sweep below docs, within the grace")
          .isNotNull().hasMessageContaining("2 components failed")
          .hasRootCauseInstanceOf(ContainerChangedException.class)
          .hasStackTraceContaining("are being written by another worker's run (version ["
              + w0Version + "])");
      release.countDown();
      Throwable failed0 = failureOf(first);

      assertThat(shelf.takeLog()).as("r2's create, started before; no r3, no leaf")
          .containsExactly("update docs=table after [table]", "create docs/r2=v1 after []?");
      assertThat(failed0).as("worker 0, its sessions gone").isNotNull()
          .hasMessageStartingWith("update of app 'shelf' stopped early: state store")
          .hasMessageContaining("the database sessions on which run " + w0Version
              + " of app 'shelf' holds its lock were lost")
          .hasMessageContaining("starts no further sink call")
          .hasCauseInstanceOf(SessionsLostException.class);
      assertThat(shelf.target()).containsExactly(Map.entry("docs", "table"),
          Map.entry("docs/r1", "v1"), Map.entry("docs/r2", "v1"));

      long graceLeft = refusedAt + TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS) - System.nanoTime();
      Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(graceLeft) + 1));
      w1.update();
      assertThat(shelf.takeLog()).as("worker 0's run dead, its grace passed: the change")
          .containsExactly("update docs=leaf after [table, leaf]");
      assertThat(shelf.violations).isEmpty();
      assertThat(shelf.target()).containsExactly(Map.entry("docs", "leaf"));
      assertThat(w1.app.status().providers())
          .containsEntry("tables", List.of(StableKey.of("docs")))
          .doesNotContainKey("tables/docs");

      w1.table = true;
      assertCleanRunWritesBothRows(w1, "update docs=table after [leaf]",
          "create docs/r1=v1 after []?", "create docs/r2=v1 after []?");
    } finally {
      release.countDown(); // should an assertion before have failed
      try {
        w0.app.close();
        dyingStore.close();
      } catch (RuntimeException expected) {
        // its sessions are gone
      }
    }
  }

  /**
   * A claim of a run whose sessions ended, not marked finished, stands for the grace, as a live
   * run's: the worker still in the round skips the component, then takes it over. The grace
   * counts from the first sight of the missing lock, recorded in the store: a worker started
   * after it has passed takes the run for dead at once. A run that recorded its end is ended at
   * once.
   */
  @Test
  void aClaimOfARunWhoseSessionsEndedIsTakenOverOnlyOnceTheGraceHasPassed() throws Exception {
    String dying = postgresSchema.name() + "_dying";
    try (PostgresStateStore b = PostgresStateStore.open(postgresSchema.url())) {
      b.nextVersion("app");
      PostgresStateStore a = PostgresStateStore.open(
          postgresSchema.url() + "&ApplicationName=" + dying);
      long aVersion = a.nextVersion("app");
      assertThat(a.leaseComponents("app", List.of(path("c1"))).get(0)).isNotNull();
      TestPostgres.terminateSessions(postgresSchema.serverUrl(), dying);
      try {
        a.close();
      } catch (RuntimeException expected) {
        // its sessions are gone
      }

      long firstSeen = System.nanoTime();
      assertThat(b.leaseComponents("app", List.of(path("c1"))).get(0))
          .as("claimed by a run whose lock went, within its grace").isNull();
      assertThat(b.endedRuns("app", List.of(aVersion))).as("within the grace").isEmpty();
      AutoCloseable taken = null;
      long deadline = firstSeen + TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS + 10_000);
      while (taken == null && System.nanoTime() < deadline) {
        Thread.sleep(50);
        taken = b.leaseComponents("app", List.of(path("c1"))).get(0);
      }
      long takenAt = System.nanoTime();
      assertThat(taken).as("taken over once the grace has passed").isNotNull();
      assertThat(takenAt - firstSeen).as("not before the grace")
          .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS));
      assertThat(b.endedRuns("app", List.of(aVersion))).containsExactly(aVersion);
      taken.close();
      try (PostgresStateStore late = PostgresStateStore.open(postgresSchema.url())) {
        assertThat(late.endedRuns("app", List.of(aVersion)))
            .as("a worker started since counts the grace from b's first sight of it")
            .containsExactly(aVersion);
      }

      try (PostgresStateStore c = PostgresStateStore.open(postgresSchema.url())) {
        long cVersion = c.nextVersion("app");
        c.runEnded("app", cVersion);
        assertThat(b.endedRuns("app", List.of(cVersion))).as("its end recorded: no grace")
            .containsExactly(cVersion);
      }
    }
  }

  /**
   * One lease session of a store ends: the run's lock is still held on the others, but the
   * leases of that session went with it. The store tells its run lost at its next probe (an
   * eighth of the grace), and starts no further run.
   */
  @Test
  void aStoreWhoseLeaseSessionEndedTellsItsRunLostAndStartsNoOther() throws Exception {
    String dying = postgresSchema.name() + "_dying";
    PostgresStateStore a =
        PostgresStateStore.open(postgresSchema.url() + "&ApplicationName=" + dying);
    try {
      long version = a.nextVersion("app");
      a.checkRunAlive("app", version);
      terminateOneLeaseSession(dying);
      long ended = System.nanoTime();
      assertThat(awaitSessionsLost(a, "app", version) - ended).as("told within a probe")
          .isLessThan(TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS / 2));
      assertThatThrownBy(() -> a.checkRunAlive("app", version))
          .isInstanceOf(SessionsLostException.class)
          .hasMessageContaining("the database sessions on which run " + version
              + " of app 'app' holds its lock were lost");
      assertThatThrownBy(() -> a.nextVersion("app"))
          .hasMessageContaining("cannot start a run: its lease sessions were lost");
    } finally {
      try {
        a.close();
      } catch (RuntimeException expected) {
        // one of its sessions is gone
      }
    }
  }

  /**
   * Waits until {@code store} tells run {@code version} of {@code app} lost; when, in {@link
   * System#nanoTime}.
   */
  static long awaitSessionsLost(StateStore store, String app, long version)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      try {
        store.checkRunAlive(app, version);
      } catch (SessionsLostException lost) {
        return System.nanoTime();
      }
      Thread.sleep(5);
    }
    throw new AssertionError("the sessions were not told lost in 30 s");
  }

  /** Ends one session named {@code applicationName} that holds a run's lock. */
  private void terminateOneLeaseSession(String applicationName) throws Exception {
    try (Connection c = DriverManager.getConnection(postgresSchema.serverUrl());
        PreparedStatement kill = c.prepareStatement("SELECT pg_terminate_backend(l.pid)"
            + " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            + " WHERE l.locktype = 'advisory' AND l.mode = 'ShareLock' AND l.granted"
            + " AND a.application_name = ? LIMIT 1")) {
      kill.setString(1, applicationName);
      try (ResultSet rs = kill.executeQuery()) {
        assertThat(rs.next()).as("a session holding the run's lock").isTrue();
      }
    }
  }

  static byte[] path(String name) {
    return name.getBytes(StandardCharsets.UTF_8);
  }
}
