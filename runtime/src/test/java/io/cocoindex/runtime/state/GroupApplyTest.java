package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.StatePaths.path;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.ThrowawaySchema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A group commit on the shared store reads the rows its precommits and settles rewrite once for
 * the whole group; each batch must still resolve against what the batches before it in the
 * group wrote, exactly as if the batches had been committed one after another.
 */
class GroupApplyTest {
  private static final String APP = "app";
  private static final byte[] OWNER = path("component", "a");
  private static final byte[] X = path("t", "x");
  private static final byte[] C = path("t", "c");
  private static final byte[] CY = path("t", "c", "y");

  @RegisterExtension final ThrowawaySchema schema = new ThrowawaySchema("t_");
  private PostgresStateStore store;

  @BeforeEach
  void open() {
    store = schema.closeLast(PostgresStateStore.open(schema.url()));
  }

  @Test
  void eachBatchOfAGroupSeesWhatTheBatchesBeforeItWrote() throws Exception {
    // Before the group: container c, whose deletion run 5 precommitted, and its child c/y.
    store.write(APP, List.of(
        new StateWrite.PutState(state(C, new PossibleRecord(5, null))),
        new StateWrite.PutState(state(CY, new PossibleRecord(3, bytes("old")))))).join();

    PossibleRecord x7 = new PossibleRecord(7, bytes("x at 7"));
    PossibleRecord y7 = new PossibleRecord(7, bytes("y at 7"));
    StateWrite.Precommit precommitX = new StateWrite.Precommit(state(X), x7, false, null);
    List<GroupCommitter.Batch> group = new ArrayList<>();
    // 1: x is new; 2: its settle must find the precommit of batch 1 to keep only record 7.
    group.add(batch(precommitX));
    group.add(batch(new StateWrite.Settle(state(X), 7, false, precommitX)));
    // 3: the deletion of c settles and takes c/y with it; 4: c/y, precommitted afterwards, must
    // then start from "may not exist", not from the record that batch 3 deleted.
    group.add(batch(new StateWrite.Settle(state(C), 5, true, null)));
    group.add(batch(new StateWrite.Precommit(state(CY), y7, false, null)));
    store.commitGroup(group);

    assertThat(records(X)).containsExactly("7: x at 7");
    assertThat(store.get(APP, C)).isEmpty();
    assertThat(records(CY)).containsExactly("0: none", "7: y at 7");
  }

  /**
   * A deletion below container c (declared without children), in a group: the descendants go,
   * those stored and those a batch before it wrote, c stays; a batch after it precommitting a
   * descendant starts from "may not exist".
   */
  @Test
  void aDeletionBelowAStateTakesItsDescendantsAndKeepsIt() throws Exception {
    byte[] cz = path("t", "c", "z");
    byte[] cyw = path("t", "c", "y", "w");
    store.write(APP, List.of(
        new StateWrite.PutState(state(C, new PossibleRecord(3, bytes("c")))),
        new StateWrite.PutState(state(CY, new PossibleRecord(3, bytes("y")))),
        new StateWrite.PutState(state(cyw, new PossibleRecord(3, bytes("w")))),
        new StateWrite.PutState(state(X, new PossibleRecord(3, bytes("x")))))).join();

    PossibleRecord z7 = new PossibleRecord(7, bytes("z at 7"));
    PossibleRecord y7 = new PossibleRecord(7, bytes("y at 7"));
    List<GroupCommitter.Batch> group = new ArrayList<>();
    group.add(batch(new StateWrite.Precommit(state(cz), z7, true, null)));
    group.add(batch(new StateWrite.DeleteBelow(C)));
    group.add(batch(new StateWrite.Precommit(state(CY), y7, false, null)));
    store.commitGroup(group);

    assertThat(records(C)).containsExactly("3: c");
    assertThat(records(X)).containsExactly("3: x");
    assertThat(store.get(APP, cz)).isEmpty();
    assertThat(store.get(APP, cyw)).isEmpty();
    assertThat(records(CY)).containsExactly("0: none", "7: y at 7");
  }

