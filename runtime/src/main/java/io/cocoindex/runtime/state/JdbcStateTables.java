package io.cocoindex.runtime.state;

import io.cocoindex.runtime.codec.KeyEncoding;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The SQL of the state tables, shared by the JDBC stores (SQLite, PostgreSQL): reads, the
 * application of a write batch inside the caller's transaction, run versions. Both dialects speak
 * {@code INSERT ... ON CONFLICT DO UPDATE} and compare byte strings bytewise, so paths scan in
 * key order and a container's descendants are one range.
 *
 * <p>Tables: {@code <prefix>app(name, next_version)}, {@code <prefix>target_state(app, path,
 * owner, records, child_gen, child_epoch, parent_gen, parent_epoch)} keyed by (app, path) with an
 * index on (app, owner), {@code <prefix>component(app, path, memo_fp, memo_deps, memo_values,
 * state_count)}.
 */
public final class JdbcStateTables {
  static final String STATE_COLUMNS =
      "path, owner, records, child_gen, child_epoch, parent_gen, parent_epoch";
  private static final String COMPONENT_COLUMNS =
      "path, memo_fp, memo_deps, memo_values, state_count";

  private final String apps;
  private final String states;
  private final String components;
  private final String forUpdate;

  /**
   * @param prefix prepended to the table names ({@code ""} or {@code "cocoindex_"})
   * @param lockRowsForUpdate read rows {@code FOR UPDATE} before rewriting them (PostgreSQL,
   *     where several workers write concurrently)
   */
  public JdbcStateTables(String prefix, boolean lockRowsForUpdate) {
    this.apps = prefix + "app";
    this.states = prefix + "target_state";
    this.components = prefix + "component";
    this.forUpdate = lockRowsForUpdate ? " FOR UPDATE" : "";
  }

  public String appTable() {
    return apps;
  }

  public String stateTable() {
    return states;
  }

  public String componentTable() {
    return components;
  }

  private static TrackedState state(ResultSet rs) throws SQLException {
    return new TrackedState(
        rs.getBytes(1),
        rs.getBytes(2),
        RecordListEncoding.decode(rs.getBytes(3)),
        rs.getLong(4),
        rs.getLong(5),
        rs.getLong(6),
        rs.getLong(7));
  }

  private static ComponentRecord component(ResultSet rs) throws SQLException {
    return new ComponentRecord(
        rs.getBytes(1), rs.getBytes(2), rs.getBytes(3), rs.getBytes(4), rs.getLong(5));
  }

  /** Allocates the next run version of {@code app}; call inside a transaction. */
  public long nextVersion(Connection c, String app) throws SQLException {
    try (PreparedStatement up = c.prepareStatement(
            "INSERT INTO " + apps + "(name, next_version) VALUES(?, 2) ON CONFLICT(name)"
                + " DO UPDATE SET next_version = " + apps + ".next_version + 1");
        PreparedStatement get =
            c.prepareStatement("SELECT next_version FROM " + apps + " WHERE name=?")) {
      up.setString(1, app);
      up.executeUpdate();
      get.setString(1, app);
      try (ResultSet rs = get.executeQuery()) {
        rs.next();
        return rs.getLong(1) - 1;
      }
    }
  }

  public Optional<TrackedState> get(Connection c, String app, byte[] path) throws SQLException {
    return Optional.ofNullable(read(c, app, path, ""));
  }

