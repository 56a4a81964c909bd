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

  /** The records {@code readResolved} reads at offset 3 of a buffer, and where it stopped. */
  private static String readResolvedAt(List<PossibleRecord> records, SettledRuns runs) {
    byte[] list = RecordListEncoding.encode(records);
    byte[] bytes = new byte[list.length + 5];
    System.arraycopy(list, 0, bytes, 3, list.length);
    int[] pos = {3};
    List<PossibleRecord> read = RecordListEncoding.readResolved(bytes, pos, runs);
    StringBuilder out = new StringBuilder();
    for (PossibleRecord r : read) {
      out.append(r.version()).append(r.isNone() ? "=none " : "=" + r.record()[0] + " ");
    }
    return out.append("end ").append(pos[0] - 3 == list.length).toString();
  }

  @Test
  void aListReadResolvedIsWhatResolvingItsFullReadGivesAndEndsWhereItDoes() {
    PossibleRecord none = new PossibleRecord(0, null);
    PossibleRecord older = new PossibleRecord(300, new byte[] {1, 1, 1}); // a two-byte varint
    PossibleRecord newest = new PossibleRecord(301, new byte[] {2});
    SettledRuns settled = SettledRuns.NONE.with(301);

    assertThat(readResolvedAt(List.of(none, older, newest), settled))
        .isEqualTo("301=2 end true");
    assertThat(readResolvedAt(List.of(none, older, newest), SettledRuns.NONE.with(300)))
        .as("the newest unsettled: all may be live").isEqualTo("0=none 300=1 301=2 end true");
    assertThat(readResolvedAt(List.of(older, newest), SettledRuns.NONE))
        .isEqualTo("300=1 301=2 end true");
    assertThat(readResolvedAt(List.of(newest), settled)).isEqualTo("301=2 end true");
    assertThat(readResolvedAt(List.of(older, new PossibleRecord(301, null)), settled))
        .isEqualTo("301=none end true");
  }

  @Test
  void aTruncatedListIsRefusedWhetherOrNotItsRecordsAreSkipped() {
    byte[] list = RecordListEncoding.encode(List.of(new PossibleRecord(1, new byte[] {1, 2, 3}),
        new PossibleRecord(2, new byte[] {4})));
    byte[] truncated = java.util.Arrays.copyOf(list, 4);
    for (SettledRuns runs : List.of(SettledRuns.NONE, SettledRuns.NONE.with(2))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
          () -> RecordListEncoding.readResolved(truncated, new int[] {0}, runs))
          .isInstanceOf(StateStoreException.class)
          .hasMessageContaining("corrupt tracking record list");
    }
  }
}
