package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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

  private FreshSchema schema;
  private PostgresStateStore a;
  private PostgresStateStore b;

  @BeforeEach
  void open() throws Exception {
    schema = FreshSchema.create("rl_");
    a = schema.open();
    b = schema.open();
  }

  @AfterEach
  void close() throws Exception {
    if (a == null) {
      return; // skipped: no PostgreSQL to test against
    }
    a.close();
    b.close();
    schema.close();
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
    a = schema.open();
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
    try (FreshSchema other = FreshSchema.create("rl_");
        PostgresStateStore elsewhere = other.open()) {
      assertThat(elsewhere.nextVersion(APP)).isEqualTo(v1);
      assertThat(a.nextVersion("another app")).isEqualTo(v1);
      assertThat(b.endedRuns(APP, List.of(v1))).containsExactly(v1);
    }
  }
}
