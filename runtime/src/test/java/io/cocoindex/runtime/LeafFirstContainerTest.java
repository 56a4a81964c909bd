package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import java.util.List;
import java.util.Map;
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
  final TableDocs table = TableDocs.ofRows();

  App app() {
    return app(ctx -> TableDocs.mountOwners(ctx, table.declareDocs(ctx),
        Map.of("a", List.of("a1", "a2"))));
  }

  @Test
  void aLeafThatBecameAContainerTakesItsRowsAlongWhenItIsALeafAgain() {
    table.withChildren = false; // a file first
    App app = app();
    app.update();
    assertThat(table.tables.takeLog()).containsExactly("ensure docs");

    table.withChildren = true;
    app.update();
    assertThat(table.rows.takeLog()).containsExactly("create a1=v1", "create a2=v1");

    table.withChildren = false;
    app.update();
    assertThat(table.rows.takeLog()).as("taken along by docs's action").isEmpty();
    assertThat(app.status().providers()).as("docs kept, nothing below it")
        .containsOnlyKeys("tables").containsEntry("tables", List.of(StableKey.of("docs")));

    table.withChildren = true;
    app.update();
    assertThat(table.rows.takeLog()).as("written again: docs's action took them along")
        .containsExactly("create a1=v1", "create a2=v1");

    app.update();
    assertThat(table.rows.takeLog()).as("quiet").isEmpty();
  }
}
