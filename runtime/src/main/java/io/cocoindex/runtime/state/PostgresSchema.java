package io.cocoindex.runtime.state;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The PostgreSQL store's tables and indexes in the connection's current schema: made on first
 * use, brought up to date by a version that added to them, and left alone when they are both.
 * A store whose tables are there and current opens without a DDL statement, so the workers of a
 * deployment may use a role with row rights only ({@code SELECT, INSERT, UPDATE, DELETE}) once a
 * role that may create tables in the schema opened it: {@code CREATE TABLE IF NOT EXISTS} needs
 * the schema's {@code CREATE} right even when the table exists, and {@code CREATE INDEX IF NOT
 * EXISTS} the table's ownership.
 */
final class PostgresSchema {
  /** The version of the store's layout written in {@code cocoindex_meta}. */
  static final int VERSION = 1;

  /** The SQLState of "insufficient privilege". */
  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  private static final String META = "cocoindex_meta";
  private static final String CLAIMS = "cocoindex_claim";
  private static final String RUN_ENDS = "cocoindex_run_end";

  /** A table or index of the store, and the statement that makes it unless it exists. */
  private record Relation(String name, String ddl) {}

  private final List<Relation> relations;
  private final String description;

  /**
   * The layout of a store whose tables are named by {@code tables}.
   *
   * @param tables the store's table names
   * @param description the store, as messages name it
   */
  PostgresSchema(JdbcStateTables tables, String description) {
    this.description = description;
    String states = tables.stateTable();
    this.relations = List.of(
        new Relation(META, "CREATE TABLE IF NOT EXISTS " + META
            + "(key TEXT PRIMARY KEY, value TEXT NOT NULL)"),
        new Relation(tables.appTable(), "CREATE TABLE IF NOT EXISTS " + tables.appTable()
            + "(name TEXT PRIMARY KEY, next_version BIGINT NOT NULL)"),
        new Relation(states, "CREATE TABLE IF NOT EXISTS " + states
            + "(app TEXT NOT NULL, path BYTEA NOT NULL, owner BYTEA NOT NULL,"
            + " records BYTEA NOT NULL, child_gen BIGINT NOT NULL, child_epoch BIGINT NOT NULL,"
            + " parent_gen BIGINT NOT NULL, parent_epoch BIGINT NOT NULL,"
            + " PRIMARY KEY(app, path))"),
        new Relation(states + "_owner", "CREATE INDEX IF NOT EXISTS " + states + "_owner ON "
            + states + "(app, owner)"),
        new Relation(CLAIMS, "CREATE TABLE IF NOT EXISTS " + CLAIMS + "(app TEXT NOT NULL,"
            + " path BYTEA NOT NULL, claimed_at TIMESTAMPTZ NOT NULL, run_version BIGINT,"
            + " run_claimed_at TIMESTAMPTZ, run_finished_at TIMESTAMPTZ,"
            + " PRIMARY KEY(app, path))"),
        // A run's end at its version; at the version's negation, when a worker first saw the
        // run's lock missing with no end recorded (its grace counted from then: PostgresRuns).
        new Relation(RUN_ENDS, "CREATE TABLE IF NOT EXISTS " + RUN_ENDS + "(app TEXT NOT NULL,"
            + " version BIGINT NOT NULL, ended_at TIMESTAMPTZ NOT NULL,"
            + " PRIMARY KEY(app, version))"),
        // Each run's end prunes the app's ends older than RUN_ENDS_KEPT (PostgresRuns) by this
        // index.
        new Relation(RUN_ENDS + "_ended_at", "CREATE INDEX IF NOT EXISTS " + RUN_ENDS
            + "_ended_at ON " + RUN_ENDS + "(app, ended_at)"),
        new Relation(tables.componentTable(), "CREATE TABLE IF NOT EXISTS "
            + tables.componentTable() + "(app TEXT NOT NULL, path BYTEA NOT NULL,"
            + " memo_fp BYTEA, memo_deps BYTEA, memo_values BYTEA,"
            + " state_count BIGINT NOT NULL, PRIMARY KEY(app, path))"));
  }

