package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.StatePaths.path;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write protocol of the embedded store, written the way the engine writes it: a precommit
 * adds this run's record beside the earlier ones, a settle keeps only it, and a rewrite that
 * keeps the owner changes the row in place.
 */
class SqliteStateStoreTest {
  private static final String APP = "app";
  private static final byte[] COMPONENT_A = path("component", "a");
  private static final byte[] COMPONENT_B = path("component", "b");
  private static final byte[] ROW = path("table", "row-1");

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


  private static TrackedState target(byte[] owner) {
    return new TrackedState(ROW, owner, List.of(), 0, 0, 0, 0);
  }

  private static byte[] record(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Precommits {@code record} for {@link #ROW} on behalf of {@code owner}, as the engine would. */
  private StateWrite.Precommit precommit(byte[] owner, long version, String record,
      TrackedState loaded) {
    StateWrite.Precommit p = new StateWrite.Precommit(target(owner),
        new PossibleRecord(version, record(record)), loaded == null, loaded);
    store.write(APP, List.of(p)).join();
    return p;
  }

  private void settle(byte[] owner, long version, StateWrite.Precommit p) {
    store.write(APP, List.of(new StateWrite.Settle(target(owner), version, true, p))).join();
  }

  private TrackedState row() {
    return store.get(APP, ROW).orElseThrow();
  }

  @Test
  void aSettleKeepsOnlyTheAppliedRecordAndTheOwner() {
    StateWrite.Precommit p = precommit(COMPONENT_A, 1, "first", null);
    assertThat(row().records()).extracting(PossibleRecord::version).containsExactly(0L, 1L);

    settle(COMPONENT_A, 1, p);

    TrackedState settled = row();
    assertThat(settled.owner()).isEqualTo(COMPONENT_A);
    assertThat(settled.records()).hasSize(1);
    assertThat(settled.records().get(0).version()).isEqualTo(1);
    assertThat(settled.records().get(0).record()).isEqualTo(record("first"));
    assertThat(store.ownedBy(APP, COMPONENT_A)).extracting(TrackedState::path).containsExactly(ROW);
  }

  @Test
  void aComponentsStatesReadBackFieldForFieldAsTheirPathReadsThem() {
    TrackedState written = new TrackedState(ROW, COMPONENT_A,
        List.of(new PossibleRecord(3, record("a")), new PossibleRecord(4, null)), 5, 6, 7, 8);
    store.write(APP, List.of(new StateWrite.PutState(written))).join();

    TrackedState owned = store.ownedBy(APP, COMPONENT_A).get(0);
    for (TrackedState read : List.of(owned, row())) {
      assertThat(read.path()).isEqualTo(ROW);
      assertThat(read.owner()).isEqualTo(COMPONENT_A);
      assertThat(read.records()).extracting(PossibleRecord::version).containsExactly(3L, 4L);
      assertThat(read.records().get(0).record()).isEqualTo(record("a"));
      assertThat(read.records().get(1).isNone()).isTrue();
      assertThat(List.of(read.childGeneration(), read.childEpoch(), read.parentGeneration(),
          read.parentEpoch())).containsExactly(5L, 6L, 7L, 8L);
    }
  }

  @Test
  void aPrecommitByTheSameOwnerKeepsTheEarlierRecordBesideTheNewOne() {
    settle(COMPONENT_A, 1, precommit(COMPONENT_A, 1, "first", null));
    TrackedState loaded = row();

    StateWrite.Precommit p = precommit(COMPONENT_A, 2, "second", loaded);

    assertThat(row().records()).extracting(PossibleRecord::version).containsExactly(1L, 2L);
    settle(COMPONENT_A, 2, p);
    assertThat(row().records()).extracting(PossibleRecord::version).containsExactly(2L);
    assertThat(store.ownedBy(APP, COMPONENT_A)).hasSize(1);
  }

  @Test
  void aPrecommitByAnotherComponentMovesTheOwner() {
    settle(COMPONENT_A, 1, precommit(COMPONENT_A, 1, "first", null));
    TrackedState loaded = row();

    settle(COMPONENT_B, 2, precommit(COMPONENT_B, 2, "moved", loaded));

    assertThat(row().owner()).isEqualTo(COMPONENT_B);
    assertThat(store.ownedBy(APP, COMPONENT_A)).isEmpty();
    assertThat(store.ownedBy(APP, COMPONENT_B)).extracting(TrackedState::path)
        .containsExactly(ROW);
  }

  @Test
  void aSettleWhoseRowVanishedFailsTheWholeBatchAndLosesNothing() {
    byte[] other = path("table", "row-2");
    StateWrite.Precommit p = precommit(COMPONENT_A, 1, "first", null);
    // Someone outside the engine removed the row between the precommit and the settle.
    store.write(APP, List.of(new StateWrite.DeleteState(ROW))).join();
    TrackedState untouched = new TrackedState(other, COMPONENT_A,
        List.of(new PossibleRecord(1, record("kept"))), 0, 0, 0, 0);

    assertThatThrownBy(() -> store.write(APP, List.of(
            new StateWrite.PutState(untouched),
            new StateWrite.Settle(target(COMPONENT_A), 1, true, p))).join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(StateStoreException.class)
        .hasMessageContaining("a tracked row to update is missing from component_states");
    assertThat(store.get(APP, ROW)).isEmpty();
    assertThat(store.get(APP, other)).isEmpty();
  }

  /** The states every older store below holds, with lineages 1, 2, 3 (and +10, +20, +30). */
  private static List<TrackedState> statesOfAnOlderStore() {
    return List.of(
        oldState(ROW, COMPONENT_A, List.of(new PossibleRecord(2, record("settled"))), 1),
        oldState(path("table", "row-2"), COMPONENT_A,
            List.of(new PossibleRecord(1, record("old")), new PossibleRecord(2, null)), 2),
        oldState(path("table", "row-3"), COMPONENT_B,
            List.of(new PossibleRecord(2, record("b"))), 3));
  }

  private static TrackedState oldState(byte[] path, byte[] owner, List<PossibleRecord> records,
      long lineage) {
    return new TrackedState(path, owner, records, lineage, lineage + 10, lineage + 20,
        lineage + 30);
  }

  /**
   * Writes a store as an older schema left it: 1 and 2 keep a row per state in {@code
   * target_state}, indexed by owner (2 added {@code settled_run}); 3 keeps each component's
   * states in one {@code component_states} row of a {@code WITHOUT ROWID} table, with a row per
   * path in {@code state_owner}; 4 keeps the chunks in a rowid table behind a unique index.
   */
  private void writeStoreOfSchema(int version) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            "jdbc:sqlite:" + dir.resolve("state.db"));
        java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      s.execute("INSERT INTO meta VALUES('schema_version', '" + version + "')");
      s.execute("CREATE TABLE app(name TEXT PRIMARY KEY, next_version INTEGER NOT NULL)");
      s.execute("INSERT INTO app VALUES('" + APP + "', 3)");
      s.execute("CREATE TABLE component(app TEXT NOT NULL, path BLOB NOT NULL, memo_fp BLOB,"
          + " memo_deps BLOB, memo_values BLOB, state_count INTEGER NOT NULL,"
          + " PRIMARY KEY(app, path)) WITHOUT ROWID");
      if (version >= 2) {
        s.execute("CREATE TABLE settled_run(app TEXT NOT NULL, first INTEGER NOT NULL,"
            + " last INTEGER NOT NULL, PRIMARY KEY(app, first)) WITHOUT ROWID");
      }
      if (version < 3) {
        writeRowPerState(c, s);
      } else {
        writeChunksAndOwnersByPath(c, s, version);
      }
    }
  }

