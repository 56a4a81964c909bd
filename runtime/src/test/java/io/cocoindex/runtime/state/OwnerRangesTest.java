package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.StatePaths.path;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.codec.KeyEncoding;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The owner of each path is kept by ranges ({@link OwnerRanges}): a component whose paths lie
 * together has one range, another component's path parts it, and whatever is written, the
 * ranges stay disjoint and tight and cover every stored state with its owner's range.
 */
class OwnerRangesTest {
  private static final String APP = "app";
  private static final byte[][] OWNERS = {owner("a"), owner("b"), owner("c"), owner("d")};

  @TempDir Path dir;
  private SqliteStateStore store;

  @BeforeEach
  void open() {
    store = SqliteStateStore.open(dir, SqliteStateStore.Durability.NORMAL);
  }

  @AfterEach
  void close() {
    store.close();
  }


  private static byte[] owner(String name) {
    return path("component", name);
  }

  private static byte[] row(int i) {
    return path("table", String.format("row-%03d", i));
  }

  private static TrackedState state(byte[] path, byte[] owner) {
    return new TrackedState(path, owner,
        List.of(new PossibleRecord(1, "r".getBytes(StandardCharsets.UTF_8))), 0, 0, 0, 0);
  }

  private void put(byte[] owner, int... rows) {
    List<StateWrite> writes = new ArrayList<>();
    for (int r : rows) {
      writes.add(new StateWrite.PutState(state(row(r), owner)));
    }
    store.write(APP, writes).join();
  }

  @Test
  void aComponentWhosePathsLieTogetherHasOneRangeWrittenOnceForAThousandStates()
      throws Exception {
    int[] rows = new int[1_000];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = rows.length - 1 - i; // declared in any order
    }
    put(OWNERS[0], rows);

