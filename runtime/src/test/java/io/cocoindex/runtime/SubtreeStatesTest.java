package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link StateStore#ownedInSubtree} on each store: every state of the components at and below
 * one, owner by owner in path order, across the windows a store reads it in (on SQLite 256
 * chunks, on PostgreSQL 4,096 rows, an owner with more read whole), and nothing outside.
 */
class SubtreeStatesTest extends EngineTestBase {
  private static final String APP = "subtree";

  private static byte[] path(String... keys) {
    return TargetPath.of(Arrays.stream(keys).map(StableKey::of).toList()).encoded();
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  /** Puts {@code n} states for {@code owner}, at paths of their own below {@code "rows"}. */
  private static void own(StateStore store, byte[] owner, String name, int n) {
    List<StateWrite> writes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      TrackedState s = new TrackedState(path("rows", name, String.format("r-%05d", i)), owner,
          List.of(new PossibleRecord(1, ("v" + i).getBytes(StandardCharsets.UTF_8))),
          0, 0, 0, 0);
      writes.add(new StateWrite.PutState(s));
    }
    store.write(APP, writes).join();
  }

  @Test
  void aSubtreeIsReadWholeOwnerByOwnerAcrossWindowsAndNothingOutsideIt() {
    StateStore store = store();
    Map<String, Integer> expected = new LinkedHashMap<>();
    byte[] top = path("c");
    own(store, top, "top", 2);
    expected.put(hex(top), 2);
    // More than a PostgreSQL window, right after the top: cut, then read whole on its own.
    byte[] big = path("c", "big");
    own(store, big, "big", 5_000);
    expected.put(hex(big), 5_000);
    for (int i = 0; i < 300; i++) { // more chunks than an SQLite window
      byte[] child = path("c", String.format("k-%03d", i));
      own(store, child, "k" + i, 1);
      expected.put(hex(child), 1);
      if (i == 7) {
        byte[] grandchild = path("c", "k-007", "g");
        own(store, grandchild, "g", 3);
        expected.put(hex(grandchild), 3);
      }
    }
    own(store, path("b"), "b", 1);
    own(store, path("c2"), "c2", 1);
    own(store, path("d"), "d", 1);

    Map<String, Integer> read = new LinkedHashMap<>();
    List<byte[]> order = new ArrayList<>();
    store.ownedInSubtree(APP, top, (owner, states) -> {
      assertThat(states).allSatisfy(s -> assertThat(s.owner()).isEqualTo(owner));
      assertThat(read.put(hex(owner), states.size())).as("an owner visited once").isNull();
      order.add(owner);
    });

    assertThat(read).containsExactlyInAnyOrderEntriesOf(expected);
    assertThat(order).as("in path order").isSortedAccordingTo(Arrays::compareUnsigned);
  }

  @Test
  void anOwnerOfMoreChunksThanAWindowIsReadWholeInItsOwnWindow() {
    // On SQLite an owner's states are kept in chunks of at most 64 KiB: 2,400 states of 8 KiB
    // are some 300 chunks, more than a window's 256, so the window after the top's is this
    // owner's alone, read whole. (On PostgreSQL, fewer rows than a window's.)
    StateStore store = store();
    byte[] top = path("c");
    own(store, top, "top", 1);
    byte[] big = path("c", "big");
    List<StateWrite> writes = new ArrayList<>();
    String filler = "x".repeat(8 * 1024);
    for (int i = 0; i < 2_400; i++) {
      writes.add(new StateWrite.PutState(new TrackedState(
          path("rows", "big", String.format("r-%05d", i)), big,
          List.of(new PossibleRecord(1, (i + filler).getBytes(StandardCharsets.UTF_8))),
          0, 0, 0, 0)));
    }
    store.write(APP, writes).join();
    byte[] after = path("c", "small");
    own(store, after, "small", 1);

    List<String> owners = new ArrayList<>();
    List<TrackedState> bigStates = new ArrayList<>();
    store.ownedInSubtree(APP, top, (owner, states) -> {
      owners.add(hex(owner) + " " + states.size());
      if (Arrays.equals(owner, big)) {
        bigStates.addAll(states);
      }
    });

    assertThat(owners).containsExactly(hex(top) + " 1", hex(big) + " 2400", hex(after) + " 1");
    for (int i = 0; i < 2_400; i++) {
      TrackedState s = bigStates.get(i);
      assertThat(s.path()).isEqualTo(path("rows", "big", String.format("r-%05d", i)));
      assertThat(new String(s.records().get(0).record(), StandardCharsets.UTF_8))
          .isEqualTo(i + filler);
    }
  }

  @Test
  void aComponentWithoutStatesOrDescendantsReadsNothing() {
    StateStore store = store();
    own(store, path("a"), "a", 1);
    List<byte[]> owners = new ArrayList<>();
    store.ownedInSubtree(APP, path("c"), (owner, states) -> owners.add(owner));
    assertThat(owners).isEmpty();
  }
}