  private static void writeRowPerState(java.sql.Connection c, java.sql.Statement s)
      throws Exception {
    s.execute("CREATE TABLE target_state(app TEXT NOT NULL, path BLOB NOT NULL,"
        + " owner BLOB NOT NULL, records BLOB NOT NULL, child_gen INTEGER NOT NULL,"
        + " child_epoch INTEGER NOT NULL, parent_gen INTEGER NOT NULL,"
        + " parent_epoch INTEGER NOT NULL, PRIMARY KEY(app, path)) WITHOUT ROWID");
    s.execute("CREATE INDEX target_state_owner ON target_state(app, owner)");
    try (java.sql.PreparedStatement ps = c.prepareStatement(
        "INSERT INTO target_state VALUES(?,?,?,?,?,?,?,?)")) {
      for (TrackedState t : statesOfAnOlderStore()) {
        ps.setString(1, APP);
        ps.setBytes(2, t.path());
        ps.setBytes(3, t.owner());
        ps.setBytes(4, RecordListEncoding.encode(t.records()));
        ps.setLong(5, t.childGeneration());
        ps.setLong(6, t.childEpoch());
        ps.setLong(7, t.parentGeneration());
        ps.setLong(8, t.parentEpoch());
        ps.executeUpdate();
      }
    }
  }