    assertThat(OwnerRangeRows.of(dir)).containsExactly("row-000..row-999 a");
  }

  @Test
  void anotherOwnersPathPartsARangeTightlyAndItsDeletionLeavesTheRangesValid() throws Exception {
    put(OWNERS[0], 1, 2, 3, 5, 6, 7);
    put(OWNERS[1], 4);
    assertThat(OwnerRangeRows.of(dir)).as("row 4 lay in a's range, between its rows")
        .containsExactly("row-001..row-003 a", "row-004..row-004 b", "row-005..row-007 a");

    put(OWNERS[1], 6); // taken over from a
    assertThat(OwnerRangeRows.of(dir)).containsExactly("row-001..row-003 a",
        "row-004..row-004 b", "row-005..row-005 a", "row-006..row-006 b", "row-007..row-007 a");
    assertThat(store.get(APP, row(6)).orElseThrow().owner()).isEqualTo(OWNERS[1]);

    store.write(APP, List.of(new StateWrite.DeleteState(row(1)), new StateWrite.DeleteState(
        row(7)), new StateWrite.DeleteState(row(2)))).join();
    assertThat(OwnerRangeRows.of(dir)).as("the ends move in to the paths a still holds")
        .containsExactly("row-003..row-003 a", "row-004..row-004 b", "row-005..row-005 a",
            "row-006..row-006 b");
    put(OWNERS[0], 8);
    assertThat(OwnerRangeRows.of(dir)).as("a path after b's joins no range across it")
        .containsExactly("row-003..row-003 a", "row-004..row-004 b", "row-005..row-005 a",
            "row-006..row-006 b", "row-008..row-008 a");
  }

  @Test
  void aPathInAGapOfItsOwnersRangeNeedsNoNewRange() throws Exception {
    put(OWNERS[0], 1, 5);
    put(OWNERS[0], 3);
    store.write(APP, List.of(new StateWrite.DeleteState(row(3)))).join();
    assertThat(OwnerRangeRows.of(dir)).containsExactly("row-001..row-005 a");
    assertThat(store.get(APP, row(3))).as("a gap inside a range is owned by nobody").isEmpty();
    assertThat(store.getAll(APP, List.of(row(1), row(2), row(3), row(5), row(1))))
        .extracting(s -> OwnerRangeRows.lastKey(s.path()))
        .containsExactly("row-001", "row-005");
  }

  /**
   * Random writes by four owners to sixty paths (containers with children, so that a deleted
   * tree takes several owners' states), checked after each step against a model: every read
   * answers as the model, and the ranges keep their three rules.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4})
  void rangesStayDisjointTightAndCoveringUnderRandomWrites(long seed) throws Exception {
    Random random = new Random(seed);
    List<byte[]> containers = new ArrayList<>();
    List<byte[]> paths = new ArrayList<>();
    for (int c = 0; c < 10; c++) {
      byte[] container = path("t", "c" + c);
      containers.add(container);
      paths.add(container);
      for (int r = 0; r < 5; r++) {
        paths.add(path("t", "c" + c, "r" + r));
      }
    }
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    for (int step = 0; step < 150; step++) {
      // Up to three batches at once: the state writer may commit them as one group.
      List<CompletableFuture<Void>> pending = new ArrayList<>();
      int batches = 1 + random.nextInt(3);
      for (int b = 0; b < batches; b++) {
        List<StateWrite> writes = new ArrayList<>();
        int n = 1 + random.nextInt(6);
        for (int i = 0; i < n; i++) {
          int kind = random.nextInt(10);
          if (kind < 6) {
            byte[] p = paths.get(random.nextInt(paths.size()));
            byte[] o = OWNERS[random.nextInt(OWNERS.length)];
            writes.add(new StateWrite.PutState(state(p, o)));
            model.put(p, o);
          } else if (kind < 9) {
            byte[] p = paths.get(random.nextInt(paths.size()));
            writes.add(new StateWrite.DeleteState(p));
            model.remove(p);
          } else {
            byte[] p = containers.get(random.nextInt(containers.size()));
            writes.add(new StateWrite.DeleteTree(p));
            model.subMap(p, true, KeyEncoding.descendantsEnd(p), false).clear();
          }
        }
        pending.add(store.write(APP, writes));
      }
      CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).join();
      checkAgainst(model, paths, "seed " + seed + ", step " + step);
    }
  }

  /**
   * A group deleting trees one after another in path order, as a removal's settles do, reads
   * the ranges below them ahead, more at a time the longer it goes on; states put between the
   * deletions, at paths read ahead or not, and other owners' ranges inside the trees, still
   * leave every read answering as the model and the ranges keeping their rules.
   */
  @ParameterizedTest
  @ValueSource(longs = {11, 12, 13})
  void treesDeletedInPathOrderReadTheirRangesAheadAndLeaveThemValid(long seed) throws Exception {
    Random random = new Random(seed);
    List<byte[]> containers = new ArrayList<>();
    List<byte[]> paths = new ArrayList<>();
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    List<StateWrite> filling = new ArrayList<>();
    for (int c = 0; c < 600; c++) {
      byte[] container = path("t", String.format("c%03d", c));
      containers.add(container);
      paths.add(container);
      // Most containers one owner's, as components' rows lie; some shared by two.
      byte[] o = OWNERS[(c / 7) % OWNERS.length];
      filling.add(new StateWrite.PutState(state(container, o)));
      model.put(container, o);
      for (int r = 0; r < 2; r++) {
        byte[] child = path("t", String.format("c%03d", c), "r" + r);
        byte[] co = random.nextInt(5) == 0 ? OWNERS[random.nextInt(OWNERS.length)] : o;
        paths.add(child);
        filling.add(new StateWrite.PutState(state(child, co)));
        model.put(child, co);
      }
    }
    store.write(APP, filling).join();
    checkAgainst(model, paths, "seed " + seed + ", filled");

    for (int round = 0; round < 3; round++) {
      List<StateWrite> writes = new ArrayList<>();
      for (byte[] container : containers) {
        int kind = random.nextInt(10);
        if (kind < 6) {
          writes.add(new StateWrite.DeleteTree(container));
          model.subMap(container, true, KeyEncoding.descendantsEnd(container), false).clear();
        } else if (kind < 9) {
          byte[] p = paths.get(random.nextInt(paths.size()));
          byte[] o = OWNERS[random.nextInt(OWNERS.length)];
          writes.add(new StateWrite.PutState(state(p, o)));
          model.put(p, o);
        }
      }
      store.write(APP, writes).join();
      checkAgainst(model, paths, "seed " + seed + ", round " + round);
    }
  }

  /**
   * Several batches committed as one group, each deleting trees in path order over its
   * own stretch of containers while others put and delete states (new owners inside ranges read
   * ahead, and past them), many seeds.
   */
  @ParameterizedTest
  @ValueSource(longs = {21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36})
  void groupsOfBatchesDeletingTreesInPathOrderKeepTheRanges(long seed) throws Exception {
    Random random = new Random(seed);
    List<byte[]> containers = new ArrayList<>();
    List<byte[]> paths = new ArrayList<>();
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    List<StateWrite> filling = new ArrayList<>();
    int n = 300;
    for (int c = 0; c < n; c++) {
      byte[] container = path("t", String.format("c%03d", c));
      containers.add(container);
      paths.add(container);
      byte[] o = OWNERS[(c / (1 + random.nextInt(9))) % OWNERS.length];
      if (random.nextInt(4) > 0) {
        filling.add(new StateWrite.PutState(state(container, o)));
        model.put(container, o);
      }
      for (int r = 0; r < 3; r++) {
        byte[] child = path("t", String.format("c%03d", c), "r" + r);
        paths.add(child);
        if (random.nextInt(5) > 0) {
          byte[] co = random.nextInt(4) == 0 ? OWNERS[random.nextInt(OWNERS.length)] : o;
          filling.add(new StateWrite.PutState(state(child, co)));
          model.put(child, co);
        }
      }
    }
    store.write(APP, filling).join();
    checkAgainst(model, paths, "seed " + seed + ", filled");
    for (int round = 0; round < 6; round++) {
      int batches = 1 + random.nextInt(4);
      List<List<StateWrite>> lists = new ArrayList<>();
      for (int b = 0; b < batches; b++) {
        List<StateWrite> writes = new ArrayList<>();
        int from = random.nextInt(n);
        int to = Math.min(n, from + random.nextInt(n / 2));
        for (int c = from; c < to; c++) {
          int kind = random.nextInt(12);
          if (kind < 5) {
            writes.add(new StateWrite.DeleteTree(containers.get(c)));
            model.subMap(containers.get(c), true,
                KeyEncoding.descendantsEnd(containers.get(c)), false).clear();
          } else if (kind < 8) {
            byte[] p = paths.get(random.nextInt(paths.size()));
            byte[] o = OWNERS[random.nextInt(OWNERS.length)];
            writes.add(new StateWrite.PutState(state(p, o)));
            model.put(p, o);
          } else if (kind < 10) {
            byte[] p = paths.get(random.nextInt(paths.size()));
            writes.add(new StateWrite.DeleteState(p));
            model.remove(p);
          }
        }
        lists.add(writes);
      }
      List<CompletableFuture<Void>> pending = new ArrayList<>();
      for (List<StateWrite> w : lists) {
        pending.add(store.write(APP, w));
      }
      CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).join();
      checkAgainst(model, paths, "seed " + seed + ", round " + round);
    }
  }

  private void checkAgainst(TreeMap<byte[], byte[]> model, List<byte[]> paths, String when)
      throws Exception {
    HexFormat hex = HexFormat.of();
    List<String> expected = new ArrayList<>();
    model.forEach((p, o) -> expected.add(hex.formatHex(p) + "@" + hex.formatHex(o)));
    List<String> scanned = new ArrayList<>();
    store.scan(APP, new byte[0],
        s -> scanned.add(hex.formatHex(s.path()) + "@" + hex.formatHex(s.owner())));
    assertThat(scanned).as("scan, " + when).containsExactlyElementsOf(expected);
    List<String> got = new ArrayList<>();
    for (TrackedState s : store.getAll(APP, paths)) {
      got.add(hex.formatHex(s.path()) + "@" + hex.formatHex(s.owner()));
    }
    assertThat(got).as("getAll, " + when).containsExactlyInAnyOrderElementsOf(expected);
    for (byte[] o : OWNERS) {
      List<String> owned = new ArrayList<>();
      model.forEach((p, of) -> {
        if (Arrays.equals(of, o)) {
          owned.add(hex.formatHex(p));
        }
      });
      assertThat(store.ownedBy(APP, o)).as("ownedBy, " + when)
          .extracting(s -> hex.formatHex(s.path())).containsExactlyElementsOf(owned);
    }

    List<byte[][]> ranges = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT lo, hi, owner FROM owner_range ORDER BY lo")) {
      while (rs.next()) {
        ranges.add(new byte[][] {rs.getBytes(1), rs.getBytes(2), rs.getBytes(3)});
      }
    }
    assertThat(ranges.size()).as("no more ranges than states, " + when)
        .isLessThanOrEqualTo(model.size());
    byte[] previousHi = null;
    for (byte[][] r : ranges) {
      byte[] lo = r[0];
      byte[] hi = r[1];
      byte[] owner = r[2];
      if (previousHi != null) {
        assertThat(Arrays.compareUnsigned(previousHi, lo)).as("disjoint, " + when)
            .isLessThanOrEqualTo(0);
      }
      previousHi = hi;
      assertThat(model.get(lo)).as("a range starts at a path its owner holds, " + when)
          .isEqualTo(owner);
      byte[] last = Arrays.copyOf(hi, hi.length - 1);
      assertThat(hi[hi.length - 1]).isZero();
      assertThat(model.get(last)).as("a range ends after a path its owner holds, " + when)
          .isEqualTo(owner);
    }
    for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
      boolean covered = ranges.stream().anyMatch(r -> Arrays.compareUnsigned(r[0], e.getKey()) <= 0
          && Arrays.compareUnsigned(e.getKey(), r[1]) < 0 && Arrays.equals(r[2], e.getValue()));
      assertThat(covered).as("each state lies in a range of its owner, " + when).isTrue();
    }
  }
}
