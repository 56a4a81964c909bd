package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A state declared first without children (a file), then with them (the file became a
 * directory), then without again, then with again. Its children were resolved in the child
 * generation it had as a leaf, 0, which every check of "was a container" reads as "never had
 * children": declared without children again, it started no new generation and its rows were not
 * forgotten (tracked below a leaf, warned about on every run); with children again, the rows its
 * action had taken along passed for current, and were never written again (the model-based test
 * found it once tables could become leaves and back).
 */
class LeafFirstContainerTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  boolean withChildren;

  App app() {
    return app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs;
      if (withChildren) {
        docs = mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      } else {
        declareTargetState(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
        docs = null;
      }
      ctx.mount("a", c -> {
        if (docs != null) {
          declareTargetState(c, docs.targetState("a1", "v1"));
          declareTargetState(c, docs.targetState("a2", "v1"));
        }
      });
    });
  }

  @Test
  void aLeafThatBecameAContainerTakesItsRowsAlongWhenItIsALeafAgain() {
    App app = app();
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");

    withChildren = true;
    app.update();
    assertThat(rows.takeLog()).containsExactly("create a1=v1", "create a2=v1");

    withChildren = false;
    app.update();
    assertThat(rows.takeLog()).as("taken along by docs's action").isEmpty();
    assertThat(app.status().providers()).as("docs kept, nothing below it")
        .containsOnlyKeys("tables").containsEntry("tables", List.of(StableKey.of("docs")));

    withChildren = true;
    app.update();
    assertThat(rows.takeLog()).as("written again: docs's action took them along")
        .containsExactly("create a1=v1", "create a2=v1");

    app.update();
    assertThat(rows.takeLog()).as("quiet").isEmpty();
  }
}
