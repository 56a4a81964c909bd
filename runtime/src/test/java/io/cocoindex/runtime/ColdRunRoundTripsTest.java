package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.CountingConnection.RoundTrip;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

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

  private final Rows rows = new Rows();
  private final List<RoundTrip> roundTrips = Collections.synchronizedList(new ArrayList<>());
  private String url;
  private String schema;
  private PostgresStateStore store;
  private App app;

  @BeforeEach
  void open() throws Exception {
    String server = TestPostgres.url();
    schema = "t_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = DriverManager.getConnection(server); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    url = server;
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(TestPostgres.inSchema(server, schema));
    store = PostgresStateStore.open(CountingConnection.dataSource(ds, roundTrips));
    app = App.create("cold", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < COMPONENTS; i++) {
        String key = String.format("k-%04d", i);
        ctx.mount(key, c -> declareTargetState(c, p.targetState(key, "v")));
      }
    });
  }

  @AfterEach
  void close() throws Exception {
    if (app != null) {
      app.close();
    }
    if (store != null) {
      store.close();
    }
    if (schema != null) {
      try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  @Test
  void aColdRunsGroupTransactionsTakeAFewRoundTripsEachAndMarkEachClaimOnce() {
    roundTrips.clear();
    app.update();
    assertThat(rows.takeLog()).hasSize(COMPONENTS);
    List<RoundTrip> made = new ArrayList<>(roundTrips);

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