  /**
   * A deletion below container c of the states of owner a only (the stale components an orphan
   * sweep holds), in a group: a's descendants go, those stored and those a batch before it wrote,
   * b's stay, c stays; a batch after it precommitting one of a's starts from "may not exist", one
   * precommitting one of b's keeps b's record beside its own.
   */
  @Test
  void aDeletionBelowAStateOfSomeOwnersTakesOnlyTheirDescendants() throws Exception {
    byte[] other = path("component", "b");
    byte[] cz = path("t", "c", "z");
    byte[] cyw = path("t", "c", "y", "w");
    byte[] cb = path("t", "c", "b");
    byte[] cbw = path("t", "c", "b", "w");
    store.write(APP, List.of(
        new StateWrite.PutState(state(C, new PossibleRecord(3, bytes("c")))),
        new StateWrite.PutState(state(CY, new PossibleRecord(3, bytes("y")))),
        new StateWrite.PutState(state(cyw, other, new PossibleRecord(3, bytes("w of b")))),
        new StateWrite.PutState(state(cb, other, new PossibleRecord(3, bytes("b")))),
        new StateWrite.PutState(state(cbw, new PossibleRecord(3, bytes("w of a")))),
        new StateWrite.PutState(state(X, new PossibleRecord(3, bytes("x")))))).join();

    PossibleRecord z7 = new PossibleRecord(7, bytes("z at 7"));
    PossibleRecord y7 = new PossibleRecord(7, bytes("y at 7"));
    PossibleRecord b7 = new PossibleRecord(7, bytes("b at 7"));
    List<GroupCommitter.Batch> group = new ArrayList<>();
    group.add(batch(new StateWrite.Precommit(state(cz), z7, true, null)));
    group.add(batch(new StateWrite.DeleteBelow(C, List.of(OWNER))));
    group.add(batch(new StateWrite.Precommit(state(CY), y7, false, null),
        new StateWrite.Precommit(state(cb, other), b7, false, null)));
    store.commitGroup(group);

    assertThat(records(C)).containsExactly("3: c");
    assertThat(records(X)).containsExactly("3: x");
    assertThat(store.get(APP, cz)).isEmpty();
    assertThat(store.get(APP, cbw)).as("a's, below b's").isEmpty();
    assertThat(records(CY)).containsExactly("0: none", "7: y at 7");
    assertThat(records(cyw)).as("b's, below a's").containsExactly("3: w of b");
    assertThat(records(cb)).containsExactly("3: b", "7: b at 7");
  }

  /** The possible records of {@code path}, as "version: record". */
  private List<String> records(byte[] path) {
    return store.get(APP, path).orElseThrow().records().stream()
        .map(r -> r.version() + ": " + (r.isNone() ? "none"
            : new String(r.record(), StandardCharsets.UTF_8)))
        .toList();
  }

  private static GroupCommitter.Batch batch(StateWrite... writes) {
    return new GroupCommitter.Batch(APP, List.of(writes), new CompletableFuture<>());
  }

  private static TrackedState state(byte[] path, PossibleRecord... records) {
    return state(path, OWNER, records);
  }

