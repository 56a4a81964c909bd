package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.StatePaths.path;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.ThrowawaySchema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared store's reads and marks of a few rows by key touch those rows, not every row of the
 * app, on tables the server has no statistics of: a store's first run, which the server's
 * autovacuum analyzes a minute later at the earliest. Planned while the tables were small, a
 * read of {@code app=? AND path = ANY(?)} became a scan of the app's rows by the owner index with
 * the array as a filter, and the server kept that plan for the prepared statement while the
 * tables grew: in a cold run of 5,000 components each read of a few rows scanned up to all of
 * them (0.5-1.7 ms a read), and each mark of claims, a join planned as a scan of every claim.
 * A deletion of the states of some owners below a state reads the rows below it or those of the
 * owners, not the app's.
 * Here the statements are prepared and run a dozen times on small tables (as a run's first
 * components do), the tables then grow to 3,000 rows, and each read counts the rows it fetched
 * ({@code pg_stat_xact_user_tables}).
 */
class FreshTablesPointReadsTest {
  private static final String APP = "app";
  private static final int GROWN = 3_000;

  @RegisterExtension final ThrowawaySchema schema = new ThrowawaySchema("t_");
  private PostgresStateStore store;

  @BeforeEach
  void open() {
    store = schema.closeLast(PostgresStateStore.open(schema.url()));
  }

  @Test
  void aReadOfAFewRowsFetchesThoseRowsOnTablesWithoutStatistics() throws Exception {
    JdbcStateTables tables = new JdbcStateTables("cocoindex_", true, false);
    try (Connection c = DriverManager.getConnection(schema.url())) {
      try (Statement s = c.createStatement()) {
        for (String t : List.of("cocoindex_target_state", "cocoindex_component",
            "cocoindex_claim")) {
          s.execute("ALTER TABLE " + t + " SET (autovacuum_enabled = false)");
        }
      }
      List<StateWrite> first = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        first.add(new StateWrite.PutState(state(i)));
        first.add(new StateWrite.PutComponent(record(i), 1));
      }
      store.write(APP, first).join();
      claim(c, 0, 2);

      // A run's first components: each statement prepared by the server, its plan kept.
      for (int round = 0; round < 15; round++) {
        readEach(c, tables);
      }

      List<StateWrite> more = new ArrayList<>();
      for (int i = 2; i < GROWN; i++) {
        more.add(new StateWrite.PutState(state(i)));
        more.add(new StateWrite.PutComponent(record(i), 1));
      }
      store.write(APP, more).join();
      claim(c, 2, GROWN);

      c.setAutoCommit(false);
      Map<String, Long> fetched = readEach(c, tables);
      c.rollback();
      assertThat(fetched).as("rows fetched by each read of 1 or 40 rows, of %d", GROWN)
          .allSatisfy((read, rows) -> assertThat(rows).as(read).isLessThanOrEqualTo(100));
    }
  }

  /**
   * Reads rows 0 and 1 each way the engine does (a component's record, its owned states, the
   * states it declares, both of the first after its lease, the rows a group commit locks, the
   * claims it marks), and how many rows
   * of the three tables each fetched, where the connection is in a transaction.
   */
  private static Map<String, Long> readEach(Connection c, JdbcStateTables tables)
      throws SQLException {
    Map<String, Long> fetched = new LinkedHashMap<>();
    long before = fetched(c);
    assertThat(tables.componentsAt(c, APP, List.of(component(0)))).hasSize(1);
    fetched.put("componentsAt", fetched(c) - before);
    before = fetched(c);
    assertThat(tables.statesAt(c, APP, List.of(statePath(1)))).hasSize(1);
    fetched.put("statesAt", fetched(c) - before);
    before = fetched(c);
    assertThat(tables.ownedByAny(c, APP, List.of(component(1)))).hasSize(1);
    fetched.put("ownedByAny", fetched(c) - before);
    before = fetched(c);
    // The read after a lease statement, of the two components it granted (claimed for run 1).
    PostgresLeaseReads leased = new PostgresLeaseReads(PostgresLeaseReads.sql(tables), APP,
        new byte[][] {component(0), component(1)}, 1, 4_096, SettledRuns.NONE);
    try (PreparedStatement ps = c.prepareStatement("SELECT 1" + leased.sql())) {
      leased.bind(ps, 1);
      ps.execute();
      leased.read(ps);
    }
    assertThat(leased.records).hasSize(2);
    assertThat(leased.states).hasSize(2).allSatisfy((owner, owned) -> assertThat(owned).hasSize(1));
    fetched.put("records and states read with a lease", fetched(c) - before);
    before = fetched(c);
    // Confirmations of 40 rows, read and locked in one query (2 exist, on the small tables).
    List<StateWrite> confirms = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      confirms.add(new StateWrite.Confirm(state(i), state(i)));
    }
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    tables.apply(c, List.of(new GroupCommitter.Batch(APP, confirms, new CompletableFuture<>())));
    fetched.put("a group's rows, locked", fetched(c) - before);
    before = fetched(c);
    PostgresClaims.markFinished(c, List.of(new PostgresClaims.Finished(APP, component(0), 1),
        new PostgresClaims.Finished(APP, component(1), 1)));
    fetched.put("claims marked", fetched(c) - before);
    before = fetched(c);
    // The orphan sweep's forgetting of what some owners track below a state (none is there).
    tables.apply(c, List.of(new GroupCommitter.Batch(APP, List.of(new StateWrite.DeleteBelow(
        statePath(1), List.of(component(0), component(1)))), new CompletableFuture<>())));
    fetched.put("a range of some owners' states deleted", fetched(c) - before);
    if (autoCommit) {
      c.rollback();
      c.setAutoCommit(true);
    }
    return fetched;
  }

  /** The rows this transaction fetched from the tables so far, by scans of either kind. */
  private static long fetched(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COALESCE(sum(seq_tup_read + idx_tup_fetch), 0)"
            + " FROM pg_stat_xact_user_tables WHERE schemaname = current_schema()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Claims of components {@code from} to {@code to} (exclusive) for run 1. */
  private static void claim(Connection c, int from, int to) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO cocoindex_claim(app, path,"
        + " claimed_at, run_version, run_claimed_at) VALUES(?, ?, now(), 1, now())")) {
      for (int i = from; i < to; i++) {
        ps.setString(1, APP);
        ps.setBytes(2, component(i));
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static byte[] component(int i) {
    return path("component", "c" + i);
  }

  private static byte[] statePath(int i) {
    return path("t", "s" + i);
  }

  private static TrackedState state(int i) {
    return new TrackedState(statePath(i), component(i),
        List.of(new PossibleRecord(1, ("v" + i).getBytes(StandardCharsets.UTF_8))), 0, 0, 0, 0);
  }

  private static ComponentRecord record(int i) {
    return new ComponentRecord(component(i), null, null, null, 1);
  }
}
