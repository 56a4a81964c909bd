package io.cocoindex.runtime.workers;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.TestPostgres;
import io.cocoindex.runtime.ThreadPerTask;
import io.cocoindex.runtime.ThrowawaySchema;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import io.cocoindex.runtime.threads.SharedThreads;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leases on the PostgreSQL store, as two workers see them: components leased in batches, and
 * what keeps an orphan sweep and a takeover of the same state apart (a state's lease is held by
 * one worker at a time, and the sweep waits for the components other workers still hold).
 */
class BatchLeaseTest {
  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("l_");
  String baseUrl;
  String url;
  String schema;

  @BeforeEach
  void sessionsNamedBySchema() {
    baseUrl = pg.serverUrl();
    schema = pg.name();
    // The stores' sessions carry the schema's name, so that only their leases are counted.
    url = pg.url() + "&ApplicationName=" + schema;
  }

  static byte[] path(String name) {
    return name.getBytes(StandardCharsets.UTF_8);
  }

  static int granted(List<AutoCloseable> leases) {
    return (int) leases.stream().filter(l -> l != null).count();
  }

  @Test
  void componentsHeldOrClaimedByAnotherWorkerAreSkippedInOneBatch() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      a.nextVersion("app");
      b.nextVersion("app");
      List<AutoCloseable> taken = a.leaseComponents("app", List.of(path("c1"), path("c2")));
      assertThat(granted(taken)).isEqualTo(2);

      List<AutoCloseable> other =
          b.leaseComponents("app", List.of(path("c1"), path("c2"), path("c3")));
      assertThat(other.get(0)).isNull();
      assertThat(other.get(1)).isNull();
      assertThat(other.get(2)).isNotNull();

