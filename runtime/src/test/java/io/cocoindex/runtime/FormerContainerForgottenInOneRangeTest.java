package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.KeyEncoding;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Table docs, with rows of components a, b and c (and of d, e and f, mounted only in the first
 * run), declared in a run without children, as a directory that became a file: its action took
 * every row along, and the sweep forgets them all. On the embedded store, which has one writer
 * while the run holds its lock, and in a run that keeps no component's tracking as it was, that
 * is one range below docs, docs itself kept. On the shared store another worker may be writing
 * below docs on another view of the source, with components of its own or with those this run
 * committed (a newer run processes them again in the round): there the rows of the stale
 * components the sweep holds (d, e and f, which no other worker writes) go in one range per
 * batch, only theirs, and each row of a committed component is forgotten as its own tree, under
 * its lease.
 */
class FormerContainerForgottenInOneRangeTest extends EngineTestBase {
  final TableDocs table = TableDocs.ofRows();
  /** Component name to the rows it declares in docs. */
  final Map<String, List<String>> owners = new TreeMap<>(Map.of(
      "a", List.of("a1", "a2", "a3"), "b", List.of("b1", "b2"), "c", List.of("c1"),
      "d", List.of("d1", "d2"), "e", List.of("e1"), "f", List.of("f1", "f2")));
  /** Runs once, when the sweep first leases stale components (as it starts, on PostgreSQL). */
  volatile Runnable onSweepLease = () -> { };

  @RegisterExtension
  final SweepChunks chunks = new SweepChunks();

  /** The forgetting writes, each as its kind and its path in hex. */
  final List<String> forgetting = Collections.synchronizedList(new ArrayList<>());

  final class Store extends ForwardingStateStore {
    Store(StateStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      for (StateWrite w : writes) {
        if (w instanceof StateWrite.DeleteTree t) {
          forgetting.add("tree " + HexFormat.of().formatHex(t.path()));
        } else if (w instanceof StateWrite.DeleteBelow b && b.owners() != null) {
          List<String> of = new ArrayList<>();
          b.owners().forEach(o -> of.add(HexFormat.of().formatHex(o)));
          Collections.sort(of);
          forgetting.add("below " + HexFormat.of().formatHex(b.path()) + " of " + of);
        } else if (w instanceof StateWrite.DeleteBelow b) {
          forgetting.add("below " + HexFormat.of().formatHex(b.path()));
        }
      }
      return super.write(app, writes);
    }

