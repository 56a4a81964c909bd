package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Rules 1, 2 and 3 of DESIGN.md for root (flat) target states. */
class FlatTargetTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Map<String, String> declared = new LinkedHashMap<>();

  Consumer<Ctx> main() {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declared.forEach((k, v) -> declareTargetState(ctx, p.targetState(k, v)));
    };
  }

  @Test
  void flatCrudCreatesUpdatesAndDeletesOnlyWhatChanged() {
    App app = app(main());
    declared.put("a", "v1");
    declared.put("b", "v1");
    UpdateStats first = app.update();
    assertThat(rows.takeLog()).containsExactly("create a=v1", "create b=v1");
    assertThat(first.of("rows")).isEqualTo(new UpdateStats.ProviderStats(2, 0, 0, 0));

    UpdateStats second = app.update();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(second.of("rows")).isEqualTo(new UpdateStats.ProviderStats(0, 0, 0, 2));

    declared.put("a", "v2");
    app.update();
    assertThat(rows.takeLog()).containsExactly("update a=v2");

    declared.remove("b");
    UpdateStats last = app.update();
    assertThat(rows.takeLog()).containsExactly("delete b");
    assertThat(last.of("rows").deleted()).isEqualTo(1);
  }

  @Test
  void aKeySwappedForAnotherDeletesTheOldOneThoughAsManyAreDeclared() {
    App app = app(main());
    declared.put("a", "v1");
    declared.put("b", "v1");
    app.update();
    rows.takeLog();

    declared.remove("b");
    declared.put("c", "v1");
    UpdateStats swapped = app.update();

    assertThat(rows.takeLog()).containsExactlyInAnyOrder("create c=v1", "delete b");
    assertThat(swapped.of("rows")).isEqualTo(new UpdateStats.ProviderStats(1, 0, 1, 1));
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void trackingSurvivesANewAppOnTheSameDbPath() {
    declared.put("a", "v1");
    try (App first = App.create("test", environment(), main())) {
      first.update();
    }
    assertThat(rows.takeLog()).containsExactly("create a=v1");

    declared.clear();
    try (App second = App.create("test", environment(), main())) {
      second.update();
    }
    assertThat(rows.takeLog()).containsExactly("delete a");
  }

  @Test
  void newStateIsReconciledWithNoRecordsAndMayBeMissing() {
    App app = app(main());
    declared.put("a", "1");
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "1", List.of(), true));
  }

  @Test
  void failedFreshInsertLeavesItsRecordPossibleAndTheStateMaybeMissing() {
    App app = app(main());
    declared.put("a", "1");
    rows.failWhen = r -> true;
    assertThatUpdateFails(app);
    rows.takeCalls();

    rows.failWhen = r -> false;
    declared.put("a", "2");
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "2", List.of("1"), true));

    declared.put("a", "3");
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "3", List.of("2"), false));
  }

  @Test
  void failedUpdateKeepsBothRecordsPossibleAndTheRerunUpdatesOnce() {
    App app = app(main());
    declared.put("a", "1");
    app.update();
    rows.takeLog();
    rows.takeCalls();

    declared.put("a", "2");
    rows.failWhen = r -> true;
    assertThatUpdateFails(app);
    rows.takeCalls();

    rows.failWhen = r -> false;
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "2", List.of("1", "2"), false));
    assertThat(rows.takeLog()).containsExactly("update a=2");
  }

  @Test
  void failedDeleteIsRetriedOnTheNextRun() {
    App app = app(main());
    declared.put("a", "1");
    app.update();
    rows.takeLog();

    declared.clear();
    rows.failWhen = r -> true;
    assertThatUpdateFails(app);
    assertThat(rows.takeLog()).isEmpty();

    rows.failWhen = r -> false;
    rows.takeCalls();
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", null, List.of("1"), true));
    assertThat(rows.takeLog()).containsExactly("delete a");

    app.update();
    assertThat(rows.takeCalls()).isEmpty();
  }

  @Test
  void fullReprocessRewritesUnchangedStatesOnceAndDoesNotResurrectDeletedOnes() {
    App app = app(main());
    declared.put("a", "1");
    declared.put("b", "1");
    app.update();
    declared.remove("b");
    app.update();
    rows.takeLog();

    UpdateStats stats = app.update(UpdateOptions.fullReprocess());
    assertThat(rows.takeLog()).containsExactly("update a=1");
    assertThat(stats.of("rows")).as("the rewrite is counted as the update it is")
        .isEqualTo(new UpdateStats.ProviderStats(0, 1, 0, 0));

    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void aProviderKeptFromAnotherRunOrAppIsRejectedAtDeclaration() {
    List<TargetStateProvider<String>> kept = new java.util.ArrayList<>();
    App first = app(ctx -> kept.add(registerRootTargetStatesProvider(ctx, "rows", rows.handler)));
    first.update();

    App other = app("other", ctx -> declareTargetState(ctx, kept.get(0).targetState("a", "1")));
    assertThatThrownBy(other::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("cannot declare key \"a\" on provider 'rows': it was registered by"
            + " another run or app");
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void declaredValueIsCapturedAtDeclaration() {
    record Doc(List<String> lines) {}
    List<String> lines = new java.util.ArrayList<>(List.of("one"));
    Rows.RowAction[] seen = new Rows.RowAction[1];
    class DocHandler implements io.cocoindex.TargetHandler<Doc, Doc, Doc> {
      final io.cocoindex.TargetActionSink<Doc> sink = io.cocoindex.TargetActionSink.of(actions ->
          seen[0] = new Rows.RowAction("doc", String.join(",", actions.get(0).value().lines())));

      @Override
      public io.cocoindex.TargetReconcileOutput<Doc, Doc> reconcile(
          io.cocoindex.StableKey key, Doc desired, List<Doc> prev, boolean mbm) {
        return io.cocoindex.TargetReconcileOutput.of(
            io.cocoindex.TargetAction.create(desired), sink, desired);
      }
    }
    App app = app(ctx -> {
      var p = registerRootTargetStatesProvider(ctx, "docs", new DocHandler());
      Doc doc = new Doc(lines);
      declareTargetState(ctx, p.targetState("d", doc));
      lines.add("two"); // mutated after the declaration
    });
    app.update();
    assertThat(seen[0]).isEqualTo(new Rows.RowAction("doc", "one"));
  }

  static void assertThatUpdateFails(App app) {
    org.assertj.core.api.Assertions.assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted sink failure");
  }
}
