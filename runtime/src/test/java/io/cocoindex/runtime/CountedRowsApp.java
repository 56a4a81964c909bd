package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.CountingConnection.RoundTrip;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An app of components declaring a row each ({@code k-0000=v}, ...), on the shared store in a
 * test's schema whose connections count every round trip they make: what the round-trip tests of
 * whole runs measure.
 */
final class CountedRowsApp {
  final Rows rows = new Rows();
  /** The store's round trips, in order; a test clears it before the run it counts. */
  final List<RoundTrip> roundTrips = Collections.synchronizedList(new ArrayList<>());
  final App app;
  private final ThrowawaySchema schema;

  private CountedRowsApp(ThrowawaySchema schema, String name, int components) {
    this.schema = schema;
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url());
    PostgresStateStore store = schema.closeLast(
        PostgresStateStore.open(CountingConnection.dataSource(ds, roundTrips)));
    app = schema.closeLast(App.create(name, Environment.builder().stateStore(store).build(),
        ctx -> {
          TargetStateProvider<String> p =
              registerRootTargetStatesProvider(ctx, "rows", rows.handler);
          for (int i = 0; i < components; i++) {
            String key = String.format("k-%04d", i);
            ctx.mount(key, c -> declareTargetState(c, p.targetState(key, "v")));
          }
        }));
  }

  /**
   * Opens the app in {@code schema}, which closes it and its store after the test.
   *
   * @param name the app's name
   * @param components how many components its main mounts
   */
  static CountedRowsApp open(ThrowawaySchema schema, String name, int components) {
    return new CountedRowsApp(schema, name, components);
  }

  /** The JDBC URL of the app's schema, for reading its tables directly. */
  String url() {
    return schema.url();
  }
}
