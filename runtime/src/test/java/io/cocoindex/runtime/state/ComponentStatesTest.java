package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
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
    assertDecodesAs(ComponentStates.encode(states), states);
  }

  private static void assertDecodesAs(byte[] encoded, List<TrackedState> states) {
    List<TrackedState> back = ComponentStates.decode(encoded, OWNER, SettledRuns.NONE);
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

  /** States of random paths (sharing prefixes of random lengths), records and lineage. */
  private static List<TrackedState> randomStates(Random random, int count) {
    TreeMap<byte[], TrackedState> byPath = new TreeMap<>(Arrays::compareUnsigned);
    while (byPath.size() < count) {
      // Mostly short paths; some long ones, past the splice's first path buffer.
      byte[] path = new byte[1 + random.nextInt(random.nextInt(8) == 0 ? 300 : 12)];
      for (int i = 0; i < path.length; i++) {
        path[i] = (byte) random.nextInt(4); // few byte values: long shared prefixes
      }
      byPath.put(path, state(path, randomRecords(random), random.nextInt(1 << 20)));
    }
    return new ArrayList<>(byPath.values());
  }

  private static List<PossibleRecord> randomRecords(Random random) {
    List<PossibleRecord> records = new ArrayList<>();
    for (int r = random.nextInt(3); r >= 0; r--) {
      byte[] record = random.nextInt(5) == 0 ? null : new byte[random.nextInt(200)];
      if (record != null) {
        random.nextBytes(record);
      }
      records.add(new PossibleRecord(random.nextLong() >>> random.nextInt(64), record));
    }
    return records;
  }

  @Test
  void replacingStatesInTheStoredValueGivesTheValueOfTheStatesWithThemReplaced() {
    Random random = new Random(42);
    for (int round = 0; round < 500; round++) {
      List<TrackedState> states = randomStates(random, 1 + random.nextInt(60));
      byte[] stored = ComponentStates.encode(states);
      List<TrackedState> expected = new ArrayList<>(states);
      List<TrackedState> replacements = new ArrayList<>();
      for (int k = random.nextInt(4); k >= 0; k--) {
        int at = random.nextInt(states.size());
        TrackedState replacement = state(states.get(at).path(), randomRecords(random),
            random.nextInt(1 << 20));
        replacements.add(replacement); // a path replaced twice keeps its last replacement
        expected.set(at, replacement);
      }
      byte[] replaced = ComponentStates.replace(stored, replacements);
      assertThat(replaced).isEqualTo(ComponentStates.encode(expected));
      assertDecodesAs(replaced, expected);
    }
  }

  @Test
  void replacingAPathTheValueDoesNotHoldGivesNothing() {
    List<TrackedState> states = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      states.add(state(path("row/", 2 * i + 1, 0), List.of(new PossibleRecord(i, null)), i));
    }
    byte[] stored = ComponentStates.encode(states);
    List<PossibleRecord> records = List.of(new PossibleRecord(99, new byte[] {9}));
    // Before the first, between two, after the last.
    for (int i : new int[] {0, 6, 40}) {
      assertThat(ComponentStates.replace(stored, List.of(state(path("row/", i, 0), records, 0))))
          .isNull();
    }
    assertThat(ComponentStates.replace(stored,
        List.of(state(path("row/", 3, 0), records, 0), state(path("row/", 4, 0), records, 0))))
        .isNull();
    assertThat(ComponentStates.count(stored)).isEqualTo(10);
    assertThat(ComponentStates.count(ComponentStates.encode(List.of()))).isZero();
  }
}
