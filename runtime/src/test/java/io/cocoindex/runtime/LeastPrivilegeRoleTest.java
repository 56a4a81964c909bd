package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStoreException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The shared store in a deployment whose workers' role has row rights only ({@code SELECT,
 * INSERT, UPDATE, DELETE} on the store's tables), a role that may create tables having opened
 * the store once: the workers open it and run, with no DDL statement. PostgreSQL refuses {@code
 * CREATE TABLE IF NOT EXISTS} without the schema's {@code CREATE} right even when the table
 * exists, so such a role could not open the store at all.
 */
class LeastPrivilegeRoleTest {
  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("dml_");
  private String server;
  private String schema;
  private String role;

  @BeforeEach
  void createRole() throws SQLException {
    server = pg.serverUrl();
    schema = pg.name();
    role = "worker_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    execute("CREATE ROLE " + role + " LOGIN PASSWORD 'worker'");
    // A role is the server's, not the schema's: dropped before the schema, DROP OWNED BY first
    // taking its rights on the schema and its tables (DROP ROLE refuses a role that has any).
    pg.closeLast(() -> execute("DROP OWNED BY " + role, "DROP ROLE " + role));
    execute("GRANT USAGE ON SCHEMA " + schema + " TO " + role);
  }

  @Test
  void aWorkerWithRowRightsOnlyRunsTheAppOnAStoreARoleThatMayCreateTablesOpenedOnce()
      throws Exception {
    PostgresStateStore.open(TestPostgres.inSchema(server, schema)).close();
    execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + schema + " TO "
        + role);
    Rows rows = new Rows();
    Map<String, String> source = new TreeMap<>(Map.of("a", "1", "b", "2", "c", "3"));

    try (PostgresStateStore store = PostgresStateStore.open(asWorker());
        App app = App.create("docs", Environment.builder().stateStore(store).build(), ctx -> {
          TargetStateProvider<String> p =
              registerRootTargetStatesProvider(ctx, "rows", rows.handler);
          source.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, p.targetState(k, v))));
        })) {
      app.update();
      assertThat(rows.takeLog()).containsExactly("create a=1", "create b=2", "create c=3");

      source.put("b", "20");
      source.remove("c");
      app.update();
      assertThat(rows.takeLog()).containsExactly("delete c", "update b=20");

      app.update();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  @Test
  void aRoleThatMayNotCreateTheMissingTablesIsToldWhatOpensTheStore() {
    StateStoreException refused =
        assertThrows(StateStoreException.class, () -> PostgresStateStore.open(asWorker()));

    assertThat(refused.getMessage())
        .contains(" lacks cocoindex_meta, cocoindex_app, cocoindex_target_state,"
            + " cocoindex_target_state_owner, cocoindex_claim, cocoindex_run_end,"
            + " cocoindex_run_end_ended_at, cocoindex_component, and the connection's role may"
            + " not make them (ERROR: permission denied for schema " + schema)
        .endsWith("open the store once with a role that may create tables in its schema (the"
            + " database's owner, say); after that, SELECT, INSERT, UPDATE and DELETE on the"
            + " cocoindex_* tables are all a worker's role needs");
  }

  /** A store made before claims named their run needs its owner's ALTER once, and says so. */
  @Test
  void aStoreWhoseClaimsLackTheirRunColumnsNamesThemToARoleThatMayNotAddThem() throws Exception {
    PostgresStateStore.open(TestPostgres.inSchema(server, schema)).close();
    execute("ALTER TABLE " + schema + ".cocoindex_claim DROP COLUMN run_version,"
            + " DROP COLUMN run_claimed_at, DROP COLUMN run_finished_at",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + schema + " TO "
            + role);

    StateStoreException refused =
        assertThrows(StateStoreException.class, () -> PostgresStateStore.open(asWorker()));

    assertThat(refused.getMessage()).contains(" lacks cocoindex_claim's run columns, and the"
        + " connection's role may not make them (ERROR: must be owner of table cocoindex_claim)");
    PostgresStateStore.open(TestPostgres.inSchema(server, schema)).close(); // the owner adds them
    PostgresStateStore.open(asWorker()).close();
  }

  private PGSimpleDataSource asWorker() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(TestPostgres.inSchema(server, schema));
    ds.setUser(role);
    ds.setPassword("worker");
    return ds;
  }

  private void execute(String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection(server); Statement s = c.createStatement()) {
      for (String sql : List.of(statements)) {
        s.execute(sql);
      }
    }
  }
}
