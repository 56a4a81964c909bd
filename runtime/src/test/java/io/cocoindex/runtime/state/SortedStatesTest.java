package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A chunk's states by path: found by path, kept in unsigned byte order whatever order they come
 * in, searched for the neighbours and ranges the store's tree operations ask for, and the same
 * once a large chunk filled out of order has moved to a tree.
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

  /**
   * {@code paths} held, in the order given; {@code inTree}: after as many states out of order
   * as move them to a tree (paths of 3 bytes starting at 0xf0, above the test's).
   */
  private static SortedStates holding(boolean inTree, byte[]... paths) {
    SortedStates s = new SortedStates(2);
    if (inTree) {
      for (int i = SortedStates.ARRAY_LIMIT; i >= 0; i--) {
        s.put(state(path(0xf0, i >> 8, i & 0xff), 0));
      }
      assertThat(s.inTree()).isTrue();
    }
    for (byte[] p : paths) {
      s.put(state(p, 0));
    }
    return s;
  }

  /** The paths held below 0xf0 (the test's own), in order. */
  private static List<String> paths(SortedStates s) {
    return s.inPathOrder().stream().map(TrackedState::path)
        .filter(p -> (p[0] & 0xff) < 0xf0).map(Arrays::toString).toList();
  }

  @ParameterizedTest(name = "in a tree: {0}")
  @ValueSource(booleans = {false, true})
  void statesPutInAnyOrderAreHeldInUnsignedPathOrder(boolean inTree) {
    SortedStates s = holding(inTree, path(5), path(0x80), path(1, 2), path(1), path(0xef, 0),
        path(3));

    assertThat(paths(s)).containsExactly(
        "[1]", "[1, 2]", "[3]", "[5]", "[-128]", "[-17, 0]"); // 0x80 and 0xef sort last
  }

  @ParameterizedTest(name = "in a tree: {0}")
  @ValueSource(booleans = {false, true})
  void aPutAtAHeldPathReplacesItsStateAndReturnsTheOldOne(boolean inTree) {
    SortedStates s = holding(inTree, path(1), path(2), path(3));
    int size = s.size();
    TrackedState newer = state(path(2), 9);

    TrackedState old = s.put(newer);

    assertThat(old.childGeneration()).isZero();
    assertThat(s.get(path(2))).isSameAs(newer);
    assertThat(s.size()).isEqualTo(size);
    assertThat(s.get(path(4))).isNull();
  }

  @ParameterizedTest(name = "in a tree: {0}")
  @ValueSource(booleans = {false, true})
  void removingAPathClosesTheGapAndAnUnheldOneChangesNothing(boolean inTree) {
    SortedStates s = holding(inTree, path(1), path(2), path(3));

    assertThat(s.remove(path(2))).isNotNull();
    assertThat(s.remove(path(9))).isNull();

    assertThat(paths(s)).containsExactly("[1]", "[3]");
    assertThat(s.get(path(3))).isNotNull();
  }

  @ParameterizedTest(name = "in a tree: {0}")
  @ValueSource(booleans = {false, true})
  void neighboursAreTheNearestHeldPathsStrictlyBelowAndAbove(boolean inTree) {
    SortedStates s = holding(inTree, path(2), path(4), path(6));

    assertThat(s.lowerPath(path(4))).containsExactly(2);
    assertThat(s.lowerPath(path(5))).containsExactly(4);
    assertThat(s.lowerPath(path(2))).isNull();
    assertThat(s.higherPath(path(4))).containsExactly(6);
    assertThat(s.higherPath(path(3))).containsExactly(4);
  }

  @ParameterizedTest(name = "in a tree: {0}")
  @ValueSource(booleans = {false, true})
  void aRangeIsListedAndRemovedFromItsFirstPathUpToItsEnd(boolean inTree) {
    SortedStates s = holding(inTree, path(1), path(2), path(2, 1), path(2, 9), path(3), path(4));

    assertThat(s.in(path(2), path(3))).extracting(t -> Arrays.toString(t.path()))
        .containsExactly("[2]", "[2, 1]", "[2, 9]");
    assertThat(s.removeIn(path(2), path(3))).isTrue(); // [2] and all below it
    assertThat(s.removeIn(path(2), path(3))).isFalse();

    assertThat(paths(s)).containsExactly("[1]", "[3]", "[4]");
    assertThat(s.in(path(9), path(10))).isEmpty();
  }

  @Test
  void aLargeChunkFilledOutOfOrderMovesToATreeAndStaysInOrder() {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(1));
    SortedStates s = new SortedStates(1);

    for (int i : order) {
      assertThat(s.put(state(path(i >> 16, (i >> 8) & 0xff, i & 0xff), i))).isNull();
    }

    assertThat(s.inTree()).isTrue();
    assertThat(s.size()).isEqualTo(20_000);
    List<TrackedState> inOrder = s.inPathOrder();
    for (int i = 0; i < inOrder.size(); i++) {
      assertThat(inOrder.get(i).childGeneration()).isEqualTo(i);
    }
  }

  @Test
  void aChunkFilledInOrderStaysAnArrayHoweverLarge() {
    SortedStates s = new SortedStates(1);
    for (int i = 0; i < 20_000; i++) {
      s.put(state(path(i >> 16, (i >> 8) & 0xff, i & 0xff), i));
    }

    assertThat(s.inTree()).isFalse();
    assertThat(s.size()).isEqualTo(20_000);
    assertThat(s.get(path(0, 1, 0)).childGeneration()).isEqualTo(256);
  }
}
