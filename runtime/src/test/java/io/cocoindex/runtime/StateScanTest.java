package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.StateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A scan of every tracked state (a drop's, a status's) holds a part of them at a time. */
class StateScanTest extends EngineTestBase {
  final Rows rows = new Rows();

  @Test
  void theSharedStoreIsScannedInPartsNotReadWhole() throws Exception {
    Assumptions.assumeTrue(ON_POSTGRES, "the embedded store's driver steps through its rows");
    // PostgreSQL's driver reads a whole result into memory unless it fetches it in parts, which
    // it does only inside a transaction: a drop of 500,000 states held them all at once. Read
    // in parts, the scan's session is still in its transaction when the first state is visited;
    // read whole, its statement is over and the session idle.
    int states = 6_000;
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> {
        for (int i = 0; i < states; i++) {
          declareTargetState(c, p.targetState(String.format("k%05d", i), "v"));
        }
      });
    });
    app.update();
    assertThat(rows.takeLog()).hasSize(states);

    StateStore store = store();
    List<String> sessionsAtFirstState = new ArrayList<>();
    int[] visited = {0};
    store.scan("test", new byte[0], s -> {
      if (visited[0]++ == 0) {
        sessionsAtFirstState.addAll(scanSessions());
      }
    });
    assertThat(visited[0]).isEqualTo(states);
    assertThat(sessionsAtFirstState).contains("idle in transaction");
  }

  /** The states of the server sessions whose last statement is a scan of target states. */
  private static List<String> scanSessions() {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(TestPostgres.url());
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT state FROM pg_stat_activity"
            + " WHERE pid <> pg_backend_pid() AND query LIKE 'SELECT path, owner, records%'"
            + " AND query LIKE '%ORDER BY path'")) {
      while (r.next()) {
        out.add(r.getString(1));
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return out;
  }
}
