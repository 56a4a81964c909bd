package io.cocoindex.reliability;

import static io.cocoindex.reliability.ActionText.first;
import static io.cocoindex.reliability.ActionText.minus;
import static io.cocoindex.reliability.ActionText.sameMultiset;

import io.cocoindex.StableKey;
import io.cocoindex.TargetActionSink;
import io.cocoindex.reliability.PgCrashWorker.PgWorld;
import io.cocoindex.reliability.PgCrashWorker.Put;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.Preview;
import io.cocoindex.runtime.inspect.StatusReport;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@link RecoveryOracle}'s promises on the shared PostgreSQL store: before the clean round that
 * follows killed workers, this JVM takes {@code status()} and a preview of the round's world;
 * the round's workers together must then apply exactly the actions the preview planned, each
 * once, as multisets of (key, verb, value, the possible records and "may be missing" its
 * handler was given), as their sinks log them ({@code sink_log}). Every tracked row they apply
 * as unsettled (several possible records, or possibly missing) the status listed, and every
 * listed row they apply they apply as unsettled. The container's refreshes are left out: each
 * worker processing its component applies one ({@link Put#refresh}).
 */
final class PgRecoveryOracle {
  private final List<String> planned;
  private final Set<String> tracked;
  private final Set<String> listed;

  private PgRecoveryOracle(List<String> planned, Set<String> tracked, Set<String> listed) {
    this.planned = planned;
    this.tracked = tracked;
    this.listed = listed;
  }

  /** Status and preview of {@code world} on the store at {@code url}, as they are now. */
  static PgRecoveryOracle before(String url, PgWorld world) throws Exception {
    try (PostgresStateStore store = PostgresStateStore.open(url);
        App app = App.create(PgCrashWorker.APP, Environment.builder().stateStore(store).build(),
            PgCrashWorker.main(world, new PgCrashWorker.RowHandler(actions -> {
              throw new AssertionError("a preview applied " + actions);
            })))) {
      StatusReport status = app.status();
      Preview preview = app.preview();
      List<String> planned = new ArrayList<>();
      for (PlannedAction a : preview.actions()) {
        Put p = (Put) a.action().value();
        if (p.refresh()) {
          continue; // not logged by the sinks
        }
        planned.add(render(p.key(), a.action().verb(), p.value(), String.join(",", p.expected()),
            p.mayBeMissing()));
      }
      Set<String> tracked = new TreeSet<>();
      status.providers().forEach((provider, keys) ->
          keys.forEach(k -> tracked.add(((StableKey.Str) k).value())));
      Set<String> listed = new TreeSet<>();
      for (StatusReport.UnsettledState u : status.unsettled()) {
        String printed = u.path().substring(u.path().lastIndexOf('/') + 1);
        listed.add(printed.substring(1, printed.length() - 1)); // a quoted string key
      }
      return new PgRecoveryOracle(planned, tracked, listed);
    }
  }

  private static String render(String key, String verb, String value, String expected,
      boolean mayBeMissing) {
    return key + " " + verb + " " + value + " after [" + expected + "]" + (mayBeMissing ? "?" : "");
  }

  /** How many actions the preview planned, and how many states the status listed. */
  @Override
  public String toString() {
    return planned.size() + " planned, " + listed.size() + " unsettled";
  }

  /** What round {@code round}'s sinks applied against the promises; empty when kept. */
  List<String> problems(String url, int round) throws SQLException {
    List<String> applied = new ArrayList<>();
    List<String> notListed = new ArrayList<>();
    List<String> foundSettled = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT key, verb, value, expected, may_be_missing"
            + " FROM sink_log WHERE round = " + round)) {
      while (rs.next()) {
        String key = rs.getString(1);
        String expected = rs.getString(4);
        boolean mbm = rs.getBoolean(5);
        String a = render(key, rs.getString(2), rs.getString(3), expected, mbm);
        applied.add(a);
        boolean unsettled = mbm || expected.contains(",");
        if (unsettled && tracked.contains(key) && !listed.contains(key)) {
          notListed.add(a);
        } else if (!unsettled && listed.contains(key)) {
          foundSettled.add(a);
        }
      }
    }
    List<String> problems = new ArrayList<>();
    if (!sameMultiset(planned, applied)) {
      problems.add("the preview before the clean round planned " + planned.size()
          + " actions, its workers applied " + applied.size() + ": planned but not applied "
          + first(minus(planned, applied)) + ", applied but not planned "
          + first(minus(applied, planned)));
    }
    if (!notListed.isEmpty() || !foundSettled.isEmpty()) {
      problems.add("the clean round applied as unsettled " + first(notListed) + ", which the"
          + " status before it did not list, and as settled " + first(foundSettled)
          + ", which it listed (" + listed.size() + " listed)");
    }
    return problems;
  }
}
