package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.codec.KeyEncoding;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Table docs, with rows of components a, b and c (and of d, mounted only in the first run),
 * declared in a run without children, as a directory that became a file: its action took every
 * row along, and the sweep forgets them all. On the embedded store, which has one writer while
 * the run holds its lock, and in a run that keeps no component's tracking as it was, that is one
 * range below docs, docs itself kept; on the shared store another worker may be writing below
 * docs on another view of the source, and each row is forgotten as its own tree, under its lease.
 */
class FormerContainerForgottenInOneRangeTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  /** Component name to the rows it declares in docs. */
  final Map<String, List<String>> owners = new TreeMap<>(Map.of(
      "a", List.of("a1", "a2", "a3"), "b", List.of("b1", "b2"), "c", List.of("c1"),
      "d", List.of("d1", "d2")));
  boolean withChildren = true;

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
        } else if (w instanceof StateWrite.DeleteBelow b) {
          forgetting.add("below " + HexFormat.of().formatHex(b.path()));
        }
      }
      return super.write(app, writes);
    }
  }

  App app() {
    return app("former", Environment.builder().stateStore(new Store(store())).build(), ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs;
      if (withChildren) {
        docs = mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      } else {
        declareTargetState(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
        docs = null;
      }
      owners.forEach((name, own) -> ctx.mount(name, c -> {
        if (docs != null) {
          own.forEach(k -> declareTargetState(c, docs.targetState(k, "v1")));
        }
      }));
    });
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

  @Test
  void rowsOfATableDeclaredWithoutChildrenAreForgottenInOneRangeOnTheEmbeddedStore() {
    App app = app();
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create a1=v1", "create a2=v1", "create a3=v1",
        "create b1=v1", "create b2=v1", "create c1=v1", "create d1=v1", "create d2=v1");

    withChildren = false;
    owners.remove("d"); // d's rows are a stale component's candidates, swept in its batch
    forgetting.clear();
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).as("taken along by docs's action").isEmpty();
    if (ON_POSTGRES) {
      assertThat(forgetting).as("a tree per row, each leased").containsExactlyInAnyOrder(
          "tree " + row("a1"), "tree " + row("a2"), "tree " + row("a3"), "tree " + row("b1"),
          "tree " + row("b2"), "tree " + row("c1"), "tree " + row("d1"), "tree " + row("d2"));
    } else {
      assertThat(forgetting).as("one range below docs")
          .containsExactly("below " + hex(StableKey.symbol("tables"), "docs"));
    }
    assertThat(app.status().providers()).as("docs kept, nothing below it")
        .containsOnlyKeys("tables").containsEntry("tables", List.of(StableKey.of("docs")));

    withChildren = true;
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).as("written again").containsExactly("create a1=v1",
        "create a2=v1", "create a3=v1", "create b1=v1", "create b2=v1", "create c1=v1");
    assertThat(app.status().providers().get("tables/docs")).containsExactly(StableKey.of("a1"),
        StableKey.of("a2"), StableKey.of("a3"), StableKey.of("b1"), StableKey.of("b2"),
        StableKey.of("c1"));

    app.update();
    assertThat(rows.takeLog()).as("quiet").isEmpty();
  }
}
