package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Paths noted in a run come back in the order noted, in batches, long ones among them. */
class PathLogTest {
  @Test
  void pathsComeBackInTheOrderNotedAcrossChunksAndInBatches() {
    PathLog log = new PathLog();
    List<TargetPath> noted = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      // Every thousandth path too long to share a chunk: kept apart, the order stays.
      String key = i % 1_000 == 500 ? "k".repeat(40_000) + i : "k" + i;
      TargetPath path = TargetPath.of(List.of(StableKey.of("c"), StableKey.of(key)));
      noted.add(path);
      log.add(path);
    }

    List<TargetPath> read = new ArrayList<>();
    List<Integer> batches = new ArrayList<>();
    log.forEachBatch(1_024, batch -> {
      batches.add(batch.size());
      read.addAll(batch);
    });

    assertThat(log.size()).isEqualTo(3_000);
    assertThat(batches).containsExactly(1_024, 1_024, 952);
    assertThat(read).containsExactlyElementsOf(noted);
  }

  @Test
  void anEmptyLogHandsNothingOver() {
    List<List<TargetPath>> batches = new ArrayList<>();
    new PathLog().forEachBatch(1_024, batches::add);
    assertThat(batches).isEmpty();
  }
}
