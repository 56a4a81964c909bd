package io.cocoindex.runtime.state;

import io.cocoindex.runtime.codec.KeyEncoding;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The embedded store's layout of target states: the states one component owns are kept
 * together, in path order, in chunks of {@code component_states(app, owner, first, states)}
 * ({@link ComponentStates}), and {@code owner_range} says which component owns each path, by
 * ranges of paths ({@link OwnerRanges}), for the reads by path (a state another component takes
 * over, a container's descendants, an inspection in path order).
 *
 * <p>Why: the engine reads each component's states on every run and rewrites those that
 * change. With a row per state indexed by owner, a cold run of 100k states wrote two B-tree
 * entries of about 100 bytes per state, and a warm run read every state through the owner index,
 * half of its CPU. Now a warm run reads one row per component, and a cold run writes a few KB per
 * component (BENCHMARKS.md, fourteenth and sixteenth sessions).
 *
 * <p>A chunk holds the paths from its {@code first} up to the next chunk's; an owner's first
 * chunk starts at the empty path and stays while the owner has others. A chunk grown past {@link
 * #CHUNK_BYTES} is split and an emptied one deleted, so a change to one state of a component
 * that owns a million rewrites tens of KB, not the million.
 *
 * <p>Only for a store that is its app's only writer while locked: precommits and settles resolve
 * against the rows the engine loaded. A path the engine saw untracked is checked against the
 * chunks of the owner its range names, so that a tracking it did not see fails the commit rather
 * than leaving the state with two owners.
 */
final class ComponentStateTables extends JdbcStateTables {
  /** Schema versions 3 and 4 kept a row per path here; version 5 keeps {@link OwnerRanges}. */
  private static final String OWNERS_BY_PATH = "state_owner";
  static final String CHUNKS = "component_states";
  private static final String CHUNKS_KEY = "component_states_key";
  private static final String CHUNKS_OF_SCHEMA_3 = "component_states_of_schema_3";
  /** Room for a new chunk's states at first: a component of rows declares about a hundred. */
  private static final int NEW_CHUNK_CAPACITY = 128;
  /** The encoded size past which a chunk is split in parts of about half of it. */
  static final int CHUNK_BYTES = 64 * 1024;
  private static final byte[] NO_PATH = new byte[0];
  private static final String MISSING_TRACKED_ROW = "a tracked row to update is missing from "
      + CHUNKS + " (was the state store changed by another process?)";
  /** Stands for "no owner stored" among the owners a group saw (compared by identity). */
  private static final byte[] NO_OWNER = new byte[0];

  private static final String OWNED_BY =
      "SELECT states FROM " + CHUNKS + " WHERE app=? AND owner=? ORDER BY first";
  /** Chunks of the owners from one on (before another), in path order: {@link #ownedByFrom}. */
  private static final String OWNED_FROM = "SELECT owner, states FROM " + CHUNKS
      + " WHERE app=? AND owner>=? ORDER BY owner, first LIMIT ?";
  private static final String OWNED_FROM_BEFORE = "SELECT owner, states FROM " + CHUNKS
      + " WHERE app=? AND owner>=? AND owner<? ORDER BY owner, first LIMIT ?";
  private static final String CHUNK_FIRSTS =
      "SELECT first FROM " + CHUNKS + " WHERE app=? AND owner=? ORDER BY first";
  private static final String CHUNK =
      "SELECT states FROM " + CHUNKS + " WHERE app=? AND owner=? AND first=?";
  private static final String PUT_CHUNK = "INSERT INTO " + CHUNKS
      + "(app, owner, first, states) VALUES(?,?,?,?) ON CONFLICT(app, owner, first)"
      + " DO UPDATE SET states=excluded.states";
  private static final String DELETE_CHUNK =
      "DELETE FROM " + CHUNKS + " WHERE app=? AND owner=? AND first=?";
  ComponentStateTables() {
    super("", false, true, true, true);
  }

  /**
   * Creates this layout's tables where they are missing.
   *
   * <p>{@code owner_range}'s rows are short, so it is keyed by its primary key alone ({@code
   * WITHOUT ROWID}). A chunk is kilobytes: in a {@code WITHOUT ROWID} table it overflows its
   * leaf, and its interior copies overflow too, so that every comparison on the way down reads
   * an overflow page (the tree was 4 levels deep for 1,000 chunks). A rowid table keeps chunks
   * in its leaves only, behind a narrow unique index: a chunk's read took about half the time
   * (BENCHMARKS.md, fifteenth session).
   */
  static void createTables(Statement s) throws SQLException {
    OwnerRanges.createTable(s);
    s.execute("CREATE TABLE IF NOT EXISTS " + CHUNKS + "(app TEXT NOT NULL, owner BLOB NOT NULL,"
        + " first BLOB NOT NULL, states BLOB NOT NULL)");
    s.execute("CREATE UNIQUE INDEX IF NOT EXISTS " + CHUNKS_KEY + " ON " + CHUNKS
        + "(app, owner, first)");
  }

  /**
   * Sets aside the chunks table of schema version 3 (a {@code WITHOUT ROWID} table) before
   * {@link #createTables} creates its successor; {@link #moveSetAsideChunks} then fills that.
   */
  static void setAsideChunksOfSchema3(Statement s) throws SQLException {
    s.execute("ALTER TABLE " + CHUNKS + " RENAME TO " + CHUNKS_OF_SCHEMA_3);
  }

  /**
   * Copies the chunks set aside by {@link #setAsideChunksOfSchema3} into the new table and drops
   * the old one, inside the caller's transaction.
   *
   * @return how many chunks moved
   */
  static long moveSetAsideChunks(Statement s) throws SQLException {
    long moved = s.executeUpdate("INSERT INTO " + CHUNKS + "(app, owner, first, states)"
        + " SELECT app, owner, first, states FROM " + CHUNKS_OF_SCHEMA_3
        + " ORDER BY app, owner, first");
    s.execute("DROP TABLE " + CHUNKS_OF_SCHEMA_3);
    return moved;
  }

  /**
   * Replaces the row per path of {@code state_owner} (schema versions 3 and 4) by ranges, inside
   * the caller's transaction.
   *
   * @return how many ranges were written
   */
  static long moveOwnersByPath(Connection c) throws SQLException {
    long ranges;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(
            "SELECT app, path, owner FROM " + OWNERS_BY_PATH + " ORDER BY app, path")) {
      ranges = OwnerRanges.insertFrom(c, rs);
    }
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE " + OWNERS_BY_PATH);
    }
    return ranges;
  }

  /**
   * Moves the states of the row-per-state layout (schema versions 1 and 2, table {@code
   * target_state}) into this one and drops that table, inside the caller's transaction.
   *
   * @return how many states moved
   */
  static long moveFromRowPerState(Connection c) throws SQLException {
    long moved = 0;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT app, owner, path, records, child_gen, child_epoch,"
            + " parent_gen, parent_epoch FROM target_state ORDER BY app, owner, path");
        PreparedStatement chunks = c.prepareStatement(PUT_CHUNK)) {
      String app = null;
      byte[] owner = null;
      List<TrackedState> ofOwner = new ArrayList<>();
      while (true) {
        boolean more = rs.next();
        String nextApp = more ? rs.getString(1) : null;
        byte[] nextOwner = more ? rs.getBytes(2) : null;
        if (!ofOwner.isEmpty()
            && (!more || !nextApp.equals(app) || !Arrays.equals(nextOwner, owner))) {
          for (EncodedChunk part : encodeSplitting(NO_PATH, ofOwner)) {
            bindChunk(chunks, app, owner, part);
          }
          chunks.executeBatch();
          ofOwner = new ArrayList<>();
        }
        if (!more) {
          break;
        }
        app = nextApp;
        owner = nextOwner;
        TrackedState t = new TrackedState(rs.getBytes(3), owner,
            RecordListEncoding.decode(rs.getBytes(4)), rs.getLong(5), rs.getLong(6),
            rs.getLong(7), rs.getLong(8));
        ofOwner.add(t);
        moved++;
      }
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(
            "SELECT app, path, owner FROM target_state ORDER BY app, path")) {
      OwnerRanges.insertFrom(c, rs);
    }
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE target_state");
    }
    return moved;
  }

  @Override
  List<String> stateTables() {
    return List.of(CHUNKS, OwnerRanges.TABLE); // the first has rows iff the app has states
  }

  /** The states {@code owner} owns, in path order. */
  public List<TrackedState> ownedBy(Connection c, String app, byte[] owner) throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    byte[] shared = owner.clone(); // one copy for all its states; nobody modifies them
    List<TrackedState> out = null;
    try (StatementCache.Prepared p = prepare(c, OWNED_BY)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, app);
      ps.setBytes(2, owner);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          List<TrackedState> chunk = ComponentStates.decode(rs.getBytes(1), shared, runs);
          if (out == null) {
            out = chunk;
          } else {
            out.addAll(chunk);
          }
        }
      }
    }
    return out != null ? out : List.of();
  }

  /**
   * Up to {@code maxChunks} chunks from {@code owner} on, in one range read of the chunks' index:
   * every owner among them whose chunks all came, and {@code owner} itself in any case.
   */
  Map<ByteKey, OwnedStates> ownedByFrom(Connection c, String app, byte[] owner,
      byte[] before, int maxChunks) throws SQLException {
    Map<ByteKey, OwnedStates> out = new LinkedHashMap<>();
    ByteKey first = ByteKey.of(owner);
    out.put(first, OwnedStates.of(List.of()));
    ChunksRead read = chunksFrom(c, app, owner, before, maxChunks);
    out.putAll(read.owners()); // owner, if read, keeps its place: first
    if (read.cut() != null && Arrays.equals(read.cut(), owner)) {
      out.put(first, OwnedStates.of(ownedBy(c, app, owner))); // the owner asked for, read whole
    }
    return out;
  }

  /** The chunks in a window of a subtree's: about 16 MB at most, often a thousand owners. */
  static final int WINDOW_CHUNKS = 256;

  /** {@link #WINDOW_CHUNKS} chunks at a time, by the read behind {@link #ownedByFrom}. */
  @Override
  OwnedWindow ownedWindow(Connection c, String app, byte[] from, byte[] before)
      throws SQLException {
    ChunksRead read = chunksFrom(c, app, from, before, WINDOW_CHUNKS);
    return cutWindow(c, app, read.owners(), read.cut());
  }

  @Override
  List<TrackedState> ownedWhole(Connection c, String app, byte[] owner) throws SQLException {
    return ownedBy(c, app, owner);
  }

  /**
   * Owners read in path order, each with its chunks, and the last owner read if its chunks may
   * go on past the read (left out of {@code owners}), else null.
   */
  private record ChunksRead(Map<ByteKey, OwnedStates> owners, byte[] cut) {}

  /**
   * Up to {@code maxChunks} chunks of the owners from {@code owner} on (before {@code before},
   * if not null), in one range read of the chunks' index. One chunk more is read to know
   * whether the last owner's chunks go on.
   */
  private ChunksRead chunksFrom(Connection c, String app, byte[] owner, byte[] before,
      int maxChunks) throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    Map<ByteKey, OwnedStates> out = new LinkedHashMap<>();
    int rows = 0;
    byte[] last = null;
    try (StatementCache.Prepared p = prepare(c, before == null ? OWNED_FROM : OWNED_FROM_BEFORE)) {
      PreparedStatement ps = p.statement();
      int at = 1;
      ps.setString(at++, app);
      ps.setBytes(at++, owner);
      if (before != null) {
        ps.setBytes(at++, before);
      }
      ps.setInt(at, maxChunks + 1);
      try (ResultSet rs = ps.executeQuery()) {
        OwnedStates ofLast = null;
        while (rs.next()) {
          rows++;
          byte[] of = rs.getBytes(1);
          if (last == null || !Arrays.equals(of, last)) {
            last = of;
            ofLast = OwnedStates.encoded(of, runs);
            out.put(ByteKey.of(of), ofLast);
          }
          ofLast.add(rs.getBytes(2)); // decoded by the component that takes them
        }
      }
    }
    if (rows > maxChunks) {
      out.remove(ByteKey.of(last));
      return new ChunksRead(out, last);
    }
    return new ChunksRead(out, null);
  }

  @Override
  public Optional<TrackedState> get(Connection c, String app, byte[] path) throws SQLException {
    return getAll(c, app, List.of(path)).stream().findFirst();
  }

  /**
   * The states of {@code paths} that exist: each path's candidate owner from its range, then the
   * state from that owner's chunk.
   */
  public List<TrackedState> getAll(Connection c, String app, Collection<byte[]> paths)
      throws SQLException {
    return inSnapshot(c, () -> {
      Chunks chunks = new Chunks(c, app, settledRuns(c, app));
      OwnerRanges ranges = new OwnerRanges(c, app, this::prepare);
      List<byte[]> sorted = new ArrayList<>(paths);
      sorted.sort(Arrays::compareUnsigned); // neighbours share the ranges read around them
      List<TrackedState> out = new ArrayList<>();
      byte[] previous = null;
      for (byte[] path : sorted) {
        if (previous == null || !Arrays.equals(previous, path)) {
          TrackedState s = chunks.storedAt(ranges, path);
          if (s != null) {
            out.add(s);
          }
        }
        previous = path;
      }
      return out;
    });
  }

  /** The states at or below {@code path} in path order: range by range, each from its chunks. */
  @Override
  public void scan(Connection c, String app, byte[] path, Consumer<TrackedState> visitor)
      throws SQLException {
    inSnapshot(c, () -> {
      Chunks chunks = new Chunks(c, app, settledRuns(c, app));
      byte[] end = KeyEncoding.descendantsEnd(path);
      OwnerRanges.forEachStored(c, this::prepare, app, path, end, r -> {
        chunks.ofOwner(r.owner()).forEachIn(later(r.lo(), path), earlier(r.hi(), end),
            (at, s) -> visitor.accept(s));
        chunks.keepRecent();
      });
      return null;
    });
  }

  private static byte[] later(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b) >= 0 ? a : b;
  }

  private static byte[] earlier(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b) <= 0 ? a : b;
  }

  @Override
  public List<String> apps(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT DISTINCT app FROM " + CHUNKS
            + " UNION SELECT DISTINCT app FROM " + componentTable() + " ORDER BY 1")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private interface SnapshotRead<T> {
    T run() throws SQLException;
  }

  /** Reads in one snapshot: a read that takes two statements must not see a commit between. */
  private static <T> T inSnapshot(Connection c, SnapshotRead<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run();
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /**
   * Applies a group inside the caller's transaction. Per app, the group keeps what it wrote to
   * each path (so each batch resolves against the batches before it, as if committed one after
   * another) and the chunks it changed, which are written once at the end, after the owner
   * ranges of the paths whose owner changed.
   */
  @Override
  void apply(Connection c, List<GroupCommitter.Batch> group) throws SQLException {
    Map<String, Integer> writesByApp = new LinkedHashMap<>();
    for (GroupCommitter.Batch b : group) {
      writesByApp.merge(b.app(), b.writes().size(), Integer::sum);
    }
    Map<String, AppWrites> byApp = new LinkedHashMap<>();
    writesByApp.forEach((app, writes) -> byApp.put(app, new AppWrites(c, app, writes)));
    try (StatementBatches out = new StatementBatches(c)) {
      for (GroupCommitter.Batch b : group) {
        byApp.get(b.app()).apply(out, b.writes());
      }
      for (AppWrites w : byApp.values()) {
        w.moveOwners(out);
        w.writeChunks(out);
      }
    }
  }

  /** The writes of one group to one app's states. */
  private final class AppWrites implements OwnerRanges.Holdings {
    private final Connection c;
    private final String app;
    /** Every path this group wrote, as it left it (null: deleted). */
    private final Map<ByteKey, TrackedState> rows;
    /**
     * {@link #rows} in path order, kept from the group's first deleted tree on (null before): a
     * tree's deletion takes the rows the group wrote below it, and a scan of every row for each
     * tree would make a sweep of n containers cost n squared.
     */
    private TreeMap<ByteKey, TrackedState> rowsInOrder;
    /**
     * The owner of each path in rows before the group wrote it ({@link #NO_OWNER}: none), in the
     * order written: a component's paths mostly come in order, which makes their sort cheap.
     */
    private final Map<ByteKey, byte[]> ownerBefore;
    /** The chunks this group read, by owner; their records as stored, unresolved. */
    private final Chunks chunks;
    /** The owner ranges: as stored while the batches apply, then moved by {@link #moveOwners}. */
    private final OwnerRanges ranges;
    /** The path {@link #keyOf} was last asked for (by identity), and its key. */
    private byte[] lastPath;
    private ByteKey lastKey;

    /**
     * @param writes how many writes the group has for the app: about how many paths it writes
     *     (grown from their default size, the two maps were a tenth of the writer's Java work)
     */
    AppWrites(Connection c, String app, int writes) {
      this.c = c;
      this.app = app;
      int capacity = (int) Math.min(1L << 20, writes * 4L / 3 + 1);
      this.rows = new HashMap<>(capacity);
      this.ownerBefore = new LinkedHashMap<>(capacity);
      this.chunks = new Chunks(c, app, SettledRuns.NONE);
      this.ranges = new OwnerRanges(c, app, ComponentStateTables.this::prepare);
    }

    void apply(StatementBatches out, List<StateWrite> writes) throws SQLException {
      TrackedState[] before = new TrackedState[1];
      boolean[] resolved = new boolean[1];
      for (StateWrite w0 : writes) {
        before[0] = null;
        resolved[0] = false;
        StateWrite w = StateWrites.resolve(w0, path -> {
          resolved[0] = true;
          return before[0] = current(rows, keyOf(path), w0);
        });
        if (w == null) {
          continue;
        }
        if (w instanceof StateWrite.PutState ps) {
          put(ps.state(), resolved[0] ? before[0] : tracked(ps.state().path()));
        } else if (w instanceof StateWrite.DeleteState ds) {
          delete(ds.path());
        } else if (w instanceof StateWrite.DeleteTree dt) {
          // A settle's tree: its row as read is the stored one unless this group wrote it.
          deleteTree(dt.path(), resolved[0] && before[0] != null
              && !rows.containsKey(keyOf(dt.path())) ? before[0].owner() : null);
        } else if (w instanceof StateWrite.DeleteBelow db) {
          deleteRange(KeyEncoding.descendantsStart(db.path()),
              KeyEncoding.descendantsEnd(db.path()), null, db);
        } else {
          writeComponent(out, app, w);
        }
      }
    }

    /**
     * The tracking of {@code path} as of now in this transaction: as this group left it, or as
     * stored (the ranges stay as stored until {@link #moveOwners}).
     */
    private TrackedState tracked(byte[] path) throws SQLException {
      ByteKey key = keyOf(path);
      if (rows.containsKey(key)) {
        return rows.get(key);
      }
      return chunks.storedAt(ranges, path);
    }

    /**
     * The key of {@code path}: the same array comes back for each step of one write (resolved,
     * then put), and hashing it again was a tenth of the writer's Java work on a cold run.
     */
    private ByteKey keyOf(byte[] path) {
      if (path != lastPath) {
        lastKey = ByteKey.of(path);
        lastPath = path;
      }
      return lastKey;
    }

    /**
     * Notes the owner of {@code key} before this group first wrote it. Every write to {@link
     * #rows} comes after this, so a key is in {@link #ownerBefore} if and only if the group
     * wrote it: one lookup, not two.
     */
    private void noteOwner(ByteKey key, TrackedState old) {
      ownerBefore.putIfAbsent(key, old == null ? NO_OWNER : old.owner());
    }

    private void put(TrackedState s, TrackedState old) throws SQLException {
      ByteKey key = keyOf(s.path());
      noteOwner(key, old);
      write(key, s);
      if (old == null) {
        // Another owner's holding is found when the ranges move (moveOwners).
        if (chunks.ofOwner(s.owner()).put(s) != null) {
          throw new SQLException(OwnerRanges.UNTRACKED_BUT_TRACKED);
        }
        return;
      }
      if (!Arrays.equals(old.owner(), s.owner())) {
        if (!chunks.ofOwner(old.owner()).remove(s.path())) {
          throw new SQLException("a state changing owner is not tracked under its old owner in "
              + CHUNKS + " (was the state store changed by another process?)");
        }
        chunks.ofOwner(s.owner()).put(s);
        return;
      }
      chunks.ofOwner(s.owner()).replace(s);
    }

    /** Deletes by what is stored: a delete need not come from a row the engine loaded. */
    private void delete(byte[] path) throws SQLException {
      TrackedState old = tracked(path);
      ByteKey key = keyOf(path);
      noteOwner(key, old);
      write(key, null);
      if (old != null) {
        chunks.ofOwner(old.owner()).remove(path);
      }
    }

    /**
     * Deletes {@code path} and every state below it: those of each owner whose stored range
     * meets them, and those this group wrote there. With {@code storedOwner}, the owner of
     * {@code path} as stored, the range {@code path} lies in is that owner's (ranges do not
     * overlap), and is not read: a removal settles a tree per deleted state, and that read was
     * a third of removing a million rows. The ranges below {@code path} come from the group's
     * view of them, which reads ahead when the trees come in path order, as a removal's do.
     */
    private void deleteTree(byte[] path, byte[] storedOwner) throws SQLException {
      deleteRange(path, KeyEncoding.descendantsEnd(path), storedOwner, null);
      ByteKey key = ByteKey.of(path);
      noteOwner(key, null);
      write(key, null);
    }

    /**
     * Deletes the states in {@code [from, end)}: those of each owner whose stored range meets
     * them, and those this group wrote there; with {@code only}, those of the owners it covers
     * (see {@link StateWrite.DeleteBelow#owners}). With {@code storedOwner}, the owner of {@code
     * from} as stored (see {@link #deleteTree}).
     */
    private void deleteRange(byte[] from, byte[] end, byte[] storedOwner,
        StateWrite.DeleteBelow only) throws SQLException {
      Map<ByteKey, byte[]> owners = new LinkedHashMap<>();
      if (storedOwner != null) {
        owners.put(ByteKey.of(storedOwner), storedOwner);
      }
      ranges.forEachIn(from, end, storedOwner == null,
          r -> owners.put(ByteKey.of(r.owner()), r.owner()));
      if (rowsInOrder == null) {
        rowsInOrder = new TreeMap<>(IN_PATH_ORDER);
        rowsInOrder.putAll(rows);
      }
      for (TrackedState s
          : rowsInOrder.subMap(ByteKey.of(from), true, ByteKey.of(end), false).values()) {
        if (s != null) {
          owners.put(ByteKey.of(s.owner()), s.owner());
        }
      }
      List<byte[]> containers = new ArrayList<>();
      for (byte[] owner : owners.values()) {
        if (only != null && !only.covers(owner)) {
          continue;
        }
        chunks.ofOwner(owner).forEachIn(from, end, (at, s) -> {
          noteOwner(at, s);
          write(at, null);
          if (only != null && s.childGeneration() > 0) {
            containers.add(at.bytes());
          }
        });
        chunks.ofOwner(owner).removeIn(from, end);
      }
      // A container of those owners takes what is below it along (see DeleteBelow#owners).
      containers.sort(Arrays::compareUnsigned);
      byte[] last = null;
      for (byte[] c : containers) {
        if (last == null || Arrays.compareUnsigned(c, KeyEncoding.descendantsEnd(last)) >= 0) {
          deleteRange(KeyEncoding.descendantsStart(c), KeyEncoding.descendantsEnd(c), null, null);
          last = c;
        }
      }
    }

    /** Records what the group left at {@code key}. */
    private void write(ByteKey key, TrackedState s) {
      rows.put(key, s);
      if (rowsInOrder != null) {
        rowsInOrder.put(key, s);
      }
    }

    /** Moves the owner ranges of every path whose owner this group changed, in path order. */
    void moveOwners(StatementBatches out) throws SQLException {
      List<Map.Entry<ByteKey, byte[]>> changed = new ArrayList<>();
      for (Map.Entry<ByteKey, byte[]> e : ownerBefore.entrySet()) {
        TrackedState now = rows.get(e.getKey());
        byte[] before = e.getValue() == NO_OWNER ? null : e.getValue();
        if (!Arrays.equals(before, now == null ? null : now.owner())) {
          changed.add(e);
        }
      }
      changed.sort(Map.Entry.comparingByKey(IN_PATH_ORDER));
      for (Map.Entry<ByteKey, byte[]> e : changed) {
        TrackedState now = rows.get(e.getKey());
        ranges.move(e.getKey().bytes(), e.getValue() == NO_OWNER ? null : e.getValue(),
            now == null ? null : now.owner(), this);
      }
      ranges.write(out);
    }

    @Override
    public boolean holds(byte[] owner, byte[] path) throws SQLException {
      return chunks.ofOwner(owner).get(path) != null;
    }

    @Override
    public byte[] below(byte[] owner, byte[] path, byte[] floor) throws SQLException {
      return chunks.ofOwner(owner).below(path, floor);
    }

    @Override
    public byte[] above(byte[] owner, byte[] path, byte[] ceiling) throws SQLException {
      return chunks.ofOwner(owner).above(path, ceiling);
    }

    /**
     * Writes every chunk the group changed: outgrown ones split, emptied ones deleted, except an
     * owner's first chunk while it has others (it holds the paths below theirs).
     */
    void writeChunks(StatementBatches out) throws SQLException {
      for (OwnerChunks owned : chunks.read.values()) {
        Chunk emptiedFirst = null;
        for (Chunk chunk : List.copyOf(owned.loaded.values())) {
          if (!chunk.changed) {
            continue;
          }
          byte[] replaced = chunk.encodedAsReplaced();
          if (replaced != null) {
            bindChunk(out.use(PUT_CHUNK), app, owned.owner,
                new EncodedChunk(chunk.first, replaced));
            continue;
          }
          if (chunk.isEmpty()) {
            if (chunk.first.length > 0) {
              deleteChunk(out, owned, chunk);
            } else {
              emptiedFirst = chunk; // written below only if other chunks remain
            }
            continue;
          }
          for (EncodedChunk part : encodeSplitting(chunk.first, chunk.states().inPathOrder())) {
            bindChunk(out.use(PUT_CHUNK), app, owned.owner, part);
          }
        }
        if (owned.firsts.size() == 1) {
          // An owner's only chunk, emptied: deleted if stored, and never written if the group
          // began it (put then deleted in the group, a tree's deletion taking its states say:
          // written empty, it listed an owner of nothing among the owners read ahead).
          Chunk only = owned.chunkFor(NO_PATH);
          if (only.isEmpty()) {
            deleteChunk(out, owned, only);
          }
        } else if (emptiedFirst != null) {
          bindChunk(out.use(PUT_CHUNK), app, owned.owner,
              encodeSplitting(NO_PATH, emptiedFirst.states().inPathOrder()).get(0));
        }
      }
    }

    private void deleteChunk(StatementBatches out, OwnerChunks owned, Chunk chunk)
        throws SQLException {
      owned.firsts.removeIf(f -> Arrays.equals(f, chunk.first));
      if (!chunk.stored) {
        return;
      }
      PreparedStatement del = out.use(DELETE_CHUNK);
      del.setString(1, app);
      del.setBytes(2, owned.owner);
      del.setBytes(3, chunk.first);
      del.addBatch();
    }
  }

  /** A chunk's key and its encoded states. */
  private record EncodedChunk(byte[] first, byte[] states) {}

  /** Binds and adds to the batch an upsert of {@code chunk} ({@link #PUT_CHUNK}). */
  private static void bindChunk(PreparedStatement ps, String app, byte[] owner,
      EncodedChunk chunk) throws SQLException {
    ps.setString(1, app);
    ps.setBytes(2, owner);
    ps.setBytes(3, chunk.first());
    ps.setBytes(4, chunk.states());
    ps.addBatch();
  }

  /**
   * {@code states} (in path order, not empty) encoded as the chunk keyed {@code first}, or, past
   * {@link #CHUNK_BYTES}, as several of about half of it: the first part keeps {@code first};
   * each other is keyed by its first path, which lies inside the chunk being split, so the
   * chunks still partition the paths.
   */
  private static List<EncodedChunk> encodeSplitting(byte[] first, List<TrackedState> states) {
    byte[] whole = ComponentStates.encode(states);
    if (whole.length <= CHUNK_BYTES || states.size() < 2) {
      return List.of(new EncodedChunk(first, whole));
    }
    int parts = Math.min(states.size(), (whole.length + CHUNK_BYTES / 2 - 1) / (CHUNK_BYTES / 2));
    List<EncodedChunk> out = new ArrayList<>(parts);
    for (int i = 0; i < parts; i++) {
      List<TrackedState> part =
          states.subList(states.size() * i / parts, states.size() * (i + 1) / parts);
      out.add(new EncodedChunk(i == 0 ? first : part.get(0).path(),
          ComponentStates.encode(part)));
    }
    return out;
  }

  /**
   * One chunk of an owner's states, as a group reads and changes it. A chunk read from the store
   * stays encoded while the group only replaces states it holds (a precommit changing some of a
   * component's states), and is then written by {@link ComponentStates#replace}; any other use
   * decodes it first.
   */
  private static final class Chunk {
    final byte[] first;
    final boolean stored;
    boolean changed;
    /** The decoded states; null while the chunk is still {@link #encoded}. */
    private SortedStates states;
    /** The chunk as stored while it is not decoded (null once it is, or when none was stored). */
    private byte[] encoded;
    /** The states replacing some of the encoded ones, in the order made (null: none yet). */
    private List<TrackedState> replacements;
    private final byte[] owner;
    private final SettledRuns runs;

    /** A chunk not stored yet; {@code capacity}: about how many states it will hold. */
    Chunk(byte[] first, int capacity) {
      this.first = first;
      this.stored = false;
      this.states = new SortedStates(capacity);
      this.owner = null;
      this.runs = null;
    }

    /** A stored chunk of {@code owner}'s, {@code encoded} as read (null: no row held it). */
    Chunk(byte[] first, byte[] encoded, byte[] owner, SettledRuns runs) {
      this.first = first;
      this.stored = true;
      this.owner = owner;
      this.runs = runs;
      if (encoded == null) {
        this.states = new SortedStates(8);
      } else {
        this.encoded = encoded;
      }
    }

    /** The states, decoded (with the replacements made so far) if they were not yet. */
    SortedStates states() throws SQLException {
      if (states == null) {
        List<TrackedState> stored = ComponentStates.decode(encoded, owner, runs);
        // Room for a few more, as a precommit adds a state or two to a chunk it reads.
        SortedStates decoded = new SortedStates(stored.size() + 8);
        for (TrackedState s : stored) {
          decoded.put(s); // in path order: each an append
        }
        if (replacements != null) {
          for (TrackedState r : replacements) {
            if (decoded.put(r) == null) {
              throw new SQLException(MISSING_TRACKED_ROW);
            }
          }
        }
        states = decoded;
        encoded = null;
        replacements = null;
      }
      return states;
    }

    /**
     * Puts {@code s} in place of the state it holds at its path (checked when the chunk is
     * decoded or written).
     */
    void replace(TrackedState s) throws SQLException {
      changed = true;
      if (states != null) {
        if (states.put(s) == null) {
          throw new SQLException(MISSING_TRACKED_ROW);
        }
        return;
      }
      if (replacements == null) {
        replacements = new ArrayList<>(4);
      }
      replacements.add(s);
    }

    /** Whether it holds no state (replacing states keeps their number). */
    boolean isEmpty() {
      return states == null ? ComponentStates.count(encoded) == 0 : states.isEmpty();
    }

    /**
     * The chunk's value as one part when it stayed encoded and is still small enough, else null
     * (then {@link #states} gives the states to encode and split).
     */
    byte[] encodedAsReplaced() throws SQLException {
      if (states != null) {
        return null;
      }
      if (replacements == null) {
        return encoded;
      }
      byte[] value = ComponentStates.replace(encoded, replacements);
      if (value == null) {
        throw new SQLException(MISSING_TRACKED_ROW);
      }
      return value.length <= CHUNK_BYTES ? value : null;
    }
  }

  /** The chunks of one owner: their bounds read at once, their states when first needed. */
  private final class OwnerChunks {
    final byte[] owner;
    private final Chunks in;
    /** The chunks' {@code first} paths, ascending. */
    private final List<byte[]> firsts = new ArrayList<>();
    final Map<ByteKey, Chunk> loaded = new LinkedHashMap<>();

    OwnerChunks(Chunks in, byte[] owner) throws SQLException {
      this.in = in;
      this.owner = owner;
      try (StatementCache.Prepared p = prepare(in.c, CHUNK_FIRSTS)) {
        PreparedStatement ps = p.statement();
        ps.setString(1, in.app);
        ps.setBytes(2, owner);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            firsts.add(rs.getBytes(1));
          }
        }
      }
    }

    /** The chunk {@code path} belongs in: the last whose first is not above it, else the first. */
    private Chunk chunkFor(byte[] path) throws SQLException {
      if (firsts.isEmpty()) {
        Chunk begun = new Chunk(NO_PATH, NEW_CHUNK_CAPACITY);
        firsts.add(NO_PATH);
        loaded.put(ByteKey.of(NO_PATH), begun);
        return begun;
      }
      return chunkAt(indexFor(path));
    }

    /** The index of the last chunk whose first is not above {@code path}, or 0. */
    private int indexFor(byte[] path) {
      int lo = 0;
      int hi = firsts.size() - 1;
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        if (Arrays.compareUnsigned(firsts.get(mid), path) <= 0) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return lo;
    }

    private Chunk chunkAt(int index) throws SQLException {
      byte[] first = firsts.get(index);
      ByteKey key = ByteKey.of(first);
      Chunk chunk = loaded.get(key);
      if (chunk == null) {
        byte[] encoded = null;
        try (StatementCache.Prepared p = prepare(in.c, CHUNK)) {
          PreparedStatement ps = p.statement();
          ps.setString(1, in.app);
          ps.setBytes(2, owner);
          ps.setBytes(3, first);
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              encoded = rs.getBytes(1);
            }
          }
        }
        chunk = new Chunk(first, encoded, owner, in.runs);
        loaded.put(key, chunk);
      }
      return chunk;
    }

    TrackedState get(byte[] path) throws SQLException {
      return firsts.isEmpty() ? null : chunkFor(path).states().get(path);
    }

    /** Puts {@code s} in its chunk; returns what was there. */
    TrackedState put(TrackedState s) throws SQLException {
      Chunk chunk = chunkFor(s.path());
      chunk.changed = true;
      return chunk.states().put(s);
    }

    /**
     * Puts {@code s} in place of the state its chunk holds at its path; that none is held fails
     * the group, now or when the chunk is written.
     */
    void replace(TrackedState s) throws SQLException {
      chunkFor(s.path()).replace(s);
    }

    /** Removes the state at {@code path}; returns whether there was one. */
    boolean remove(byte[] path) throws SQLException {
      if (firsts.isEmpty()) {
        return false;
      }
      Chunk chunk = chunkFor(path);
      if (chunk.states().remove(path) != null) {
        chunk.changed = true;
        return true;
      }
      return false;
    }

    /** The greatest path held below {@code path} and not below {@code floor}, or null. */
    byte[] below(byte[] path, byte[] floor) throws SQLException {
      if (firsts.isEmpty()) {
        return null;
      }
      for (int i = indexFor(path); i >= 0; i--) {
        byte[] k = chunkAt(i).states().lowerPath(path);
        if (k != null) {
          return Arrays.compareUnsigned(k, floor) >= 0 ? k : null;
        }
        if (Arrays.compareUnsigned(firsts.get(i), floor) <= 0) {
          return null; // the chunks before hold paths below the floor only
        }
      }
      return null;
    }

    /** The least path held above {@code path} and below {@code ceiling}, or null. */
    byte[] above(byte[] path, byte[] ceiling) throws SQLException {
      if (firsts.isEmpty()) {
        return null;
      }
      int start = indexFor(path);
      for (int i = start; i < firsts.size(); i++) {
        if (i > start && Arrays.compareUnsigned(firsts.get(i), ceiling) >= 0) {
          return null; // that chunk and those after it hold paths from the ceiling on
        }
        byte[] k = chunkAt(i).states().higherPath(path);
        if (k != null) {
          return Arrays.compareUnsigned(k, ceiling) < 0 ? k : null;
        }
      }
      return null;
    }

    /** Visits the states held in {@code [from, to)} in path order. */
    void forEachIn(byte[] from, byte[] to, StateVisitor visitor) throws SQLException {
      if (firsts.isEmpty()) {
        return;
      }
      for (int i = indexFor(from);
          i < firsts.size() && Arrays.compareUnsigned(firsts.get(i), to) < 0; i++) {
        for (TrackedState s : chunkAt(i).states().in(from, to)) {
          visitor.visit(ByteKey.of(s.path()), s);
        }
      }
    }

    /** Removes the states held in {@code [from, to)}. */
    void removeIn(byte[] from, byte[] to) throws SQLException {
      if (firsts.isEmpty()) {
        return;
      }
      for (int i = indexFor(from);
          i < firsts.size() && Arrays.compareUnsigned(firsts.get(i), to) < 0; i++) {
        Chunk chunk = chunkAt(i);
        if (chunk.states().removeIn(from, to)) {
          chunk.changed = true;
        }
      }
    }
  }

  private interface StateVisitor {
    void visit(ByteKey path, TrackedState state) throws SQLException;
  }

  /** The chunks read in one transaction, by owner. */
  private final class Chunks {
    final Connection c;
    final String app;
    final SettledRuns runs;
    final Map<ByteKey, OwnerChunks> read = new LinkedHashMap<>();
    /** The owner asked for last (by identity), and its chunks, as {@link #read} holds them. */
    private byte[] lastOwner;
    private OwnerChunks lastOwned;

    Chunks(Connection c, String app, SettledRuns runs) {
      this.c = c;
      this.app = app;
      this.runs = runs;
    }

    OwnerChunks ofOwner(byte[] owner) throws SQLException {
      if (owner == lastOwner) {
        return lastOwned; // a component's states come together, naming it with one array
      }
      ByteKey key = ByteKey.of(owner);
      OwnerChunks owned = read.get(key);
      if (owned == null) {
        owned = new OwnerChunks(this, owner);
        read.put(key, owned);
      }
      lastOwner = owner;
      lastOwned = owned;
      return owned;
    }

    /** The state stored at {@code path}: its range names the owner whose chunks may hold it. */
    TrackedState storedAt(OwnerRanges ranges, byte[] path) throws SQLException {
      OwnerRanges.Range r = ranges.containing(path);
      return r == null ? null : ofOwner(r.owner()).get(path);
    }

    /** For a long scan: forgets all but the last owner read, which the scan is likely in. */
    void keepRecent() {
      if (read.size() > 64) {
        OwnerChunks last = null;
        for (OwnerChunks o : read.values()) {
          last = o;
        }
        read.clear();
        read.put(ByteKey.of(last.owner), last);
        lastOwner = null;
        lastOwned = null;
      }
    }
  }
}