  /**
   * Makes what is missing of the layout, or checks that nothing is, on {@code s}'s connection
   * within its transaction (the caller holds the lock that serializes this across workers).
   *
   * @param s a statement of the store's schema connection
   * @throws StateStoreException when the tables were written by a newer cocoindex, or something
   *     is missing that the connection's role may not create
   * @throws SQLException if the database fails otherwise
   */
  void makeOrCheck(Statement s) throws SQLException {
    Set<String> present = present(s);
    Integer stored = present.contains(META) ? storedVersion(s) : null;
    if (stored != null && stored > VERSION) {
      throw new StateStoreException("the PostgreSQL state store " + description
          + " was written by a newer cocoindex (schema version " + stored
          + "; this version understands " + VERSION + "): upgrade cocoindex");
    }
    List<String> missing = new ArrayList<>();
    for (Relation r : relations) {
      if (!present.contains(r.name())) {
        missing.add(r.name());
      }
    }
    boolean claimsCurrent = !present.contains(CLAIMS) || claimsNameTheirRun(s);
    if (stored != null && missing.isEmpty() && claimsCurrent) {
      return;
    }
    List<String> lacking = new ArrayList<>(missing);
    if (!claimsCurrent) {
      lacking.add(CLAIMS + "'s run columns");
    }
    if (stored == null && present.contains(META)) {
      lacking.add("its schema version");
    }
    try {
      // Only what is missing: an index of a table the role does not own is not made again.
      for (Relation r : relations) {
        if (missing.contains(r.name())) {
          s.execute(r.ddl());
        }
      }
      if (!claimsCurrent) {
        addClaimsRunColumns(s);
      }
      if (stored == null) {
        s.execute("INSERT INTO " + META + "(key, value) VALUES('schema_version', '" + VERSION
            + "') ON CONFLICT (key) DO NOTHING");
      }
    } catch (SQLException e) {
      if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        throw new StateStoreException("the PostgreSQL state store " + description
            + " lacks " + String.join(", ", lacking) + ", and the connection's role may not"
            + " make them (" + e.getMessage().lines().findFirst().orElse("")
            + "): open the store once with a role that may"
            + " create tables in its schema (the database's owner, say); after that, SELECT,"
            + " INSERT, UPDATE and DELETE on the cocoindex_* tables are all a worker's role"
            + " needs", e);
      }
      throw e;
    }
  }

  /** The names of the layout's relations that exist in the current schema. */
  private Set<String> present(Statement s) throws SQLException {
    List<String> names = new ArrayList<>();
    relations.forEach(r -> names.add(r.name()));
    Set<String> out = new HashSet<>();
    // pg_class, not to_regclass: a relation of the name in another schema of the search path
    // would not be the store's.
    try (PreparedStatement ps = s.getConnection().prepareStatement("SELECT relname FROM pg_class"
        + " WHERE relnamespace = current_schema()::regnamespace AND relname = ANY(?)")) {
      Array array = s.getConnection().createArrayOf("text", names.toArray());
      ps.setArray(1, array);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static Integer storedVersion(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery(
        "SELECT value FROM " + META + " WHERE key='schema_version'")) {
      return rs.next() ? Integer.valueOf(Integer.parseInt(rs.getString(1))) : null;
    }
  }

  /** Whether the claims have the columns that name their run (added after the table). */
  private static boolean claimsNameTheirRun(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.columns"
        + " WHERE table_schema = current_schema() AND table_name = '" + CLAIMS + "'"
        + " AND column_name IN ('run_version', 'run_claimed_at', 'run_finished_at')")) {
      rs.next();
      return rs.getInt(1) == 3;
    }
  }

  /**
   * Adds the run to the claims of a store made before claims named it: an older worker on the
   * store writes none there (its claims are kept as before: never taken over), and reads none.
   * An older worker claiming over a claim that names a run moves its claimed_at only: the run is
   * trusted only with the claimed_at written with it ({@code run_claimed_at}). A claim's run
   * marks it finished as it gives the component back, by copying its claimed_at to {@code
   * run_finished_at}: a worker of the version before, claiming over a claim so marked, leaves
   * the mark (it writes the other columns only), which then no longer matches its claim's time.
   * Run only when they are missing ({@link #claimsNameTheirRun}): the {@code ALTER} would wait
   * for every claim being written.
   */
  private static void addClaimsRunColumns(Statement s) throws SQLException {
    s.execute("ALTER TABLE " + CLAIMS + " ADD COLUMN IF NOT EXISTS run_version BIGINT,"
        + " ADD COLUMN IF NOT EXISTS run_claimed_at TIMESTAMPTZ,"
        + " ADD COLUMN IF NOT EXISTS run_finished_at TIMESTAMPTZ");
  }
}
