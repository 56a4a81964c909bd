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
 * ({@link ComponentStates}), and {@code state_owner(app, path, owner)} says which component owns
 * each path, for the reads by path (a state another component takes over, a container's
 * descendants, an inspection in path order).
 *
 * <p>Why: the engine reads each component's states on every run and rewrites those that
 * change. With a row per state indexed by owner, a cold run of 100k states wrote two B-tree
 * entries of about 100 bytes per state, and a warm run read every state through the owner index,
 * half of its CPU. Now a warm run reads one row per component, and a cold run writes a short
 * path entry per state plus a few KB per component (BENCHMARKS.md, fourteenth session).
 *
 * <p>A chunk holds the paths from its {@code first} up to the next chunk's; an owner's first
 * chunk starts at the empty path and stays while the owner has others. A chunk grown past {@link
 * #CHUNK_BYTES} is split and an emptied one deleted, so a change to one state of a component
 * that owns a million rewrites tens of KB, not the million.
 *
 * <p>Only for a store that is its app's only writer while locked: precommits and settles resolve
 * against the rows the engine loaded. A path the engine saw untracked is inserted into {@code
 * state_owner} plainly, so that a tracking it did not see fails the commit rather than leaving
 * the state with two owners.
 */
final class ComponentStateTables extends JdbcStateTables {
  static final String OWNERS = "state_owner";
  static final String CHUNKS = "component_states";
  private static final String CHUNKS_KEY = "component_states_key";
  private static final String CHUNKS_OF_SCHEMA_3 = "component_states_of_schema_3";
  /** The encoded size past which a chunk is split in parts of about half of it. */
  static final int CHUNK_BYTES = 64 * 1024;
  private static final byte[] NO_PATH = new byte[0];
  /** Stands for "no owner stored" among owners read ahead (compared by identity). */
  private static final byte[] NO_OWNER = new byte[0];
  private static final int IN_LIST = 500;
  /** Up to this many owners are read by a cached point query each rather than an IN list. */
  private static final int POINT_READS = 32;

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
  private static final String INSERT_OWNER =
      "INSERT INTO " + OWNERS + "(app, path, owner) VALUES(?,?,?)";
  private static final String MOVE_OWNER =
      "UPDATE " + OWNERS + " SET owner=? WHERE app=? AND path=? AND owner=?";
  private static final String DELETE_OWNER = "DELETE FROM " + OWNERS + " WHERE app=? AND path=?";
  private static final String DELETE_OWNERS_BELOW =
      "DELETE FROM " + OWNERS + " WHERE app=? AND path>=? AND path<?";
  private static final String OWNER_OF =
      "SELECT owner FROM " + OWNERS + " WHERE app=? AND path=?";
  private static final String OWNERS_BELOW =
      "SELECT path, owner FROM " + OWNERS + " WHERE app=? AND path>=? AND path<? ORDER BY path";

  ComponentStateTables() {
    super("", false, true, true, true);
  }

  /**
   * Creates this layout's tables where they are missing.
   *
   * <p>{@code state_owner}'s rows are short, so it is keyed by its primary key alone ({@code
   * WITHOUT ROWID}). A chunk is kilobytes: in a {@code WITHOUT ROWID} table it overflows its
   * leaf, and its interior copies overflow too, so that every comparison on the way down reads
   * an overflow page (the tree was 4 levels deep for 1,000 chunks). A rowid table keeps chunks
   * in its leaves only, behind a narrow unique index: a chunk's read took about half the time
   * (BENCHMARKS.md, fifteenth session).
   */
  static void createTables(Statement s) throws SQLException {
    s.execute("CREATE TABLE IF NOT EXISTS " + OWNERS + "(app TEXT NOT NULL, path BLOB NOT NULL,"
        + " owner BLOB NOT NULL, PRIMARY KEY(app, path)) WITHOUT ROWID");
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
        PreparedStatement owners = c.prepareStatement(INSERT_OWNER);
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
          owners.executeBatch();
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
        owners.setString(1, app);
        owners.setBytes(2, t.path());
        owners.setBytes(3, owner);
        owners.addBatch();
        moved++;
      }
    }
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE target_state");
    }
    return moved;
  }

  @Override
  List<String> stateTables() {
    return List.of(OWNERS, CHUNKS);
  }

  @Override
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
   * every owner among them whose chunks all came, and {@code owner} itself in any case. One
   * chunk more is read to know whether the last owner's chunks go on.
   */
  Map<ByteKey, List<TrackedState>> ownedByFrom(Connection c, String app, byte[] owner,
      byte[] before, int maxChunks) throws SQLException {
    SettledRuns runs = settledRuns(c, app);
    Map<ByteKey, List<TrackedState>> out = new LinkedHashMap<>();
    ByteKey first = ByteKey.of(owner);
    out.put(first, List.of());
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
        List<TrackedState> ofLast = null;
        while (rs.next()) {
          rows++;
          byte[] of = rs.getBytes(1);
          if (last == null || !Arrays.equals(of, last)) {
            last = of;
            ofLast = new ArrayList<>();
            out.put(ByteKey.of(of), ofLast);
          }
          ofLast.addAll(ComponentStates.decode(rs.getBytes(2), last, runs));
        }
      }
    }
    if (rows > maxChunks) {
      // The last owner's chunks may go on past the limit: left out, or read whole if it is the
      // owner asked for.
      ByteKey cut = ByteKey.of(last);
      out.remove(cut);
      if (cut.equals(first)) {
        out.put(first, ownedBy(c, app, owner));
      }
    }
    return out;
  }

  @Override
  public Optional<TrackedState> get(Connection c, String app, byte[] path) throws SQLException {
    return getAll(c, app, List.of(path)).stream().findFirst();
  }

  /** The owners of {@code paths} from {@code state_owner}, then each state from its chunk. */
  @Override
  public List<TrackedState> getAll(Connection c, String app, Collection<byte[]> paths)
      throws SQLException {
    return inSnapshot(c, () -> {
      Chunks chunks = new Chunks(c, app, settledRuns(c, app));
      List<TrackedState> out = new ArrayList<>();
      forEachOwner(c, app, new ArrayList<>(paths),
          (path, owner) -> out.add(chunks.stored(owner, path)));
      return out;
    });
  }

  private interface OwnerVisitor {
    void visit(byte[] path, byte[] owner) throws SQLException;
  }

  /** Visits the stored owner of each of {@code paths} that has one, in a query per chunk. */
  private static void forEachOwner(Connection c, String app, List<byte[]> paths,
      OwnerVisitor visitor) throws SQLException {
    for (int from = 0; from < paths.size(); from += IN_LIST) {
      List<byte[]> part = paths.subList(from, Math.min(paths.size(), from + IN_LIST));
      StringBuilder marks = new StringBuilder();
      for (int i = 0; i < part.size(); i++) {
        marks.append(i == 0 ? "?" : ",?");
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT path, owner FROM " + OWNERS
          + " WHERE app=? AND path IN (" + marks + ")")) {
        ps.setString(1, app);
        for (int i = 0; i < part.size(); i++) {
          ps.setBytes(i + 2, part.get(i));
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            visitor.visit(rs.getBytes(1), rs.getBytes(2));
          }
        }
      }
    }
  }

  /** The states at or below {@code path} in path order, as {@code state_owner} lists them. */
  @Override
  public void scan(Connection c, String app, byte[] path, Consumer<TrackedState> visitor)
      throws SQLException {
    inSnapshot(c, () -> {
      Chunks chunks = new Chunks(c, app, settledRuns(c, app));
      try (PreparedStatement ps = c.prepareStatement(OWNERS_BELOW)) {
        ps.setString(1, app);
        ps.setBytes(2, path);
        ps.setBytes(3, KeyEncoding.descendantsEnd(path));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            visitor.accept(chunks.stored(rs.getBytes(2), rs.getBytes(1)));
            chunks.keepRecent();
          }
        }
      }
      return null;
    });
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
   * another) and the chunks it changed, which are written once at the end.
   */
  @Override
  void apply(Connection c, List<GroupCommitter.Batch> group) throws SQLException {
    Map<String, AppWrites> byApp = new LinkedHashMap<>();
    Map<String, List<StateWrite>> writesByApp = new HashMap<>();
    for (GroupCommitter.Batch b : group) {
      writesByApp.computeIfAbsent(b.app(), a -> new ArrayList<>()).addAll(b.writes());
    }
    for (Map.Entry<String, List<StateWrite>> e : writesByApp.entrySet()) {
      AppWrites w = new AppWrites(c, e.getKey());
      w.readOwners(e.getValue());
      byApp.put(e.getKey(), w);
    }
    try (StatementBatches out = new StatementBatches(c)) {
      for (GroupCommitter.Batch b : group) {
        byApp.get(b.app()).apply(out, b.writes());
      }
      for (AppWrites w : byApp.values()) {
        w.writeChunks(out);
      }
    }
  }

  @Override
  void checkExecuted(String sql, int[] counts) throws SQLException {
    if (sql == MOVE_OWNER) {
      for (int n : counts) {
        if (n == 0) {
          throw new SQLException("a state changing owner is not tracked under its old owner in "
              + OWNERS + " (was the state store changed by another process?)");
        }
      }
    }
  }

  @Override
  SQLException explainFailure(String sql, SQLException e) {
    if (sql == INSERT_OWNER) {
      return new SQLException("a state the run saw untracked is already tracked in " + OWNERS
          + " (was the state store changed by another process?): " + e.getMessage(), e);
    }
    return e;
  }

  /** The writes of one group to one app's states. */
  private final class AppWrites {
    private final Connection c;
    private final String app;
    /** Every path this group wrote, as it left it (null: deleted). */
    private final Map<ByteKey, TrackedState> rows = new HashMap<>();
    /** Stored owners read ahead for direct writes, of paths not in rows ({@link #NO_OWNER}). */
    private final Map<ByteKey, byte[]> storedOwners = new HashMap<>();
    /** The chunks this group read, by owner; their records as stored, unresolved. */
    private final Chunks chunks;

    AppWrites(Connection c, String app) {
      this.c = c;
      this.app = app;
      this.chunks = new Chunks(c, app, SettledRuns.NONE);
    }

    void apply(StatementBatches out, List<StateWrite> writes) throws SQLException {
      TrackedState[] before = new TrackedState[1];
      boolean[] resolved = new boolean[1];
      for (StateWrite w0 : writes) {
        before[0] = null;
        resolved[0] = false;
        StateWrite w = StateWrites.resolve(w0, path -> {
          resolved[0] = true;
          return before[0] = current(rows, path, w0);
        });
        if (w == null) {
          continue;
        }
        if (w instanceof StateWrite.PutState ps) {
          put(out, ps.state(), resolved[0] ? before[0] : tracked(ps.state().path()));
        } else if (w instanceof StateWrite.DeleteState ds) {
          delete(out, ds.path());
        } else if (w instanceof StateWrite.DeleteTree dt) {
          deleteTree(out, dt.path());
        } else {
          writeComponent(out, app, w);
        }
      }
    }

    /**
     * Reads, before the group writes anything, in a query per {@value #IN_LIST} paths, the
     * stored owners of the paths that the group's {@code writes} put or delete directly (not by
     * a precommit or settle, which resolve against the rows the engine loaded). {@link #tracked}
     * uses them for the paths the group has not written when it asks.
     */
    void readOwners(List<StateWrite> writes) throws SQLException {
      List<byte[]> paths = new ArrayList<>();
      for (StateWrite w : writes) {
        byte[] path = w instanceof StateWrite.PutState ps ? ps.state().path()
            : w instanceof StateWrite.DeleteState ds ? ds.path() : null;
        if (path != null) {
          paths.add(path);
        }
      }
      if (paths.size() <= POINT_READS) {
        return; // fewer than a prepared IN list costs: read one by one, when needed
      }
      for (byte[] path : paths) {
        storedOwners.put(ByteKey.of(path), NO_OWNER);
      }
      forEachOwner(c, app, paths, (path, owner) -> storedOwners.put(ByteKey.of(path), owner));
    }

    /**
     * The tracking of {@code path} as of now in this transaction: as this group left it, or as
     * stored (no statement of the group is pending for a path it did not write).
     */
    private TrackedState tracked(byte[] path) throws SQLException {
      ByteKey key = ByteKey.of(path);
      if (rows.containsKey(key)) {
        return rows.get(key);
      }
      byte[] owner = storedOwners.get(key);
      if (owner == null) {
        try (StatementCache.Prepared p = prepare(c, OWNER_OF)) {
          PreparedStatement ps = p.statement();
          ps.setString(1, app);
          ps.setBytes(2, path);
          try (ResultSet rs = ps.executeQuery()) {
            owner = rs.next() ? rs.getBytes(1) : NO_OWNER;
          }
        }
      }
      return owner == NO_OWNER ? null : chunks.stored(owner, path);
    }

    private void put(StatementBatches out, TrackedState s, TrackedState old)
        throws SQLException {
      rows.put(ByteKey.of(s.path()), s);
      if (old == null) {
        PreparedStatement ins = out.use(INSERT_OWNER);
        ins.setString(1, app);
        ins.setBytes(2, s.path());
        ins.setBytes(3, s.owner());
        ins.addBatch();
        chunks.ofOwner(s.owner()).put(s);
        return;
      }
      if (!Arrays.equals(old.owner(), s.owner())) {
        PreparedStatement move = out.use(MOVE_OWNER);
        move.setBytes(1, s.owner());
        move.setString(2, app);
        move.setBytes(3, s.path());
        move.setBytes(4, old.owner());
        move.addBatch();
        chunks.ofOwner(old.owner()).remove(s.path());
        chunks.ofOwner(s.owner()).put(s);
        return;
      }
      if (chunks.ofOwner(s.owner()).put(s) == null) {
        throw new SQLException("a tracked row to update is missing from " + CHUNKS
            + " (was the state store changed by another process?)");
      }
    }

    /** Deletes by what is stored: a delete need not come from a row the engine loaded. */
    private void delete(StatementBatches out, byte[] path) throws SQLException {
      TrackedState old = tracked(path);
      rows.put(ByteKey.of(path), null);
      if (old == null) {
        return;
      }
      PreparedStatement del = out.use(DELETE_OWNER);
      del.setString(1, app);
      del.setBytes(2, path);
      del.addBatch();
      chunks.ofOwner(old.owner()).remove(path);
    }

    private void deleteTree(StatementBatches out, byte[] path) throws SQLException {
      out.flush(); // the range read must see what this group wrote so far
      byte[] end = KeyEncoding.descendantsEnd(path);
      try (PreparedStatement ps = c.prepareStatement(OWNERS_BELOW)) {
        ps.setString(1, app);
        ps.setBytes(2, path);
        ps.setBytes(3, end);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            byte[] below = rs.getBytes(1);
            chunks.ofOwner(rs.getBytes(2)).remove(below);
            rows.put(ByteKey.of(below), null);
          }
        }
      }
      rows.put(ByteKey.of(path), null);
      PreparedStatement del = out.use(DELETE_OWNERS_BELOW);
      del.setString(1, app);
      del.setBytes(2, path);
      del.setBytes(3, end);
      del.addBatch();
    }

    /**
     * Writes every chunk the group changed: outgrown ones split, emptied ones deleted, except an
     * owner's first chunk while it has others (it holds the paths below theirs).
     */
    void writeChunks(StatementBatches out) throws SQLException {
      for (OwnerChunks owned : chunks.read.values()) {
        for (Chunk chunk : List.copyOf(owned.loaded.values())) {
          if (!chunk.changed) {
            continue;
          }
          if (chunk.states.isEmpty() && chunk.first.length > 0) {
            deleteChunk(out, owned, chunk);
            continue;
          }
          for (EncodedChunk part
              : encodeSplitting(chunk.first, new ArrayList<>(chunk.states.values()))) {
            bindChunk(out.use(PUT_CHUNK), app, owned.owner, part);
          }
        }
        if (owned.firsts.size() == 1) {
          Chunk only = owned.chunkFor(NO_PATH);
          if (only.states.isEmpty()) {
            deleteChunk(out, owned, only);
          }
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

  /** One chunk as read (or begun) in a transaction. */
  private static final class Chunk {
    final byte[] first;
    final TreeMap<ByteKey, TrackedState> states = new TreeMap<>(IN_PATH_ORDER);
    final boolean stored;
    boolean changed;

    Chunk(byte[] first, boolean stored) {
      this.first = first;
      this.stored = stored;
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
        Chunk begun = new Chunk(NO_PATH, false);
        firsts.add(NO_PATH);
        loaded.put(ByteKey.of(NO_PATH), begun);
        return begun;
      }
      int lo = 0;
      int hi = firsts.size() - 1;
      while (lo < hi) { // the last index whose first is <= path, or 0
        int mid = (lo + hi + 1) >>> 1;
        if (Arrays.compareUnsigned(firsts.get(mid), path) <= 0) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      byte[] first = firsts.get(lo);
      ByteKey key = ByteKey.of(first);
      Chunk chunk = loaded.get(key);
      if (chunk == null) {
        chunk = new Chunk(first, true);
        try (StatementCache.Prepared p = prepare(in.c, CHUNK)) {
          PreparedStatement ps = p.statement();
          ps.setString(1, in.app);
          ps.setBytes(2, owner);
          ps.setBytes(3, first);
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              for (TrackedState s : ComponentStates.decode(rs.getBytes(1), owner, in.runs)) {
                chunk.states.put(ByteKey.of(s.path()), s);
              }
            }
          }
        }
        loaded.put(key, chunk);
      }
      return chunk;
    }

    TrackedState get(byte[] path) throws SQLException {
      return chunkFor(path).states.get(ByteKey.of(path));
    }

    /** Puts {@code s} in its chunk; returns what was there. */
    TrackedState put(TrackedState s) throws SQLException {
      Chunk chunk = chunkFor(s.path());
      chunk.changed = true;
      return chunk.states.put(ByteKey.of(s.path()), s);
    }

    void remove(byte[] path) throws SQLException {
      Chunk chunk = chunkFor(path);
      if (chunk.states.remove(ByteKey.of(path)) != null) {
        chunk.changed = true;
      }
    }
  }

  /** The chunks read in one transaction, by owner. */
  private final class Chunks {
    final Connection c;
    final String app;
    final SettledRuns runs;
    final Map<ByteKey, OwnerChunks> read = new LinkedHashMap<>();

    Chunks(Connection c, String app, SettledRuns runs) {
      this.c = c;
      this.app = app;
      this.runs = runs;
    }

    OwnerChunks ofOwner(byte[] owner) throws SQLException {
      ByteKey key = ByteKey.of(owner);
      OwnerChunks owned = read.get(key);
      if (owned == null) {
        owned = new OwnerChunks(this, owner);
        read.put(key, owned);
      }
      return owned;
    }

    /**
     * The state at {@code path}, which {@code state_owner} says {@code owner} owns.
     *
     * @throws StateStoreException when the owner's chunks lack it
     */
    TrackedState stored(byte[] owner, byte[] path) throws SQLException {
      TrackedState s = ofOwner(owner).get(path);
      if (s == null) {
        throw new StateStoreException("the state store is inconsistent: " + OWNERS
            + " gives a state an owner whose " + CHUNKS + " lack it (app " + app + ")");
      }
      return s;
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
      }
    }
  }
}
