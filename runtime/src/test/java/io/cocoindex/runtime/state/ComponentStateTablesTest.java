package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.StatePaths.path;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded store keeps each component's states together in chunks of {@code
 * component_states}, with {@code owner_range} naming the owner of each run of paths: these tests
 * read both tables as stored, beside what the store answers.
 */
class ComponentStateTablesTest {
  private static final String APP = "app";
  private static final byte[] A = path("component", "a");
  private static final byte[] B = path("component", "b");

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


  private static byte[] row(int i) {
    return path("table", String.format("row-%06d", i));
  }

  private static TrackedState state(byte[] path, byte[] owner, String record) {
    return new TrackedState(path, owner,
        List.of(new PossibleRecord(1, record.getBytes(StandardCharsets.UTF_8))), 0, 0, 0, 0);
  }

  private void put(TrackedState... states) {
    List<StateWrite> writes = new ArrayList<>();
    for (TrackedState s : states) {
      writes.add(new StateWrite.PutState(s));
    }
    store.write(APP, writes).join();
  }

  /** Puts rows 0 to {@code n - 1} for {@code owner}, each with the record "record i". */
  private void putRows(byte[] owner, int n) {
    TrackedState[] states = new TrackedState[n];
    for (int i = 0; i < n; i++) {
      states[i] = state(row(i), owner, "record " + i);
    }
    put(states);
  }

