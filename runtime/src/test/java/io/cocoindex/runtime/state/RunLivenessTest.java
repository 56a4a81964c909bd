package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.ThrowawaySchema;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which runs have ended, as workers of the shared store tell each other (a settle drops only the
 * records of runs that had: see {@link StateStore#endedRuns}): a run is going from its version
 * until it ends or its worker dies.
 */
class RunLivenessTest {
  private static final String APP = "app";

  @RegisterExtension final ThrowawaySchema schema = new ThrowawaySchema("rl_");
  private PostgresStateStore a;
  private PostgresStateStore b;

  @BeforeEach
  void open() {
    a = PostgresStateStore.open(schema.url());
    schema.closeLast(() -> a.close()); // a's store as the test ends: a test may open another
    b = schema.closeLast(PostgresStateStore.open(schema.url()));
  }

  @Test
  void aRunIsGoingUntilItEnds() {
    long v1 = a.nextVersion(APP);
    long v2 = b.nextVersion(APP);
    assertThat(b.endedRuns(APP, List.of(v1, v2))).isEmpty();
    a.runEnded(APP, v1);
    assertThat(b.endedRuns(APP, List.of(v1, v2))).containsExactly(v1);
    assertThat(a.endedRuns(APP, List.of(v1, v2))).containsExactly(v1);
    b.runEnded(APP, v2);
    assertThat(a.endedRuns(APP, List.of(v1, v2))).containsExactlyInAnyOrder(v1, v2);
  }

  @Test
  void aRunWhoseWorkerDiedHasEnded() throws Exception {
    long v1 = a.nextVersion(APP);
    assertThat(b.endedRuns(APP, List.of(v1))).isEmpty();
    a.close(); // its sessions end, as a killed worker's do, without the run ending
    a = PostgresStateStore.open(schema.url());
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (b.endedRuns(APP, List.of(v1)).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10); // the server ends a closed session asynchronously
    }
    assertThat(b.endedRuns(APP, List.of(v1))).containsExactly(v1);
  }

  @Test
  void aVersionAllocatedAfterTheLastQuestionIsAskedAbout() {
    long v1 = a.nextVersion(APP);
    a.runEnded(APP, v1);
    assertThat(b.endedRuns(APP, List.of(v1))).containsExactly(v1);
    long v2 = a.nextVersion(APP);
    assertThat(b.endedRuns(APP, List.of(v1, v2))).containsExactly(v1);
    a.runEnded(APP, v2);
    assertThat(b.endedRuns(APP, List.of(v1, v2))).containsExactlyInAnyOrder(v1, v2);
  }

  /**
   * A run's end, recorded so that its claims are not taken for a dead run's, prunes the app's
   * ends recorded more than 7 days before (by an index on the time), and no other app's.
   */
  @Test
  void aRunsEndPrunesTheAppsEndsRecordedAWeekBefore() throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(schema.url());
        java.sql.Statement s = c.createStatement()) {
      s.execute("INSERT INTO cocoindex_run_end(app, version, ended_at) VALUES"
          + " ('app', 100, now() - interval '8 days'), ('app', 101, now() - interval '6 days'),"
          + " ('other', 100, now() - interval '8 days')");
      long v1 = a.nextVersion(APP);
      a.runEnded(APP, v1);
      List<String> ends = new java.util.ArrayList<>();
      try (java.sql.ResultSet rs = s.executeQuery(
          "SELECT app || ' ' || version FROM cocoindex_run_end ORDER BY app, version")) {
        while (rs.next()) {
          ends.add(rs.getString(1));
        }
      }
      assertThat(ends).containsExactly("app " + v1, "app 101", "other 100");
      try (java.sql.ResultSet rs = s.executeQuery("SELECT indexdef FROM pg_indexes"
          + " WHERE schemaname = current_schema() AND tablename = 'cocoindex_run_end'"
          + " AND indexname = 'cocoindex_run_end_ended_at'")) {
        assertThat(rs.next()).as("the index the pruning goes by").isTrue();
        assertThat(rs.getString(1)).endsWith("(app, ended_at)");
      }
    }
  }

  @Test
  void runsOfAnotherAppOrSchemaDoNotCount() throws Exception {
    long v1 = a.nextVersion(APP);
    a.runEnded(APP, v1);
    try (PostgresStateStore elsewhere = PostgresStateStore.open(schema.anotherSchemaUrl())) {
      assertThat(elsewhere.nextVersion(APP)).isEqualTo(v1);
      assertThat(a.nextVersion("another app")).isEqualTo(v1);
      assertThat(b.endedRuns(APP, List.of(v1))).containsExactly(v1);
    }
  }
}