  private TrackedState read(Connection c, String app, byte[] path, String suffix)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + STATE_COLUMNS + " FROM " + states + " WHERE app=? AND path=?" + suffix)) {
      ps.setString(1, app);
      ps.setBytes(2, path);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? state(rs) : null;
      }
    }
  }

  public List<TrackedState> getAll(Connection c, String app, Collection<byte[]> paths)
      throws SQLException {
    List<TrackedState> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + STATE_COLUMNS + " FROM " + states + " WHERE app=? AND path=?")) {
      for (byte[] path : paths) {
        ps.setString(1, app);
        ps.setBytes(2, path);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            out.add(state(rs));
          }
        }
      }
    }
    return out;
  }

  public List<TrackedState> ownedBy(Connection c, String app, byte[] owner) throws SQLException {
    List<TrackedState> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + STATE_COLUMNS + " FROM " + states + " WHERE app=? AND owner=?")) {
      ps.setString(1, app);
      ps.setBytes(2, owner);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(state(rs));
        }
      }
    }
    return out;
  }

  public void scan(Connection c, String app, byte[] path, Consumer<TrackedState> visitor)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + STATE_COLUMNS + " FROM " + states
            + " WHERE app=? AND path>=? AND path<? ORDER BY path")) {
      ps.setString(1, app);
      ps.setBytes(2, path);
      ps.setBytes(3, KeyEncoding.descendantsEnd(path));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          visitor.accept(state(rs));
        }
      }
    }
  }

  public Optional<ComponentRecord> component(Connection c, String app, byte[] path)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + COMPONENT_COLUMNS + " FROM " + components + " WHERE app=? AND path=?")) {
      ps.setString(1, app);
      ps.setBytes(2, path);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(component(rs)) : Optional.empty();
      }
    }
  }

  public List<ComponentRecord> components(Connection c, String app) throws SQLException {
    List<ComponentRecord> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT " + COMPONENT_COLUMNS + " FROM " + components + " WHERE app=? ORDER BY path")) {
      ps.setString(1, app);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(component(rs));
        }
      }
    }
    return out;
  }

  public List<String> apps(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT DISTINCT app FROM " + states
            + " UNION SELECT DISTINCT app FROM " + components + " ORDER BY 1")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /** Forgets everything of {@code app}; call inside a transaction. */
  public void clear(Connection c, String app) throws SQLException {
    for (String sql : List.of("DELETE FROM " + states + " WHERE app=?",
        "DELETE FROM " + components + " WHERE app=?", "DELETE FROM " + apps + " WHERE name=?")) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, app);
        ps.executeUpdate();
      }
    }
  }

  /** Applies one batch of writes of {@code app}, inside the caller's transaction. */
  public void apply(Connection c, String app, List<StateWrite> writes) throws SQLException {
    try (PreparedStatement put = c.prepareStatement(
            "INSERT INTO " + states + "(app, " + STATE_COLUMNS + ") VALUES(?,?,?,?,?,?,?,?)"
                + " ON CONFLICT(app, path) DO UPDATE SET owner=excluded.owner,"
                + " records=excluded.records, child_gen=excluded.child_gen,"
                + " child_epoch=excluded.child_epoch, parent_gen=excluded.parent_gen,"
                + " parent_epoch=excluded.parent_epoch");
        PreparedStatement del =
            c.prepareStatement("DELETE FROM " + states + " WHERE app=? AND path=?");
        PreparedStatement delBelow =
            c.prepareStatement("DELETE FROM " + states + " WHERE app=? AND path>? AND path<?");
        PreparedStatement putComp = c.prepareStatement(
            "INSERT INTO " + components + "(app, " + COMPONENT_COLUMNS + ") VALUES(?,?,?,?,?,?)"
                + " ON CONFLICT(app, path) DO UPDATE SET memo_fp=excluded.memo_fp,"
                + " memo_deps=excluded.memo_deps, memo_values=excluded.memo_values,"
                + " state_count=excluded.state_count");
        PreparedStatement delComp =
            c.prepareStatement("DELETE FROM " + components + " WHERE app=? AND path=?")) {
      SQLException[] readFailure = new SQLException[1];
      for (StateWrite w0 : writes) {
        StateWrite w = StateWrites.resolve(w0, path -> {
          try {
            return read(c, app, path, forUpdate);
          } catch (SQLException e) {
            readFailure[0] = e;
            return null;
          }
        });
        if (readFailure[0] != null) {
          throw readFailure[0];
        }
        if (w == null) {
          continue;
        }
        if (w instanceof StateWrite.PutState ps) {
          TrackedState s = ps.state();
          put.setString(1, app);
          put.setBytes(2, s.path());
          put.setBytes(3, s.owner());
          put.setBytes(4, RecordListEncoding.encode(s.records()));
          put.setLong(5, s.childGeneration());
          put.setLong(6, s.childEpoch());
          put.setLong(7, s.parentGeneration());
          put.setLong(8, s.parentEpoch());
          put.executeUpdate();
        } else if (w instanceof StateWrite.DeleteState ds) {
          delete(del, app, ds.path());
        } else if (w instanceof StateWrite.DeleteTree dt) {
          delete(del, app, dt.path());
          deleteBelow(delBelow, app, dt.path());
        } else if (w instanceof StateWrite.DeleteDescendants dd) {
          deleteBelow(delBelow, app, dd.path());
        } else if (w instanceof StateWrite.PutComponent pc) {
          ComponentRecord r = pc.component();
          putComp.setString(1, app);
          putComp.setBytes(2, r.path());
          putComp.setBytes(3, r.memoFingerprint());
          putComp.setBytes(4, r.memoDependencies());
          putComp.setBytes(5, r.memoValues());
          putComp.setLong(6, r.stateCount());
          putComp.executeUpdate();
        } else if (w instanceof StateWrite.DeleteComponent dc) {
          delete(delComp, app, dc.path());
        }
      }
    }
  }

  private static void delete(PreparedStatement ps, String app, byte[] path) throws SQLException {
    ps.setString(1, app);
    ps.setBytes(2, path);
    ps.executeUpdate();
  }

  private static void deleteBelow(PreparedStatement ps, String app, byte[] path)
      throws SQLException {
    ps.setString(1, app);
    ps.setBytes(2, path);
    ps.setBytes(3, KeyEncoding.descendantsEnd(path));
    ps.executeUpdate();
  }
}
