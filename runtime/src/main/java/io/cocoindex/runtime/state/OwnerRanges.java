package io.cocoindex.runtime.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which component owns each path of the embedded store, kept as ranges of paths: a row of
 * {@code owner_range(app, lo, hi, owner)} says that every state stored in {@code [lo, hi)} is
 * {@code owner}'s. A component whose paths lie together (a file's chunks, a source row's rows)
 * has one row, however many states it owns.
 *
 * <p>Why: the owner of each path is read only when a path is new to the component declaring it
 * (is it another's, to take over?), for a container's descendants and for an inspection. With a
 * row per path, a cold run of 100k states wrote 100k rows of about 70 bytes, two thirds of the
 * store's pages and a fifth of the run (BENCHMARKS.md, sixteenth session).
 *
 * <p>The ranges of an app keep three rules:
 *
 * <ol>
 *   <li>They do not overlap.
 *   <li>Every stored state lies in a range of its owner.
 *   <li>A range is tight: its {@code lo} is a path its owner holds, and its {@code hi} is the
 *       successor of the last path its owner holds in it ({@link #after}).
 * </ol>
 *
 * <p>A range may hold paths that nobody owns (one deleted inside it, or never declared), so a
 * range names a <em>candidate</em> owner, and the owner's chunks say whether it holds the path.
 * By the third rule a range holds at least one state, so there are never more ranges than
 * states, and an owner that holds nothing has none left.
 *
 * <p>One instance is a transaction's view of one app's ranges: the rows it needed, read around
 * the paths it was asked about, and the changes it made, written by {@link #write}. Changes
 * ({@link #move}) come after the group's writes to the chunks, in path order, and consult the
 * chunks as the group leaves them ({@link Holdings}).
 */
final class OwnerRanges {
  static final String TABLE = "owner_range";
  private static final String COLUMNS = "SELECT lo, hi, owner FROM " + TABLE;
  private static final String FLOOR =
      COLUMNS + " WHERE app=? AND lo<=? ORDER BY lo DESC LIMIT 1";
  private static final String BELOW = COLUMNS + " WHERE app=? AND lo<? ORDER BY lo DESC LIMIT 1";
  private static final String ABOVE = COLUMNS + " WHERE app=? AND lo>? ORDER BY lo LIMIT 1";
  /** {@link #ABOVE} reading ahead: the ranges after a bound, up to a number, in path order. */
  private static final String AHEAD = COLUMNS + " WHERE app=? AND lo>? ORDER BY lo LIMIT ?";
  /** The most ranges one read ahead takes ({@link #readAhead}). */
  static final int MAX_AHEAD = 256;
  private static final String FROM =
      COLUMNS + " WHERE app=? AND lo>? AND lo<? ORDER BY lo";
  private static final String PUT = "INSERT INTO " + TABLE + "(app, lo, hi, owner)"
      + " VALUES(?,?,?,?) ON CONFLICT(app, lo) DO UPDATE SET hi=excluded.hi, owner=excluded.owner";
  private static final String DELETE = "DELETE FROM " + TABLE + " WHERE app=? AND lo=?";
  private static final ByteKey LEAST = ByteKey.of(new byte[0]);
  /** Why a commit fails that would give a state a second owner. */
  static final String UNTRACKED_BUT_TRACKED = "a state the run saw untracked is already tracked"
      + " (was the state store changed by another process?)";

  /** The paths {@code [lo, hi)} whose stored states are {@code owner}'s. */
  record Range(byte[] lo, byte[] hi, byte[] owner) {
    boolean contains(byte[] path) {
      return Arrays.compareUnsigned(lo, path) <= 0 && Arrays.compareUnsigned(path, hi) < 0;
    }

    boolean ownedBy(byte[] o) {
      return Arrays.equals(owner, o);
    }
  }

  /** Prepares (and may cache) a statement on the transaction's connection. */
  interface Statements {
    StatementCache.Prepared prepare(Connection c, String sql) throws SQLException;
  }

  /** The states as the transaction leaves them, which the ranges must cover. */
  interface Holdings {
    boolean holds(byte[] owner, byte[] path) throws SQLException;

    /** {@code owner}'s greatest path below {@code path} and not below {@code floor}, or null. */
    byte[] below(byte[] owner, byte[] path, byte[] floor) throws SQLException;

    /** {@code owner}'s least path above {@code path} and below {@code ceiling}, or null. */
    byte[] above(byte[] owner, byte[] path, byte[] ceiling) throws SQLException;
  }

  private final Connection c;
  private final String app;
  private final Statements statements;
  /** The ranges as this view has them now, by {@code lo}: complete where {@link #covered}. */
  private final TreeMap<ByteKey, Range> live = new TreeMap<>(JdbcStateTables.IN_PATH_ORDER);
  /** Every stored range read, by {@code lo}, as stored. */
  private final Map<ByteKey, Range> stored = new HashMap<>();
  /**
   * Intervals {@code [start, end]} of {@code lo} values whose stored ranges were all read
   * (value null: no end), disjoint. {@link #LEAST} as a start means from the least path on.
   */
  private final TreeMap<ByteKey, ByteKey> covered = new TreeMap<>(JdbcStateTables.IN_PATH_ORDER);

  /**
   * The range the last {@link #join} left, and the {@code lo} of the range after it then (null:
   * none): while no other change comes between, the paths in that gap join it directly.
   */
  private Range lastJoined;
  private byte[] nextAfterLastJoined;
  /**
   * The last path that joined {@link #lastJoined} directly, which the range in {@link #live}
   * does not reach yet (null: none). A component's paths join one after another, and growing
   * the range in the map for each cost two searches of it and a key hashed twice, per state:
   * the range is grown once, before the map is next read ({@link #settleGrowth}).
   */
  private byte[] grownTo;
  /** Changes to {@link #live} other than growth, counted: the last join's is {@link #joinedAt}. */
  private long changes;
  private long joinedAt;
  /** Whether {@link #move} has changed the view: until then it is the ranges as stored. */
  private boolean moved;
  /**
   * Where the last read ahead ended ({@link #readAhead}: the {@code lo} of the last range it
   * read, null if it read to the end), how many ranges it asked for, and whether a look-up has
   * since landed on that last range. A look-up past it then is a scan in path order going on,
   * and the next read ahead asks for twice as many; scattered look-ups rarely land on it, and
   * read one at a time.
   */
  private ByteKey aheadEnd;
  private int ahead = 1;
  private boolean aheadUsed;

  OwnerRanges(Connection c, String app, Statements statements) {
    this.c = c;
    this.app = app;
    this.statements = statements;
  }

  static void createTable(Statement s) throws SQLException {
    s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + "(app TEXT NOT NULL, lo BLOB NOT NULL,"
        + " hi BLOB NOT NULL, owner BLOB NOT NULL, PRIMARY KEY(app, lo)) WITHOUT ROWID");
  }

  /** The least path above {@code path}: {@code [p, after(p))} holds {@code p} alone. */
  static byte[] after(byte[] path) {
    return Arrays.copyOf(path, path.length + 1);
  }

  /**
   * Writes the ranges of states listed by {@code (app, path, owner)} in app and path order: each
   * run of one owner's paths is one range. For the upgrades from a row per path.
   *
   * @return how many ranges were written
   */
  static long insertFrom(Connection c, ResultSet byAppAndPath) throws SQLException {
    long written = 0;
    try (PreparedStatement put = c.prepareStatement(PUT)) {
      String app = null;
      byte[] owner = null;
      byte[] lo = null;
      byte[] last = null;
      while (true) {
        boolean more = byAppAndPath.next();
        String nextApp = more ? byAppAndPath.getString(1) : null;
        byte[] path = more ? byAppAndPath.getBytes(2) : null;
        byte[] nextOwner = more ? byAppAndPath.getBytes(3) : null;
        if (lo != null && (!more || !nextApp.equals(app) || !Arrays.equals(nextOwner, owner))) {
          bind(put, app, new Range(lo, after(last), owner));
          put.addBatch();
          written++;
          lo = null;
        }
        if (!more) {
          break;
        }
        if (lo == null) {
          lo = path;
        }
        app = nextApp;
        owner = nextOwner;
        last = path;
      }
      put.executeBatch();
    }
    return written;
  }

  private static void bind(PreparedStatement ps, String app, Range r) throws SQLException {
    ps.setString(1, app);
    ps.setBytes(2, r.lo());
    ps.setBytes(3, r.hi());
    ps.setBytes(4, r.owner());
  }

  /** Visits one range. */
  interface RangeVisitor {
    void visit(Range r) throws SQLException;
  }

  /**
   * Visits the stored ranges that meet {@code [from, to)}, in path order. The statements come
   * from {@code statements}: the sweep's settles delete a tree per deleted state, and preparing
   * both queries anew each time was most of removing a million rows.
   */
  static void forEachStored(Connection c, Statements statements, String app, byte[] from,
      byte[] to, RangeVisitor visitor) throws SQLException {
    forEachStored(c, statements, app, from, to, true, visitor);
  }

  /**
   * As above; without {@code floor}, the range that {@code from} itself lies in (its owner's, if
   * {@code from} is stored) is left out.
   */
  static void forEachStored(Connection c, Statements statements, String app, byte[] from,
      byte[] to, boolean floor, RangeVisitor visitor) throws SQLException {
    if (floor) {
      visitFloor(c, statements, app, from, visitor);
    }
    try (StatementCache.Prepared p = statements.prepare(c, FROM)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, app);
      ps.setBytes(2, from);
      ps.setBytes(3, to);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          visitor.visit(new Range(rs.getBytes(1), rs.getBytes(2), rs.getBytes(3)));
        }
      }
    }
  }

  /**
   * Visits the stored range with the greatest {@code lo} at or before {@code from}, if it reaches
   * past {@code from}.
   */
  private static void visitFloor(Connection c, Statements statements, String app, byte[] from,
      RangeVisitor visitor) throws SQLException {
    try (StatementCache.Prepared p = statements.prepare(c, FLOOR)) {
      PreparedStatement floor = p.statement();
      floor.setString(1, app);
      floor.setBytes(2, from);
      try (ResultSet rs = floor.executeQuery()) {
        if (rs.next() && Arrays.compareUnsigned(rs.getBytes(2), from) > 0) {
          visitor.visit(new Range(rs.getBytes(1), rs.getBytes(2), rs.getBytes(3)));
        }
      }
    }
  }

  /** The range that holds {@code path}, or null: its owner is the only one that may own it. */
  Range containing(byte[] path) throws SQLException {
    settleGrowth();
    Range floor = floor(path);
    return floor != null && floor.contains(path) ? floor : null;
  }

  /** The range with the greatest {@code lo} not above {@code path}, or null. */
  private Range floor(byte[] path) throws SQLException {
    ByteKey key = ByteKey.of(path);
    Map.Entry<ByteKey, ByteKey> in = coverage(key);
    while (true) {
      Map.Entry<ByteKey, Range> f = live.floorEntry(key);
      if (f != null && JdbcStateTables.IN_PATH_ORDER.compare(f.getKey(), in.getKey()) >= 0) {
        noteLookUp(f.getKey());
        return f.getValue();
      }
      if (in.getKey().bytes().length == 0) { // covered from the least path on
        return null;
      }
      // Every range from the coverage's start on is gone: the floor lies further down.
      Range below = read(BELOW, in.getKey().bytes());
      in = cover(below == null ? LEAST : ByteKey.of(below.lo()), in.getValue());
    }
  }

  /** The range with the least {@code lo} above {@code path}, or null. */
  private Range ceiling(byte[] path) throws SQLException {
    ByteKey key = ByteKey.of(path);
    Map.Entry<ByteKey, ByteKey> in = coverage(key);
    while (true) {
      Map.Entry<ByteKey, Range> h = live.higherEntry(key);
      if (h != null && (in.getValue() == null
          || JdbcStateTables.IN_PATH_ORDER.compare(h.getKey(), in.getValue()) <= 0)) {
        noteLookUp(h.getKey());
        return h.getValue();
      }
      if (in.getValue() == null) {
        return null;
      }
      in = cover(in.getKey(), readAhead(in.getValue()));
    }
  }

  /**
   * Reads the stored ranges after {@code bound}: one, or, when this goes on where the last read
   * ahead ended and a look-up used its last range, twice as many as that one (up to {@link
   * #MAX_AHEAD}). A removal looks up each path it deletes, and the ranges below it, one after
   * another: a query or two per deleted path were most of a removal's writes.
   *
   * @return the {@code lo} of the last range read (all ranges with {@code lo} in {@code (bound,
   *     that]} are now read), or null when none is left after {@code bound}
   */
  private ByteKey readAhead(ByteKey bound) throws SQLException {
    ahead = aheadUsed && bound.equals(aheadEnd) ? Math.min(ahead * 2, MAX_AHEAD) : 1;
    aheadUsed = false;
    if (ahead == 1) {
      Range above = read(ABOVE, bound.bytes());
      aheadEnd = above == null ? null : ByteKey.of(above.lo());
      return aheadEnd;
    }
    int read = 0;
    Range last = null;
    try (StatementCache.Prepared p = statements.prepare(c, AHEAD)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, app);
      ps.setBytes(2, bound.bytes());
      ps.setInt(3, ahead);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          last = keep(new Range(rs.getBytes(1), rs.getBytes(2), rs.getBytes(3)));
          read++;
        }
      }
    }
    aheadEnd = read < ahead ? null : ByteKey.of(last.lo());
    return aheadEnd;
  }

  /**
   * Visits the ranges, as stored, that meet {@code [from, to)}, in path order, as {@link
   * #forEachStored} does, but from this view: the store is read only where the view has not read
   * it yet. Only while the view is as stored (before any {@link #move}).
   *
   * @param floor whether to visit the range {@code from} itself lies in (left out: its owner is
   *     known to the caller)
   */
  void forEachIn(byte[] from, byte[] to, boolean floor, RangeVisitor visitor)
      throws SQLException {
    if (moved) {
      throw new IllegalStateException("the owner ranges were moved: they are no longer as stored");
    }
    if (floor) {
      Range f = floor(from);
      if (f != null && Arrays.compareUnsigned(f.hi(), from) > 0) {
        visitor.visit(f);
      }
    }
    for (Range r = ceiling(from); r != null && Arrays.compareUnsigned(r.lo(), to) < 0;
        r = ceiling(r.lo())) {
      visitor.visit(r);
    }
  }

  /**
   * The covered interval holding {@code key}, read from the store around it if none does: on
   * from the interval before it when a scan in path order is going on there, else from the
   * range {@code key} lies in.
   */
  private Map.Entry<ByteKey, ByteKey> coverage(ByteKey key) throws SQLException {
    Map.Entry<ByteKey, ByteKey> in = covered.floorEntry(key);
    if (in != null && reaches(in.getValue(), key)) {
      return in;
    }
    if (in != null && aheadUsed && in.getValue().equals(aheadEnd)) {
      in = cover(in.getKey(), readAhead(in.getValue()));
      if (reaches(in.getValue(), key)) {
        return in;
      }
    }
    Range floor = read(FLOOR, key.bytes());
    return cover(floor == null ? LEAST : ByteKey.of(floor.lo()), readAhead(key));
  }

  /** Notes a look-up answered by the range at {@code lo}: the last one read ahead, perhaps. */
  private void noteLookUp(ByteKey lo) {
    if (!aheadUsed && lo.equals(aheadEnd)) {
      aheadUsed = true;
    }
  }

  /** Records that the stored ranges with {@code lo} in {@code [start, end]} were all read. */
  private Map.Entry<ByteKey, ByteKey> cover(ByteKey start, ByteKey end) {
    Map.Entry<ByteKey, ByteKey> before = covered.floorEntry(start);
    if (before != null && reaches(before.getValue(), start)) {
      start = before.getKey();
      end = later(end, before.getValue());
    }
    while (true) { // absorb the intervals that start inside this one
      Map.Entry<ByteKey, ByteKey> next = covered.higherEntry(start);
      if (next == null || !reaches(end, next.getKey())) {
        break;
      }
      covered.remove(next.getKey());
      end = later(end, next.getValue());
    }
    covered.put(start, end);
    return new AbstractMap.SimpleImmutableEntry<>(start, end);
  }

  /** Whether an interval ending at {@code end} (null: no end) reaches {@code key}. */
  private static boolean reaches(ByteKey end, ByteKey key) {
    return end == null || JdbcStateTables.IN_PATH_ORDER.compare(end, key) >= 0;
  }

  /** The later of two ends, null being no end. */
  private static ByteKey later(ByteKey a, ByteKey b) {
    if (a == null || b == null) {
      return null;
    }
    return JdbcStateTables.IN_PATH_ORDER.compare(a, b) >= 0 ? a : b;
  }

  /** One stored range by {@code sql}, kept in the view unless this view read it before. */
  private Range read(String sql, byte[] bound) throws SQLException {
    Range r = null;
    try (StatementCache.Prepared p = statements.prepare(c, sql)) {
      PreparedStatement ps = p.statement();
      ps.setString(1, app);
      ps.setBytes(2, bound);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          r = new Range(rs.getBytes(1), rs.getBytes(2), rs.getBytes(3));
        }
      }
    }
    return r == null ? null : keep(r);
  }

  /** Keeps a range read from the store in the view, unless this view read it before. */
  private Range keep(Range r) {
    ByteKey lo = ByteKey.of(r.lo());
    if (stored.putIfAbsent(lo, r) == null) {
      live.put(lo, r);
      changes++;
    }
    return r;
  }

  private void remove(Range r) {
    live.remove(ByteKey.of(r.lo()));
    changes++;
  }

  private void add(Range r) {
    live.put(ByteKey.of(r.lo()), r);
    changes++;
  }

  /** Puts {@link #lastJoined}, grown to the paths that joined it since, in {@link #live}. */
  private void settleGrowth() {
    if (grownTo != null) {
      Range grown = new Range(lastJoined.lo(), after(grownTo), lastJoined.owner());
      live.put(ByteKey.of(grown.lo()), grown); // the same lo: it replaces lastJoined
      lastJoined = grown;
      grownTo = null;
    }
  }

  /**
   * Records that {@code path} passes from {@code from} to {@code to} (null: no owner), after the
   * chunks were changed so: calls come in path order, for each path whose owner changed.
   *
   * @throws SQLException when {@code from} is null but another owner's chunks hold the path (a
   *     tracking the caller did not see)
   */
  void move(byte[] path, byte[] from, byte[] to, Holdings holdings) throws SQLException {
    moved = true;
    if (from != null) {
      settleGrowth();
      lastJoined = null;
      leave(path, from, holdings);
    }
    if (to != null) {
      join(path, to, holdings);
    }
  }

  /** {@code path} is no longer {@code owner}'s: an end of its range moves in to stay tight. */
  private void leave(byte[] path, byte[] owner, Holdings holdings) throws SQLException {
    Range r = containing(path);
    if (r == null || !r.ownedBy(owner)) {
      return; // its range was already narrowed past it
    }
    boolean atLo = Arrays.equals(r.lo(), path);
    boolean atEnd = Arrays.equals(r.hi(), after(path));
    if (!atLo && !atEnd) {
      return; // a gap inside the range, which rule 3 allows
    }
    remove(r);
    byte[] lo = r.lo();
    byte[] hi = r.hi();
    if (atLo) {
      lo = holdings.above(owner, path, r.hi());
    }
    if (atEnd && lo != null) {
      byte[] last = holdings.below(owner, path, lo);
      hi = last == null ? null : after(last);
    }
    if (lo != null && hi != null) {
      add(new Range(lo, hi, owner));
    }
  }

  /** {@code path} becomes {@code owner}'s: into a range of its own, joined to its neighbours'. */
  private void join(byte[] path, byte[] owner, Holdings holdings) throws SQLException {
    if (lastJoined != null && joinedAt == changes && lastJoined.ownedBy(owner)
        && (grownTo != null ? Arrays.compareUnsigned(path, grownTo) > 0
            : Arrays.compareUnsigned(path, lastJoined.hi()) >= 0)
        && (nextAfterLastJoined == null
            || Arrays.compareUnsigned(path, nextAfterLastJoined) < 0)) {
      // The common case, an owner's new paths one after another: the path lies in the gap
      // between the range just joined and the next one (nothing else changed the ranges since),
      // so that range grows to it.
      grownTo = path;
      return;
    }
    settleGrowth();
    lastJoined = null;
    Range r = containing(path);
    if (r != null) {
      if (r.ownedBy(owner)) {
        return;
      }
      if (holdings.holds(r.owner(), path)) {
        throw new SQLException(UNTRACKED_BUT_TRACKED);
      }
      // The path lies in a gap of another owner's range: that range parts around it.
      remove(r);
      byte[] last = holdings.below(r.owner(), path, r.lo());
      if (last != null) {
        add(new Range(r.lo(), after(last), r.owner()));
      }
      byte[] next = holdings.above(r.owner(), path, r.hi());
      if (next != null) {
        add(new Range(next, r.hi(), r.owner()));
      }
    }
    Range prev = floor(path);
    Range next = ceiling(path);
    boolean joinsPrev = prev != null && prev.ownedBy(owner);
    boolean joinsNext = next != null && next.ownedBy(owner);
    byte[] lo = path;
    byte[] hi = after(path);
    if (joinsPrev) {
      remove(prev);
      lo = prev.lo();
    }
    if (joinsNext) {
      remove(next);
      hi = next.hi();
    }
    Range joined = new Range(lo, hi, owner);
    add(joined);
    if (!joinsNext) { // the gap up to the next range, as read, is known to be free
      lastJoined = joined;
      nextAfterLastJoined = next == null ? null : next.lo();
      joinedAt = changes;
    }
  }

  /** Writes what this view changed: ranges gone, moved or new. */
  void write(JdbcStateTables.StatementBatches out) throws SQLException {
    settleGrowth();
    for (Map.Entry<ByteKey, Range> e : stored.entrySet()) {
      if (!live.containsKey(e.getKey())) {
        PreparedStatement del = out.use(DELETE);
        del.setString(1, app);
        del.setBytes(2, e.getValue().lo());
        del.addBatch();
      }
    }
    for (Map.Entry<ByteKey, Range> e : live.entrySet()) {
      if (stored.get(e.getKey()) != e.getValue()) {
        PreparedStatement put = out.use(PUT);
        bind(put, app, e.getValue());
        put.addBatch();
      }
    }
  }
}
