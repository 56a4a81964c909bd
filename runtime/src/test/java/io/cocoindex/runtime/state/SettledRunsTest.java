package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Settled runs as intervals, and how a row's possible records read against them. */
class SettledRunsTest {

  @Test
  void consecutiveRunsMergeIntoOneIntervalAndAGapSplitsThem() {
    SettledRuns runs = SettledRuns.NONE.with(3).with(4).with(6).with(5).with(9);
    assertThat(runs.intervals()).containsExactly(new long[] {3, 6}, new long[] {9, 9});
    assertThat(runs.contains(2)).isFalse();
    assertThat(runs.contains(3)).isTrue();
    assertThat(runs.contains(6)).isTrue();
    assertThat(runs.contains(7)).isFalse();
    assertThat(runs.intervalOf(5)).containsExactly(3, 6);
    assertThat(runs.intervalOf(8)).isNull();
    assertThat(runs.with(8).intervals()).containsExactly(new long[] {3, 6}, new long[] {8, 9});
    assertThat(runs.with(8).with(7).intervals()).containsExactly(new long[] {3, 9});
    assertThat(SettledRuns.of(List.of(new long[] {9, 9}, new long[] {3, 6}, new long[] {7, 7}))
        .intervals()).containsExactly(new long[] {3, 7}, new long[] {9, 9});
  }

  @Test
  void aRowWhoseNewestRecordASettledRunWroteReadsAsSettledToIt() {
    PossibleRecord none = new PossibleRecord(0, null);
    PossibleRecord older = new PossibleRecord(2, new byte[] {1});
    PossibleRecord newest = new PossibleRecord(4, new byte[] {2});
    SettledRuns runs = SettledRuns.NONE.with(2).with(4);

    assertThat(runs.resolve(List.of(none, newest))).containsExactly(newest);
    assertThat(runs.resolve(List.of(older, newest))).containsExactly(newest);
    // Written by a run that never completed: every record may be the live one.
    assertThat(runs.resolve(List.of(older, new PossibleRecord(5, new byte[] {3}))))
        .hasSize(2);
    assertThat(SettledRuns.NONE.resolve(List.of(none, newest))).hasSize(2);
  }
}
