package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.declareTargetStateWithChild;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Attachments (rule 9): eager registration, symbol-key namespaces, deletion when undeclared. */
class AttachmentTest extends EngineTestBase {
  final Rows main = new Rows();
  final Rows indexes = new Rows();
  final Rows triggers = new Rows();
  boolean declareIndex = true;
  boolean declareTrigger = true;

  /** Main's row handler, with the attachment types "index" and "trigger". */
  TableDocs.RowsWithAttachments mainHandler() {
    return new TableDocs.RowsWithAttachments(main, Map.of("index", indexes, "trigger", triggers));
  }

  App attachmentApp() {
    return app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "main",
          mainHandler());
      declareTargetState(ctx, p.targetState("row", "v1"));
      if (declareIndex) {
        TargetStateProvider<String> idx = p.attachment(ctx, "index");
        assertThat(p.<String>attachment(ctx, "index")).isSameAs(idx);
        declareTargetState(ctx, idx.targetState("idx", "spec1"));
      }
      if (declareTrigger) {
        declareTargetState(ctx, p.<String>attachment(ctx, "trigger").targetState("idx", "t1"));
      }
    });
  }

  @Test
  void attachmentNoLongerDeclaredIsDeletedThroughItsOwnHandler() {
    App app = attachmentApp();
    app.update();
    assertThat(main.takeLog()).containsExactly("create row=v1");
    assertThat(indexes.takeLog()).containsExactly("create idx=spec1");
    assertThat(triggers.takeLog()).containsExactly("create idx=t1");

    declareIndex = false;
    app.update();
    assertThat(indexes.takeLog()).containsExactly("delete idx");
    assertThat(main.takeLog()).isEmpty();
    assertThat(triggers.takeLog()).isEmpty();

    declareTrigger = false;
    app.update();
    assertThat(triggers.takeLog()).containsExactly("delete idx");
    assertThat(indexes.takeLog()).isEmpty();
  }

  @Test
  void attachmentKeysNeverCollideWithChildKeys() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "main",
          mainHandler());
      declareTargetState(ctx, p.targetState("index", "row-named-index"));
      declareTargetState(ctx, p.<String>attachment(ctx, "index").targetState("index", "spec"));
    });
    app.update();
    assertThat(main.takeLog()).containsExactly("create index=row-named-index");
    assertThat(indexes.takeLog()).containsExactly("create index=spec");
  }

  @Test
  void aSymbolKeyNamingAnAttachmentTypeIsRejectedAndAnyOtherSymbolIsAKey() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "main",
          mainHandler());
      declareTargetState(ctx, p.targetState(StableKey.symbol("index"), "v1"));
    });
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the key @index of a target state of provider 'main' is the symbol"
            + " of its attachment type 'index'");
    assertThat(main.takeLog()).isEmpty();

    App other = app("other", ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "main",
          mainHandler());
      declareTargetState(ctx, p.targetState(StableKey.symbol("pinned"), "v1"));
    });
    other.update();
    assertThat(main.takeLog()).containsExactly("create @pinned=v1");
  }

  @Test
  void unknownAttachmentTypeIsAClearErrorNamingIt() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "main",
          mainHandler());
      p.attachment(ctx, "vector_index");
    });
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("provider 'main' has no attachment type 'vector_index'")
        .hasMessageContaining("index")
        .hasMessageContaining("trigger")
        .hasMessageContaining("the keys of the map its attachments() returns")
        .hasMessageContaining("TableDocs_RowsWithAttachments_Attachments.of(this)");
  }

  @Test
  void attachmentsOfAContainersChildHandlerAreRegisteredAtResolution() {
    TableDocs table = TableDocs.ofIndexedRows();
    boolean[] withIndex = {true};
    App app = app(ctx -> {
      TargetStateProvider<String> docs = table.declareDocs(ctx);
      declareTargetState(ctx, docs.targetState("r1", "v1"));
      if (withIndex[0]) {
        declareTargetState(ctx, docs.<String>attachment(ctx, "index").targetState("by_title", "s"));
      }
    });
    app.update();
    assertThat(table.indexes.takeLog()).containsExactly("create by_title=s");
    withIndex[0] = false;
    app.update();
    assertThat(table.indexes.takeLog()).containsExactly("delete by_title");
    assertThat(table.rows.takeLog()).containsExactly("create r1=v1");

    app.dropState();
    assertThat(table.tables.takeLog()).containsExactly("ensure docs", "ensure docs", "drop docs");
    assertThat(table.indexes.takeLog()).isEmpty();
  }

  @Test
  void attachmentsOfAContainerDeclaredInTheSameComponentResolveWithIt() {
    TableDocs table = TableDocs.ofIndexedRows();
    String[] type = {"index"};
    App app = app(ctx -> {
      TargetStateProvider<String> docs = declareTargetStateWithChild(
          ctx, table.register(ctx).targetState("docs", TableDocs.SPEC));
      declareTargetState(ctx, docs.targetState("r1", "v1"));
      declareTargetState(ctx, docs.<String>attachment(ctx, type[0]).targetState("by_title", "s"));
    });
    app.update();
    assertThat(table.rows.takeLog()).containsExactly("create r1=v1");
    assertThat(table.indexes.takeLog()).containsExactly("create by_title=s");

    type[0] = "vector_index";
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("provider 'tables/docs' has no attachment type 'vector_index'");
  }

  @Test
  void dropStateDeletesRootAttachmentsThroughTheirHandlers() {
    App app = attachmentApp();
    app.update();
    main.takeLog();
    indexes.takeLog();
    triggers.takeLog();
    app.dropState();
    assertThat(main.takeLog()).containsExactly("delete row");
    assertThat(indexes.takeLog()).containsExactly("delete idx");
    assertThat(triggers.takeLog()).containsExactly("delete idx");
  }
}