      // Given back, c1 stays claimed for this round: b started its run before a claimed it.
      taken.get(0).close();
      awaitLocksHeld(2); // a's c2 and b's c3: leases are given back asynchronously
      assertThat(b.leaseComponents("app", List.of(path("c1"))).get(0)).isNull();
      // A later run of b may take it.
      b.nextVersion("app");
      assertThat(b.leaseComponents("app", List.of(path("c1"))).get(0)).isNotNull();
    }
  }

  /** One component leased without waiting (the interface's per-component form) skips alike. */
  @Test
  void aComponentLeasedAloneWithoutWaitingIsSkippedWhileHeldOrClaimedByAnotherWorker()
      throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      a.nextVersion("app");
      b.nextVersion("app");
      AutoCloseable taken = a.leaseComponent("app", path("c1"), false);
      assertThat(taken).isNotNull();
      assertThat(b.leaseComponent("app", path("c1"), false)).as("held by a").isNull();

      taken.close();
      awaitLocksHeld(0);
      assertThat(b.leaseComponent("app", path("c1"), false))
          .as("given back, but claimed in the round b's run began before").isNull();
      b.nextVersion("app");
      AutoCloseable later = b.leaseComponent("app", path("c1"), false);
      assertThat(later).as("a later run of b").isNotNull();
      later.close();
    }
  }

  /**
   * Two stores in two schemas of one database (two environments, say) running apps of one name:
   * their leases are their own. The lock keys named only the app and the path, so one store's
   * worker skipped the components the other's held, as if its own worker had them.
   */
  @Test
  void leasesOfOneAppNameInTwoSchemasOfOneDatabaseAreIndependent() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(pg.anotherSchemaUrl())) {
      a.nextVersion("app");
      b.nextVersion("app");
      assertThat(granted(a.leaseComponents("app", List.of(path("c1"))))).isEqualTo(1);
      assertThat(granted(b.leaseComponents("app", List.of(path("c1"))))).isEqualTo(1);

      AutoCloseable held = a.leaseState("app", path("s"));
      CompletableFuture<AutoCloseable> other =
          CompletableFuture.supplyAsync(() -> b.leaseState("app", path("s")),
              ThreadPerTask.INSTANCE);
      other.get(5, TimeUnit.SECONDS).close();
      held.close();
    }
  }

  @Test
  void aSkippedComponentsLockIsGivenBackAtOnce() throws Exception {
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      try (PostgresStateStore a = PostgresStateStore.open(url)) {
        long run = a.nextVersion("app");
        List<AutoCloseable> leases = a.leaseComponents("app", List.of(path("c1")));
        assertThat(granted(leases)).isEqualTo(1);
        leases.get(0).close();
        a.runEnded("app", run);
      }
      awaitLocksHeld(0); // a's lock goes with its session, which ends asynchronously
      // b's run started first, so a's claim is newer (and a's run ended: it processed c1): b
      // skips c1 and must not keep its lock.
      assertThat(b.leaseComponents("app", List.of(path("c1"))).get(0)).isNull();
      assertThat(b.leaseComponent("app", path("c1"), false)).as("alone, too").isNull();
      assertThat(advisoryLocksHeld()).isZero();
    }
  }

  /**
   * A worker that dies mid-round (its sessions end, as when it is killed with {@code kill -9})
   * leaves what it claimed and did not finish to the workers still running the round: a claim
   * by a run that no session holds the lock of, and that did not end, is taken over, in a batch
   * and alone. (Those components were left to the next run.) A claim by a live run is not, and
   * neither is one the dead run marked finished as it gave the lease back: its input may be
   * newer than the taker's.
   */
  @Test
  void aComponentClaimedByARunThatDiedIsTakenOverInTheSameRound() throws Exception {
    String dying = schema + "_dying";
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      PostgresStateStore a = PostgresStateStore.open(
          TestPostgres.inSchema(baseUrl, schema) + "&ApplicationName=" + dying);
      a.nextVersion("app");
      assertThat(granted(a.leaseComponents("app", List.of(path("c1"), path("c2")))))
          .isEqualTo(2);
      List<AutoCloseable> released = a.leaseComponents("app", List.of(path("c3")));
      released.get(0).close(); // claimed, finished, given back: a's run goes on
      awaitClaimsFinished(1);
      assertThat(b.leaseComponents("app", List.of(path("c3"))).get(0))
          .as("claimed by a run still alive").isNull();
      terminateOneSessionHoldingARunLock(dying);
      assertThat(b.leaseComponents("app", List.of(path("c3"))).get(0))
          .as("claimed by a run that lost one session: alive while another holds its lock")
          .isNull();

      TestPostgres.terminateSessions(baseUrl, dying);
      try {
        a.close();
      } catch (RuntimeException expected) {
        // its sessions are gone
      }

      List<AutoCloseable> taken =
          b.leaseComponents("app", List.of(path("c1"), path("c3")));
      assertThat(taken.get(0)).as("claimed by a run that died").isNotNull();
      assertThat(taken.get(1)).as("finished by a run that died").isNull();
      AutoCloseable alone = b.leaseComponent("app", path("c2"), false);
      assertThat(alone).as("alone, too").isNotNull();
      assertThat(b.leaseComponents("app", List.of(path("c2"))).get(0))
          .as("b's own claim now, held").isNull();
      alone.close();
      taken.get(0).close();
    }
  }

  /**
   * A run stopped early (a fatal error) records no end: the components it claimed and left
   * half done (their leases given back after it was stopped) are taken over by the workers still
   * in the round, and those it had finished stand. (An ended run's claims all stood: what it
   * left went to the next run.)
   */
  @Test
  void aComponentLeftByARunStoppedEarlyIsTakenOverInTheSameRound() throws Exception {
    try (PostgresStateStore b = PostgresStateStore.open(url);
        PostgresStateStore a = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      long version = a.nextVersion("app");
      List<AutoCloseable> leases = a.leaseComponents("app", List.of(path("c1"), path("c2")));
      assertThat(granted(leases)).isEqualTo(2);
      leases.get(1).close(); // c2 finished
      a.runAborted("app", version);
      leases.get(0).close(); // c1 given back after the stop: maybe half done
      a.runEnded("app", version);

      List<AutoCloseable> taken = b.leaseComponents("app", List.of(path("c1"), path("c2")));
      assertThat(taken.get(0)).as("left half done by the stopped run").isNotNull();
      assertThat(taken.get(1)).as("finished by it").isNull();
      taken.get(0).close();
    }
  }

  /**
   * A run stopped early claims nothing it leases after the stop: a background batch requested
   * before the stop (sent after it), or a foreground component that a body still running mounts.
   * Here c's run finished x and y in the round; a's run, which started after c claimed them, is
   * stopped, then leases them. Such a claim of a's, left unmarked, made x and y look left half
   * done by a dead run once a's run ended: b, whose run started before c's claims (its input
   * older than c's), took them over and processed them a second time in the round.
   */
  @Test
  void aRunStoppedEarlyClaimsNothingItLeasesAfterTheStop() throws Exception {
    try (PostgresStateStore b = PostgresStateStore.open(url);
        PostgresStateStore c = PostgresStateStore.open(url);
        PostgresStateStore a = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      c.nextVersion("app");
      List<AutoCloseable> finished = c.leaseComponents("app", List.of(path("x"), path("y")));
      assertThat(granted(finished)).isEqualTo(2);
      for (AutoCloseable l : finished) {
        l.close();
      }
      awaitClaimsFinished(2);
      long version = a.nextVersion("app");
      a.runAborted("app", version);
      AutoCloseable background = a.leaseComponents("app", List.of(path("x"))).get(0);
      if (background != null) {
        background.close();
      }
      a.leaseComponent("app", path("y"), true).close(); // the foreground: the lock, still
      a.runEnded("app", version);

      List<AutoCloseable> taken = b.leaseComponents("app", List.of(path("x"), path("y")));
      assertThat(taken).as("c's claims, finished, stand").containsOnlyNulls();
    }
  }

  /** Waits until {@code n} claims of the test's schema are marked finished by their run. */
  private void awaitClaimsFinished(long n) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (claimsFinished() < n && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(claimsFinished()).as("claims marked finished").isEqualTo(n);
  }

  private long claimsFinished() throws Exception {
    try (Connection c = DriverManager.getConnection(baseUrl); Statement s = c.createStatement();
        var rs = s.executeQuery(
            "SELECT count(*) FROM " + schema + ".cocoindex_claim WHERE run_finished_at = claimed_at")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * A worker of the version before claims named their run, running beside this one, claims a
   * component by moving its claim's time only: the run the row names is then the one that
   * claimed it in an earlier round, not the older worker's live run. Here that earlier run was
   * killed (no end recorded), and the older worker's claim in this round was taken for a dead
   * run's and taken over: the component processed twice in the round, by a run whose input may
   * be older (or swept by it). Such a claim is kept, as every claim of an older worker is.
   */
  @Test
  void aClaimAnOlderWorkerMadeInTheRoundIsNotTakenForTheEarlierRunItsRowStillNames()
      throws Exception {
    String killed = schema + "_killed";
    PostgresStateStore earlier = PostgresStateStore.open(
        TestPostgres.inSchema(baseUrl, schema) + "&ApplicationName=" + killed);
    earlier.nextVersion("app");
    List<AutoCloseable> claimed = earlier.leaseComponents("app", List.of(path("c1")));
    assertThat(granted(claimed)).isEqualTo(1);
    TestPostgres.terminateSessions(baseUrl, killed);
    try {
      earlier.close();
    } catch (RuntimeException expected) {
      // its sessions are gone
    }
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      // The older worker's run (started before b's, or after: its claim is in this round
      // either way), claiming c1 as that version did.
      try (Connection c = DriverManager.getConnection(TestPostgres.inSchema(baseUrl, schema));
          var claim = c.prepareStatement("INSERT INTO cocoindex_claim(app, path, claimed_at)"
              + " VALUES(?, ?, clock_timestamp()) ON CONFLICT(app, path) DO UPDATE"
              + " SET claimed_at = excluded.claimed_at WHERE cocoindex_claim.claimed_at < ?"
              + " RETURNING 1")) {
        claim.setString(1, "app");
        claim.setBytes(2, path("c1"));
        claim.setTimestamp(3, new java.sql.Timestamp(System.currentTimeMillis() + 3_600_000));
        try (var rs = claim.executeQuery()) {
          assertThat(rs.next()).as("the older worker's claim").isTrue();
        }
      }
      assertThat(b.leaseComponents("app", List.of(path("c1"))).get(0))
          .as("claimed in this round by an older worker, alive").isNull();
      assertThat(b.leaseComponent("app", path("c1"), false)).as("alone, too").isNull();
    }
  }

  /**
   * A worker of the version before claims were marked finished, running beside this one, claims
   * a component whose row a run of this version had marked finished in an earlier round: it moves
   * the claim's time and run, and leaves the mark. It then dies in the component's body: its
   * claim in this round, of a dead run that never marks, must be taken over as that version's
   * own workers would. (The mark left by the earlier round made it look finished: the component
   * was skipped, and left to the next run.)
   */
  @Test
  void aClaimAnOlderWorkerMadeOverAFinishedOneIsNotTakenForFinished() throws Exception {
    String older = schema + "_older";
    try (PostgresStateStore earlier = PostgresStateStore.open(url)) {
      long version = earlier.nextVersion("app");
      List<AutoCloseable> leases = earlier.leaseComponents("app", List.of(path("c1")));
      assertThat(granted(leases)).isEqualTo(1);
      leases.get(0).close(); // finished: its claim marked
      awaitClaimsFinished(1);
      earlier.runEnded("app", version);
    }
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      PostgresStateStore olderWorker = PostgresStateStore.open(
          TestPostgres.inSchema(baseUrl, schema) + "&ApplicationName=" + older);
      long olderVersion = olderWorker.nextVersion("app"); // its run, as that version takes it
      // Its claim, as that version wrote it: the run and the time, not the mark.
      try (Connection c = DriverManager.getConnection(
              TestPostgres.inSchema(baseUrl, schema) + "&ApplicationName=" + older);
          var claim = c.prepareStatement("INSERT INTO cocoindex_claim(app, path, claimed_at,"
              + " run_version, run_claimed_at) SELECT ?, ?, t, ?, t"
              + " FROM (SELECT clock_timestamp() AS t) n ON CONFLICT(app, path) DO UPDATE"
              + " SET claimed_at = excluded.claimed_at, run_version = excluded.run_version,"
              + " run_claimed_at = excluded.run_claimed_at RETURNING 1")) {
        claim.setString(1, "app");
        claim.setBytes(2, path("c1"));
        claim.setLong(3, olderVersion);
        try (var rs = claim.executeQuery()) {
          assertThat(rs.next()).as("the older worker's claim").isTrue();
        }
      }
      assertThat(b.leaseComponents("app", List.of(path("c1"))).get(0))
          .as("claimed by an older worker, alive").isNull();
      TestPostgres.terminateSessions(baseUrl, older);
      try {
        olderWorker.close();
      } catch (RuntimeException expected) {
        // its sessions are gone
      }
      AutoCloseable taken = b.leaseComponents("app", List.of(path("c1"))).get(0);
      assertThat(taken).as("claimed by an older worker that died").isNotNull();
      taken.close();
    }
  }

  /**
   * A store made before claims named their run (or named it without the time it was written
   * with) gains the columns on open; its claims, naming no run, are kept in their round and
   * taken after it.
   */
  @Test
  void claimsOfAStoreMadeBeforeClaimsNamedTheirRunAreKeptInTheirRound() throws Exception {
    String inSchema = TestPostgres.inSchema(baseUrl, schema);
    MultiWorkerTest.sql(inSchema, "CREATE TABLE cocoindex_claim(app TEXT NOT NULL,"
        + " path BYTEA NOT NULL, claimed_at TIMESTAMPTZ NOT NULL, PRIMARY KEY(app, path))");
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      MultiWorkerTest.sql(inSchema, "INSERT INTO cocoindex_claim(app, path, claimed_at)"
          + " VALUES('app', '\\x6331', clock_timestamp())"); // c1, by an older worker now
      assertThat(b.leaseComponents("app", List.of(path("c1"))).get(0)).isNull();
      b.nextVersion("app");
      List<AutoCloseable> next = b.leaseComponents("app", List.of(path("c1")));
      assertThat(granted(next)).as("in the next round").isEqualTo(1);
      next.get(0).close();
    }
    MultiWorkerTest.sql(inSchema, "ALTER TABLE cocoindex_claim DROP COLUMN run_claimed_at");
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      List<AutoCloseable> again = b.leaseComponents("app", List.of(path("c1")));
      assertThat(granted(again)).as("with the column added again").isEqualTo(1);
      again.get(0).close();
    }
  }

  /**
   * A run that ends while another worker's lease statement runs is not taken for dead: the
   * statement reads the runs' ends in its snapshot, taken when it starts, and the locks of the
   * runs alive when it first meets a claim, later. A run recording its end and giving its lock
   * back between the two looked dead, and the component it had processed in the round was taken
   * over. Here the statement is held between the two by a lock on the claim's row (in a worker,
   * the time it spends on the batch's paths before the claim).
   */
  @Test
  void aRunEndingWhileALeaseStatementRunsIsNotTakenForDead() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore r = PostgresStateStore.open(url)) {
      a.nextVersion("app");
      long ending = r.nextVersion("app");
      List<AutoCloseable> processed = r.leaseComponents("app", List.of(path("c1")));
      assertThat(granted(processed)).isEqualTo(1);
      processed.get(0).close();
      awaitLocksHeld(0);
      try (Connection hold = DriverManager.getConnection(TestPostgres.inSchema(baseUrl, schema))) {
        hold.setAutoCommit(false);
        try (var lock = hold.prepareStatement(
            "SELECT 1 FROM cocoindex_claim WHERE app = 'app' AND path = ? FOR UPDATE")) {
          lock.setBytes(1, path("c1"));
          lock.executeQuery().close();
        }
        CompletableFuture<AutoCloseable> lease = CompletableFuture.supplyAsync(
            () -> a.leaseComponents("app", List.of(path("c1"))).get(0), ThreadPerTask.INSTANCE);
        awaitALeaseStatementWaiting();
        r.runEnded("app", ending);
        hold.commit();
        assertThat(lease.get(10, TimeUnit.SECONDS))
            .as("processed in the round by a run that ended").isNull();
      }
    }
  }

  /**
   * A lease batch reads, in its round trip, the records of the components it granted that ask
   * for theirs (one without a record reads as none), and the states of those with the fewest
   * states by their records, as many as their counts add up to the bound: those of a component
   * another worker holds neither count nor are read.
   */
  @Test
  void aLeaseBatchReadsTheRecordsItGrantedAndTheStatesOfThoseWithTheFewest() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      long version = a.nextVersion("app");
      List<StateWrite> writes = new ArrayList<>();
      Map<String, Integer> counts = Map.of("c1", 2, "c2", 1, "c3", 3, "c5", 1, "c6", 1);
      counts.forEach((c, n) -> {
        writes.add(new StateWrite.PutComponent(
            new ComponentRecord(path(c), null, null, null, n), version));
        for (int i = n; i > 0; i--) {
          writes.add(new StateWrite.PutState(new TrackedState(path(c + "/s" + i), path(c),
              List.of(new PossibleRecord(version, new byte[] {1})), 0, 0, 0, 0)));
        }
      });
      a.write("app", writes).join();
      b.nextVersion("app");
      List<AutoCloseable> held = b.leaseComponents("app", List.of(path("c5")));
      assertThat(granted(held)).isEqualTo(1);
      a.nextVersion("app"); // a run that started after b's claim

      List<String> names = List.of("c1", "c2", "c3", "c4", "c5", "c6");
      List<byte[]> paths = names.stream().map(BatchLeaseTest::path).toList();
      StateStore.LeaseBatch batch = a.leaseComponentsReading("app", paths,
          new boolean[] {true, true, true, true, true, false}, 3);

      assertThat(batch.leases()).extracting(l -> l != null)
          .containsExactly(true, true, true, true, false, true);
      assertThat(batch.records()).extracting(r -> r == null ? "not read"
              : r.map(c -> String.valueOf(c.stateCount())).orElse("none"))
          .containsExactly("2", "1", "3", "none", "not read", "not read");
      // c2's one state and c1's two reach the bound; c5's, held by b, would have kept c1's out.
      assertThat(batch.states()).extracting(s -> s == null ? null
              : s.stream().map(t -> new String(t.path(), StandardCharsets.UTF_8)).toList())
          .containsExactly(List.of("c1/s1", "c1/s2"), List.of("c2/s1"), null, null, null, null);
      for (AutoCloseable l : batch.leases()) {
        if (l != null) {
          l.close();
        }
      }
      held.get(0).close();
    }
  }

  /**
   * The records a lease batch reads in its round trip are read once its locks are held: a
   * record written while its lease statement ran is read as written, on a server whose sessions
   * default to serializable (one snapshot per transaction) too. Read in the lease statement, or
   * in the snapshot it took (the statements of a round trip are one implicit transaction), the
   * record would be the one before the write: a worker that wrote the component and gave its lock
   * back between that snapshot and the lock would have been read as it was before. Here the
   * statement is held by a lock on the claim's row, after its lock and snapshot were taken.
   */
  @Test
  void aLeaseBatchReadsTheRecordWrittenWhileItsLeaseStatementRan() throws Exception {
    String serializable = url + "&options=-c%20default_transaction_isolation%3Dserializable";
    try (PostgresStateStore a = PostgresStateStore.open(serializable)) {
      long version = a.nextVersion("app");
      a.write("app", List.of(new StateWrite.PutComponent(
          new ComponentRecord(path("c1"), null, null, null, 3), version))).join();
      StateStore.LeaseBatch first = a.leaseComponentsReading("app", List.of(path("c1")),
          new boolean[] {true}, 4_096);
      assertThat(first.records().get(0)).get().extracting(ComponentRecord::stateCount)
          .isEqualTo(3L);
      first.leases().get(0).close();
      a.nextVersion("app"); // waits for the lease to be given back; may take c1 again
      try (Connection hold = DriverManager.getConnection(TestPostgres.inSchema(baseUrl, schema));
          Connection writer =
              DriverManager.getConnection(TestPostgres.inSchema(baseUrl, schema))) {
        hold.setAutoCommit(false);
        try (var lock = hold.prepareStatement(
            "SELECT 1 FROM cocoindex_claim WHERE app = 'app' AND path = ? FOR UPDATE")) {
          lock.setBytes(1, path("c1"));
          lock.executeQuery().close();
        }
        CompletableFuture<StateStore.LeaseBatch> leasing = CompletableFuture.supplyAsync(
            () -> a.leaseComponentsReading("app", List.of(path("c1")), new boolean[] {true},
                4_096), ThreadPerTask.INSTANCE);
        awaitALeaseStatementWaiting();
        try (var write = writer.prepareStatement("UPDATE cocoindex_component SET state_count = 7"
            + " WHERE app = 'app' AND path = ?")) {
          write.setBytes(1, path("c1"));
          assertThat(write.executeUpdate()).isEqualTo(1);
        }
        hold.commit();
        StateStore.LeaseBatch second = leasing.get(10, TimeUnit.SECONDS);
        assertThat(second.leases().get(0)).isNotNull();
        assertThat(second.records().get(0)).get().extracting(ComponentRecord::stateCount)
            .as("the record as written while the lease statement ran").isEqualTo(7L);
        second.leases().get(0).close();
      }
    }
  }

  /** Waits until a session of the test's stores waits for a lock. */
  private void awaitALeaseStatementWaiting() throws Exception {
    try (Connection c = DriverManager.getConnection(baseUrl);
        var q = c.prepareStatement("SELECT count(*) FROM pg_locks WHERE NOT granted"
            + " AND pid IN (SELECT pid FROM pg_stat_activity WHERE application_name = ?)")) {
      q.setString(1, schema);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (true) {
        try (var rs = q.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("a lease statement waiting").isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }

  /**
   * A foreground lease whose claim fails (here a trigger of the test's refuses it; a statement
   * or lock timeout of the data source, say) fails and gives its lock back. Since foreground
   * leases claim, the lock was kept on the session, counted nowhere, until the store closed:
   * every other worker mounting that component in the foreground waited for it that long.
   */
  @Test
  void aForegroundLeaseWhoseClaimFailsGivesItsLockBack() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url)) {
      a.nextVersion("app");
      String inSchema = TestPostgres.inSchema(baseUrl, schema);
      MultiWorkerTest.sql(inSchema, "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql"
          + " AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$");
      MultiWorkerTest.sql(inSchema, "CREATE TRIGGER refuse BEFORE INSERT ON cocoindex_claim"
          + " FOR EACH ROW EXECUTE FUNCTION refuse()");
      org.assertj.core.api.Assertions.assertThatThrownBy(
          () -> a.leaseComponent("app", path("c1"), true))
          .hasMessageContaining("refused by the test");
      assertThat(advisoryLocksHeld()).as("the component's lock, given back").isZero();
    }
  }

  /**
   * A lease whose mark fails (a trigger of the test's refuses it) is given back all the same,
   * and the other lease of its batch stays held. Its claim is left unmarked, so once its run dies
   * it is taken over. (That no lock is given back twice, which would drop a second hold of it by
   * the session, is argued from the statement's order, not shown here: the marks run as a
   * one-time filter before any unlock.)
   */
  @Test
  void aLeaseWhoseMarkFailsIsGivenBackAllTheSame() throws Exception {
    String dying = schema + "_dying";
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      PostgresStateStore a = PostgresStateStore.open(
          TestPostgres.inSchema(baseUrl, schema) + "&ApplicationName=" + dying);
      a.nextVersion("app");
      String inSchema = TestPostgres.inSchema(baseUrl, schema);
      MultiWorkerTest.sql(inSchema, "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql"
          + " AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$");
      MultiWorkerTest.sql(inSchema, "CREATE TRIGGER refuse BEFORE UPDATE ON cocoindex_claim"
          + " FOR EACH ROW EXECUTE FUNCTION refuse()");
      List<AutoCloseable> leases = a.leaseComponents("app", List.of(path("c1"), path("c2")));
      assertThat(granted(leases)).isEqualTo(2);
      leases.get(0).close();
      // c1 given back, c2 still held: b leases neither (c1 claimed by a live run)
      assertThat(b.leaseComponents("app", List.of(path("c1"), path("c2"))))
          .containsOnlyNulls();
      assertThat(locksHeldBy(dying)).as("c2's lock only").isEqualTo(1);
      MultiWorkerTest.sql(inSchema, "DROP TRIGGER refuse ON cocoindex_claim");
      TestPostgres.terminateSessions(baseUrl, dying);
      try {
        a.close();
      } catch (RuntimeException expected) {
        // its sessions are gone
      }
      List<AutoCloseable> taken = b.leaseComponents("app", List.of(path("c1"), path("c2")));
      assertThat(taken).as("neither marked: both taken over").doesNotContainNull();
      for (AutoCloseable l : taken) {
        l.close();
      }
    }
  }

  private long locksHeldBy(String applicationName) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      try (Connection c = DriverManager.getConnection(baseUrl);
          var q = c.prepareStatement("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
              + " AND granted AND mode = 'ExclusiveLock'"
              + " AND pid IN (SELECT pid FROM pg_stat_activity WHERE application_name = ?)")) {
        q.setString(1, applicationName);
        try (var rs = q.executeQuery()) {
          rs.next();
          long n = rs.getLong(1);
          if (n <= 1 || System.nanoTime() > deadline) {
            return n;
          }
        }
      }
      Thread.sleep(10);
    }
  }

  /**
   * A batch whose second statement (taking over a dead run's claim) fails gives back the locks
   * its first statement granted: the caller gets no lease to close, and they were held until the
   * store closed.
   */
  @Test
  void aLeaseBatchWhoseTakeOverFailsGivesBackWhatItGranted() throws Exception {
    String dying = schema + "_dying";
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.nextVersion("app");
      PostgresStateStore a = PostgresStateStore.open(
          TestPostgres.inSchema(baseUrl, schema) + "&ApplicationName=" + dying);
      a.nextVersion("app");
      assertThat(granted(a.leaseComponents("app", List.of(path("c2"))))).isEqualTo(1);
      TestPostgres.terminateSessions(baseUrl, dying);
      try {
        a.close();
      } catch (RuntimeException expected) {
        // its sessions are gone
      }
      String inSchema = TestPostgres.inSchema(baseUrl, schema);
      MultiWorkerTest.sql(inSchema, "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql"
          + " AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$");
      MultiWorkerTest.sql(inSchema, "CREATE TRIGGER refuse BEFORE UPDATE ON cocoindex_claim"
          + " FOR EACH ROW EXECUTE FUNCTION refuse()");
      org.assertj.core.api.Assertions.assertThatThrownBy(
          () -> b.leaseComponents("app", List.of(path("c1"), path("c2"))))
          .hasMessageContaining("refused by the test");
      assertThat(advisoryLocksHeld()).as("c1's lock, granted first, given back").isZero();
    }
  }

  /**
   * After a {@code dropState} (the app's state cleared), an app's versions start again at 1: an
   * end recorded for a run of before the drop must not make a run of the same version that dies
   * look ended, its claims then left to the next run.
   */
  @Test
  void aRunEndRecordedBeforeTheAppWasClearedDoesNotMakeALaterRunOfItsVersionLookEnded()
      throws Exception {
    String dying = schema + "_dying";
    try (PostgresStateStore b = PostgresStateStore.open(url)) {
      b.runEnded("app", b.nextVersion("app"));
      long second = b.nextVersion("app");
      b.runEnded("app", second);
      b.clear("app");
      b.nextVersion("app");
      PostgresStateStore a = PostgresStateStore.open(
          TestPostgres.inSchema(baseUrl, schema) + "&ApplicationName=" + dying);
      assertThat(a.nextVersion("app")).as("a version ended before the clear, again")
          .isEqualTo(second);
      assertThat(granted(a.leaseComponents("app", List.of(path("c1"))))).isEqualTo(1);
      TestPostgres.terminateSessions(baseUrl, dying);
      try {
        a.close();
      } catch (RuntimeException expected) {
        // its sessions are gone
      }
      List<AutoCloseable> taken = b.leaseComponents("app", List.of(path("c1")));
      assertThat(taken.get(0)).as("claimed by a run that died").isNotNull();
      taken.get(0).close();
    }
  }

  /**
   * Ends one session named {@code applicationName} that holds a run's (shared) lock, and waits
   * until it is gone.
   */
  private void terminateOneSessionHoldingARunLock(String applicationName) throws Exception {
    try (Connection c = DriverManager.getConnection(baseUrl);
        var find = c.prepareStatement("SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a"
            + " ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.mode = 'ShareLock'"
            + " AND l.granted AND a.application_name = ? LIMIT 1");
        var kill = c.prepareStatement("SELECT pg_terminate_backend(?)");
        var alive = c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ?")) {
      find.setString(1, applicationName);
      int pid;
      try (var rs = find.executeQuery()) {
        assertThat(rs.next()).as("a session holding a run's lock").isTrue();
        pid = rs.getInt(1);
      }
      kill.setInt(1, pid);
      kill.executeQuery().close();
      alive.setInt(1, pid);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (true) {
        try (var rs = alive.executeQuery()) {
          rs.next();
          if (rs.getLong(1) == 0) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("the session ended").isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }

  @Test
  void closedLeasesAreGivenBackOnceEach() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url)) {
      a.nextVersion("app");
      List<AutoCloseable> leases =
          a.leaseComponents("app", List.of(path("c1"), path("c2"), path("c3")));
      assertThat(granted(leases)).isEqualTo(3);
      for (AutoCloseable l : leases) {
        l.close();
        l.close(); // closing twice gives back once
      }
      awaitLocksHeld(0);
      // A lock taken again (a foreground lease, say) is held once and given back once.
      AutoCloseable again = a.leaseComponent("app", path("c1"), true);
      awaitLocksHeld(1);
      again.close();
      awaitLocksHeld(0);
    }
  }

  @Test
  void aStateLeaseIsHeldByOneWorkerAtATime() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      AutoCloseable held = a.leaseState("app", path("rows/x"));
      CompletableFuture<AutoCloseable> waiting =
          CompletableFuture.supplyAsync(() -> b.leaseState("app", path("rows/x")),
              ThreadPerTask.INSTANCE);
      Thread.sleep(300);
      assertThat(waiting).isNotDone();
      // Another state's lease is free meanwhile.
      b.leaseState("app", path("rows/y")).close();

      held.close();
      waiting.get(5, TimeUnit.SECONDS).close();
    }
  }

  @Test
  void stateLeasesTakenTogetherWaitInPathOrderHoldingOnlyThoseBefore() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url);
        PostgresStateStore c = PostgresStateStore.open(url)) {
      AutoCloseable x = a.leaseState("app", path("rows/x"));
      CompletableFuture<List<AutoCloseable>> batch = CompletableFuture.supplyAsync(() ->
          b.leaseStates("app", List.of(path("rows/w"), path("rows/x"), path("rows/y"))),
              ThreadPerTask.INSTANCE);
      // While b waits for x, it holds w (before x) but not y (after it): x and w are held.
      awaitLocksHeld(2);
      assertThat(batch).isNotDone();
      a.leaseState("app", path("rows/y")).close();
      CompletableFuture<AutoCloseable> w =
          CompletableFuture.supplyAsync(() -> c.leaseState("app", path("rows/w")),
              ThreadPerTask.INSTANCE);
      Thread.sleep(300);
      assertThat(w).isNotDone();

      x.close();
      List<AutoCloseable> leases = batch.get(5, TimeUnit.SECONDS);
      assertThat(leases).hasSize(3).doesNotContainNull();
      assertThat(w).isNotDone();
      for (AutoCloseable l : leases) {
        l.close();
      }
      w.get(5, TimeUnit.SECONDS).close();
    }
  }

  @Test
  void aStateLeaseAndAComponentLeaseOfTheSameBytesAreDifferentLocks() throws Exception {
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      AutoCloseable component = a.leaseComponent("app", path("p"), true);
      CompletableFuture<AutoCloseable> state =
          CompletableFuture.supplyAsync(() -> b.leaseState("app", path("p")),
              ThreadPerTask.INSTANCE);
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
          () -> b.awaitComponentsReleased("app", List.of(path("c1"), path("c2"))),
              ThreadPerTask.INSTANCE);
      Thread.sleep(300);
      assertThat(sweep).isNotDone();

      c1.close();
      sweep.get(5, TimeUnit.SECONDS);
      // Nothing held: no wait at all.
      b.awaitComponentsReleased("app", List.of(path("c1"), path("c2")));
    }
  }

  /**
   * Waits until {@code expected} leases are held and stay so for 200 ms: a batch of state leases
   * takes its locks a connection at a time, then gives back those after the first it could not
   * take, so its count passes through other values (2, then 3, then 2 for good) on its way.
   */
  private void awaitLocksHeld(long expected) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    long steadySince = -1;
    while (System.nanoTime() < deadline) {
      if (advisoryLocksHeld() != expected) {
        steadySince = -1;
      } else if (steadySince < 0) {
        steadySince = System.nanoTime();
      } else if (System.nanoTime() - steadySince >= 200_000_000L) {
        return;
      }
      Thread.sleep(10);
    }
    assertThat(advisoryLocksHeld()).isEqualTo(expected);
  }

  /**
   * Leases held by the test's stores (their sessions named after the schema; other suites may
   * share the server): exclusive advisory locks, not the shared lock each run holds from its
   * version on.
   */
  private long advisoryLocksHeld() throws Exception {
    try (Connection c = DriverManager.getConnection(baseUrl);
        var q = c.prepareStatement("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
            + " AND granted AND mode = 'ExclusiveLock'"
            + " AND pid IN (SELECT pid FROM pg_stat_activity WHERE application_name = ?)")) {
      q.setString(1, schema);
      try (var rs = q.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * A component that waits on the component pool for a state lease another worker holds leaves
   * the pool to other tasks: the holder may be waiting, on its own pool, for a lease this worker
   * holds, which the next stage of one of this worker's components (queued on this pool) gives
   * back. Here one pool of one thread stands for both: the wait for {@code b}'s lease takes the
   * pool's only thread, and the release of {@code a}'s lease is queued behind it. With a plain
   * sleep between tries the wait never ended.
   */
  @Test
  void waitingForAStateLeaseLeavesThePoolToTheStageThatGivesItBack() throws Exception {
    ForkJoinPool pool = SharedThreads.newComponentPool("lease-wait", 1);
    try (PostgresStateStore a = PostgresStateStore.open(url);
        PostgresStateStore b = PostgresStateStore.open(url)) {
      AutoCloseable held = a.leaseState("app", path("s"));
      CountDownLatch waiting = new CountDownLatch(1);
      CompletableFuture<AutoCloseable> taken = CompletableFuture.supplyAsync(() -> {
        waiting.countDown();
        return b.leaseState("app", path("s"));
      }, pool);
      assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(100); // its first try has failed: it waits
      CompletableFuture.runAsync(() -> {
        try {
          held.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, pool);
      taken.get(10, TimeUnit.SECONDS).close();
    } finally {
      pool.shutdownNow();
    }
  }
}
