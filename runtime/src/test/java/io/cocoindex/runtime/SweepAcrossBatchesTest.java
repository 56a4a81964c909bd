package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The orphan sweep goes the committed components' candidates first, then the stale components a
 * batch at a time: a table (a container) and its rows owned by different components are reached
 * in different batches or passes, in either order, and the outcome is the one a single pass
 * over every candidate in path order gives. Run with {@code -Dcocoindex.sweep.chunk=1} (every
 * component a batch of its own) as well as the default; the PostgreSQL run of the engine tests
 * sweeps in chunks of two.
 */
class SweepAcrossBatchesTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  /** Component name -> the table it mounts. */
  final Map<String, String> tableOwners = new TreeMap<>();
  /** Component name -> its rows, each {table, key, value}; mounted memoized on that list. */
  final Map<String, List<List<String>>> rowOwners = new TreeMap<>();
  /** Each row owner's input (defaults to its rows). */
  final Map<String, String> inputs = new HashMap<>();

  Consumer<Ctx> main() {
    return ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      Map<String, TargetStateProvider<String>> tbls = new HashMap<>();
      tableOwners.forEach((comp, table) -> tbls.put(table, ctx.useMount(comp,
          c -> mountTarget(c, p.targetState(table, new Tables.TableSpec("g1"))))));
      rowOwners.forEach((comp, own) -> {
        List<List<String>> mine = List.copyOf(own);
        ctx.mountMemo(comp, inputs.getOrDefault(comp, mine.toString()), c -> mine.forEach(
            r -> declareTargetState(c, tbls.get(r.get(0)).targetState(r.get(1), r.get(2)))));
      });
    };
  }

  static List<String> row(String table, String key, String value) {
    return List.of(table, key, value);
  }

  void tableZWithRowsOfAAndB() {
    tableOwners.put("z", "docs");
    rowOwners.put("a", List.of(row("docs", "r1", "v1")));
    rowOwners.put("b", List.of(row("docs", "r2", "v1")));
  }

  void tableAWithRowsOfMAndN() {
    tableOwners.put("a", "docs");
    rowOwners.put("m", List.of(row("docs", "r1", "v1")));
    rowOwners.put("n", List.of(row("docs", "r2", "v1")));
  }

  @Test
  void rowsOfEarlierBatchesGoWithTheirTableDeletedInALaterOne() {
    tableZWithRowsOfAAndB();
    App app = app(main());
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
    tables.takeLog();
    Map<String, String> t = new TreeMap<>(tableOwners);
    Map<String, List<List<String>>> r = new TreeMap<>(rowOwners);

    tableOwners.clear();
    rowOwners.clear();
    app.update();
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().total()).isZero();

    tableOwners.putAll(t);
    rowOwners.putAll(r);
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
  }

  @Test
  void rowsOfLaterBatchesGoWithTheirTableDeletedInAnEarlierOne() {
    tableAWithRowsOfMAndN();
    App app = app(main());
    app.update();
    rows.takeLog();
    tables.takeLog();
    Map<String, String> t = new TreeMap<>(tableOwners);
    Map<String, List<List<String>>> r = new TreeMap<>(rowOwners);

    tableOwners.clear();
    rowOwners.clear();
    app.update();
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().total()).isZero();

    tableOwners.putAll(t);
    rowOwners.putAll(r);
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
  }

  @Test
  void aTableWhoseDropFailsKeepsTheRowsOfEveryBatchAndARerunDropsIt() {
    tableZWithRowsOfAAndB();
    App app = app(main());
    app.update();
    rows.takeLog();
    tables.takeLog();

    tableOwners.clear();
    rowOwners.clear();
    tables.failDrop = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().total()).isEqualTo(3);

    tables.failDrop = false;
    app.update();
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().total()).isZero();
  }

  @Test
  void aTableOfALaterBatchWhoseDropFailsKeepsRowsOfAnEarlierOne() {
    tableAWithRowsOfMAndN();
    App app = app(main());
    app.update();
    rows.takeLog();
    tables.takeLog();

    tableOwners.clear();
    rowOwners.clear();
    tables.failDrop = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().total()).isEqualTo(3);

    tables.failDrop = false;
    app.update();
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(app.status().total()).isZero();
  }

  @Test
  void theDeletionLimitCountsRowsGoneWithATableOfAnotherBatch() {
    tableZWithRowsOfAAndB();
    App app = app(main());
    app.update();
    rows.takeLog();
    tables.takeLog();

    tableOwners.clear();
    rowOwners.clear();
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(2)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 3 target states (1 through their handlers,"
            + " 2 with their containers), more than its deletion limit of 2");
    assertThat(tables.takeLog()).isEmpty();
    app.update(UpdateOptions.defaults().withDeletionLimit(3));
    assertThat(tables.takeLog()).containsExactly("drop docs");
  }

  @Test
  void theDeletionLimitCountsRowsOfALaterBatchGoneWithATable() {
    tableAWithRowsOfMAndN();
    App app = app(main());
    app.update();
    rows.takeLog();
    tables.takeLog();

    tableOwners.clear();
    rowOwners.clear();
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(2)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 3 target states (1 through their handlers,"
            + " 2 with their containers), more than its deletion limit of 2");
  }

  /**
   * The table goes in a later batch than its rows' owners; the store loses the sweep's last
   * write (the records of the rows' owners), as a crash there would. The input coming back must
   * create the rows again: the table was dropped under them.
   */
  @Test
  void aSweepCutOffAfterTheTableDropStillRecreatesItsRowsWhenTheInputComesBack() {
    FaultyStateStore store = new FaultyStateStore(store());
    tableZWithRowsOfAAndB();
    try (App app = App.create("cut", Environment.builder().stateStore(store).build(), main())) {
      app.update();
      rows.takeLog();
      tables.takeLog();
      Map<String, String> t = new TreeMap<>(tableOwners);
      Map<String, List<List<String>>> r = new TreeMap<>(rowOwners);

      tableOwners.clear();
      rowOwners.clear();
      List<String> dropped = new ArrayList<>();
      store.failWrite = w -> {
        boolean settlesDrop = w.stream().anyMatch(x -> x instanceof StateWrite.Settle);
        if (settlesDrop) {
          dropped.add("yes");
          return false;
        }
        // Every write after the table's drop commits is lost.
        return !dropped.isEmpty() && w.stream().noneMatch(x -> x instanceof StateWrite.Precommit);
      };
      try {
        app.update();
      } catch (UpdateFailedException expected) {
        // the lost write fails its owners
      }
      assertThat(tables.takeLog()).containsExactly("drop docs");
      store.failWrite = w -> false;

      tableOwners.putAll(t);
      rowOwners.putAll(r);
      app.update();
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(rows.takeLog()).as("rows dropped with the table are created again")
          .containsExactly("create r1=v1", "create r2=v1");
    }
  }

  /**
   * A committed (memoized) component stops declaring its row in a table whose owner is no longer
   * mounted; the table's drop fails. The component's memo must not be recorded: its row stays
   * tracked, and once the table is declared again with the same input, everything converges.
   */
  @Test
  void aCommittedComponentsRowUnderATableWhoseDropFailsKeepsItsMemoUnrecorded() {
    tableOwners.put("z", "docs");
    rowOwners.put("k", List.of(row("docs", "r1", "v1")));
    App app = app(main());
    app.update();
    rows.takeLog();
    tables.takeLog();

    tableOwners.clear();
    rowOwners.put("k", List.of());
    tables.failDrop = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(rows.takeLog()).isEmpty();
    tables.failDrop = false;
    app.update();
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(app.status().total()).isZero();

    tableOwners.put("z", "docs");
    rowOwners.put("k", List.of(row("docs", "r1", "v1")));
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  /**
   * Component "z" (still mounted) stops declaring table "docs": a committed component's
   * candidate, swept before every stale batch; its rows belong to stale memoized components.
   */
  Consumer<Ctx> committedTableMain(boolean[] full, boolean[] tableDeclared) {
    return ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs = ctx.useMount("z", c -> tableDeclared[0]
          ? io.cocoindex.TargetStates.<Tables.TableSpec, String>declareTargetStateWithChild(
              c, p.targetState("docs", new Tables.TableSpec("g1")))
          : null);
      if (full[0]) {
        ctx.mountMemo("m", "in", c -> declareTargetState(c, docs.targetState("r1", "v1")));
        ctx.mountMemo("n", "in", c -> declareTargetState(c, docs.targetState("r2", "v1")));
      }
    };
  }

  @Test
  void aCommittedComponentsTableWhoseDropFailsKeepsTheRowsOfStaleComponents() {
    boolean[] full = {true};
    boolean[] table = {true};
    App app = app(committedTableMain(full, table));
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
    tables.takeLog();

    full[0] = false;
    table[0] = false;
    tables.failDrop = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().total()).isEqualTo(3);

    tables.failDrop = false;
    app.update();
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(app.status().total()).isZero();

    full[0] = true;
    table[0] = true;
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
  }

  /**
   * As above, the drop succeeds, and the sweep is cut off after it (every later write lost):
   * the rows' owners keep their records; their memos must not hit when the input comes back.
   */
  @Test
  void aSweepCutOffAfterACommittedComponentsTableDropRecreatesTheRowsOfStaleOwners() {
    FaultyStateStore store = new FaultyStateStore(store());
    boolean[] full = {true};
    boolean[] table = {true};
    try (App app = App.create("cut2", Environment.builder().stateStore(store).build(),
        committedTableMain(full, table))) {
      app.update();
      rows.takeLog();
      tables.takeLog();

      full[0] = false;
      table[0] = false;
      boolean[] dropped = {false};
      store.failWrite = w -> {
        if (w.stream().anyMatch(x -> x instanceof StateWrite.Settle)) {
          dropped[0] = true;
          return false;
        }
        return dropped[0] && w.stream().noneMatch(x -> x instanceof StateWrite.Precommit);
      };
      try {
        app.update();
      } catch (UpdateFailedException expected) {
        // the lost writes fail their owners
      }
      assertThat(tables.takeLog()).containsExactly("drop docs");
      store.failWrite = w -> false;

      full[0] = true;
      table[0] = true;
      app.update();
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(rows.takeLog()).as("rows dropped with the table are created again")
          .containsExactly("create r1=v1", "create r2=v1");
    }
  }

  @Test
  void previewPlansWhatTheUpdateDoesAcrossBatches() {
    tableZWithRowsOfAAndB();
    tableOwners.put("y", "other");
    rowOwners.put("c", List.of(row("other", "r3", "v1")));
    App app = app(main());
    app.update();
    rows.takeLog();
    tables.takeLog();

    tableOwners.remove("z");
    rowOwners.remove("a");
    rowOwners.remove("b");
    rowOwners.remove("c");
    List<String> planned = new ArrayList<>();
    for (PlannedAction a : app.preview().actions()) {
      if (!(a.action() instanceof io.cocoindex.TargetAction.Update)) {
        planned.add(a.provider() + " " + a.action().getClass().getSimpleName() + " " + a.key());
      }
    }
    app.update();
    assertThat(planned).containsExactlyInAnyOrder(
        "tables Delete " + io.cocoindex.StableKey.of("docs"),
        "tables/other Delete " + io.cocoindex.StableKey.of("r3"));
    assertThat(tables.takeLog()).contains("drop docs");
    assertThat(rows.takeLog()).containsExactly("delete r3");
  }
}
