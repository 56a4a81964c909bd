package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
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
  final TableDocs table = TableDocs.ofIndexedRows();

  App app() {
    return app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p = table.register(ctx);
      TargetStateProvider<String> docs = table.declareDocs(ctx, p);
      if (docs != null) {
        declareTargetState(ctx,
            docs.<String>attachment(ctx, "index").targetState("by_title", "title"));
      }
      TableDocs.mountOwners(ctx, docs, Map.of("a", List.of("a1")));
      // Its memo hits from the second run on: that run keeps its tracking as it was.
      ctx.mountMemo("m", "unchanged", c -> declareTargetState(c,
          p.targetState("other", TableDocs.SPEC)));
    });
  }

  @Test
  void theIndexOfATableDeclaredWithoutChildrenIsForgottenWithItsRows() {
    App app = app();
    app.update();
    assertThat(table.rows.takeLog()).containsExactly("create a1=v1");
    assertThat(table.indexes.takeLog()).containsExactly("create by_title=title");
    table.tables.takeLog();

    table.withChildren = false;
    app.update();
    assertThat(table.tables.takeLog()).containsExactly("ensure docs");
    assertThat(table.rows.takeLog()).as("taken along by docs's action").isEmpty();
    assertThat(table.indexes.takeLog()).as("taken along by docs's action").isEmpty();
    assertThat(app.status().providers()).as("docs kept, nothing below it, the index neither")
        .containsOnlyKeys("tables")
        .containsEntry("tables", List.of(StableKey.of("docs"), StableKey.of("other")));
    assertThat(app.status().unsettled()).isEmpty();

    table.withChildren = true;
    app.update();
    assertThat(table.rows.takeLog()).as("written again").containsExactly("create a1=v1");
    assertThat(table.indexes.takeLog()).as("created again")
        .containsExactly("create by_title=title");

    app.update();
    assertThat(table.rows.takeLog()).as("quiet").isEmpty();
    assertThat(table.indexes.takeLog()).as("quiet").isEmpty();
  }
}
