package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetReconcileOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An index's name in the database ({@link IndexNames}) and what its handler drops. */
class IndexHandlerTest {
  static final TableSpec DOCS = new TableSpec("main_db", "docs",
      List.of(new ColumnSpec("id", "TEXT"), new ColumnSpec("title", "TEXT")), List.of("id"),
      false);

  final IndexHandler indexes = new IndexHandler(DOCS, TargetActionSink.of(actions -> {}), "indexer");

  @Test
  void aNameIsScopedByItsTableUnlessItStartsWithTheTablesNameAndOneUnderscore() {
    assertThat(IndexNames.of("docs", "by_title")).isEqualTo("docs__by_title");
    assertThat(IndexNames.of("docs", "docs_by_title")).isEqualTo("docs_by_title");
    assertThat(IndexNames.of("Docs", "DOCS_by_title")).isEqualTo("DOCS_by_title");
    // Kept as declared, these would be the name of docs' index x, or its table's.
    assertThat(IndexNames.of("docs", "docs__x")).isEqualTo("docs__docs__x");
    assertThat(IndexNames.of("docs", "docs_")).isEqualTo("docs__docs_");
    assertThat(IndexNames.of("docs", "docs")).isEqualTo("docs__docs");
    assertThat(IndexNames.of("docs", "docsx")).isEqualTo("docs__docsx");
  }

  @Test
  void aLongNameIsCutAndHashedAsSqliteComparesNames() {
    String table = "t".repeat(60);
    assertThat(IndexNames.of(table, "by_title")).hasSize(64).startsWith("t".repeat(55) + "_")
        .isNotEqualTo(IndexNames.of(table, "by_views"));
    assertThat(IndexNames.of(table, "By_Title").substring(55))
        .isEqualTo(IndexNames.of(table, "by_title").substring(55));
    assertThat(IndexNames.of("t".repeat(54), "by_title")).isEqualTo("t".repeat(54) + "__by_title")
        .hasSize(64);
    assertThat(IndexNames.of("t".repeat(55), "by_title")).hasSize(64).startsWith("t".repeat(55))
        .doesNotEndWith("by_title");
  }

  /**
   * What a record of index by_title over title says the app made, under its name in the database
   * and under its declared name (an earlier version's): an index there that names no app is
   * dropped only if it is one of them.
   */
  static final List<String> MADE_BY_TITLE = List.of(
      "CREATE INDEX \"docs__by_title\" /* cocoindex app: indexer */ ON \"docs\" (\"title\")",
      "CREATE INDEX \"by_title\" /* cocoindex app: indexer */ ON \"docs\" (\"title\")");

  @Test
  void aRecordKeyedByItsDeclaredNameDropsTheIndexUnderBothNames() {
    IndexSpec byTitle = IndexSpec.of("by_title", "title");
    TargetReconcileOutput<AttachmentAction, IndexSpec> out =
        indexes.reconcile(StableKey.of("by_title"), null, List.of(byTitle), false);

    assertThat(out.action()).isEqualTo(TargetAction.delete(AttachmentAction.ofIndex(
        "docs", "by_title", List.of("docs__by_title", "by_title"), null, List.of())
        .withIndexMade(MADE_BY_TITLE)));
  }

  @Test
  void aRecordKeyedByItsNameInTheDatabaseDropsOnlyThatName() {
    IndexSpec byTitle = IndexSpec.of("by_title", "title");
    TargetReconcileOutput<AttachmentAction, IndexSpec> out =
        indexes.reconcile(StableKey.of("docs__by_title"), null, List.of(byTitle), false);

    assertThat(out.action()).isEqualTo(TargetAction.delete(AttachmentAction.ofIndex(
        "docs", "by_title", List.of("docs__by_title"), null, List.of())
        .withIndexMade(MADE_BY_TITLE)));
  }

  @Test
  void anIndexDeclaredUnderItsNewKeyIsNotDroppedUnderItsOldOne() {
    IndexSpec byTitle = IndexSpec.of("by_title", "title");
    TargetReconcileOutput<AttachmentAction, IndexSpec> created =
        indexes.reconcile(StableKey.of("docs__by_title"), byTitle, List.of(), true);
    assertThat(created.action()).isEqualTo(TargetAction.create(AttachmentAction.ofIndex("docs",
        "by_title", List.of(), "docs__by_title",
        List.of("CREATE INDEX \"docs__by_title\" /* cocoindex app: indexer */ ON \"docs\""
            + " (\"title\")"))));

    // The earlier version's record: its index under the declared name goes, the new one stays.
    TargetReconcileOutput<AttachmentAction, IndexSpec> old =
        indexes.reconcile(StableKey.of("by_title"), null, List.of(byTitle), false);
    assertThat(old.action()).isEqualTo(TargetAction.delete(AttachmentAction.ofIndex(
        "docs", "by_title", List.of("by_title"), null, List.of()).withIndexMade(MADE_BY_TITLE)));
  }

  @Test
  void aChangedSpecDropsTheIndexUnderItsNameFirst() {
    IndexSpec unique = new IndexSpec("by_title", List.of("title", "id"), true);
    TargetReconcileOutput<AttachmentAction, IndexSpec> out = indexes.reconcile(
        StableKey.of("docs__by_title"), unique, List.of(IndexSpec.of("by_title", "title")), false);

    assertThat(out.action()).isEqualTo(TargetAction.update(AttachmentAction.ofIndex("docs",
        "by_title", List.of("docs__by_title"), "docs__by_title",
        List.of("CREATE UNIQUE INDEX \"docs__by_title\" /* cocoindex app: indexer */ ON"
            + " \"docs\" (\"title\", \"id\")")).withIndexMade(MADE_BY_TITLE)));
    assertThat(out.trackingRecord()).isEqualTo(unique);
  }
}
