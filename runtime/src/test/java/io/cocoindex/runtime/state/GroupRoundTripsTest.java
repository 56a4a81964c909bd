package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.StatePaths.path;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.CountingConnection;
import io.cocoindex.runtime.ThrowawaySchema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A group commit on the shared store goes to the server in a few round trips whatever the number
 * of components in it. In a cold run each component writes two batches (its precommit: the
 * component's record and its new state; its commit: the state settled, the record again, its
 * claim marked), and a group holds the commits of some components beside the precommits of
 * others. Batched in the order written, each write switched to another statement than the one
 * before it and went to the server alone: a round trip per write, in turn on the writer's thread,
 * about 20,000 of them for 5,000 components of one state. A statement on rows no other pending
 * statement writes joins its statement's batch; one on a row another pending statement writes
 * keeps its order after it.
 */
class GroupRoundTripsTest {
  private static final String APP = "app";

  @RegisterExtension final ThrowawaySchema schema = new ThrowawaySchema("t_");
  private PostgresStateStore store;

  @BeforeEach
  void open() {
    store = schema.closeLast(PostgresStateStore.open(schema.url()));
  }

  @Test
  void aGroupOfCommitsAndPrecommitsTakesAFewRoundTripsWhateverItsSize() throws Exception {
    for (int n : new int[] {10, 40}) {
      List<GroupCommitter.Batch> precommits = new ArrayList<>();
      List<GroupCommitter.Batch> mixed = new ArrayList<>();
      List<StateWrite.Precommit> first = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        StateWrite.Precommit p = precommit(n + "-" + i);
        first.add(p);
        precommits.add(batch(placeholder(n + "-" + i), p));
      }
      apply(precommits);
      // The commits of the first n components between the precommits of n more, as the writer
      // finds them queued in a cold run.
      for (int i = 0; i < n; i++) {
        String done = n + "-" + i;
        mixed.add(batch(new StateWrite.Settle(state(done, component(done)), 7, false,
                first.get(i), new long[0]),
            new StateWrite.PutComponent(new ComponentRecord(component(done), null, null, null,
                1), 7),
            new StateWrite.ComponentDone(component(done), 7)));
        String next = n + "-" + (n + i);
        mixed.add(batch(placeholder(next), precommit(next)));
      }
      List<CountingConnection.RoundTrip> roundTrips = apply(mixed);

      // The rows read and locked, then one batch each: the states created, the states settled,
      // the component records; then the claims' marks and the commit.
      assertThat(roundTrips).as("the round trips of a group of %d commits and %d precommits",
          n, n).hasSize(6);
      for (int i = 0; i < n; i++) {
        assertThat(records(state(n + "-" + i))).containsExactly("7: " + n + "-" + i);
        assertThat(store.component(APP, component(n + "-" + i)).orElseThrow().stateCount())
            .isEqualTo(1);
        assertThat(records(state(n + "-" + (n + i))))
            .containsExactly("0: none", "7: " + n + "-" + (n + i));
        assertThat(store.component(APP, component(n + "-" + (n + i)))).isPresent();
      }
    }
  }

  /**
   * Statements on one row keep their order across the others: a record deleted, then written
   * again; a state created, then settled, then deleted; each between writes of other rows.
   */
  @Test
  void statementsOnOneRowKeepTheirOrderAmongTheOthers() throws Exception {
    byte[] a = component("a");
    StateWrite.Precommit x = precommit("x");
    List<GroupCommitter.Batch> group = List.of(
        batch(new StateWrite.PutComponent(new ComponentRecord(a, null, null, null, 1), 7)),
        batch(x),
        batch(new StateWrite.DeleteComponent(a)),
        batch(precommit("y")),
        batch(new StateWrite.Settle(state("x", component("x")), 7, false, x, new long[0])),
        batch(new StateWrite.PutComponent(new ComponentRecord(a, null, null, null, 5), 7)),
        batch(precommit("z")),
        batch(new StateWrite.DeleteState(state("y"))),
        batch(new StateWrite.PutComponent(new ComponentRecord(component("b"), null, null, null,
            2), 7)));
    apply(group);

    assertThat(store.component(APP, a).orElseThrow().stateCount()).isEqualTo(5);
    assertThat(store.component(APP, component("b")).orElseThrow().stateCount()).isEqualTo(2);
    assertThat(records(state("x"))).containsExactly("7: x");
    assertThat(store.get(APP, state("y"))).isEmpty();
    assertThat(records(state("z"))).containsExactly("0: none", "7: z");
  }

  /** Applies {@code group} in one transaction, as the store's writer does; its round trips. */
  private List<CountingConnection.RoundTrip> apply(List<GroupCommitter.Batch> group)
      throws Exception {
    JdbcStateTables tables = new JdbcStateTables("cocoindex_", true, false);
    try (Connection raw = DriverManager.getConnection(schema.url())) {
      CountingConnection counting = new CountingConnection(raw);
      Connection c = counting.connection();
      c.setAutoCommit(false);
      tables.apply(c, group);
      List<PostgresClaims.Finished> done = new ArrayList<>();
      for (GroupCommitter.Batch b : group) {
        for (StateWrite w : b.writes()) {
          if (w instanceof StateWrite.ComponentDone d) {
            done.add(new PostgresClaims.Finished(b.app(), d.path(), d.runVersion()));
          }
        }
      }
      if (!done.isEmpty()) {
        PostgresClaims.markFinished(c, done);
      }
      c.commit();
      return counting.take();
    }
  }

  private static StateWrite.PutComponent placeholder(String name) {
    return new StateWrite.PutComponent(
        new ComponentRecord(component(name), null, null, null, 0), 7);
  }

  private static StateWrite.Precommit precommit(String name) {
    return new StateWrite.Precommit(state(name, component(name)),
        new PossibleRecord(7, name.getBytes(StandardCharsets.UTF_8)), true, null);
  }

  private static byte[] component(String name) {
    return path("component", name);
  }

  private static byte[] state(String name) {
    return path("t", name);
  }

  private static TrackedState state(String name, byte[] owner) {
    return new TrackedState(state(name), owner, List.of(), 0, 0, 0, 0);
  }

  private static GroupCommitter.Batch batch(StateWrite... writes) {
    return new GroupCommitter.Batch(APP, List.of(writes), new CompletableFuture<>());
  }

  /** The possible records of {@code path}, as "version: record". */
  private List<String> records(byte[] path) {
    return store.get(APP, path).orElseThrow().records().stream()
        .map(r -> r.version() + ": " + (r.isNone() ? "none"
            : new String(r.record(), StandardCharsets.UTF_8)))
        .toList();
  }
}
