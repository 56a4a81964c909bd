package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.CountingConnection.RoundTrip;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The statements of a warm run with nothing changed on the shared store, counted as the store's
 * connections make them. Each component is leased, reads its record and the states it owns, and
 * gives its lease back, its claim marked finished (its commit writes nothing, so the give-back
 * marks it). A run of 20,000 such components made 20,000 mark statements (one per claim, ten or
 * so to a JDBC batch), about 4,300 reads of owned states (four components a read, the callers
 * blocked at once) and 1,100 lease statements: now the claims given back together are marked by
 * one statement, and the records and states of the components a lease batch granted are read in
 * its round trip (one statement after the lease's, sent with it; they were two round trips of
 * their own after it).
 */
class WarmRunRoundTripsTest {
  private static final int COMPONENTS = 400;
  /**
   * The run's own statements beside its components': its version, lock and end, the scan of the
   * records, the root's lease, record and states, and the like.
   */
  private static final int RUN_STATEMENTS = 30;

  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("t_");
  private CountedRowsApp counted;

  @BeforeEach
  void open() {
    counted = CountedRowsApp.open(pg, "warm", COMPONENTS);
  }

  @Test
  void anUnchangedRunMarksTheClaimsGivenBackTogetherAndReadsStatesWithEachLeaseBatch()
      throws Exception {
    counted.app.update();
    counted.rows.takeLog();
    counted.app.update(); // its start waits for the first run's leases to be given back
    counted.roundTrips.clear();

    UpdateStats stats = counted.app.update();

    assertThat(stats.total().changed()).isZero();
    assertThat(counted.rows.takeLog()).isEmpty();
    awaitEveryClaimMarked();
    List<RoundTrip> made = new ArrayList<>(counted.roundTrips);
    Predicate<RoundTrip> lease = r -> r.sql().startsWith("WITH live AS");
    Predicate<RoundTrip> readsRecords = r -> r.sql().contains(" FROM cocoindex_component WHERE"
        + " app=? AND path=k.v");
    Predicate<RoundTrip> readsStates = r -> r.sql().contains(" FROM cocoindex_target_state WHERE"
        + " app=? AND owner=");
    long leases = count(made, lease, false);
    long leasesReading = count(made, lease.and(readsRecords).and(readsStates), false);
    long unlocks = count(made, r -> r.sql().startsWith("SELECT pg_advisory_unlock(k)"), false);
    long marks = count(made, r -> r.sql().startsWith("UPDATE cocoindex_claim"), true);
    long recordReads = count(made, lease.negate().and(readsRecords), false);
    long stateReads = count(made, lease.negate().and(readsStates), false);
    // A lease statement's round trip carries the read after it.
    long statements = made.stream().mapToLong(RoundTrip::statements).sum() + leasesReading;

    // Every background component is leased in some batch; each batch's round trip reads the
    // granted components' records and their states too. The root (leased alone) reads its own.
    assertThat(leases).isPositive();
    assertThat(leasesReading).as("lease statements reading records and states, of %d", leases)
        .isEqualTo(leases);
    assertThat(recordReads).as("reads of records apart from %d lease statements", leases)
        .isLessThanOrEqualTo(1);
    assertThat(stateReads).as("reads of owned states apart from %d lease statements", leases)
        .isLessThanOrEqualTo(1);
    // A give-back: one statement marking its claims, then the unlock. How many components a
    // give-back takes depends on how many closed their leases meanwhile, so the total is bounded
    // by the batches, not by the components.
    assertThat(marks).as("claims marked, in %d give-backs", unlocks)
        .isLessThanOrEqualTo(unlocks);
    // Every round trip within the batches' (one per lease batch, two per give-back) and the
    // run's own; every statement within two per lease batch, two per give-back and the run's.
    assertThat((long) made.size()).as("round trips of a warm run of %d components", COMPONENTS)
        .isLessThanOrEqualTo(leases + 2 * unlocks + RUN_STATEMENTS);
    assertThat(statements).as("statements of a warm run of %d components", COMPONENTS)
        .isLessThanOrEqualTo(2 * leases + 2 * unlocks + RUN_STATEMENTS);
  }

  /** Round trips matching {@code kind}; their statements if {@code statements}. */
  private static long count(List<RoundTrip> made, Predicate<RoundTrip> kind, boolean statements) {
    return made.stream().filter(kind).mapToLong(r -> statements ? r.statements() : 1).sum();
  }

  /**
   * Waits until every claim of the run is marked finished: leases are given back on a thread of
   * the store's own, after the run returns.
   */
  private void awaitEveryClaimMarked() throws Exception {
    try (Connection c = DriverManager.getConnection(counted.url());
        Statement s = c.createStatement()) {
      long unmarked = -1;
      for (int i = 0; i < 500 && unmarked != 0; i++) {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM cocoindex_claim"
            + " WHERE run_finished_at IS DISTINCT FROM claimed_at")) {
          rs.next();
          unmarked = rs.getLong(1);
        }
        if (unmarked != 0) {
          Thread.sleep(10);
        }
      }
      assertThat(unmarked).as("claims not marked finished").isZero();
    }
  }
}
