package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.declareTargetStateWithChild;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.StateStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;

/** Container targets, invalidation and container deletion (rules 6, 7, 8, 12, 13). */
class ContainerTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  /** table name -> (row key -> value). */
  final Map<String, Map<String, String>> declared = new LinkedHashMap<>();
  String generation = "g1";

  App tablesApp() {
    return app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      declared.forEach((table, rowsOfTable) -> {
        TargetStateProvider<String> child =
            mountTarget(ctx, p.targetState(table, new Tables.TableSpec(generation)));
        rowsOfTable.forEach((k, v) -> declareTargetState(ctx, child.targetState(k, v)));
      });
    });
  }

  @Test
  void mountedContainerIsEnsuredEveryRunAndItsRowsReconcileIncrementally() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1", "r2", "v1"));
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
    assertThat(tables.factoryCalls.get()).as("one factory call per Create/Update").isEqualTo(1);

    declared.put("docs", Map.of("r1", "v1"));
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("delete r2");
  }

  @Test
  void unchangedContainerIsRefreshedButCountedAndPreviewedAsUnchanged() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1"));
    assertThat(app.update().of("tables")).isEqualTo(new UpdateStats.ProviderStats(1, 0, 0, 0));
    Preview preview = app.preview();
    assertThat(preview.actions()).extracting(PlannedAction::provider).containsExactly("tables");
    assertThat(preview.changes()).isEmpty();
    assertThat(preview.hasChanges()).isFalse();
    assertThat(preview).hasToString("Preview[no change; 1 container refresh]");
    assertThat(app.update().of("tables")).isEqualTo(new UpdateStats.ProviderStats(0, 0, 0, 1));
    assertThat(tables.takeLog()).containsExactly("ensure docs", "ensure docs");

    generation = "g2";
    assertThat(app.preview().hasChanges()).isTrue();
    declared.put("docs", Map.of("r1", "v2"));
    assertThat(app.preview().toString()).startsWith("Preview[tables update \"docs\" ")
        .contains(", tables/docs update \"r1\" ").endsWith("]").doesNotContain("refresh");
  }

  @Test
  void twoContainersOfOneProviderAreIndependent() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "a"));
    declared.put("chunks", Map.of("r1", "b"));
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs", "ensure chunks");
    assertThat(rows.takeLog()).containsExactly("create r1=a", "create r1=b");
    rows.takeCalls();

    declared.put("chunks", Map.of());
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs", "ensure chunks");
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "a", List.of("a"), false),
        new Rows.Call("r1", null, List.of("b"), false));
    assertThat(rows.takeLog()).containsExactly("delete r1");

    declared.remove("chunks");
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs", "drop chunks");
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void generationChangeWithoutInvalidationLeavesRowsAlone() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1"));
    app.update();
    rows.takeLog();
    generation = "g2";
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void destructiveInvalidationTreatsChildrenAsNew() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1"));
    app.update();
    rows.takeLog();
    rows.takeCalls();

    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation = "g2";
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void lossyInvalidationForcesOneUpsertOfUnchangedChildren() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1"));
    app.update();
    rows.takeLog();
    rows.takeCalls();

    tables.invalidation = TargetChildInvalidation.LOSSY;
    generation = "g2";
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of("v1"), true));
    assertThat(rows.takeLog()).containsExactly("update r1=v1");

    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void destructiveInvalidationWithDataChangeSendsNoDeleteForOldChildren() {
    App app = tablesApp();
    declared.put("docs", Map.of("a", "1", "b", "1"));
    app.update();
    rows.takeLog();

    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation = "g2";
    declared.put("docs", Map.of("a", "1", "c", "1"));
    app.update();
    assertThat(rows.takeLog()).containsExactly("create a=1", "create c=1");

    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void destructiveInvalidationCascadesToGrandchildren() {
    Tables partitions = new Tables(rows);
    Tables table = new Tables(rows, () -> io.cocoindex.ChildTargetDef.of(partitions.handler));
    Map<String, String> leaves = new LinkedHashMap<>(Map.of("x", "1", "y", "1"));
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", table.handler);
      TargetStateProvider<Tables.TableSpec> partitionProvider =
          mountTarget(ctx, p.targetState("t", new Tables.TableSpec(generation)));
      TargetStateProvider<String> rowProvider =
          mountTarget(ctx, partitionProvider.targetState("p1", new Tables.TableSpec("p")));
      leaves.forEach((k, v) -> declareTargetState(ctx, rowProvider.targetState(k, v)));
    });
    app.update();
    assertThat(table.takeLog()).containsExactly("ensure t");
    assertThat(partitions.takeLog()).containsExactly("ensure p1");
    assertThat(rows.takeLog()).containsExactly("create x=1", "create y=1");
    rows.takeCalls();

    table.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation = "g2";
    leaves.remove("y");
    app.update();
    assertThat(partitions.takeLog()).containsExactly("ensure p1");
    // The partition is new under the destroyed table, so its rows are new too: no stale delete.
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("x", "1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create x=1");

    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void undeclaredContainerIsDroppedWithoutReconcilingItsRows() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1", "r2", "v1"));
    app.update();
    tables.takeLog();
    rows.takeLog();
    rows.takeCalls();

    int factoryCallsBefore = tables.factoryCalls.get();
    declared.clear();
    app.update();
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(rows.takeCalls()).isEmpty();
    assertThat(tables.factoryCalls.get()).as("no factory call for a Delete")
        .isEqualTo(factoryCallsBefore);

    declared.put("docs", Map.of("r1", "v1"));
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  @Test
  void containerAbandonedByItsHandlerTakesItsChildrensTrackingAlong() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1", "r2", "v1"));
    app.update();
    tables.takeLog();
    rows.takeLog();
    rows.takeCalls();

    tables.abandonWhenUndeclared = true;
    declared.clear();
    app.update();
    assertThat(tables.takeLog()).isEmpty();
    assertThat(rows.takeCalls()).isEmpty();
    assertThat(app.status().total()).as("nothing tracked below the abandoned table").isZero();

    // Declared again, the table is new, and so are its rows: nothing is known of them.
    declared.put("docs", Map.of("r1", "v1"));
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  @Test
  void containerAbandonedByItsHandlerTakesRowsDeclaredByOtherComponentsAlong() {
    boolean[] declareDocs = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      if (declareDocs[0]) {
        TargetStateProvider<String> docs =
            mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
        ctx.mount("a", c -> declareTargetState(c, docs.targetState("r1", "v1")));
        ctx.mount("b", c -> declareTargetState(c, docs.targetState("r2", "v1")));
      }
    });
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
    rows.takeCalls();

    tables.abandonWhenUndeclared = true;
    declareDocs[0] = false;
    app.update();
    assertThat(tables.takeLog()).isEmpty();
    assertThat(rows.takeCalls()).isEmpty();
    assertThat(trackedPaths(app)).isEmpty();
  }

  @Test
  void containerHandlerReturningCreateForAnExistingContainerKeepsItsChildrenIncremental() {
    tables.alwaysCreate = true;
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1", "r2", "v1"));
    app.update();
    rows.takeLog();
    rows.takeCalls();

    // A Create is not a DESTRUCTIVE invalidation: the rows keep their records, and the one no
    // longer declared is deleted, not forgotten.
    declared.put("docs", Map.of("r1", "v1"));
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs", "ensure docs");
    assertThat(rows.takeCalls()).containsExactly(
        new Rows.Call("r1", "v1", List.of("v1"), false),
        new Rows.Call("r2", null, List.of("v1"), false));
    assertThat(rows.takeLog()).containsExactly("delete r2");

    // Nor under a full reprocess, where prev may be missing for every state.
    declared.put("docs", Map.of("r3", "v1"));
    app.update(UpdateOptions.fullReprocess());
    assertThat(rows.takeCalls()).containsExactly(
        new Rows.Call("r1", null, List.of("v1"), true),
        new Rows.Call("r3", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r3=v1", "delete r1");
  }

  /** Rows {@code r000..} with value {@code v}: more than the sweep reads in one query. */
  static Map<String, String> manyRows(int n, String v) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      out.put(String.format("r%03d", i), v);
    }
    return out;
  }

  /** Closes {@code app} and lists the paths its store still tracks. */
  List<String> trackedPaths(App app) {
    app.close();
    List<String> paths = new ArrayList<>();
    store().scan("test", new byte[0], s -> paths.add(TargetPath.decode(s.path()).toString()));
    return paths;
  }

  @Test
  void sweepDeletesEveryUndeclaredRowAcrossItsReadChunks() {
    App app = tablesApp();
    declared.put("docs", manyRows(700, "v1"));
    app.update();
    rows.takeLog();

    declared.put("docs", Map.of("r350", "v1"));
    app.update();
    List<String> expected = new ArrayList<>();
    manyRows(700, "v1").keySet().stream().filter(k -> !k.equals("r350"))
        .forEach(k -> expected.add("delete " + k));
    assertThat(rows.takeLog()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(trackedPaths(app))
        .containsExactlyInAnyOrder("/@tables/\"docs\"", "/@tables/\"docs\"/\"r350\"");
  }

  @Test
  void droppedContainerForgetsRowsInEveryReadChunkWithoutReconcilingThem() {
    App app = tablesApp();
    declared.put("docs", manyRows(700, "v1"));
    declared.put("chunks", Map.of("c1", "v1"));
    app.update();
    tables.takeLog();
    rows.takeLog();
    rows.takeCalls();

    declared.remove("docs");
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure chunks", "drop docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(rows.takeCalls()).as("only the row still declared is reconciled")
        .containsExactly(new Rows.Call("c1", "v1", List.of("v1"), false));
    assertThat(trackedPaths(app))
        .containsExactlyInAnyOrder("/@tables/\"chunks\"", "/@tables/\"chunks\"/\"c1\"");
  }

  /**
   * A DESTRUCTIVE change whose container action failed has not destroyed the children: if the
   * next run's change is not DESTRUCTIVE, they are still there, so the undeclared ones are
   * deleted and the declared ones written again (they may have been destroyed, had the failure
   * come after the action). The precommit had recorded the new child generation, and the next
   * run forgot the old children without a delete: left in the target, untracked (found by
   * {@code ModelBasedTest} with the model going back).
   */
  @Test
  void childrenOfADestructiveChangeThatFailedAreStillReconciledByTheNextRun() {
    App app = failedDestructiveChange();
    generation = "g3";
    tables.invalidation = TargetChildInvalidation.LOSSY;
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of("v1"), true),
        new Rows.Call("r2", null, List.of("v1"), true));
    assertThat(rows.takeLog()).containsExactly("delete r2", "update r1=v1");

    app.update();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(trackedPaths(app))
        .containsExactlyInAnyOrder("/@tables/\"docs\"", "/@tables/\"docs\"/\"r1\"");
  }

  /**
   * The change retried as it was: the table handler finds the failed run's record among the
   * possible ones and asks for no invalidation, so the children are reconciled as above (a
   * handler cannot tell whether the failed action applied).
   */
  @Test
  void childrenOfADestructiveChangeRetriedWithoutInvalidationAreReconciled() {
    App app = failedDestructiveChange();
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of("v1"), true),
        new Rows.Call("r2", null, List.of("v1"), true));
    assertThat(rows.takeLog()).containsExactly("delete r2", "update r1=v1");
  }

  /** A DESTRUCTIVE change on the rerun destroys the children: no delete is sent for them. */
  @Test
  void aDestructiveChangeAfterOneThatFailedDestroysTheChildren() {
    App app = failedDestructiveChange();
    generation = "g3";
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    assertThat(trackedPaths(app))
        .containsExactlyInAnyOrder("/@tables/\"docs\"", "/@tables/\"docs\"/\"r1\"");
  }

  /**
   * A DESTRUCTIVE change whose container action fails, in the run that unmounts the component
   * owning a row below it: the row was not destroyed, so the sweep keeps it (and its owner's
   * record) for a run in which the change succeeds. The sweep had judged the row against the
   * container's new generation and forgot it without a delete: a next change that was not
   * DESTRUCTIVE left it in the target, untracked.
   */
  @Test
  void rowsOfAnUnmountedComponentOutliveADestructiveChangeThatFailed() {
    App app = destructiveChangeFailingAsItsRowsOwnerIsUnmounted();
    assertThat(app.status().providers().get("tables/docs"))
        .containsExactly(io.cocoindex.StableKey.of("r2"));

    generation = "g3";
    tables.invalidation = TargetChildInvalidation.LOSSY;
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("delete r2");
    assertThat(trackedPaths(app)).containsExactly("/@tables/\"docs\"");
  }

  /**
   * The same, the change retried as DESTRUCTIVE and succeeding: it destroys the row, which is
   * forgotten without a delete.
   */
  @Test
  void rowsOfAnUnmountedComponentGoWithADestructiveChangeRetried() {
    App app = destructiveChangeFailingAsItsRowsOwnerIsUnmounted();
    generation = "g3";
    app.update();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(trackedPaths(app)).containsExactly("/@tables/\"docs\"");
  }

  /**
   * Table docs and, while {@code mounted[0]}, component b's row r2 in it. A mount of the table
   * that fails ends main's declarations, without failing main.
   */
  private App tableWithRowOfB(boolean[] mounted) {
    return app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs;
      try {
        docs = mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
      } catch (RuntimeException tableFailed) {
        return; // declares nothing more this run
      }
      if (mounted[0]) {
        ctx.mount("b", b -> declareTargetState(b, docs.targetState("r2", "v1")));
      }
    });
  }

  /**
   * {@link #tableWithRowOfB}, then a run that unmounts b and makes a DESTRUCTIVE change
   * (generation g2) whose table action fails.
   */
  private App destructiveChangeFailingAsItsRowsOwnerIsUnmounted() {
    boolean[] mounted = {true};
    App app = tableWithRowOfB(mounted);
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r2=v1");
    tables.takeLog();

    mounted[0] = false;
    runFailingDestructiveChange(app);
    return app;
  }

  /** A run making a DESTRUCTIVE change (generation g2) whose table action fails: no row written. */
  private void runFailingDestructiveChange(App app) {
    generation = "g2";
    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    tables.failCreate = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure creating table docs");
    assertThat(rows.takeLog()).isEmpty();
    tables.failCreate = false;
  }

  /**
   * Table docs with rows r1 and r2, then a DESTRUCTIVE change (generation g2) whose table action
   * fails; r2 is no longer declared.
   */
  private App failedDestructiveChange() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1", "r2", "v1"));
    app.update();
    rows.takeLog();
    tables.takeLog();

    runFailingDestructiveChange(app);
    declared.put("docs", Map.of("r1", "v1"));
    rows.takeCalls();
    return app;
  }

  /**
   * A table no longer declared whose drop fails, its rows declared by a component no longer
   * mounted either: the component's record must stay while it owns rows, so that the next run
   * (the table declared again, the component still gone) deletes them. The sweep deleted the
   * record with the rows still tracked below the failed drop, and no run reached them again:
   * tracked and in the target for good (found by {@code ModelBasedTest}, its components mounted
   * only while they declare something).
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void rowsOfAnUnmountedComponentBelowATableWhoseDropFailedAreDeletedLater(boolean memoized) {
    boolean[] table = {true};
    boolean[] component = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      if (!table[0]) {
        return;
      }
      TargetStateProvider<String> docs =
          mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
      if (component[0]) {
        java.util.function.Consumer<io.cocoindex.Ctx> body =
            c -> declareTargetState(c, docs.targetState("r1", "v1"));
        if (memoized) {
          ctx.mountMemo("c", "r1=v1", body);
        } else {
          ctx.mount("c", body);
        }
      }
    });
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    table[0] = false;
    component[0] = false;
    tables.failDrop = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure dropping table docs");
    tables.failDrop = false;

    table[0] = true;
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete r1");
    assertThat(app.status().providers()).isEqualTo(Map.of("tables", List.of(
        io.cocoindex.StableKey.of("docs"))));

    // The component back, on the input of before: its memo (if any) must not hit.
    component[0] = true;
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  @Test
  void containerWhoseCreationFailedGivesItsChildrenAFreshStartOnTheRerun() {
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> child =
          declareTargetStateWithChild(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      declareTargetState(ctx, child.targetState("r1", "v1"));
    });
    tables.failCreate = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure creating table docs");
    assertThat(rows.takeLog()).isEmpty();
    rows.takeCalls();

    tables.failCreate = false;
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  @Test
  void declaringOnAnUnresolvedProviderFailsWithAClearMessageAndPersistsNothing() {
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> child =
          declareTargetStateWithChild(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      ctx.mount("elsewhere", c -> declareTargetState(c, child.targetState("r1", "v1")));
    });
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("cannot declare key \"r1\" on provider 'tables/docs': its container"
            + " has not been reconciled yet, as it is when the component that declared it commits:"
            + " declare the children in that component, or mount the container"
            + " (TargetStates.mountTarget, or the generated mount<Name> of its API class) so that"
            + " it is committed first and any component may declare into it");
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void containerHandlerReturningNothingLeavesTheChildProviderUnresolved() {
    tables.returnNothing = true;
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> child =
          declareTargetStateWithChild(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      declareTargetState(ctx, child.targetState("r1", "v1"));
    });
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the container handler returned no action for /@tables/\"docs\"");
    assertThat(tables.takeLog()).isEmpty();
    assertThat(rows.takeLog()).isEmpty();
    tables.returnNothing = false;
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  @Test
  void aContainerWhoseSinkHasNoChildHandlerFactoryIsAClearErrorAndWritesNoChild() {
    TargetActionSink<Tables.TableAction> plain = TargetActionSink.of(actions -> { });
    App app = app(singleTable(withSink(plain)));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the sink returned for container /@tables/\"docs\" (provider"
            + " 'tables') has no child-handler factory: build it with"
            + " TargetActionSink.withChildHandler");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers()).doesNotContainKey("tables/docs");
  }

  @Test
  void aChildHandlerFactoryReturningNullIsAClearErrorAndWritesNoChild() {
    TargetActionSink<Tables.TableAction> nullFactory =
        TargetActionSink.withChildHandler(actions -> { }, action -> null);
    App app = app(singleTable(withSink(nullFactory)));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the child-handler factory of container /@tables/\"docs\""
            + " (provider 'tables') returned null: it must return the children's handler,"
            + " ChildTargetDef.of(handler)");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers()).doesNotContainKey("tables/docs");
  }

  @Test
  void aChildHandlerFactoryThrowingIsAnErrorNamingTheContainerAndItsQuotedProvider() {
    TargetActionSink<Tables.TableAction> failing = TargetActionSink.withChildHandler(
        actions -> { }, action -> {
          throw new IllegalArgumentException("no such schema");
        });
    App app = app(singleTable(withSink(failing)));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("the child-handler factory of container /@tables/\"docs\""
            + " (provider 'tables') failed: java.lang.IllegalArgumentException: no such schema");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers()).doesNotContainKey("tables/docs");
  }

  @Test
  void theChildHandlerFactoryIsAskedWithTheHandlerThatReturnedTheContainersAction() {
    // A sink shared by several containers' handlers holds one factory: the engine names the
    // container's own handler, so the factory can ask it rather than the one it was built from.
    List<TargetHandler<?, ?, ?>> askedWith = new ArrayList<>();
    ChildHandlerFactory<Tables.TableAction> tablesOwn = tables.sink.childHandlerFactory().get();
    TargetActionSink<Tables.TableAction> asking = TargetActionSink.withChildHandler(
        actions -> tables.sink.applyAsync(actions).toCompletableFuture().join(),
        new ChildHandlerFactory<>() {
          @Override
          public ChildTargetDef<?> childHandler(Tables.TableAction action) {
            throw new AssertionError("asked without the container's handler");
          }

          @Override
          public ChildTargetDef<?> childHandler(
              TargetHandler<?, ?, ?> containerHandler, Tables.TableAction action) {
            askedWith.add(containerHandler);
            return tablesOwn.childHandler(action);
          }
        });
    TargetHandler<Tables.TableSpec, Tables.TableSpec, Tables.TableAction> handler =
        withSink(asking);
    App app = app(singleTable(handler));
    app.update();
    assertThat(askedWith).containsExactly(handler);
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  /** The tables' handler, its every action sent to {@code sink} instead of the tables' own. */
  private TargetHandler<Tables.TableSpec, Tables.TableSpec, Tables.TableAction> withSink(
      TargetActionSink<Tables.TableAction> sink) {
    return (key, desired, prev, mayBeMissing) -> {
      TargetReconcileOutput<Tables.TableAction, Tables.TableSpec> out =
          tables.handler.reconcile(key, desired, prev, mayBeMissing);
      return out == null ? null : new TargetReconcileOutput<>(
          out.action(), sink, out.trackingRecord(), out.childInvalidation());
    };
  }

  /** An app declaring table docs, through {@code handler}, with one row r1. */
  private static Consumer<Ctx> singleTable(
      TargetHandler<Tables.TableSpec, Tables.TableSpec, Tables.TableAction> handler) {
    return ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", handler);
      TargetStateProvider<String> docs =
          declareTargetStateWithChild(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      declareTargetState(ctx, docs.targetState("r1", "v1"));
    };
  }

  @Test
  void aChildRemovedWhileItsContainersHandlerReturnsNothingFailsRatherThanStaying() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1", "r2", "v1"));
    app.update();
    rows.takeLog();

    // Declaring a child would fail (its provider is unresolved): so does removing one.
    tables.returnNothing = true;
    declared.put("docs", Map.of());
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("cannot delete target state /@tables/\"docs\"/\"r1\", no longer"
            + " declared: the container handler returned no action for /@tables/\"docs\"");
    assertThat(rows.takeLog()).isEmpty();

    assertThat(app.status().providers().get("tables/docs")).hasSize(2);

    tables.returnNothing = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete r1", "delete r2");
  }

  @Test
  void aContainerDeclaredAgainAsAPlainStateTakesItsChildrensTrackingAlong() {
    boolean[] asContainer = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      if (asContainer[0]) {
        TargetStateProvider<String> docs =
            mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
        declareTargetState(ctx, docs.targetState("r1", "v1"));
      } else {
        declareTargetState(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      }
    });
    app.update();
    rows.takeLog();
    rows.takeCalls();

    // Declared without a child provider, the state has no children: its handler's action
    // (here the table's refresh) stands for them, as a Delete does for a removed container.
    asContainer[0] = false;
    app.update();
    assertThat(rows.takeCalls()).isEmpty();
    assertThat(trackedPaths(app)).containsExactly("/@tables/\"docs\"");
  }

  @Test
  void rowsUnderAContainerThatFailedToReconcileAreKeptNotForgotten() {
    boolean[] mounted = {true};
    App app = tableWithRowOfB(mounted);
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r2=v1");

    // The table is claimed but never resolved: the row below it, no longer declared, cannot be
    // deleted through a handler, so it stays tracked for the next run.
    mounted[0] = false;
    tables.throwInReconcile = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure reconciling table docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers().get("tables/docs")).hasSize(1);

    tables.throwInReconcile = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete r2");
  }

  @Test
  void attachmentOfAContainerWhoseHandlerReturnedNothingSaysWhy() {
    tables.returnNothing = true;
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs =
          mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      declareTargetState(ctx, docs.<String>attachment(ctx, "index").targetState("i1", "v1"));
    });
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("cannot declare key \"i1\" on provider 'tables/docs@index'")
        .hasMessageContaining("the container handler returned no action for /@tables/\"docs\"");
  }

  @Test
  void previewPlansTheContainerAndItsChildrenThroughTheFactoryWithoutApplying() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1", "r2", "v1"));
    Preview preview = app.preview();
    assertThat(preview.actions())
        .extracting(a -> a.provider() + " " + a.action().verb() + " " + Rows.keyText(a.key()))
        .containsExactlyInAnyOrder(
            "tables create docs", "tables/docs create r1", "tables/docs create r2");
    assertThat(tables.factoryCalls.get()).isEqualTo(1);
    assertThat(tables.takeLog()).isEmpty();
    assertThat(rows.takeLog()).isEmpty();

    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
  }

  @Test
  void dropStateDeletesOneContainerPerContainerAndLeavesAnEmptyStore() {
    App app = tablesApp();
    declared.put("docs", Map.of("r1", "v1", "r2", "v1"));
    declared.put("chunks", Map.of("c1", "v1"));
    app.update();
    tables.takeLog();
    rows.takeLog();

    app.dropState();
    assertThat(tables.takeLog()).containsExactlyInAnyOrder("drop docs", "drop chunks");
    assertThat(rows.takeLog()).isEmpty();
    app.close();
    StateStore store = store();
    List<Object> left = new ArrayList<>();
    store.scan("test", new byte[0], left::add);
    assertThat(left).isEmpty();
    assertThat(store.components("test")).isEmpty();
  }

  /**
   * A table deleted in a run in which the component owning a row of it fails (its tracking is
   * kept), then declared again: the new table is empty, so the row, declared as before, must be
   * created in it, not read as current from the old table's tracking.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aRowOfAFailedComponentBelowADeletedTableIsCreatedWhenTheTableComesBack(boolean memoized) {
    boolean[] table = {true};
    boolean[] failing = {false};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs = table[0]
          ? mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation))) : null;
      java.util.function.Consumer<io.cocoindex.Ctx> body = c -> {
        if (failing[0]) {
          throw new IllegalStateException("component c fails");
        }
        if (docs != null) {
          declareTargetState(c, docs.targetState("r1", "v1"));
        }
      };
      if (memoized) {
        ctx.mountMemo("c", "input", body);
      } else {
        ctx.mount("c", body);
      }
    });
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    table[0] = false;
    if (memoized) {
      app.update(); // c runs (its table is not declared: its memo does not hold), declaring nothing
    } else {
      failing[0] = true; // c fails: its tracking is kept as it was
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("component c fails");
    }
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(rows.takeLog()).isEmpty();

    table[0] = true;
    failing[0] = false;
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).as("the new table is empty").containsExactly("create r1=v1");
  }
  /**
   * What the children's handler found when the factory built it (a container removed by hand,
   * which no reconcile can see) invalidates the children as the container handler's own answer
   * would: DESTRUCTIVE makes every declared child new, memoized components' included (their
   * memos miss), and sends no delete for the rest; LOSSY upserts each declared child once.
   */
  @ParameterizedTest
  @ValueSource(strings = {"DESTRUCTIVE", "LOSSY"})
  void whatTheChildrensHandlerFoundInvalidatesThemAndTheMemosOverThem(String found) {
    TargetChildInvalidation[] finding = {null};
    TargetHandler<String, String, Rows.RowAction> finder = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<Rows.RowAction, String> reconcile(
          io.cocoindex.StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
        return rows.handler.reconcile(key, desired, prev, mayBeMissing);
      }

      @Override
      public TargetChildInvalidation childInvalidationFound() {
        return finding[0];
      }
    };
    Tables findingTables = new Tables(rows, () -> io.cocoindex.ChildTargetDef.of(finder));
    boolean[] withR2 = {true};
    App app = app(ctx -> {
      TargetStateProvider<String> docs = mountTarget(ctx,
          registerRootTargetStatesProvider(ctx, "tables", findingTables.handler)
              .targetState("docs", new Tables.TableSpec(generation)));
      declareTargetState(ctx, docs.targetState("r1", "v1"));
      if (withR2[0]) {
        declareTargetState(ctx, docs.targetState("r2", "v1"));
      }
      ctx.mountMemo("m", "input", c -> declareTargetState(c, docs.targetState("m1", "v1")));
    });
    app.update();
    assertThat(rows.takeLog()).containsExactlyInAnyOrder("create r1=v1", "create r2=v1",
        "create m1=v1");
    assertThat(app.update().componentsMemoized()).isEqualTo(1);
    assertThat(rows.takeLog()).isEmpty();
    rows.takeCalls();

    finding[0] = TargetChildInvalidation.valueOf(found);
    withR2[0] = false;
    UpdateStats stats = app.update();
    assertThat(stats.componentsMemoized()).as("the memo over the children misses").isZero();
    if (found.equals("DESTRUCTIVE")) {
      assertThat(rows.takeCalls()).containsExactlyInAnyOrder(
          new Rows.Call("r1", "v1", List.of(), true), new Rows.Call("m1", "v1", List.of(), true));
      assertThat(rows.takeLog()).as("no delete for r2: it went with its table")
          .containsExactlyInAnyOrder("create r1=v1", "create m1=v1");
    } else {
      assertThat(rows.takeCalls()).containsExactlyInAnyOrder(
          new Rows.Call("r1", "v1", List.of("v1"), true),
          new Rows.Call("m1", "v1", List.of("v1"), true),
          new Rows.Call("r2", null, List.of("v1"), true));
      assertThat(rows.takeLog())
          .containsExactlyInAnyOrder("update r1=v1", "update m1=v1", "delete r2");
    }

    finding[0] = null;
    assertThat(app.update().componentsMemoized()).as("recorded again, the memo holds").isEqualTo(1);
    assertThat(rows.takeLog()).isEmpty();
  }
}