  private static void writeChunksAndOwnersByPath(java.sql.Connection c, java.sql.Statement s,
      int version) throws Exception {
    s.execute("CREATE TABLE state_owner(app TEXT NOT NULL, path BLOB NOT NULL,"
        + " owner BLOB NOT NULL, PRIMARY KEY(app, path)) WITHOUT ROWID");
    if (version == 3) {
      s.execute("CREATE TABLE component_states(app TEXT NOT NULL, owner BLOB NOT NULL,"
          + " first BLOB NOT NULL, states BLOB NOT NULL, PRIMARY KEY(app, owner, first))"
          + " WITHOUT ROWID");
    } else {
      s.execute("CREATE TABLE component_states(app TEXT NOT NULL, owner BLOB NOT NULL,"
          + " first BLOB NOT NULL, states BLOB NOT NULL)");
      s.execute("CREATE UNIQUE INDEX component_states_key ON component_states(app, owner,"
          + " first)");
    }
    List<TrackedState> all = statesOfAnOlderStore();
    try (java.sql.PreparedStatement owners =
            c.prepareStatement("INSERT INTO state_owner VALUES(?,?,?)");
        java.sql.PreparedStatement chunks =
            c.prepareStatement("INSERT INTO component_states VALUES(?,?,?,?)")) {
      for (TrackedState t : all) {
        owners.setString(1, APP);
        owners.setBytes(2, t.path());
        owners.setBytes(3, t.owner());
        owners.executeUpdate();
      }
      for (byte[] owner : List.of(COMPONENT_A, COMPONENT_B)) {
        chunks.setString(1, APP);
        chunks.setBytes(2, owner);
        chunks.setBytes(3, new byte[0]);
        chunks.setBytes(4, ComponentStates.encode(
            all.stream().filter(t -> java.util.Arrays.equals(t.owner(), owner)).toList()));
        chunks.executeUpdate();
      }
    }
  }

