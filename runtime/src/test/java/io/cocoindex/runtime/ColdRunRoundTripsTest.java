package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.CountingConnection.RoundTrip;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The statements of a cold run on the shared store, counted as the store's connections make them
 * (every round trip of every connection): the state writer's group transactions take a few round
 * trips each, whatever the components in the group (a round trip per write went in turn on the
 * writer's thread: about 20,000 for 5,000 components of one state), and a claim that the
 * component's commit marked finished is not marked again as its lease is given back (in a cold
 * run, every component's: a statement per batch of leases given back, that changed nothing).
 */
class ColdRunRoundTripsTest {
  private static final int COMPONENTS = 400;

  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("t_");
  private CountedRowsApp counted;

  @BeforeEach
  void open() {
    counted = CountedRowsApp.open(pg, "cold", COMPONENTS);
  }

  @Test
  void aColdRunsGroupTransactionsTakeAFewRoundTripsEachAndMarkEachClaimOnce() {
    counted.roundTrips.clear();
    counted.app.update();
    assertThat(counted.rows.takeLog()).hasSize(COMPONENTS);
    List<RoundTrip> made = new ArrayList<>(counted.roundTrips);

    long commits = made.stream().filter(r -> r.sql().equals("COMMIT")).count();
    long inTransactions = made.stream().filter(RoundTrip::inTransaction).count();
    // The group transactions (and the run's own few): the rows read and locked, the states
    // created, the states settled, the component records, the claims marked, the commit.
    assertThat(inTransactions).as("round trips in %d transactions", commits)
        .isLessThanOrEqualTo(6 * commits);
    assertThat(made).as("claims marked outside the commits' transactions")
        .filteredOn(r -> !r.inTransaction() && r.sql().contains("cocoindex_claim")
            && (r.sql().startsWith("UPDATE") || r.sql().startsWith("WITH marked")))
        .isEmpty();
  }
}
