package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A chunk's states by path: found by path, kept in unsigned byte order whatever order they come
 * in, and searched for the neighbours and ranges the store's tree operations ask for.
 */
class SortedStatesTest {
  private static final byte[] OWNER = {7};

  private static byte[] path(int... bytes) {
    byte[] p = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      p[i] = (byte) bytes[i];
    }
    return p;
  }

  private static TrackedState state(byte[] path, long childGeneration) {
    return new TrackedState(path, OWNER, List.of(), childGeneration, 0, 0, 0);
  }

  private static SortedStates holding(byte[]... paths) {
    SortedStates s = new SortedStates(2);
    for (byte[] p : paths) {
      s.put(state(p, 0));
    }
    return s;
  }

  private static List<String> paths(SortedStates s) {
    return s.inPathOrder().stream().map(t -> java.util.Arrays.toString(t.path())).toList();
  }

  @Test
  void statesPutInAnyOrderAreHeldInUnsignedPathOrder() {
    SortedStates s = holding(path(5), path(0x80), path(1, 2), path(1), path(0xff, 0), path(3));

    assertThat(paths(s)).containsExactly(
        "[1]", "[1, 2]", "[3]", "[5]", "[-128]", "[-1, 0]"); // 0x80 and 0xff sort last
    assertThat(s.size()).isEqualTo(6);
  }

  @Test
  void aPutAtAHeldPathReplacesItsStateAndReturnsTheOldOne() {
    SortedStates s = holding(path(1), path(2), path(3));
    TrackedState newer = state(path(2), 9);

    TrackedState old = s.put(newer);

    assertThat(old.childGeneration()).isZero();
    assertThat(s.get(path(2))).isSameAs(newer);
    assertThat(s.size()).isEqualTo(3);
    assertThat(s.get(path(4))).isNull();
  }

  @Test
  void removingAPathClosesTheGapAndAnUnheldOneChangesNothing() {
    SortedStates s = holding(path(1), path(2), path(3));

    assertThat(s.remove(path(2))).isNotNull();
    assertThat(s.remove(path(9))).isNull();

    assertThat(paths(s)).containsExactly("[1]", "[3]");
    assertThat(s.get(path(3))).isNotNull();
  }

  @Test
  void neighboursAreTheNearestHeldPathsStrictlyBelowAndAbove() {
    SortedStates s = holding(path(2), path(4), path(6));

    assertThat(s.lowerPath(path(4))).containsExactly(2);
    assertThat(s.lowerPath(path(5))).containsExactly(4);
    assertThat(s.lowerPath(path(2))).isNull();
    assertThat(s.higherPath(path(4))).containsExactly(6);
    assertThat(s.higherPath(path(3))).containsExactly(4);
    assertThat(s.higherPath(path(6))).isNull();
  }

  @Test
  void aRangeIsFoundFromItsFirstHeldPathAndRemovedWhole() {
    SortedStates s = holding(path(1), path(2), path(2, 1), path(2, 9), path(3), path(4));

    int from = s.indexFrom(path(2));
    int to = s.indexFrom(path(3)); // [2] and all below it
    s.removeRange(from, to);

    assertThat(paths(s)).containsExactly("[1]", "[3]", "[4]");
    assertThat(s.indexFrom(path(9))).isEqualTo(3);
    assertThat(s.indexFrom(path(0))).isZero();
  }

  @Test
  void itGrowsPastItsFirstCapacity() {
    SortedStates s = new SortedStates(1);
    for (int i = 100; i > 0; i--) {
      s.put(state(path(i), i));
    }

    assertThat(s.size()).isEqualTo(100);
    assertThat(s.stateAt(0).path()).containsExactly(1);
    assertThat(s.stateAt(99).childGeneration()).isEqualTo(100);
  }
}
