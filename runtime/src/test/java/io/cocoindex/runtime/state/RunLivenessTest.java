package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which runs have ended, as workers of the shared store tell each other (a settle drops only the
 * records of runs that had: see {@link StateStore#endedRuns}): a run is going from its version
 * until it ends or its worker dies.
 */
class RunLivenessTest {
  private static final String APP = "app";

  private String url;
  private String schema;
  private PostgresStateStore a;
  private PostgresStateStore b;

  @BeforeEach
  void open() throws Exception {
    url = TestPostgres.url();
    schema = "rl_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    a = PostgresStateStore.open(TestPostgres.inSchema(url, schema));
    b = PostgresStateStore.open(TestPostgres.inSchema(url, schema));
  }

  @AfterEach
  void close() throws Exception {
    if (a == null) {
      return; // skipped: no PostgreSQL to test against
    }
    a.close();
    b.close();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA " + schema + " CASCADE");
    }
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
    a = PostgresStateStore.open(TestPostgres.inSchema(url, schema));
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

  @Test
  void runsOfAnotherAppOrSchemaDoNotCount() throws Exception {
    long v1 = a.nextVersion(APP);
    a.runEnded(APP, v1);
    String other = "rl_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + other);
    }
    try (PostgresStateStore elsewhere = PostgresStateStore.open(TestPostgres.inSchema(url, other))) {
      assertThat(elsewhere.nextVersion(APP)).isEqualTo(v1);
      assertThat(a.nextVersion("another app")).isEqualTo(v1);
      assertThat(b.endedRuns(APP, List.of(v1))).containsExactly(v1);
    } finally {
      try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA " + other + " CASCADE");
      }
    }
  }
}