    @Override
    public List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> paths) {
      Runnable r = onSweepLease;
      onSweepLease = () -> { };
      r.run();
      return super.leaseComponentsToSweep(app, paths);
    }
  }

  App app() {
    return app("former", Environment.builder().stateStore(new Store(store())).build(),
        ctx -> TableDocs.mountOwners(ctx, table.declareDocs(ctx), owners));
  }

  static String hex(Object... keys) {
    List<StableKey> path = new ArrayList<>();
    for (Object k : keys) {
      path.add(k instanceof StableKey s ? s : StableKey.of(k));
    }
    return HexFormat.of().formatHex(KeyEncoding.encodePath(path));
  }

  /** The path of row {@code key} in docs. */
  static String row(String key) {
    return hex(StableKey.symbol("tables"), "docs", key);
  }

  /** The encoded path of the component the root mounts as {@code name}, in hex. */
  static String component(String name) {
    return hex(name);
  }

  @Test
  void rowsOfATableDeclaredWithoutChildrenAreForgottenInRangesOfWhatTheSweepHolds() {
    chunks.set(2); // the stale components swept in two batches, d and e, then f
    App app = app();
    app.update();
    assertThat(table.tables.takeLog()).containsExactly("ensure docs");
    assertThat(table.rows.takeLog()).containsExactly("create a1=v1", "create a2=v1", "create a3=v1",
        "create b1=v1", "create b2=v1", "create c1=v1", "create d1=v1", "create d2=v1",
        "create e1=v1", "create f1=v1", "create f2=v1");

    table.withChildren = false;
    // Their rows are stale components' candidates, swept in their batches.
    owners.keySet().removeAll(List.of("d", "e", "f"));
    forgetting.clear();
    app.update();
    assertThat(table.tables.takeLog()).containsExactly("ensure docs");
    assertThat(table.rows.takeLog()).as("taken along by docs's action").isEmpty();
    String docs = hex(StableKey.symbol("tables"), "docs");
    if (ON_POSTGRES) {
      assertThat(forgetting).as("a tree per committed component's row, each leased, and the"
          + " rows of the stale components held, a range per batch").containsExactlyInAnyOrder(
          "tree " + row("a1"), "tree " + row("a2"), "tree " + row("a3"), "tree " + row("b1"),
          "tree " + row("b2"), "tree " + row("c1"),
          "below " + docs + " of " + List.of(component("d"), component("e")),
          "below " + docs + " of " + List.of(component("f")));
    } else {
      assertThat(forgetting).as("one range below docs").containsExactly("below " + docs);
    }
    assertThat(app.status().providers()).as("docs kept, nothing below it")
        .containsOnlyKeys("tables").containsEntry("tables", List.of(StableKey.of("docs")));

    table.withChildren = true;
    app.update();
    assertThat(table.tables.takeLog()).containsExactly("ensure docs");
    assertThat(table.rows.takeLog()).as("written again").containsExactly("create a1=v1",
        "create a2=v1", "create a3=v1", "create b1=v1", "create b2=v1", "create c1=v1");
    assertThat(app.status().providers().get("tables/docs")).containsExactly(StableKey.of("a1"),
        StableKey.of("a2"), StableKey.of("a3"), StableKey.of("b1"), StableKey.of("b2"),
        StableKey.of("c1"));

    app.update();
    assertThat(table.rows.takeLog()).as("quiet").isEmpty();
  }

  /**
   * Another worker writes below docs while the sweep runs, on a view of the source where docs has
   * children: a row of a component this run never saw (x), and one of a component this run
   * committed (a), which that worker's newer run processes again in the round. Neither is a
   * candidate of this sweep, and neither goes: the range is only that of the stale components it
   * holds (d, e and f). A range below docs of every owner, as on the embedded store, took both.
   */
  @Test
  void rowsAnotherWorkerWritesBelowTheTableMeanwhileStayTrackedOnTheSharedStore() {
    assumeTrue(ON_POSTGRES, "one writer on the embedded store");
    StateStore direct = store();
    App app = app();
    app.update();
    table.rows.takeLog();

    table.withChildren = false;
    owners.keySet().removeAll(List.of("d", "e", "f"));
    onSweepLease = () -> {
      // As another worker's precommits would, through the store the app shares.
      TrackedState a1 = direct.get("former",
          KeyEncoding.encodePath(List.of(StableKey.symbol("tables"), StableKey.of("docs"),
              StableKey.of("a1")))).orElseThrow();
      assertThat(HexFormat.of().formatHex(a1.owner())).isEqualTo(component("a"));
      List<StateWrite> other = new ArrayList<>();
      for (String[] written : List.of(new String[] {"x", "x1"}, new String[] {"a", "a9"})) {
        other.add(new StateWrite.PutState(new TrackedState(
            KeyEncoding.encodePath(List.of(StableKey.symbol("tables"), StableKey.of("docs"),
                StableKey.of(written[1]))),
            HexFormat.of().parseHex(component(written[0])), a1.records(),
            a1.childGeneration(), a1.childEpoch(), a1.parentGeneration(), a1.parentEpoch())));
      }
      direct.write("former", other).join();
    };
    app.update();
    assertThat(table.rows.takeLog()).as("taken along by docs's action").isEmpty();
    assertThat(app.status().providers()).as("the other worker's rows stay, nothing else")
        .containsEntry("tables", List.of(StableKey.of("docs")))
        .containsEntry("tables/docs", List.of(StableKey.of("a9"), StableKey.of("x1")));
  }
}
