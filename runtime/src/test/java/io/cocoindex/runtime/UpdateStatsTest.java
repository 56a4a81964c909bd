package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one-line summary an update logs at INFO. */
class UpdateStatsTest {
  @Test
  void aSummarySumsTheProvidersAndNamesTheComponentsAndTheTime() {
    UpdateStats stats = new UpdateStats(Map.of(
        "rows", new UpdateStats.ProviderStats(2, 1, 0, 100),
        "files", new UpdateStats.ProviderStats(1, 0, 3, 20)), 13, 10, Duration.ofMillis(42));
    assertThat(stats.summary()).isEqualTo(
        "3 created, 1 updated, 3 deleted, 120 unchanged; 13 components run, 10 memoized; 42 ms");
  }
}
