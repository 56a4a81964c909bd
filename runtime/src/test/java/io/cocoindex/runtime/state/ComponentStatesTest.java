package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A component's states are stored as one value: paths sharing prefixes with the path before
 * them, each with its possible records and lineage. What is encoded decodes as it was, whatever
 * the sizes involved.
 */
class ComponentStatesTest {
  private static final byte[] OWNER = {7, 7};

  private static TrackedState state(byte[] path, List<PossibleRecord> records, long n) {
    return new TrackedState(path, OWNER, records, n, n + 1, Long.MAX_VALUE - n, 1L << 40);
  }

  private static byte[] path(String prefix, int i, int padding) {
    byte[] head = (prefix + String.format("%05d", i)).getBytes();
    return Arrays.copyOf(head, head.length + padding); // zero bytes after: shared suffixes
  }

  private static void assertRoundTrip(List<TrackedState> states) {
    List<TrackedState> back = ComponentStates.decode(
        ComponentStates.encode(states), OWNER, SettledRuns.NONE);
    assertThat(back).hasSameSizeAs(states);
    for (int i = 0; i < states.size(); i++) {
      TrackedState want = states.get(i);
      TrackedState got = back.get(i);
      assertThat(got.path()).isEqualTo(want.path());
      assertThat(got.owner()).isEqualTo(OWNER);
      assertThat(got.childGeneration()).isEqualTo(want.childGeneration());
      assertThat(got.childEpoch()).isEqualTo(want.childEpoch());
      assertThat(got.parentGeneration()).isEqualTo(want.parentGeneration());
      assertThat(got.parentEpoch()).isEqualTo(want.parentEpoch());
      assertThat(got.records()).hasSameSizeAs(want.records());
      for (int r = 0; r < want.records().size(); r++) {
        assertThat(got.records().get(r).version()).isEqualTo(want.records().get(r).version());
        assertThat(got.records().get(r).record()).isEqualTo(want.records().get(r).record());
      }
    }
  }

  @Test
  void smallStatesRoundTrip() {
    List<TrackedState> states = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      states.add(state(path("row/", i, 0), List.of(new PossibleRecord(i, new byte[] {1, 2})), i));
    }
    assertRoundTrip(states);
  }

  @Test
  void statesLargerThanTheFirstGuessRoundTrip() {
    // Long paths that share little, several large records and a "none": the encoder's buffer,
    // first sized for small states, has to grow more than once.
    List<TrackedState> states = new ArrayList<>();
    byte[] big = new byte[5_000];
    Arrays.fill(big, (byte) 0x5A);
    for (int i = 0; i < 20; i++) {
      List<PossibleRecord> records = List.of(
          new PossibleRecord(1, big), new PossibleRecord(2, null),
          new PossibleRecord(Long.MAX_VALUE, Arrays.copyOf(big, 300 + i)));
      states.add(state(path(String.format("%02d/", i), i, 400), records, i * 1_000_000_007L));
    }
    assertRoundTrip(states);
  }

  @Test
  void noStatesRoundTrip() {
    assertRoundTrip(List.of());
  }
}
