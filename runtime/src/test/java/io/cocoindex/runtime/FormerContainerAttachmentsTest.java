package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.StableKey;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Table docs with an index (an attachment, rule 9: its path is below docs, behind the symbol of
 * its type) and a row, then declared without children (a directory that became a file): its
 * action takes the index along with the rows, and the sweep forgets both. In a run that keeps a
 * component's tracking as it was (a memo hit), the sweep meets them one candidate at a time, as
 * it does on the shared store for the states of components this run committed; it knew a state
 * below a former container only by its parent, which for an attachment is its type's provider,
 * not docs: the index stayed tracked below a leaf, unsettled, warned about on every run (the
 * model-based test found it once tables could become leaves).
 */
class FormerContainerAttachmentsTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Rows indexes = new Rows();
  final Tables tables = new Tables(rows, () -> ChildTargetDef.of(new RowsWithIndexes()));
  boolean withChildren = true;

  /** The rows of a table, with an "index" attachment type. */
  final class RowsWithIndexes implements TargetHandler<String, String, Rows.RowAction> {
    @Override
    public TargetReconcileOutput<Rows.RowAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      return rows.handler.reconcile(key, desired, prev, mbm);
    }

    @Override
    public Map<String, ChildTargetDef<?>> attachments() {
      return Map.of("index", ChildTargetDef.of(indexes.handler));
    }
  }

  App app() {
    return app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs;
      if (withChildren) {
        docs = mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
        declareTargetState(ctx,
            docs.<String>attachment(ctx, "index").targetState("by_title", "title"));
      } else {
        declareTargetState(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
        docs = null;
      }
      ctx.mount("a", c -> {
        if (docs != null) {
          declareTargetState(c, docs.targetState("a1", "v1"));
        }
      });
      // Its memo hits from the second run on: that run keeps its tracking as it was.
      ctx.mountMemo("m", "unchanged", c -> declareTargetState(c,
          p.targetState("other", new Tables.TableSpec("g1"))));
    });
  }

  @Test
  void theIndexOfATableDeclaredWithoutChildrenIsForgottenWithItsRows() {
    App app = app();
    app.update();
    assertThat(rows.takeLog()).containsExactly("create a1=v1");
    assertThat(indexes.takeLog()).containsExactly("create by_title=title");
    tables.takeLog();

    withChildren = false;
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).as("taken along by docs's action").isEmpty();
    assertThat(indexes.takeLog()).as("taken along by docs's action").isEmpty();
    assertThat(app.status().providers()).as("docs kept, nothing below it, the index neither")
        .containsOnlyKeys("tables")
        .containsEntry("tables", List.of(StableKey.of("docs"), StableKey.of("other")));
    assertThat(app.status().unsettled()).isEmpty();

    withChildren = true;
    app.update();
    assertThat(rows.takeLog()).as("written again").containsExactly("create a1=v1");
    assertThat(indexes.takeLog()).as("created again").containsExactly("create by_title=title");

    app.update();
    assertThat(rows.takeLog()).as("quiet").isEmpty();
    assertThat(indexes.takeLog()).as("quiet").isEmpty();
  }
}
