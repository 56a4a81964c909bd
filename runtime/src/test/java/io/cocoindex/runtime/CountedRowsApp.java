package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.CountingConnection.RoundTrip;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An app of components declaring a row each ({@code k-0000=v}, ...), on the shared store in a
 * schema of its own whose connections count every round trip they make: what the round-trip
 * tests of whole runs measure.
 */
final class CountedRowsApp implements AutoCloseable {
  final Rows rows = new Rows();
  /** The store's round trips, in order; a test clears it before the run it counts. */
  final List<RoundTrip> roundTrips = Collections.synchronizedList(new ArrayList<>());
  final App app;
  private final String server;
  private final String schema;
  private final PostgresStateStore store;

  private CountedRowsApp(String name, int components) throws Exception {
    server = TestPostgres.url();
    schema = "t_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = DriverManager.getConnection(server); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url());
    store = PostgresStateStore.open(CountingConnection.dataSource(ds, roundTrips));
    app = App.create(name, Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < components; i++) {
        String key = String.format("k-%04d", i);
        ctx.mount(key, c -> declareTargetState(c, p.targetState(key, "v")));
      }
    });
  }

  /**
   * Opens the app on the test server (skipping the test without one).
   *
   * @param name the app's name
   * @param components how many components its main mounts
   */
  static CountedRowsApp open(String name, int components) throws Exception {
    return new CountedRowsApp(name, components);
  }

  /** The JDBC URL of the app's schema, for reading its tables directly. */
  String url() {
    return TestPostgres.inSchema(server, schema);
  }

  @Override
  public void close() throws SQLException {
    try {
      app.close();
      store.close();
    } finally {
      try (Connection c = DriverManager.getConnection(server);
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }
}