  private static TrackedState state(byte[] path, byte[] owner, PossibleRecord... records) {
    return new TrackedState(path, owner, List.of(records), 0, 0, 0, 0);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Two workers' components declaring one new state at once, each on its own view of the source:
   * each read it as new, so each precommits it fresh. The second precommit keeps the first's
   * record beside "may not exist" (the first's write may land last). Each settle drops only "may
   * not exist" (neither read a record to supersede): the two writes landed in an order neither
   * knows, so both records stay possible. The second precommit had dropped the first's record,
   * and then the second's settle did.
   */
  @Test
  void twoWorkersWritingOneStateAtOnceKeepEachOthersRecords() throws Exception {
    TrackedState byB = new TrackedState(X, path("component", "b"), List.of(), 0, 0, 0, 0);
    PossibleRecord a7 = new PossibleRecord(7, bytes("a at 7"));
    PossibleRecord b8 = new PossibleRecord(8, bytes("b at 8"));
    StateWrite.Precommit precommitA = new StateWrite.Precommit(state(X), a7, true, null);
    StateWrite.Precommit precommitB = new StateWrite.Precommit(byB, b8, true, null);
    store.write(APP, List.of(precommitA)).join();
    store.write(APP, List.of(precommitB)).join();
    assertThat(records(X)).containsExactly("0: none", "7: a at 7", "8: b at 8");

    store.write(APP, List.of(
        new StateWrite.Settle(state(X), 7, false, precommitA, new long[0]))).join();
    assertThat(records(X)).containsExactly("7: a at 7", "8: b at 8");
    store.write(APP, List.of(
        new StateWrite.Settle(byB, 8, false, precommitB, new long[0]))).join();
    assertThat(records(X)).containsExactly("7: a at 7", "8: b at 8");
  }

  /**
   * Two workers precommitting one new state in transactions at once: neither finds a row to lock,
   * and the second one's insert waits for the first's. It must then keep the first's record, as
   * a precommit that finds the row does: the first worker's write may land last. (Its upsert had
   * replaced the row the first transaction committed: the first worker's settle found its record
   * gone and wrote nothing, and the store named only the second's value whichever write landed
   * last. Most likely what {@code PostgresCrashTest} found once, every round mixed, seed 30 trial
   * 15: a new key that the round's two worlds put in two components.)
   */
  @Test
  void twoWorkersCreatingOneStateInTransactionsAtOnceKeepEachOthersRecords() throws Exception {
    TrackedState byB = new TrackedState(X, path("component", "b"), List.of(), 0, 0, 0, 0);
    StateWrite.Precommit precommitA =
        new StateWrite.Precommit(state(X), new PossibleRecord(7, bytes("a at 7")), true, null);
    StateWrite.Precommit precommitB =
        new StateWrite.Precommit(byB, new PossibleRecord(8, bytes("b at 8")), true, null);
    JdbcStateTables tablesOfA = new JdbcStateTables("cocoindex_", true, false);
    try (Connection a = DriverManager.getConnection(schema.url())) {
      int pidOfA;
      try (Statement s = a.createStatement();
          java.sql.ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pidOfA = rs.getInt(1);
      }
      a.setAutoCommit(false);
      tablesOfA.apply(a, List.of(batch(precommitA))); // inserted, not committed yet
      CompletableFuture<Void> b = store.write(APP, List.of(precommitB));
      awaitASessionBlockedBy(pidOfA);
      assertThat(b).isNotDone();
      a.commit();
      b.join();
    }
    assertThat(records(X)).containsExactly("0: none", "7: a at 7", "8: b at 8");
  }

  /** Waits until a session of the server waits for a lock that session {@code pid} holds. */
  private void awaitASessionBlockedBy(int pid) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    try (Connection c = DriverManager.getConnection(schema.url());
        java.sql.PreparedStatement blocked = c.prepareStatement(
            "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")) {
      blocked.setInt(1, pid);
      while (System.nanoTime() < deadline) {
        try (java.sql.ResultSet rs = blocked.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            return;
          }
        }
        Thread.sleep(5);
      }
    }
    throw new AssertionError("no session waited for session " + pid);
  }

  /**
   * On the shared store a settle drops the records it superseded (those it read of runs that
   * had ended before it wrote), wherever they are, and keeps every other: here run 7's, which
   * was going when run 8 read it, and whose write may land after run 8's.
   */
  @Test
  void aSettleDropsOnlyTheRecordsItSuperseded() throws Exception {
    PossibleRecord a3 = new PossibleRecord(3, bytes("a at 3"));
    store.write(APP, List.of(new StateWrite.PutState(state(X, a3)))).join();
    TrackedState read3 = state(X, a3);
    StateWrite.Precommit precommit7 = new StateWrite.Precommit(
        state(X), new PossibleRecord(7, bytes("x at 7")), false, read3);
    store.write(APP, List.of(precommit7)).join();
    TrackedState read37 = store.get(APP, X).orElseThrow();
    StateWrite.Precommit precommit8 = new StateWrite.Precommit(
        state(X), new PossibleRecord(8, bytes("x at 8")), false, read37);
    store.write(APP, List.of(precommit8)).join();
    assertThat(records(X)).containsExactly("3: a at 3", "7: x at 7", "8: x at 8");

    store.write(APP, List.of(
        new StateWrite.Settle(state(X), 8, false, precommit8, new long[] {3}))).join();
    assertThat(records(X)).containsExactly("7: x at 7", "8: x at 8");
    store.write(APP, List.of(
        new StateWrite.Settle(state(X), 7, false, precommit7, new long[] {3}))).join();
    assertThat(records(X)).containsExactly("7: x at 7", "8: x at 8");

    // A deletion that supersedes every other record deletes the row, descendants included.
    store.write(APP, List.of(new StateWrite.PutState(state(CY, a3)))).join();
    StateWrite.Precommit delete9 = new StateWrite.Precommit(
        state(C), new PossibleRecord(9, null), false, null);
    store.write(APP, List.of(new StateWrite.PutState(state(C, a3)), delete9)).join();
    store.write(APP, List.of(
        new StateWrite.Settle(state(C), 9, true, delete9, new long[] {3}))).join();
    assertThat(store.get(APP, C)).isEmpty();
    assertThat(store.get(APP, CY)).isEmpty();
  }