  private String sqlOf(String table) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            "jdbc:sqlite:" + dir.resolve("state.db"));
        java.sql.PreparedStatement ps =
            c.prepareStatement("SELECT sql FROM sqlite_master WHERE name=?")) {
      ps.setString(1, table);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private List<String> tables() throws Exception {
    List<String> out = new java.util.ArrayList<>();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            "jdbc:sqlite:" + dir.resolve("state.db"));
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'index')"
                + " AND name NOT LIKE 'sqlite_%' ORDER BY name");
        java.sql.Statement v = c.createStatement();
        java.sql.ResultSet version = v.executeQuery(
            "SELECT value FROM meta WHERE key='schema_version'")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      out.add("version " + (version.next() ? version.getString(1) : "none"));
    }
    return out;
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2, 3, 4})
  void aStoreOfAnOlderSchemaIsUpgradedInPlaceKeepingEveryStateFieldForField(int version)
      throws Exception {
    store.close();
    java.nio.file.Files.delete(dir.resolve("state.db"));
    java.nio.file.Files.deleteIfExists(dir.resolve("state.db-wal"));
    java.nio.file.Files.deleteIfExists(dir.resolve("state.db-shm"));
    writeStoreOfSchema(version);

    store = SqliteStateStore.open(dir, SqliteStateStore.Durability.NORMAL);

    assertThat(tables()).containsExactly("app", "component", "component_states",
        "component_states_key", "meta", "owner_range", "settled_run", "version 5");
    assertThat(sqlOf("component_states")).doesNotContain("WITHOUT ROWID");
    assertThat(OwnerRangeRows.of(dir)).as("each owner's run of paths is one range")
        .containsExactly("row-1..row-2 a", "row-3..row-3 b");
    TrackedState settled = row();
    assertThat(settled.owner()).isEqualTo(COMPONENT_A);
    assertThat(settled.records()).extracting(PossibleRecord::version).containsExactly(2L);
    assertThat(settled.records().get(0).record()).isEqualTo(record("settled"));
    assertThat(List.of(settled.childGeneration(), settled.childEpoch(),
        settled.parentGeneration(), settled.parentEpoch())).containsExactly(1L, 11L, 21L, 31L);
    List<TrackedState> ofA = store.ownedBy(APP, COMPONENT_A);
    java.util.HexFormat hex = java.util.HexFormat.of();
    assertThat(ofA).extracting(t -> hex.formatHex(t.path()))
        .containsExactly(hex.formatHex(ROW), hex.formatHex(path("table", "row-2")));
    assertThat(ofA.get(1).records()).extracting(PossibleRecord::version).containsExactly(1L, 2L);
    assertThat(ofA.get(1).records().get(1).isNone()).isTrue();
    assertThat(store.ownedBy(APP, COMPONENT_B)).hasSize(1);
    assertThat(store.nextVersion(APP)).isEqualTo(3);
    // The upgraded store goes on as any other.
    settle(COMPONENT_B, 3, precommit(COMPONENT_B, 3, "moved", settled));
    assertThat(row().owner()).isEqualTo(COMPONENT_B);
    assertThat(store.ownedBy(APP, COMPONENT_A)).hasSize(1);
    assertThat(OwnerRangeRows.of(dir)).containsExactly("row-1..row-1 b", "row-2..row-2 a",
        "row-3..row-3 b");
  }


  @Test
  void aSettledRunSettlesTheStatesWhoseNewestRecordItWrote() {
    precommit(COMPONENT_A, 1, "first", null);
    assertThat(row().records()).hasSize(2);

    store.runSettled(APP, 1);

    assertThat(row().records()).extracting(PossibleRecord::version).containsExactly(1L);
    store.close();
    store = SqliteStateStore.open(dir, SqliteStateStore.Durability.NORMAL);
    assertThat(row().records()).extracting(PossibleRecord::version).containsExactly(1L);
  }

  @Test
  void aRunVersionIsStoredWithTheRunsFirstWriteSoARunThatWritesNothingLeavesItFree() {
    long first = store.nextVersion(APP);
    assertThat(store.nextVersion(APP)).as("nothing was written with it").isEqualTo(first);
    store.close();
    store = SqliteStateStore.open(dir, SqliteStateStore.Durability.NORMAL);
    assertThat(store.nextVersion(APP)).as("nor stored").isEqualTo(first);

    precommit(COMPONENT_A, first, "first", null);

    assertThat(store.nextVersion(APP)).isEqualTo(first + 1);
    store.close();
    store = SqliteStateStore.open(dir, SqliteStateStore.Durability.NORMAL);
    assertThat(store.nextVersion(APP)).as("stored in the write's transaction").isEqualTo(first + 1);
  }

  @Test
  void aRunThatWroteNothingIsNotRecordedAsSettled() throws Exception {
    long version = store.nextVersion(APP);
    store.runSettled(APP, version);
    assertThat(settledRunRows()).isEmpty();

    long next = store.nextVersion(APP);
    precommit(COMPONENT_A, next, "first", null);
    store.runSettled(APP, next);
    assertThat(settledRunRows()).containsExactly(next + ".." + next);
    assertThat(row().records()).extracting(PossibleRecord::version).containsExactly(next);
  }

  private List<String> settledRunRows() throws Exception {
    List<String> out = new java.util.ArrayList<>();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            "jdbc:sqlite:" + dir.resolve("state.db"));
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SELECT first, last FROM settled_run")) {
      while (rs.next()) {
        out.add(rs.getLong(1) + ".." + rs.getLong(2));
      }
    }
    return out;
  }
}
