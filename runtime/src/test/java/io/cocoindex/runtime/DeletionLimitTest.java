package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.TargetStateProvider;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link UpdateOptions#withDeletionLimit}: an update that would delete more than its limit
 * deletes nothing, keeps the tracking, applies the rest, and fails saying how many and why.
 */
class DeletionLimitTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  /** Rows declared one per component, at the root provider. */
  final Map<String, String> source = new TreeMap<>();
  /** Rows declared into table "docs", when it is declared. */
  Map<String, String> docs;

  App app() {
    return app(ctx -> {
      TargetStateProvider<String> flat =
          registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      source.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, flat.targetState(k, v))));
      if (docs != null) {
        TargetStateProvider<String> table =
            mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
        docs.forEach((k, v) -> declareTargetState(ctx, table.targetState(k, v)));
      }
    });
  }

  @Test
  void aSourceThatCameUpEmptyDeletesNothingWhileTheRestOfTheUpdateApplies() {
    App app = app();
    for (String k : new String[] {"a", "b", "c", "d", "e"}) {
      source.put(k, "1");
    }
    app.update();
    rows.takeLog();

    source.clear();
    source.put("f", "1"); // a new row in the same run is created all the same
    UpdateOptions guarded = UpdateOptions.defaults().withDeletionLimit(2);
    assertThatThrownBy(() -> app.update(guarded))
        .hasMessageStartingWith("update of app 'test': its end-of-run deletions were refused\n"
            + "  /: the update would delete 5 target states")
        .isInstanceOfSatisfying(UpdateFailedException.class, e -> {
          assertThat(e.failures()).hasSize(1);
          assertThat(e.failures().get(0).component()).isEqualTo("/");
          assertThat(e.failures().get(0).error())
              .isInstanceOfSatisfying(DeletionLimitExceededException.class, d -> {
                assertThat(d.deletions()).isEqualTo(5);
                assertThat(d.limit()).isEqualTo(2);
              })
              .hasMessageStartingWith("the update would delete 5 target states (5 through their"
                  + " handlers, 0 with their containers), more than its deletion limit of 2:"
                  + " none was deleted");
          assertThat(e.stats().of("rows").created()).isEqualTo(1);
        });
    assertThat(rows.takeLog()).containsExactly("create f=1");
    assertThat(app.status().providers().get("rows")).hasSize(6);
    assertThat(app.preview().changes()).extracting(c -> c.action().verb())
        .containsExactly("delete", "delete", "delete", "delete", "delete");

    // Within the limit (or without one), the next update deletes them.
    UpdateStats stats = app.update(UpdateOptions.defaults().withDeletionLimit(5));
    assertThat(stats.of("rows").deleted()).isEqualTo(5);
    assertThat(rows.takeLog()).containsExactlyInAnyOrder(
        "delete a", "delete b", "delete c", "delete d", "delete e");
    assertThat(app.status().providers().get("rows")).hasSize(1);
  }

  /**
   * Three components no longer mounted own one row each, no more than the limit of 3: the
   * update needs no counting pass, and each row's handler is asked once (it was asked twice).
   */
  @Test
  void aRemovalOfNoMoreStatesThanTheLimitAsksEachHandlerOnce() {
    App app = app();
    for (String k : new String[] {"a", "b", "c", "d"}) {
      source.put(k, "1");
    }
    app.update();
    rows.takeLog();
    rows.takeCalls();

    source.keySet().retainAll(Set.of("d"));
    app.update(UpdateOptions.defaults().withDeletionLimit(3));
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", null, List.of("1"), false),
        new Rows.Call("b", null, List.of("1"), false), new Rows.Call("c", null, List.of("1"), false),
        new Rows.Call("d", "1", List.of("1"), false));
    assertThat(rows.takeLog()).containsExactly("delete a", "delete b", "delete c");
  }

  /**
   * As above, beside a memoized component whose memo hits: its tracking is kept as it was, so a
   * container the sweep deletes could take its states along, and the count's bound reads below
   * the candidates that are containers (none here). Within the limit, each handler is asked once
   * on the app's only writer (it was asked twice); on the shared store a kept component may be
   * mounted by another worker meanwhile, so the update still counts first.
   */
  @Test
  void aRemovalBesideAMemoHitWithinTheLimitAsksEachHandlerOnce() {
    App app = app(ctx -> {
      TargetStateProvider<String> flat =
          registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mountMemo("m", "in", c -> declareTargetState(c, flat.targetState("m", "1")));
      source.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, flat.targetState(k, v))));
    });
    for (String k : new String[] {"a", "b", "c", "d"}) {
      source.put(k, "1");
    }
    app.update();
    rows.takeLog();
    rows.takeCalls();

    source.keySet().retainAll(Set.of("d"));
    UpdateStats stats = app.update(UpdateOptions.defaults().withDeletionLimit(3));
    assertThat(stats.componentsMemoized()).isEqualTo(1);
    List<Rows.Call> once = List.of(new Rows.Call("a", null, List.of("1"), false),
        new Rows.Call("b", null, List.of("1"), false), new Rows.Call("c", null, List.of("1"), false),
        new Rows.Call("d", "1", List.of("1"), false));
    List<Rows.Call> calls = rows.takeCalls();
    if (ON_POSTGRES) {
      assertThat(calls).as("counted first").hasSize(once.size() + 3).containsAll(once);
    } else {
      assertThat(calls).containsExactlyElementsOf(once);
    }
    assertThat(rows.takeLog()).containsExactly("delete a", "delete b", "delete c");
  }

  @Test
  void statesThatWouldGoWithTheirContainerCountTowardsTheLimit() {
    App app = app();
    docs = Map.of("r1", "1", "r2", "1", "r3", "1");
    app.update();
    tables.takeLog();
    rows.takeLog();

    docs = null;
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(3)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 4 target states (1 through their handlers,"
            + " 3 with their containers), more than its deletion limit of 3");
    assertThat(tables.takeLog()).as("the table is not dropped").isEmpty();

    app.update(UpdateOptions.defaults().withDeletionLimit(4));
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(app.status().total()).isZero();
  }

  /**
   * Component "z" stops declaring table "docs", whose rows r1 and r2 belong to component "k",
   * which fails: "k"'s tracking is kept as it was, so its rows are no candidates of the sweep,
   * but the table's drop takes them along all the same, and the limit counts them (it let the
   * drop of the table and both rows through a limit of 1).
   */
  App tableOfZWithRowsOfFailingK(boolean[] tableDeclared) {
    return app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> table = ctx.useMount("z", c -> tableDeclared[0]
          ? mountTarget(c, p.targetState("docs", new Tables.TableSpec("g1"))) : null);
      ctx.mountMemo("k", "in", c -> {
        if (!tableDeclared[0]) {
          throw new IllegalStateException("k fails");
        }
        declareTargetState(c, table.targetState("r1", "1"));
        declareTargetState(c, table.targetState("r2", "1"));
      });
    });
  }

  @Test
  void rowsOfAFailedComponentThatWouldGoWithTheirTableCountTowardsTheLimit() {
    boolean[] declared = {true};
    App app = tableOfZWithRowsOfFailingK(declared);
    app.update();
    tables.takeLog();
    assertThat(rows.takeLog()).containsExactly("create r1=1", "create r2=1");

    declared[0] = false;
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(2)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 3 target states (1 through their handlers,"
            + " 2 with their containers), more than its deletion limit of 2");
    assertThat(tables.takeLog()).as("the table is not dropped").isEmpty();
    assertThat(app.status().total()).isEqualTo(3);

    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(3)))
        .isInstanceOf(UpdateFailedException.class).hasMessageContaining("k fails");
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(app.status().total()).isZero();
  }

  @Test
  void aLimitIsNeverNegativeAndShowsInTheOptions() {
    assertThatThrownBy(() -> UpdateOptions.defaults().withDeletionLimit(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a deletion limit cannot be negative: -1");
    assertThat(UpdateOptions.fullReprocess().withDeletionLimit(0))
        .hasToString("UpdateOptions[fullReprocess, deletionLimit=0]")
        .matches(UpdateOptions::isFullReprocess);
    assertThat(UpdateOptions.defaults()).hasToString("UpdateOptions[defaults]");
  }
}