  /**
   * On the shared store a precommit never leaves its record alone: where only a record of the
   * value it precommits again was there, "may not exist" stays beside it (a run that dies before
   * its settle has the next one write the state again). A state with one possible record is then
   * one whose write has landed, which another worker's write replaces even while that worker's
   * run is going. A settle drops a record of the same value as its own: the same form.
   */
  @Test
  void aPrecommitOfTheSameValueIsNeverAlone() throws Exception {
    PossibleRecord a3 = new PossibleRecord(3, bytes("a"));
    store.write(APP, List.of(new StateWrite.PutState(state(X, a3)))).join();
    StateWrite.Precommit again7 = new StateWrite.Precommit(
        state(X), new PossibleRecord(7, bytes("a")), false, state(X, a3));
    store.write(APP, List.of(again7)).join();
    assertThat(records(X)).containsExactly("0: none", "7: a");
    StateWrite.Precommit again8 = new StateWrite.Precommit(
        state(X), new PossibleRecord(8, bytes("b")), false, state(X, a3));
    store.write(APP, List.of(again8)).join();
    StateWrite.Precommit again9 = new StateWrite.Precommit(
        state(X), new PossibleRecord(9, bytes("a")), false, state(X, a3));
    store.write(APP, List.of(again9)).join();
    assertThat(records(X)).containsExactly("0: none", "8: b", "9: a");

    store.write(APP, List.of(
        new StateWrite.Settle(state(X), 7, false, again7, new long[] {3}))).join();
    assertThat(records(X)).isEqualTo(List.of("0: none", "8: b", "9: a")); // 7 was replaced
    store.write(APP, List.of(
        new StateWrite.Settle(state(X), 9, false, again9, new long[] {3}))).join();
    assertThat(records(X)).containsExactly("8: b", "9: a");
    store.write(APP, List.of(new StateWrite.PutState(state(X,
        new PossibleRecord(8, bytes("b")), new PossibleRecord(9, bytes("a")),
        new PossibleRecord(10, bytes("a")))))).join();
    store.write(APP, List.of(
        new StateWrite.Settle(state(X), 10, false, again9, new long[] {8}))).join();
    assertThat(records(X)).containsExactly("10: a");
  }

  /**
   * A confirmation (the owner move of a state left as it was) keeps the records the row has when
   * written: another worker's component declaring the state too may have written one since the
   * engine read the row. A state deleted meanwhile stays deleted.
   */
  @Test
  void aConfirmationKeepsTheRecordsWrittenSinceTheEngineReadTheRow() throws Exception {
    PossibleRecord a3 = new PossibleRecord(3, bytes("a at 3"));
    TrackedState read = state(X, a3);
    store.write(APP, List.of(new StateWrite.PutState(read))).join();
    // Since the read, another worker wrote x and settled its record 9.
    store.write(APP, List.of(new StateWrite.PutState(
        state(X, new PossibleRecord(9, bytes("x at 9")))))).join();
    byte[] b = path("component", "b");
    TrackedState confirmed = new TrackedState(X, b, List.of(a3), 0, 0, 0, 0);
    store.write(APP, List.of(new StateWrite.Confirm(confirmed, read))).join();
    assertThat(records(X)).containsExactly("9: x at 9");
    assertThat(store.get(APP, X).orElseThrow().owner()).isEqualTo(b);

    store.write(APP, List.of(new StateWrite.DeleteState(X))).join();
    store.write(APP, List.of(new StateWrite.Confirm(confirmed, read))).join();
    assertThat(store.get(APP, X)).isEmpty();
  }
}