  /** The rows of {@code sql}, each as its columns joined by '|' (blobs in hex). */
  private List<String> query(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder line = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          Object v = rs.getObject(i);
          line.append(i > 1 ? "|" : "")
              .append(v instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(v));
        }
        out.add(line.toString());
      }
    }
    return out;
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static List<String> paths(List<TrackedState> states) {
    return states.stream().map(s -> hex(s.path())).toList();
  }

  @Test
  void aComponentsStatesAreOneRowAndEachRunOfPathsNamesItsOwner() throws Exception {
    put(state(row(2), A, "two"), state(row(1), A, "one"), state(row(3), B, "three"));

    assertThat(query("SELECT hex(owner), hex(first) FROM component_states ORDER BY owner"))
        .containsExactly(hex(A).toUpperCase() + "|", hex(B).toUpperCase() + "|");
    assertThat(OwnerRangeRows.of(dir))
        .containsExactly("row-000001..row-000002 a", "row-000003..row-000003 b");
    assertThat(paths(store.ownedBy(APP, A))).containsExactly(hex(row(1)), hex(row(2)));
    assertThat(store.get(APP, row(3)).orElseThrow().owner()).isEqualTo(B);
    assertThat(paths(store.getAll(APP, List.of(row(3), row(1), row(9)))))
        .containsExactlyInAnyOrder(hex(row(1)), hex(row(3)));
  }

  @Test
  void aComponentOutgrowingAChunkIsSplitAndOneChangeRewritesOneChunk() throws Exception {
    int n = 6_000; // about 190 KB of states: several chunks
    putRows(A, n);
    Map<String, String> before = chunks();
    assertThat(before).hasSizeGreaterThan(2);
    assertThat(before.keySet().iterator().next()).as("the first chunk starts at the empty path")
        .isEmpty();
    assertThat(before.values()).allSatisfy(
        v -> assertThat(v.length() / 2).isLessThanOrEqualTo(ComponentStateTables.CHUNK_BYTES));

    put(state(row(4_321), A, "changed"));

    Map<String, String> after = chunks();
    assertThat(after.keySet()).isEqualTo(before.keySet());
    long rewritten = after.keySet().stream()
        .filter(k -> !after.get(k).equals(before.get(k))).count();
    assertThat(rewritten).isEqualTo(1);
    List<TrackedState> owned = store.ownedBy(APP, A);
    assertThat(owned).hasSize(n);
    assertThat(paths(owned)).isSorted();
    assertThat(new String(owned.get(4_321).records().get(0).record(), StandardCharsets.UTF_8))
        .isEqualTo("changed");
  }

  @Test
  void emptiedChunksAreDeletedAndTheFirstStaysWhileOthersRemain() throws Exception {
    int n = 6_000;
    putRows(A, n);
    List<String> firsts = new ArrayList<>(chunks().keySet());
    // Empty the first chunk: it stays (empty), as it holds the paths below the others.
    byte[] secondFirst = HexFormat.of().parseHex(firsts.get(1));
    List<StateWrite> deletes = new ArrayList<>();
    for (TrackedState s : store.ownedBy(APP, A)) {
      if (java.util.Arrays.compareUnsigned(s.path(), secondFirst) < 0) {
        deletes.add(new StateWrite.DeleteState(s.path()));
      }
    }
    store.write(APP, deletes).join();
    assertThat(chunks().keySet()).containsExactlyElementsOf(firsts);
    assertThat(store.ownedBy(APP, A)).hasSize(n - deletes.size());
    assertThat(OwnerRangeRows.of(dir)).as("the range starts at the next chunk's first path")
        .containsExactly(OwnerRangeRows.lastKey(secondFirst) + "..row-005999 a");
    put(state(row(0), A, "back"));
    assertThat(store.get(APP, row(0)).orElseThrow().owner()).isEqualTo(A);
    assertThat(chunks().keySet()).containsExactlyElementsOf(firsts);
    assertThat(OwnerRangeRows.of(dir)).containsExactly("row-000000..row-005999 a");

    // Delete everything: no chunk is left, nor any owner range.
    List<StateWrite> all = new ArrayList<>();
    for (TrackedState s : store.ownedBy(APP, A)) {
      all.add(new StateWrite.DeleteState(s.path()));
    }
    store.write(APP, all).join();
    assertThat(query("SELECT count(*) FROM component_states")).containsExactly("0");
    assertThat(query("SELECT count(*) FROM owner_range")).containsExactly("0");
    assertThat(store.ownedBy(APP, A)).isEmpty();
    assertThat(store.hasStates(APP)).isFalse();
  }

  @Test
  void emptyingTheLastChunkEndsTheRangeAtTheLastPathOfTheChunkBefore() throws Exception {
    int n = 6_000;
    putRows(A, n);
    List<String> firsts = new ArrayList<>(chunks().keySet());
    byte[] lastFirst = HexFormat.of().parseHex(firsts.get(firsts.size() - 1));
    List<StateWrite> deletes = new ArrayList<>();
    String lastKept = null;
    for (TrackedState s : store.ownedBy(APP, A)) {
      if (java.util.Arrays.compareUnsigned(s.path(), lastFirst) >= 0) {
        deletes.add(new StateWrite.DeleteState(s.path()));
      } else {
        lastKept = OwnerRangeRows.lastKey(s.path());
      }
    }
    store.write(APP, deletes).join();

    assertThat(OwnerRangeRows.of(dir)).containsExactly("row-000000.." + lastKept + " a");
    assertThat(store.ownedBy(APP, A)).hasSize(n - deletes.size());
  }

  private static byte[] component(int i) {
    return path("component", String.format("c-%03d", i));
  }

  /** Owner (hex) to its states' paths (hex), as {@code ownedByFrom} answered. */
  private Map<String, List<String>> ownedFrom(byte[] owner, int maxChunks) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    store.ownedByFrom(APP, owner, null, maxChunks)
        .forEach((k, v) -> out.put(hex(k.bytes()), paths(v.get())));
    return out;
  }

  @Test
  void aReadAheadReturnsTheNextOwnersInPathOrderEachComplete() {
    for (int c = 0; c < 5; c++) { // components 0, 2, 4, 6, 8
      put(state(row(2 * c), component(2 * c), "x"), state(row(2 * c + 1), component(2 * c), "y"));
    }

    assertThat(ownedFrom(component(2), 3)).as("three chunks: the owners 2, 4, 6")
        .containsExactly(
            Map.entry(hex(component(2)), List.of(hex(row(2)), hex(row(3)))),
            Map.entry(hex(component(4)), List.of(hex(row(4)), hex(row(5)))),
            Map.entry(hex(component(6)), List.of(hex(row(6)), hex(row(7)))));
    assertThat(store.ownedByFrom(APP, component(2), component(6), 5).keySet())
        .as("before the bound only").extracting(k -> hex(k.bytes()))
        .containsExactly(hex(component(2)), hex(component(4)));
    assertThat(ownedFrom(component(8), 3)).as("the last owner, and nothing after it")
        .containsOnlyKeys(hex(component(8)));
    assertThat(ownedFrom(component(3), 2))
        .as("an owner without states comes first, empty, and the next two follow")
        .containsExactly(Map.entry(hex(component(3)), List.of()),
            Map.entry(hex(component(4)), List.of(hex(row(4)), hex(row(5)))),
            Map.entry(hex(component(6)), List.of(hex(row(6)), hex(row(7)))));
  }

  @Test
  void aReadAheadDecodesEachOwnersStatesWhenAskedSoACorruptChunkFailsOnlyItsOwner()
      throws Exception {
    for (int c = 0; c < 3; c++) {
      put(state(row(c), component(c), "x"));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db"));
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE component_states SET states=x'00' WHERE owner=x'"
          + hex(component(1)) + "'");
    }

    Map<ByteKey, OwnedStates> read = store.ownedByFrom(APP, component(0), null, 3);

    assertThat(read.keySet()).extracting(k -> hex(k.bytes()))
        .containsExactly(hex(component(0)), hex(component(1)), hex(component(2)));
    assertThat(paths(read.get(ByteKey.of(component(2))).get())).containsExactly(hex(row(2)));
    assertThatThrownBy(() -> read.get(ByteKey.of(component(1))).get())
        .isInstanceOf(StateStoreException.class)
        .hasMessageContaining("corrupt tracking of component states")
        .hasMessageEndingWith("in the tracking of component /\"component\"/\"c-001\"");
  }

  @Test
  void aReadAheadLeavesOutAnOwnerWhoseChunksGoPastTheLimitUnlessItWasAskedFor() {
    int n = 6_000; // several chunks
    putRows(B, n);
    put(state(path("other", "1"), A, "a"));

    Map<String, List<String>> fromA = ownedFrom(A, 2);
    assertThat(fromA.keySet()).as("B's chunks do not all fit after A's").containsExactly(hex(A));
    Map<String, List<String>> fromB = ownedFrom(B, 2);
    assertThat(fromB.keySet()).containsExactly(hex(B));
    assertThat(fromB.get(hex(B))).as("read whole").hasSize(n).isSorted();
  }

  /** first (hex) to states (hex) of owner A, in key order. */
  private Map<String, String> chunks() throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : query("SELECT first, states FROM component_states WHERE owner=x'"
        + hex(A) + "' ORDER BY first")) {
      String[] parts = line.split("\\|", -1);
      out.put(parts[0], parts[1]);
    }
    return out;
  }

  @Test
  void aDeletedTreeTakesEveryDescendantWhoeverOwnsIt() throws Exception {
    byte[] container = path("table");
    byte[] other = path("elsewhere", "x");
    put(state(container, B, "table"), state(row(1), A, "one"), state(row(2), B, "two"),
        state(other, A, "kept"));

    store.write(APP, List.of(new StateWrite.DeleteTree(container))).join();

    assertThat(OwnerRangeRows.of(dir)).containsExactly("x..x a");
    assertThat(paths(store.ownedBy(APP, A))).containsExactly(hex(other));
    assertThat(store.ownedBy(APP, B)).isEmpty();
    assertThat(query("SELECT count(*) FROM component_states")).containsExactly("1");
  }

  @Test
  void aDeletionBelowAStateTakesEveryDescendantWhoeverOwnsItAndKeepsTheState() throws Exception {
    byte[] container = path("table");
    byte[] other = path("elsewhere", "x");
    put(state(container, B, "table"), state(row(1), A, "one"), state(row(2), B, "two"),
        state(other, A, "kept"));

    store.write(APP, List.of(new StateWrite.DeleteBelow(container))).join();

    assertThat(OwnerRangeRows.of(dir)).containsExactly("x..x a", "table..table b");
    assertThat(paths(store.ownedBy(APP, A))).containsExactly(hex(other));
    assertThat(paths(store.ownedBy(APP, B))).containsExactly(hex(container));
    assertThat(query("SELECT count(*) FROM component_states")).containsExactly("2");
  }

  @Test
  void aComponentsFirstStatesPutAndDeletedInOneGroupLeaveNoChunk() throws Exception {
    byte[] container = path("table");
    put(state(container, A, "table"));

    // One group: B's first state, below the container, then the container's deletion with
    // everything below it (as a settle of its removal that drops its descendants does).
    store.write(APP, List.of(new StateWrite.PutState(state(row(1), B, "one")),
        new StateWrite.DeleteTree(container))).join();
    // One group: the first state of another component, then its deletion.
    store.write(APP, List.of(new StateWrite.PutState(state(row(2), component(1), "two")),
        new StateWrite.DeleteState(row(2)))).join();

    assertThat(query("SELECT count(*) FROM component_states"))
        .as("no chunk, not even an empty one").containsExactly("0");
    assertThat(query("SELECT count(*) FROM owner_range")).containsExactly("0");
    assertThat(ownedFrom(A, 8)).as("no owner after A owns anything")
        .containsExactly(Map.entry(hex(A), List.of()));
    assertThat(store.hasStates(APP)).isFalse();
  }

  @Test
  void aScanVisitsStatesInPathOrderAcrossOwners() {
    put(state(row(3), A, "c"), state(row(1), B, "a"), state(row(2), A, "b"),
        state(path("other"), B, "o"));
    List<String> seen = new ArrayList<>();
    store.scan(APP, path("table"), s -> seen.add(hex(s.path()) + "@" + hex(s.owner())));
    assertThat(seen).containsExactly(
        hex(row(1)) + "@" + hex(B), hex(row(2)) + "@" + hex(A), hex(row(3)) + "@" + hex(A));
  }

  @Test
  void aPrecommitOfAPathTheRunSawUntrackedFailsWhenItIsTrackedAndLosesNothing()
      throws Exception {
    put(state(row(1), A, "owned by a"));
    StateWrite.Precommit blind = new StateWrite.Precommit(state(row(1), B, "ignored"),
        new PossibleRecord(2, "b".getBytes(StandardCharsets.UTF_8)), true, null);

    assertThatThrownBy(() -> store.write(APP, List.of(blind)).join())
        .isInstanceOf(CompletionException.class)
        .hasMessageContaining("a state the run saw untracked is already tracked");

    assertThat(store.get(APP, row(1)).orElseThrow().owner()).isEqualTo(A);
    assertThat(OwnerRangeRows.of(dir)).containsExactly("row-000001..row-000001 a");
    assertThat(store.ownedBy(APP, B)).isEmpty();

    StateWrite.Precommit blindOwner = new StateWrite.Precommit(state(row(1), A, "ignored"),
        new PossibleRecord(2, "a".getBytes(StandardCharsets.UTF_8)), true, null);
    assertThatThrownBy(() -> store.write(APP, List.of(blindOwner)).join())
        .as("the same owner, unaware it holds the path")
        .hasMessageContaining("a state the run saw untracked is already tracked");
    assertThat(new String(store.get(APP, row(1)).orElseThrow().records().get(0).record(),
        StandardCharsets.UTF_8)).isEqualTo("owned by a");
  }

  /** Each state's first record, as text. */
  private static List<String> records(List<TrackedState> states) {
    return states.stream()
        .map(s -> new String(s.records().get(0).record(), StandardCharsets.UTF_8)).toList();
  }

  /** Each state's newest record, as text. */
  private static List<String> newest(List<TrackedState> states) {
    return states.stream().map(s -> new String(
        s.records().get(s.records().size() - 1).record(), StandardCharsets.UTF_8)).toList();
  }

  /** A precommit of {@code record} at row {@code i} of A, which the run loaded as stored. */
  private static StateWrite.Precommit precommit(int i, long version, String record) {
    return new StateWrite.Precommit(state(row(i), A, "ignored"),
        new PossibleRecord(version, record.getBytes(StandardCharsets.UTF_8)), false,
        state(row(i), A, "record " + i));
  }

  @Test
  void aGroupReplacingSomeStatesOfAChunkRewritesItWithThoseReplaced() throws Exception {
    putRows(A, 5);
    Map<String, String> before = chunks();

    // Precommits resolved against the rows the run loaded: the chunk stays encoded, and is
    // written spliced.
    store.write(APP, List.of(precommit(3, 2, "three, first"), precommit(1, 2, "one again"),
        precommit(3, 3, "three again"))).join();

    List<TrackedState> owned = store.ownedBy(APP, A);
    assertThat(newest(owned)).containsExactly(
        "record 0", "one again", "record 2", "three again", "record 4");
    assertThat(owned.get(3).records()).extracting(PossibleRecord::version)
        .containsExactly(1L, 2L, 3L);
    assertThat(chunks().keySet()).isEqualTo(before.keySet());
    assertThat(OwnerRangeRows.of(dir)).containsExactly("row-000000..row-000004 a");
  }

  @Test
  void aReplacementThatOutgrowsItsChunkSplitsIt() throws Exception {
    putRows(A, 5);
    String large = "x".repeat(ComponentStateTables.CHUNK_BYTES + 4_000);

    store.write(APP, List.of(precommit(2, 2, large))).join();

    assertThat(chunks()).hasSizeGreaterThan(1);
    assertThat(newest(store.ownedBy(APP, A))).containsExactly(
        "record 0", "record 1", large, "record 3", "record 4");
  }

  @Test
  void aGroupReplacingStatesAndChangingOthersInOneChunkKeepsEveryChange() throws Exception {
    putRows(A, 5);

    store.write(APP, List.of(new StateWrite.PutState(state(row(1), A, "one again")),
        new StateWrite.PutState(state(row(7), A, "seven")), // a new path: the chunk is decoded
        new StateWrite.PutState(state(row(3), A, "three again")),
        new StateWrite.DeleteState(row(4)))).join();

    assertThat(records(store.ownedBy(APP, A))).containsExactly(
        "record 0", "one again", "record 2", "three again", "seven");
  }

  @Test
  void aReplacedStateMissingFromItsChunkFailsTheGroupWhenTheChunkIsDecodedToo()
      throws Exception {
    putRows(A, 3);
    StateWrite.Precommit vanished = new StateWrite.Precommit(state(row(5), A, "ignored"),
        new PossibleRecord(2, "x".getBytes(StandardCharsets.UTF_8)), false,
        state(row(5), A, "never stored"));

    assertThatThrownBy(() -> store.write(APP, List.of(vanished,
            new StateWrite.PutState(state(row(9), A, "nine")))).join())
        .hasMessageContaining("a tracked row to update is missing from component_states");

    assertThat(records(store.ownedBy(APP, A)))
        .containsExactly("record 0", "record 1", "record 2");
  }

  @Test
  void aGroupWaitsForAnotherWriterOfTheFileRatherThanFailing() throws Exception {
    putRows(A, 3);
    try (Connection other = DriverManager.getConnection(
        "jdbc:sqlite:" + dir.resolve("state.db"))) {
      other.setAutoCommit(false);
      try (Statement s = other.createStatement()) {
        s.execute("INSERT INTO meta(key, value) VALUES('another writer', 'holds the lock')");
      }
      // The group reads row 1's chunk before it writes: it must wait for the lock, not fail.
      CompletableFuture<Void> write = store.write(APP,
          List.of(new StateWrite.PutState(state(row(1), A, "changed"))));
      Thread.sleep(300);
      assertThat(write).isNotDone();
      other.rollback();
      write.get(10, TimeUnit.SECONDS);
    }
    assertThat(records(store.ownedBy(APP, A))).containsExactly("record 0", "changed", "record 2");
  }

  @Test
  void aFailedBatchLeavesNothingPendingForTheNextOne() throws Exception {
    put(state(row(1), A, "one"));
    // Fails after its insert of row 2's owner is batched, before the batch goes out.
    StateWrite.Precommit vanished = new StateWrite.Precommit(state(row(3), A, "ignored"),
        new PossibleRecord(2, "x".getBytes(StandardCharsets.UTF_8)), false,
        state(row(3), A, "never stored"));
    assertThatThrownBy(() -> store.write(APP, List.of(
            new StateWrite.PutState(state(row(2), B, "two")), vanished)).join())
        .hasMessageContaining("a tracked row to update is missing from component_states");

    put(state(row(4), B, "four"));

    assertThat(OwnerRangeRows.of(dir))
        .containsExactly("row-000001..row-000001 a", "row-000004..row-000004 b");
    assertThat(paths(store.ownedBy(APP, B))).containsExactly(hex(row(4)));
  }

  @Test
  void clearForgetsTheAppsStatesAndNoOtherApps() throws Exception {
    put(state(row(1), A, "one"));
    store.write("other", List.of(new StateWrite.PutState(state(row(1), A, "theirs")))).join();

    store.clear(APP);

    assertThat(store.apps()).containsExactly("other");
    assertThat(query("SELECT app FROM owner_range")).containsExactly("other");
    assertThat(query("SELECT app FROM component_states")).containsExactly("other");
  }
}
