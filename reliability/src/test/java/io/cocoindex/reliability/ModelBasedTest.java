package io.cocoindex.reliability;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.reliability.ModelConnectors.LEAF;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static io.cocoindex.reliability.ActionText.minus;
import static io.cocoindex.reliability.ActionText.sorted;
import static io.cocoindex.reliability.ActionText.states;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.reliability.ModelConnectors.TableSpec;
import io.cocoindex.runtime.ActionListener;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.Preview;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateOptions;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.inspect.StatusReport;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.Tuple;

/**
 * Model-based tests of the engine: random sequences of declared sets, value changes, container
 * generation changes with each invalidation kind (DESTRUCTIVE, LOSSY, none), attachments on and
 * off, component moves (ownership transfer), a model going back to what it was before the last
 * run, and sink failures (before anything applies, or after part of a batch applied), run against
 * the in-memory {@link ModelConnectors}. Components are memoized on what they declare (two of
 * them under a memoized group) and mounted only while they declare something, so a memo is asked
 * to hit again after a failed run, and a memoized component is unmounted with states. Components
 * nest two levels deep (comp3 mounts comp4, which mounts comp5), states move across nesting
 * levels, and a parent is removed with its subtree. A table may be declared without children (a
 * leaf, as a directory that became a file) and with them again. Partitions are tables that a memoized
 * component declares itself and writes its rows to, carrying on past its table's failure.
 *
 * <p>Checked: before every run, a preview changes neither the external system nor the store
 * (rule 12). After every successful update, that preview planned exactly what the update did:
 * its actions, container refreshes included, are the actions the engine reports applied (an
 * {@code ActionListener}), as multisets of (provider, key, verb, value), and the sinks received
 * exactly those; its changes, per provider and verb, are the update's created, updated and
 * deleted counts, so {@code hasChanges()} tells whether the update changed anything. What
 * legitimately differs: a failed update (a preview cannot foresee a fault; a scripted fault that
 * fires nowhere is no fault, and such a step is compared); a drop (a preview plans an update); a
 * full reprocess (a preview has no options: the update reconciles every state as possibly
 * missing, rewrites what is unchanged and runs memoized components, so it acts on every state
 * the preview planned for, and more, and deletes exactly those planned). A failed update
 * (not a full reprocess) applies only actions the preview planned, unless a table failed (a
 * partition, and the root told to, carries on past it declaring less, and what it no longer
 * declares is deleted) or components failed at their start (a state moved to one is deleted
 * under its unmounted old owner: nothing declared it). Memo hits are no difference: a preview
 * and the update after it read the same memos. A container being created plans its children too (its child-handler
 * factory resolves them from the planned action), as the update applies them. After every run,
 * failed or not: nothing external is untracked (a possible record is never lost), and {@code
 * status()} lists as unsettled exactly what the next run finds unsettled: a preview with the
 * model as it is reconciles a tracked state with several possible records, or as possibly
 * missing (its table's invalidation in that preview aside), only if it is listed, a listed one
 * never as settled, and every listed one but those that go with their table (deleted, or
 * destroyed and no longer declared). After every successful update, the external system
 * equals the declared model exactly, the store is settled, and a preview plans no change. At
 * the end a fault-free run converges and a second one plans nothing. Runs may also be killed
 * mid-way ({@link SimulatedKill}; {@link #killedRunsAreRecoveredAsPreviewed}): the step after a
 * kill is its recovery, and is held to the same preview. jqwik shrinks a failing
 * scenario and prints its seed.
 */
class ModelBasedTest {
  static final int TABLES = 2;
  static final int KEYS = 5;
  static final int COMPONENTS = 6;
  static final String[] CHANGES = {"NONE", "DESTRUCTIVE", "LOSSY"};

  /** One edit of the declared model; {@code op} picks the kind, the rest its arguments. */
  record Edit(int op, int table, int key, int value, int comp) {
    @Override
    public String toString() {
      String t = "t" + table;
      String k = "k" + key;
      switch (op) {
        case 0: return "set " + t + "/" + k + "=v" + value + " in comp" + comp;
        case 1: return "delete " + t + "/" + k;
        case 2: return "move " + t + "/" + k + " to comp" + comp;
        case 3: return "set kv " + k + "=v" + value + " in comp" + comp;
        case 4: return "delete kv " + k;
        case 5: return "move kv " + k + " to comp" + comp;
        case 6: return "declare " + t;
        case 7: return "undeclare " + t;
        case 8: return "bump " + t + " generation, change " + CHANGES[value % 3];
        case 9: return "index " + t + "@i" + (key % 2) + "=s" + value;
        case 10: return "drop index " + t + "@i" + (key % 2);
        case 12: return "the root carries on past a table it cannot set up";
        case 13: return "the next update is a full reprocess";
        case 14: return "the next run is a dropState";
        case 15: return "remove comp" + comp + (comp == 3 ? " and its subtree (comp4, comp5, p1)"
            : comp == 4 ? " and its subtree (comp5, p1)" : "'s states");
        case 16: return "set p" + table + "/" + k + "=v" + value;
        case 17: return "delete p" + table + "/" + k;
        case 18: return "drop partition p" + table;
        case 19: return "bump p" + table + " generation, change " + CHANGES[value % 3];
        case 20: return "declare " + t + " without children (a leaf), or with them again";
        default: return "back to the model of the run before";
      }
    }
  }

  /** One run: edits, then an update with the given sink faults. */
  record Step(List<Edit> edits, int faultKind, int faultMod, boolean partial) {
    static final String[] KINDS = {"none", "row", "kv", "index", "table", "comp", "kill"};

    /** Whether the run is killed ({@link SimulatedKill}), rather than failing sinks. */
    boolean killed() {
      return faultKind == 6;
    }

    /** The event of the run (store write or sink call) at which a killed run dies. */
    int killedAt() {
      return 1 + faultMod + edits.size();
    }

    @Override
    public String toString() {
      if (killed()) {
        return edits + " then update killed at its event #" + killedAt()
            + (partial ? ", which lands" : ", before it lands");
      }
      return edits + " then update" + (faultKind == 0 ? "" : " failing " + KINDS[faultKind]
          + "s with hash%3==" + faultMod + (!partial ? ""
              : faultKind == 5 ? " (at their start)" : " (partly applied)"));
    }
  }

  @Provide
  Arbitrary<List<Step>> scenarios() {
    return scenarios(5);
  }

  /** Scenarios whose runs may also be killed ({@link Step#killed}). */
  @Provide
  Arbitrary<List<Step>> scenariosWithKills() {
    return scenarios(6);
  }

  /** The fault kinds up to 5, as before kills; with kills (6), a third of the steps. */
  private static Arbitrary<Integer> faultKinds(int lastFaultKind) {
    Arbitrary<Integer> faults = Arbitraries.integers().between(0, 5)
        .edgeCases(c -> c.includeOnly(0));
    return lastFaultKind < 6 ? faults
        : Arbitraries.frequencyOf(Tuple.of(2, faults), Tuple.of(1, Arbitraries.just(6)));
  }

  private Arbitrary<List<Step>> scenarios(int lastFaultKind) {
    Arbitrary<Integer> op = Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.just(0)), Tuple.of(2, Arbitraries.just(1)),
        Tuple.of(2, Arbitraries.just(2)), Tuple.of(1, Arbitraries.integers().between(3, 5)),
        Tuple.of(3, Arbitraries.just(6)), Tuple.of(1, Arbitraries.just(7)),
        Tuple.of(3, Arbitraries.just(8)), Tuple.of(2, Arbitraries.just(9)),
        Tuple.of(1, Arbitraries.just(10)), Tuple.of(2, Arbitraries.just(11)),
        Tuple.of(1, Arbitraries.just(12)), Tuple.of(1, Arbitraries.just(13)),
        Tuple.of(1, Arbitraries.just(14)), Tuple.of(1, Arbitraries.just(15)),
        Tuple.of(3, Arbitraries.just(16)), Tuple.of(1, Arbitraries.just(17)),
        Tuple.of(1, Arbitraries.just(18)), Tuple.of(1, Arbitraries.just(19)),
        Tuple.of(2, Arbitraries.just(20)));
    Arbitrary<Edit> edit = Combinators.combine(op, Arbitraries.integers().between(0, TABLES - 1),
        Arbitraries.integers().between(0, KEYS - 1), Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, COMPONENTS - 1)).as(Edit::new);
    Arbitrary<Step> step = Combinators.combine(edit.list().ofMaxSize(8),
        faultKinds(lastFaultKind),
        Arbitraries.integers().between(0, 2), Arbitraries.of(false, true)).as(Step::new);
    return step.list().ofMinSize(1).ofMaxSize(10);
  }

  @Property(seed = "20261129", tries = 60, edgeCases = EdgeCasesMode.NONE)
  void externalStateFollowsTheDeclaredModelThroughFailures(
      @ForAll("scenarios") List<Step> scenario) throws Exception {
    new Scenario().run(scenario);
  }

  /**
   * A partition's row deleted in a run where comp4 (memoized, above the partition) fails at its
   * end, then declared again: comp4 kept its record, memo included, over the deleted row, and its
   * memo hit once its input was back, so the row was never created again (the soak of the nested
   * model found it, seed 53, thirty-seventh session; fixed by the sweep forgetting the memos of
   * failed components above a live owner whose state it deletes).
   */
  @Example
  void aRowDeletedBelowAMemoizedComponentThatFailedComesBack() throws Exception {
    new Scenario().run(List.of(
        new Step(List.of(new Edit(16, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(17, 1, 0, 0, 0)), 5, 1, false),
        new Step(List.of(new Edit(11, 0, 0, 0, 0)), 3, 2, false)));
  }

  /**
   * A row moved as it was from comp0 to comp5 (below the memoized comp4) in a run where comp4
   * fails at its end, then the model goes back: comp4's old memo, kept with its record, carried
   * the row comp5 now owned forward, and comp0 declaring it again met it as declared twice (the
   * soak of the nested model, seed 103; fixed by a takeover forgetting the memos of the taker's
   * memoized ancestors).
   */
  @Example
  void aRowMovedBelowAMemoizedComponentThatFailedGoesBack() throws Exception {
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 1, 0, 0, 0), new Edit(0, 1, 0, 0, 0),
            new Edit(16, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(2, 1, 0, 0, 5)), 5, 1, false),
        new Step(List.of(new Edit(10, 1, 0, 0, 0), new Edit(6, 0, 0, 0, 0),
            new Edit(16, 1, 0, 3, 0), new Edit(7, 1, 0, 0, 0), new Edit(11, 0, 0, 0, 0)),
            1, 1, true)));
  }

  /** Fixed scenarios for each invalidation kind, so they are covered whatever the seed. */
  @Example
  void eachInvalidationKindWithFailuresConverges() throws Exception {
    for (int change = 0; change < 3; change++) {
      for (int fault = 0; fault < Step.KINDS.length; fault++) {
        new Scenario().run(List.of(
            new Step(List.of(new Edit(6, 0, 0, 0, 0), new Edit(0, 0, 0, 1, 0),
                new Edit(0, 0, 1, 1, 1), new Edit(9, 0, 0, 1, 0), new Edit(3, 0, 2, 1, 2)),
                0, 0, false),
            new Step(List.of(new Edit(8, 0, 0, change, 0), new Edit(0, 0, 2, 2, 3),
                new Edit(2, 0, 0, 0, 2)), fault, 0, true),
            new Step(List.of(new Edit(8, 0, 0, change, 0), new Edit(1, 0, 1, 0, 0)), fault, 1,
                false),
            new Step(List.of(), 0, 0, false)));
      }
    }
  }

  /**
   * Scenarios the soak found once components were memoized and the model could go back, shrunk: a memoized component whose
   * rows' deletion failed, its memo then hitting over them; a DESTRUCTIVE change that failed,
   * followed by a LOSSY one, its children forgotten without a delete; a table whose drop failed,
   * the component owning its rows unmounted, its record deleted while they were still tracked;
   * a memoized group's memo, held back for the sweep, recorded though the root's failure kept
   * the sweep off the component it no longer mounted. Each failed before its fix.
   */
  @Example
  void shrunkScenariosOfFixedBugsConverge() throws Exception {
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(new Edit(0, 1, 1, 0, 0)), 0, 0, false),
        new Step(List.of(new Edit(6, 1, 0, 0, 0), new Edit(2, 0, 1, 0, 1), new Edit(1, 1, 4, 0, 0),
            new Edit(0, 1, 4, 0, 3), new Edit(9, 0, 1, 3, 0), new Edit(1, 1, 1, 0, 0)), 1, 1, false),
        new Step(List.of(new Edit(2, 1, 4, 0, 1), new Edit(11, 0, 0, 0, 0), new Edit(0, 1, 4, 2, 1),
            new Edit(11, 0, 0, 0, 0)), 2, 2, true)));
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(0, 0, 3, 4, 0), new Edit(6, 1, 0, 0, 0), new Edit(8, 0, 0, 2, 0),
            new Edit(0, 1, 1, 4, 3), new Edit(0, 0, 0, 0, 3), new Edit(8, 1, 0, 1, 0)), 2, 0, false),
        new Step(List.of(new Edit(11, 0, 0, 0, 0), new Edit(9, 1, 0, 0, 0), new Edit(0, 1, 0, 3, 1),
            new Edit(2, 1, 3, 0, 1), new Edit(2, 1, 1, 0, 3), new Edit(0, 0, 4, 4, 1)), 1, 1, true),
        new Step(List.of(new Edit(8, 1, 0, 1, 0)), 4, 0, false),
        new Step(List.of(new Edit(11, 0, 0, 0, 0), new Edit(0, 1, 0, 1, 3), new Edit(0, 1, 2, 4, 3),
            new Edit(10, 1, 0, 0, 0), new Edit(0, 1, 4, 1, 3), new Edit(2, 0, 2, 0, 0),
            new Edit(1, 0, 4, 0, 0), new Edit(8, 1, 0, 2, 0)), 0, 0, false)));
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(0, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(new Edit(7, 1, 0, 0, 0)), 4, 0, false),
        new Step(List.of(new Edit(6, 1, 0, 0, 0), new Edit(1, 0, 3, 0, 0), new Edit(0, 0, 3, 0, 1),
            new Edit(1, 1, 0, 0, 0)), 4, 2, false)));
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 0, 0, 0, 0)), 0, 0, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(0, 0, 0, 0, 1)), 0, 0, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(0, 0, 1, 0, 0)), 0, 0, false),
        new Step(List.of(new Edit(1, 0, 0, 0, 0), new Edit(6, 1, 0, 0, 0), new Edit(9, 1, 1, 0, 0)),
            3, 2, false)));
  }

  /**
   * A DESTRUCTIVE change of table t1 whose action fails, the root carrying on without t1, so
   * that the components owning its rows (comp1 in the memoized group, and the plain comp3) are
   * not mounted in that run; then a LOSSY change. The sweep forgot the rows without a delete,
   * judging them against the table's new generation, which had not committed (failed before
   * 2055bee; the soak found it at once once the root could carry on).
   */
  @Example
  void rowsOfComponentsUnmountedWhileADestructiveChangeFailsConverge() throws Exception {
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 1, 0, 0, 0), new Edit(0, 1, 1, 1, 1), new Edit(0, 1, 2, 1, 3)),
            0, 0, false),
        new Step(
            List.of(new Edit(12, 0, 0, 0, 0), new Edit(8, 1, 0, 1, 0), new Edit(1, 1, 2, 0, 0)),
            4, 0, false),
        new Step(List.of(new Edit(8, 1, 0, 2, 0)), 0, 0, false)));
  }

  /**
   * A component owning a row of table t1 fails (comp0 itself, or the group g01 above it) in the run
   * that undeclares t1, whose drop takes the row along; then the model goes back. The memo
   * recorded when the component declared the row hit, and the row stayed missing (failed before
   * the fix; the soak found it once components could fail).
   */
  @Example
  void memosOfFailedComponentsDoNotOutliveTheRowsOfADroppedTable() throws Exception {
    // {the row's component, the component of the key-value set in the failing run, fault mod}
    for (int[] c : new int[][] {{0, 0, 0}, {0, 1, 1}}) {
      new Scenario().run(List.of(
          new Step(List.of(new Edit(6, 1, 0, 0, 0), new Edit(0, 1, 0, 0, c[0])), 0, 0, false),
          new Step(List.of(new Edit(7, 1, 0, 0, 0), new Edit(3, 0, 1, 1, c[1])), 5, c[2], false),
          new Step(List.of(new Edit(11, 0, 0, 0, 0)), 0, 0, false)));
    }
  }

  /**
   * Row t0/k0 moves, as it is, from comp1 to comp0, which fails (its key-value's sink fails) in
   * the run in which comp1 is no longer mounted; then nobody declares the row. The sweep skipped
   * the row as taken over and deleted comp1's record, though the move, written at comp0's commit,
   * never was: the row stayed tracked under comp1, and in the target, for good (failed before the
   * fix; seed 9152129184229749668 of the soak).
   */
  @Example
  void aRowTakenOverByAComponentThatFailsIsDeletedOnceNobodyDeclaresIt() throws Exception {
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 0, 0, 0, 0)), 0, 0, false),
        new Step(List.of(new Edit(0, 0, 0, 0, 1)), 0, 0, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(0, 0, 0, 0, 0), new Edit(6, 1, 0, 0, 0), new Edit(3, 0, 2, 4, 0)),
            2, 2, false),
        new Step(List.of(new Edit(7, 0, 0, 0, 0), new Edit(6, 0, 0, 0, 0)), 1, 1, false)));
  }

  /**
   * Nested components: rows and a key-value of comp5 (below comp4, below comp3) and of comp4 move
   * to top-level components and back down, while comp4 (with comp1 and the group g01) fails, or
   * while a row's sink fails; then comp3 is removed with its subtree, partition p1 included, the
   * deletion failing once: its states are deleted, the moved ones kept by their new owners.
   */
  @Example
  void rowsMoveAcrossNestingLevelsAndARemovedSubtreeIsDeleted() throws Exception {
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 0, 0, 0, 0), new Edit(0, 0, 0, 0, 5), new Edit(0, 0, 1, 1, 4),
            new Edit(0, 0, 2, 2, 3), new Edit(0, 0, 3, 3, 2), new Edit(3, 0, 0, 0, 5),
            new Edit(16, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(new Edit(2, 0, 0, 0, 2), new Edit(2, 0, 3, 0, 5), new Edit(5, 0, 0, 0, 0),
            new Edit(0, 0, 1, 4, 4)), 5, 1, false),
        new Step(List.of(new Edit(2, 0, 1, 0, 1), new Edit(2, 0, 2, 0, 4)), 1, 0, true),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(15, 0, 0, 0, 3)), 1, 2, false),
        new Step(List.of(), 0, 0, false)));
  }

  /**
   * Partitions: a memoized component (p0 below the root, p1 below the memoized comp4) mounts a
   * table of its own and declares rows into it; the table's action fails (its creation, a
   * DESTRUCTIVE change, its drop) and the component carries on past it. Its memo, and comp4's,
   * must not be recorded: the next fault-free run creates the table and its rows (the first
   * step failed before 6cf147f).
   */
  @Example
  void aPartitionWhoseTableFailsIsCreatedByTheNextRun() throws Exception {
    new Scenario().run(List.of(
        new Step(List.of(new Edit(16, 0, 0, 0, 0), new Edit(16, 1, 1, 1, 0)), 4, 1, false),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(19, 1, 0, 1, 0), new Edit(16, 1, 2, 3, 0)), 4, 2, true),
        new Step(List.of(), 0, 0, false),
        new Step(List.of(new Edit(18, 0, 0, 0, 0), new Edit(16, 1, 0, 4, 0)), 4, 1, false),
        new Step(List.of(), 0, 0, false)));
  }

  /**
   * A row moved as it is to a component whose body fails after declaring it, its old owner no
   * longer mounted (comp0 alone in the group g01, or comp1 beside comp0 in it): the failed run's
   * sweep deleted the row, which the preview before it had not planned (a move as it is plans
   * nothing), and the next run created it again (the preview oracle's soak, seeds
   * 1513119982554989113 and -7734130824615566799, forty-sixth session; fixed by the sweep
   * keeping what a failed body declared).
   */
  @Example
  void aRowMovedToAComponentThatFailsAfterDeclaringItIsNotDeleted() throws Exception {
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(new Edit(0, 1, 0, 0, 0)), 0, 0, false),
        new Step(List.of(new Edit(0, 1, 0, 0, 3)), 5, 0, false)));
    new Scenario().run(List.of(
        new Step(List.of(new Edit(6, 0, 0, 0, 0), new Edit(0, 0, 1, 0, 1)), 0, 0, false),
        new Step(List.of(new Edit(0, 0, 1, 0, 0)), 5, 0, false)));
  }

  /** More tries with a random seed: {@code -Dreliability.excludedGroups=none -Dgroups=soak}. */
  @Property(tries = 2000, edgeCases = EdgeCasesMode.NONE)
  @Tag("soak")
  void soak(@ForAll("scenarios") List<Step> scenario) throws Exception {
    new Scenario().run(scenario);
  }

  /**
   * Runs killed mid-way ({@link SimulatedKill}: nothing of the run reaches the store or the
   * model system after its K-th store write or sink call, and the app is opened again) among
   * the faults. The step after a kill is its recovery: its preview must plan exactly what its
   * update applies, as after any run, and the status after the kill lists what it finds
   * unsettled (a listed state may be settled with no handler call: a memo the killed run
   * recorded, taken up).
   */
  @Property(seed = "20261206", tries = 6, edgeCases = EdgeCasesMode.NONE)
  void killedRunsAreRecoveredAsPreviewed(@ForAll("scenariosWithKills") List<Step> scenario)
      throws Exception {
    new Scenario().run(scenario);
  }

  /**
   * The kills' soak, shrunk (seed -8635764537037891961): a drop killed after its table's Delete
   * was applied, the table declared again. The table handler must take the rows as possibly lost
   * (LOSSY), since its own record says the table may be missing: before, it recreated the table
   * empty while the rows' records said they were there, and nothing wrote them again. Where the
   * kill lands depends on the engine's threads, so the scenario runs ten times (it failed about
   * one time in four).
   */
  @Example
  void aTableDroppedByAKilledRunAndDeclaredAgainGetsItsRowsBack() throws Exception {
    for (int i = 0; i < 10; i++) {
      new Scenario().run(List.of(
          new Step(List.of(new Edit(16, 1, 1, 1, 0)), 6, 0, true),
          new Step(List.of(new Edit(0, 1, 0, 1, 0), new Edit(6, 1, 0, 0, 0),
              new Edit(6, 1, 0, 0, 0), new Edit(12, 0, 0, 0, 0), new Edit(8, 1, 0, 1, 0),
              new Edit(16, 0, 1, 1, 0)), 1, 0, false),
          new Step(List.of(new Edit(16, 0, 4, 0, 0), new Edit(6, 1, 0, 0, 0)), 4, 1, false),
          new Step(List.of(new Edit(14, 0, 0, 0, 0), new Edit(12, 0, 0, 0, 0)), 6, 1, false)));
    }
  }

  /** {@link #killedRunsAreRecoveredAsPreviewed} with a random seed, as {@link #soak}. */
  @Property(tries = 2000, edgeCases = EdgeCasesMode.NONE)
  @Tag("soak")
  void soakWithKills(@ForAll("scenariosWithKills") List<Step> scenario) throws Exception {
    new Scenario().run(scenario);
  }

  /** The declared model, the app declaring it, and the checks. */
  static final class Scenario {
    record Owned(String value, int comp) {}

    final ModelConnectors conn = new ModelConnectors();
    final TreeMap<String, TableSpec> tables = new TreeMap<>();
    final TreeMap<String, TreeMap<String, Owned>> rows = new TreeMap<>();
    final TreeMap<String, TreeMap<String, String>> indexes = new TreeMap<>();
    final TreeMap<String, Owned> kv = new TreeMap<>();
    /**
     * Partitions: tables that a memoized component declares itself ({@code mountTarget} on the
     * root's provider, in the component p0 below the root or p1 below comp4), each with its rows,
     * declared by that component; it carries on past its table's failure.
     */
    final TreeMap<String, TableSpec> parts = new TreeMap<>();
    final TreeMap<String, TreeMap<String, String>> partRows = new TreeMap<>();
    /**
     * Tables declared without children (a directory that became a file: rule 8 and the child
     * generations): the root declares them as leaves, their rows and indexes stay in the model
     * but are declared by no one, and the components writing rows there declare the rest.
     */
    final TreeSet<String> leaves = new TreeSet<>();
    /** The model as the run before the last one declared it (for "back to"), and as the last. */
    Model beforeLast = Model.EMPTY;
    Model last = Model.EMPTY;
    /**
     * Whether the root, when a table's mount fails (its action failed), carries on without it:
     * it declares none of that table's indexes and mounts none of the components that write rows
     * to it, as an app that skips what it cannot set up. Otherwise the root fails with it. Set by
     * an edit (op 12), and not part of the model that "back" restores: it is the app's code.
     */
    boolean carryOn;
    /** Whether the next update is a full reprocess (op 13; once). */
    boolean fullReprocessNext;
    /** Whether the next run is a {@code dropState} (op 14; once), the model kept for later. */
    boolean dropNext;

    /** A copy of the declared model. */
    record Model(TreeMap<String, TableSpec> tables, TreeMap<String, TreeMap<String, Owned>> rows,
        TreeMap<String, TreeMap<String, String>> indexes, TreeMap<String, Owned> kv,
        TreeMap<String, TableSpec> parts, TreeMap<String, TreeMap<String, String>> partRows,
        TreeSet<String> leaves) {
      static final Model EMPTY = new Model(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(),
          new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeSet<>());
    }

    Model snapshot() {
      TreeMap<String, TreeMap<String, Owned>> r = new TreeMap<>();
      rows.forEach((t, rs) -> r.put(t, new TreeMap<>(rs)));
      TreeMap<String, TreeMap<String, String>> i = new TreeMap<>();
      indexes.forEach((t, is) -> i.put(t, new TreeMap<>(is)));
      TreeMap<String, TreeMap<String, String>> pr = new TreeMap<>();
      partRows.forEach((p, rs) -> pr.put(p, new TreeMap<>(rs)));
      return new Model(new TreeMap<>(tables), r, i, new TreeMap<>(kv), new TreeMap<>(parts), pr,
          new TreeSet<>(leaves));
    }

    void restore(Model m) {
      tables.clear();
      tables.putAll(m.tables());
      rows.clear();
      m.rows().forEach((t, rs) -> rows.put(t, new TreeMap<>(rs)));
      indexes.clear();
      m.indexes().forEach((t, is) -> indexes.put(t, new TreeMap<>(is)));
      kv.clear();
      kv.putAll(m.kv());
      parts.clear();
      parts.putAll(m.parts());
      partRows.clear();
      m.partRows().forEach((p, rs) -> partRows.put(p, new TreeMap<>(rs)));
      leaves.clear();
      leaves.addAll(m.leaves());
    }

    /** What partition {@code p} declares: its table's spec and its rows (none if absent). */
    List<String> partition(String p) {
      List<String> out = new ArrayList<>();
      if (parts.containsKey(p)) {
        out.add("table " + p + "=" + parts.get(p));
        partRows.getOrDefault(p, new TreeMap<>()).forEach((k, v) -> out.add("row " + k + "=" + v));
      }
      return out;
    }

    /** Whether the model declares the state {@code key} of {@code provider} (a status name). */
    boolean declared(String provider, String key) {
      if (provider.equals("tables")) {
        return tables.containsKey(key) || parts.containsKey(key);
      }
      if (provider.equals("kv")) {
        return kv.containsKey(key);
      }
      String t = provider.substring("tables/".length());
      if (t.endsWith("@index")) {
        t = t.substring(0, t.length() - "@index".length());
        return !leaves.contains(t) && indexes.getOrDefault(t, new TreeMap<>()).containsKey(key);
      }
      return declaredRow(t, key) != null;
    }

    /** A key as a path prints it (a quoted string). */
    private static StableKey parseKey(String printed) {
      return StableKey.of(printed.substring(1, printed.length() - 1));
    }

    /** The value of row {@code t/k} in the model (a table's or a partition's), or null. */
    String declaredRow(String t, String k) {
      if (leaves.contains(t)) {
        return null;
      }
      Owned o = rows.getOrDefault(t, new TreeMap<>()).get(k);
      return o != null ? o.value() : partRows.getOrDefault(t, new TreeMap<>()).get(k);
    }

    /** What component {@code comp} declares: its rows by table and its key-values, in order. */
    List<String> declaredBy(int comp) {
      List<String> out = new ArrayList<>();
      rows.forEach((t, rs) -> rs.forEach((k, o) -> {
        if (o.comp() == comp && !leaves.contains(t)) {
          out.add("row " + t + "/" + k + "=" + o.value());
        }
      }));
      kv.forEach((k, o) -> {
        if (o.comp() == comp) {
          out.add("kv " + k + "=" + o.value());
        }
      });
      return out;
    }

    Consumer<Ctx> main() {
      return ctx -> {
        failIfInjected("root", true);
        TargetStateProvider<TableSpec> tp =
            registerRootTargetStatesProvider(ctx, "tables", conn.new TableHandler());
        TargetStateProvider<String> kp =
            registerRootTargetStatesProvider(ctx, "kv", conn.new KvHandler());
        Map<String, TargetStateProvider<String>> rowProviders = new HashMap<>();
        tables.forEach((t, spec) -> {
          if (leaves.contains(t)) {
            declareTargetState(ctx, tp.targetState(t, new TableSpec(spec.generation(), LEAF)));
            return;
          }
          TargetStateProvider<String> p;
          try {
            p = mountTarget(ctx, tp.targetState(t, spec));
          } catch (RuntimeException tableFailed) {
            if (!carryOn) {
              throw tableFailed;
            }
            return; // its rows' components are not mounted this run (runnable)
          }
          rowProviders.put(t, p);
          TargetStateProvider<String> idx = p.attachment(ctx, "index");
          indexes.getOrDefault(t, new TreeMap<>())
              .forEach((name, s) -> declareTargetState(ctx, idx.targetState(name, s)));
        });
        // comp0 and comp1 under the memoized group g01, comp2 memoized, comp3 plain; each is
        // mounted only while it declares something (and every table it writes to is mounted),
        // and memoized on what it declares.
        List<String> group = new ArrayList<>(runnable(0, rowProviders) ? declaredBy(0) : List.of());
        group.add("|");
        group.addAll(runnable(1, rowProviders) ? declaredBy(1) : List.of());
        if (group.size() > 1) {
          ctx.mountMemo("g01", group, g -> {
            failIfInjected("g01", true);
            mountComp(g, 0, rowProviders, kp, true);
            mountComp(g, 1, rowProviders, kp, false);
            failIfInjected("g01", false);
          });
        }
        mountComp(ctx, 2, rowProviders, kp, true);
        // comp3, plain, mounts comp4, memoized on what it and everything below it declares, which
        // mounts comp5 (plain) and the partition p1 (memoized): two levels of nesting below a
        // top-level component; comp3 is mounted while it or comp4 is.
        List<String> sub = new ArrayList<>(runnable(4, rowProviders) ? declaredBy(4) : List.of());
        sub.add("|");
        sub.addAll(runnable(5, rowProviders) ? declaredBy(5) : List.of());
        sub.add("|");
        sub.addAll(partition("p1"));
        boolean comp4 = sub.size() > 2;
        boolean comp3 = !declaredBy(3).isEmpty() && runnable(3, rowProviders);
        if (comp3 || comp4) {
          ctx.mount("comp3", c3 -> {
            failIfInjected("comp3", true);
            if (comp3) {
              declareOwn(c3, 3, rowProviders, kp);
            }
            if (comp4) {
              c3.mountMemo("comp4", sub, c4 -> {
                failIfInjected("comp4", true);
                if (runnable(4, rowProviders)) {
                  declareOwn(c4, 4, rowProviders, kp);
                }
                mountComp(c4, 5, rowProviders, kp, false);
                mountPartition(c4, "p1", tp);
                failIfInjected("comp4", false);
              });
            }
            failIfInjected("comp3", false);
          });
        }
        mountPartition(ctx, "p0", tp);
        failIfInjected("root", false);
      };
    }

    /**
     * The memoized component of partition {@code p}, mounted while the partition exists: it
     * mounts its own table and declares its rows into it; when the table's mount fails (its
     * action failed), it catches the failure and carries on without it, as an app that skips what
     * it cannot set up. Memoized on the table's spec and rows.
     */
    private void mountPartition(Ctx ctx, String p, TargetStateProvider<TableSpec> tp) {
      if (!parts.containsKey(p)) {
        return;
      }
      TableSpec spec = parts.get(p);
      ctx.mountMemo(p, partition(p), pc -> {
        failIfInjected(p, true);
        TargetStateProvider<String> rp;
        try {
          rp = mountTarget(pc, tp.targetState(p, spec));
        } catch (RuntimeException tableFailed) {
          return; // the run fails all the same: its memo must not be recorded
        }
        partRows.getOrDefault(p, new TreeMap<>())
            .forEach((k, v) -> declareTargetState(pc, rp.targetState(k, v)));
        failIfInjected(p, false);
      });
    }

    /**
     * A component's own failure (fault kind "comp": comp0 and comp3; g01, comp1, comp4 and p0;
     * or the root, comp2, comp5 and p1): its body throws once it has declared and mounted
     * everything, as application code failing after its declarations, or, in a step whose faults
     * are "partial", at its start, before declaring or mounting anything (the root before
     * registering its providers).
     */
    private void failIfInjected(String component, boolean atStart) {
      if (conn.faults.partial == atStart && conn.faults.failOn.test("comp:" + component)) {
        throw new IllegalStateException("injected failure of component " + component);
      }
    }

    private void mountComp(Ctx ctx, int comp, Map<String, TargetStateProvider<String>> rowProviders,
        TargetStateProvider<String> kp, boolean memoized) {
      List<String> declared = declaredBy(comp);
      if (declared.isEmpty() || !runnable(comp, rowProviders)) {
        return;
      }
      Consumer<Ctx> body = cc -> {
        failIfInjected("comp" + comp, true);
        declareOwn(cc, comp, rowProviders, kp);
        failIfInjected("comp" + comp, false);
      };
      if (memoized) {
        ctx.mountMemo("comp" + comp, declared, body);
      } else {
        ctx.mount("comp" + comp, body);
      }
    }

    /** Declares the rows and key-values of component {@code comp}. */
    private void declareOwn(Ctx cc, int comp, Map<String, TargetStateProvider<String>> rowProviders,
        TargetStateProvider<String> kp) {
      rows.forEach((t, rs) -> rs.forEach((k, o) -> {
        if (o.comp() == comp && !leaves.contains(t)) {
          declareTargetState(cc, rowProviders.get(t).targetState(k, o.value()));
        }
      }));
      kv.forEach((k, o) -> {
        if (o.comp() == comp) {
          declareTargetState(cc, kp.targetState(k, o.value()));
        }
      });
    }

    /** Whether every table component {@code comp} writes rows to was mounted in this run. */
    private boolean runnable(int comp, Map<String, TargetStateProvider<String>> rowProviders) {
      return rows.entrySet().stream().allMatch(t -> rowProviders.containsKey(t.getKey())
          || leaves.contains(t.getKey())
          || t.getValue().values().stream().noneMatch(o -> o.comp() == comp));
    }

    void edit(Edit e) {
      String t = "t" + e.table();
      String k = "k" + e.key();
      String v = "v" + e.value();
      switch (e.op()) {
        case 0:
          if (tables.containsKey(t)) {
            rows.computeIfAbsent(t, x -> new TreeMap<>()).put(k, new Owned(v, e.comp()));
          }
          break;
        case 1:
          rows.getOrDefault(t, new TreeMap<>()).remove(k);
          break;
        case 2:
          rows.getOrDefault(t, new TreeMap<>()).computeIfPresent(k, (x, o) -> new Owned(o.value(), e.comp()));
          break;
        case 3:
          kv.put(k, new Owned(v, e.comp()));
          break;
        case 4:
          kv.remove(k);
          break;
        case 5:
          kv.computeIfPresent(k, (x, o) -> new Owned(o.value(), e.comp()));
          break;
        case 6:
          tables.putIfAbsent(t, new TableSpec(0, "NONE"));
          break;
        case 7:
          tables.remove(t);
          rows.remove(t);
          indexes.remove(t);
          leaves.remove(t);
          break;
        case 8:
          tables.computeIfPresent(t, (x, s) -> new TableSpec(s.generation() + 1, CHANGES[e.value() % 3]));
          break;
        case 9:
          if (tables.containsKey(t)) {
            indexes.computeIfAbsent(t, x -> new TreeMap<>()).put("i" + e.key() % 2, "s" + e.value());
          }
          break;
        case 10:
          indexes.getOrDefault(t, new TreeMap<>()).remove("i" + e.key() % 2);
          break;
        case 12:
          carryOn = true;
          break;
        case 13:
          fullReprocessNext = true;
          break;
        case 14:
          dropNext = true;
          break;
        case 15: {
          Set<Integer> gone = e.comp() == 3 ? Set.of(3, 4, 5)
              : e.comp() == 4 ? Set.of(4, 5) : Set.of(e.comp());
          rows.values().forEach(rs -> rs.values().removeIf(o -> gone.contains(o.comp())));
          kv.values().removeIf(o -> gone.contains(o.comp()));
          if (gone.contains(4)) {
            parts.remove("p1");
            partRows.remove("p1");
          }
          break;
        }
        case 16:
          parts.putIfAbsent("p" + e.table(), new TableSpec(0, "NONE"));
          partRows.computeIfAbsent("p" + e.table(), x -> new TreeMap<>()).put(k, v);
          break;
        case 17:
          partRows.getOrDefault("p" + e.table(), new TreeMap<>()).remove(k);
          break;
        case 18:
          parts.remove("p" + e.table());
          partRows.remove("p" + e.table());
          break;
        case 19:
          parts.computeIfPresent("p" + e.table(),
              (x, s) -> new TableSpec(s.generation() + 1, CHANGES[e.value() % 3]));
          break;
        case 20:
          if (tables.containsKey(t) && !leaves.remove(t)) {
            leaves.add(t);
          }
          break;
        default:
          restore(beforeLast);
      }
    }

    void run(List<Step> scenario) throws Exception {
      Path dir = Files.createTempDirectory("model");
      // What the engine reports applied, each as the action a preview would have planned.
      List<PlannedAction> appliedByEngine = Collections.synchronizedList(new ArrayList<>());
      ActionListener listener = (provider, key, action) ->
          appliedByEngine.add(new PlannedAction(provider, key, action));
      // A scenario with kills runs on a store that can die (SimulatedKill), and opens the app
      // again after each kill, as the next process would.
      boolean kills = scenario.stream().anyMatch(Step::killed);
      SimulatedKill kill = new SimulatedKill();
      conn.faults.kill = kills ? kill : null;
      Process process = new Process(dir, kills ? kill : null, listener);
      boolean stampedMemosMayWait = false;
      try {
        int n = 0;
        for (Step step : scenario) {
          n++;
          App app = process.app;
          step.edits().forEach(this::edit);
          beforeLast = last;
          last = snapshot();
          conn.faults.failOn = id -> false;
          Preview preview = checkPreviewChangesNothing(app, "before step " + n);
          String kind = Step.KINDS[step.faultKind()];
          conn.faults.partial = step.partial();
          conn.faults.failOn = id -> step.faultKind() != 0 && !step.killed()
              && id.startsWith(kind + ":") && Math.floorMod(id.hashCode(), 3) == step.faultMod();
          conn.applied.clear();
          appliedByEngine.clear();
          boolean ok;
          boolean drop = dropNext;
          boolean full = fullReprocessNext;
          UpdateStats stats = null;
          if (step.killed()) {
            kill.arm(step.killedAt(), step.partial());
          }
          try {
            if (drop) {
              app.dropState();
            } else {
              stats = app.update(full ? UpdateOptions.fullReprocess() : UpdateOptions.defaults());
            }
            fullReprocessNext = false;
            dropNext = false;
            ok = true;
          } catch (UpdateFailedException e) {
            fullReprocessNext = false;
            dropNext = false;
            ok = false;
            if (step.faultKind() == 0 || (step.killed() && !kill.died())) {
              throw new AssertionError("step " + n + " failed without an injected fault", e);
            }
          } catch (RuntimeException e) {
            if (!kill.died()) {
              throw e;
            }
            fullReprocessNext = false; // a dead run may end any way: nothing of it after its death
            dropNext = false;
            ok = false;
          }
          boolean died = kill.died();
          kill.disarm();
          // A memo a killed run recorded waits, stamped, for a run that reaches it (a failed
          // run may not: a root that fails mounts nothing); until one succeeds, the next run
          // may settle a listed state with no handler call.
          stampedMemosMayWait = died || (stampedMemosMayWait && !ok);
          if (died) {
            app = process.reopen();
          }
          String when = "after step " + n + " ("
              + (died ? "killed" : ok ? "succeeded" : "failed") + ")";
          if (died) {
            // What the kill left is for the next step's preview and update to compare.
          } else if (stats != null) {
            checkPreviewPredictedTheUpdate(preview, stats, full, List.copyOf(appliedByEngine),
                "step " + n + (full ? " (a full reprocess)" : ""));
          } else if (!ok && !drop && !full && !Step.KINDS[step.faultKind()].equals("table")
              && !(Step.KINDS[step.faultKind()].equals("comp") && step.partial())) {
            checkAFailedUpdateAppliedOnlyWhatWasPlanned(preview, List.copyOf(appliedByEngine),
                "step " + n + " (failed)");
          }
          checkNothingUntracked(app, when);
          if (ok && !died && drop) {
            checkDropped(app, "after step " + n + " (a drop)");
          } else if (ok && !died) {
            checkConverged(app, "after step " + n);
          }
          conn.faults.failOn = id -> false;
          checkStatusListsWhatTheNextRunFindsUnsettled(
              app, ok && !drop && !died, stampedMemosMayWait, when);
        }
        conn.faults.failOn = id -> false;
        App app = process.app;
        app.update();
        checkConverged(app, "after the final fault-free run");
        if (app.preview().hasChanges()) {
          throw new AssertionError("a preview after convergence plans " + app.preview().changes());
        }
      } finally {
        process.close();
        try (Stream<Path> files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }

    /**
     * The app as one process has it open: on {@code dbPath} as before, or, when {@code kill}
     * is given, on a store that the kill can strike, opened again by {@link #reopen} as the
     * next process would after it struck.
     */
    final class Process implements AutoCloseable {
      private final Path dir;
      private final SimulatedKill kill;
      private final ActionListener listener;
      private StateStore store;
      App app;

      Process(Path dir, SimulatedKill kill, ActionListener listener) {
        this.dir = dir;
        this.kill = kill;
        this.listener = listener;
        open();
      }

      private void open() {
        Environment.Builder env = Environment.builder().listener(listener);
        if (kill == null) {
          env.dbPath(dir);
        } else {
          store = kill.store(SqliteStateStore.open(dir));
          env.stateStore(store);
        }
        app = App.create("model", env.build(), main());
      }

      /** Closes the app, and opens it again on the same store file: a new process. */
      App reopen() {
        close();
        open();
        return app;
      }

      @Override
      public void close() {
        app.close();
        if (store != null) {
          store.close();
        }
      }
    }

    /**
     * A preview (rule 12) applies nothing and persists nothing, whatever the store holds;
     * returns it.
     */
    Preview checkPreviewChangesNothing(App app, String when) {
      StatusReport before = app.status();
      String ext;
      synchronized (conn.ext) {
        ext = externalAsText();
      }
      Preview preview = app.preview();
      String extAfter;
      synchronized (conn.ext) {
        extAfter = externalAsText();
      }
      if (!ext.equals(extAfter)) {
        throw new AssertionError(when + ": a preview changed the external system from " + ext
            + " to " + extAfter);
      }
      StatusReport after = app.status();
      if (!before.equals(after)) {
        throw new AssertionError(when + ": a preview changed the store from " + before + " to "
            + after);
      }
      return preview;
    }

    /**
     * The preview taken before a successful update (nothing changing in between) planned
     * exactly what it applied: its actions, container refreshes included, are those the engine
     * reports applied ({@code appliedByEngine}, from an {@code ActionListener}), as multisets
     * of (provider, key, verb, value); its changes, by provider and verb, are the update's
     * created, updated and deleted counts, so {@code hasChanges()} says whether the update
     * changed anything. A full reprocess is more than a preview plans (a preview has no
     * options): it reconciles every state as possibly missing, so it rewrites what is unchanged
     * (a table may then go LOSSY, or a handler return other actions), and runs the memoized
     * components; there, every state the preview planned an action for is acted on, and the
     * states deleted are exactly those planned. Either way the sinks received exactly the
     * actions the engine reports applied.
     */
    void checkPreviewPredictedTheUpdate(Preview preview, UpdateStats stats, boolean full,
        List<PlannedAction> appliedByEngine, String step) {
      List<String> diffs = new ArrayList<>();
      List<String> reported = new ArrayList<>();
      appliedByEngine.forEach(a -> reported.add(a.action().verb() + " " + a.action().value()));
      List<String> toSinks = new ArrayList<>(conn.applied);
      if (!sorted(reported).equals(sorted(toSinks))) {
        diffs.add("the engine reports applied " + minus(reported, toSinks) + ", which no sink"
            + " received, and the sinks received " + minus(toSinks, reported) + " unreported");
      }
      if (full) {
        List<String> plannedStates = states(preview.actions(), false);
        List<String> actedOn = states(appliedByEngine, false);
        List<String> plannedDeletions = states(preview.actions(), true);
        List<String> deleted = states(appliedByEngine, true);
        if (!new TreeSet<>(actedOn).containsAll(plannedStates)
            || !plannedDeletions.equals(deleted)) {
          diffs.add("the preview planned actions for " + minus(plannedStates, actedOn)
              + ", which the full reprocess did not act on, and deletions " + plannedDeletions
              + " where it deleted " + deleted);
        }
      } else {
        List<String> planned = new ArrayList<>();
        preview.actions().forEach(a -> planned.add(a.toString()));
        List<String> applied = new ArrayList<>();
        appliedByEngine.forEach(a -> applied.add(a.toString()));
        if (!sorted(planned).equals(sorted(applied))) {
          diffs.add("planned but not applied " + minus(planned, applied)
              + ", applied but not planned " + minus(applied, planned));
        }
        diffs.addAll(ActionText.countsDisagreeing(preview, stats, "the update"));
      }
      if (!diffs.isEmpty()) {
        throw new AssertionError(step + ": the preview before it did not predict it: "
            + String.join("; ", diffs) + "; planned " + preview);
      }
    }

    /**
     * A failed update commits its healthy components' actions: each was planned by the preview
     * before it (a failure only takes actions away; a state moved to a component whose body
     * throws after declaring it is kept). Not when a table fails: a partition, and the root told
     * to, carries on past a table it could not set up, declaring fewer states, and the update
     * deletes the others, as the app's code asks. Nor when components fail at their start: one
     * that would have taken a state over declared nothing, and the state's old owner, no longer
     * mounted, has it deleted (the next run creates it again).
     */
    void checkAFailedUpdateAppliedOnlyWhatWasPlanned(
        Preview preview, List<PlannedAction> appliedByEngine, String step) {
      List<String> planned = new ArrayList<>();
      preview.actions().forEach(a -> planned.add(a.toString()));
      List<String> applied = new ArrayList<>();
      appliedByEngine.forEach(a -> applied.add(a.toString()));
      List<String> unplanned = minus(applied, planned);
      if (!unplanned.isEmpty()) {
        throw new AssertionError(step + ": it applied " + unplanned + ", which the preview before"
            + " it did not plan; planned " + preview);
      }
    }

    /**
     * What {@code status()} lists as unsettled is what the next run finds unsettled: a preview
     * with the model as it is (faults off) reconciles a tracked state with several possible
     * records, or as possibly missing, only if the status lists it, and one the status lists
     * never as settled (one record, not missing); and it reconciles every state the status
     * lists, but those that go with their table (deleted, or DESTRUCTIVE now or, for one no
     * longer declared and listed as behind its table, in a failed run before). A row or index whose
     * table this preview invalidates (DESTRUCTIVE or LOSSY: a failed run may not have reached
     * the table's change) is possibly missing for that reason alone. After a kill ({@code
     * afterKill}) a listed state may go unreached: a killed run's memos, which the next run takes
     * up, settle their states unreconciled. After a successful update (not a drop) the status
     * lists none, and the preview plans no change.
     */
    void checkStatusListsWhatTheNextRunFindsUnsettled(App app, boolean settled,
        boolean afterKill, String when) {
      StatusReport status = app.status();
      Set<String> tracked = new TreeSet<>();
      status.providers().forEach(
          (provider, keys) -> keys.forEach(k -> tracked.add(provider + " " + k)));
      Set<String> listed = new TreeSet<>();
      // Listed as behind their container's invalidation, and declared by no one: the next run
      // forgets those its container destroyed (rule 7), and deletes the others.
      Set<String> behindAndUndeclared = new TreeSet<>();
      for (StatusReport.UnsettledState u : status.unsettled()) {
        String key = u.path().substring(u.path().lastIndexOf('/') + 1);
        listed.add(u.provider() + " " + key);
        if (u.containerInvalidated()
            && !declared(u.provider(), ((StableKey.Str) parseKey(key)).value())) {
          behindAndUndeclared.add(u.provider() + " " + key);
        }
      }
      List<ModelConnectors.Reconciled> calls = Collections.synchronizedList(new ArrayList<>());
      conn.reconciled = calls;
      Preview next;
      try {
        next = app.preview();
      } finally {
        conn.reconciled = null;
      }
      List<String> notListed = new ArrayList<>();
      List<String> foundSettled = new ArrayList<>();
      Set<String> unreached = new TreeSet<>(listed);
      synchronized (calls) {
        // The tables this run invalidates, and those it deletes, as their children's providers
        // are named: a deleted table's children go with it (rule 8), and so do, on commit, those
        // of a DESTRUCTIVE change that are no longer declared (rule 7).
        Set<String> invalidated = new TreeSet<>();
        Set<String> goneWithTheirTable = new TreeSet<>();
        for (ModelConnectors.Reconciled c : calls) {
          String children = "tables/" + ModelConnectors.str(c.key());
          if (c.invalidation() != null) {
            invalidated.add(children);
          }
          if (c.provider().equals("tables") && (!c.declared()
              || c.invalidation() == TargetChildInvalidation.DESTRUCTIVE
              || leaves.contains(ModelConnectors.str(c.key())))) {
            goneWithTheirTable.add(children);
          }
        }
        for (ModelConnectors.Reconciled c : calls) {
          boolean listedState = listed.contains(c.state());
          unreached.remove(c.state());
          boolean mayBeMissingSinceBefore =
              c.mayBeMissing() && !invalidated.contains(c.containerProvider());
          if ((c.prev() > 1 || mayBeMissingSinceBefore) && tracked.contains(c.state())
              && !listedState) {
            notListed.add(c.toString());
          } else if (c.prev() <= 1 && !c.mayBeMissing() && listedState) {
            foundSettled.add(c.toString());
          }
        }
        if (afterKill) {
          // A memo the killed run recorded is taken up by the next run, which settles its
          // states with no handler call (the crash harness's RecoveryOracle checks who).
          unreached.clear();
        }
        unreached.removeIf(state -> behindAndUndeclared.contains(state)
            || goneWithTheirTable.contains(
                state.substring(0, state.indexOf(state.contains("@") ? '@' : ' '))));
      }
      if (!notListed.isEmpty() || !foundSettled.isEmpty() || !unreached.isEmpty()) {
        throw new AssertionError(when + ": the next run reconciles as unsettled " + notListed
            + ", which the status does not list, as settled " + foundSettled + ", which it"
            + " lists as unsettled, and not at all " + unreached + ", which it lists as"
            + " unsettled: " + status.unsettled());
      }
      if (settled && next.hasChanges()) {
        throw new AssertionError(when + ": a rerun with nothing changed plans " + next.changes());
      }
    }

    private String externalAsText() {
      return conn.ext.tables + " " + conn.ext.rows + " " + conn.ext.indexes + " " + conn.ext.kv;
    }

    /** Every external object is declared or tracked: the engine can still reach it. */
    void checkNothingUntracked(App app, String when) {
      StatusReport status = app.status();
      Set<String> tracked = new TreeSet<>();
      status.providers().forEach((provider, keys) -> keys.forEach(
          k -> tracked.add(provider + " " + ((StableKey.Str) k).value())));
      List<String> lost = new ArrayList<>();
      synchronized (conn.ext) {
        conn.ext.tables.keySet().forEach(t -> {
          if (!tables.containsKey(t) && !parts.containsKey(t)
              && !tracked.contains("tables " + t)) {
            lost.add("table " + t);
          }
        });
        conn.ext.rows.forEach((path, v) -> {
          String t = path.substring(0, path.indexOf('/'));
          String k = path.substring(path.indexOf('/') + 1);
          if (!v.equals(declaredRow(t, k)) && !tracked.contains("tables/" + t + " " + k)) {
            lost.add("row " + path + "=" + v);
          }
        });
        conn.ext.indexes.forEach((path, s) -> {
          String t = path.substring(0, path.indexOf('@'));
          String name = path.substring(path.indexOf('@') + 1);
          if ((leaves.contains(t) || !s.equals(indexes.getOrDefault(t, new TreeMap<>()).get(name)))
              && !tracked.contains("tables/" + t + "@index " + name)) {
            lost.add("index " + path + "=" + s);
          }
        });
        conn.ext.kv.forEach((k, v) -> {
          Owned o = kv.get(k);
          if ((o == null || !o.value().equals(v)) && !tracked.contains("kv " + k)) {
            lost.add("kv " + k + "=" + v);
          }
        });
      }
      if (!lost.isEmpty()) {
        throw new AssertionError(when + ": external objects neither declared nor tracked (lost"
            + " for good): " + lost + "; tracked " + tracked);
      }
    }

    /** A drop deleted everything external and cleared the store (rule 13). */
    void checkDropped(App app, String when) {
      synchronized (conn.ext) {
        if (!conn.ext.tables.isEmpty() || !conn.ext.rows.isEmpty() || !conn.ext.indexes.isEmpty()
            || !conn.ext.kv.isEmpty()) {
          throw new AssertionError(when + ": left external " + externalAsText());
        }
      }
      StatusReport status = app.status();
      if (status.total() != 0 || status.components() != 0 || !status.unsettled().isEmpty()) {
        throw new AssertionError(when + ": the store still holds " + status);
      }
    }

    /** The external system equals the declared model, and the store is settled. */
    void checkConverged(App app, String when) {
      Map<String, Integer> wantTables = new TreeMap<>();
      tables.forEach((t, s) -> wantTables.put(t, s.generation()));
      parts.forEach((p, s) -> wantTables.put(p, s.generation()));
      Map<String, String> wantRows = new TreeMap<>();
      rows.forEach((t, rs) -> rs.forEach((k, o) -> {
        if (!leaves.contains(t)) {
          wantRows.put(t + "/" + k, o.value());
        }
      }));
      partRows.forEach((p, rs) -> rs.forEach((k, v) -> wantRows.put(p + "/" + k, v)));
      Map<String, String> wantIndexes = new TreeMap<>();
      indexes.forEach((t, is) -> is.forEach((name, s) -> {
        if (!leaves.contains(t)) {
          wantIndexes.put(t + "@" + name, s);
        }
      }));
      Map<String, String> wantKv = new TreeMap<>();
      kv.forEach((k, o) -> wantKv.put(k, o.value()));
      List<String> diffs = new ArrayList<>();
      synchronized (conn.ext) {
        diff("tables", wantTables, conn.ext.tables, diffs);
        diff("rows", wantRows, conn.ext.rows, diffs);
        diff("indexes", wantIndexes, conn.ext.indexes, diffs);
        diff("kv", wantKv, conn.ext.kv, diffs);
      }
      StatusReport status = app.status();
      if (!status.unsettled().isEmpty()) {
        diffs.add("unsettled after a successful run: " + status.unsettled());
      }
      long declared = wantTables.size() + wantRows.size() + wantIndexes.size() + wantKv.size();
      if (status.total() != declared) {
        diffs.add("the store tracks " + status.total() + " states, " + declared + " declared: "
            + status.providers());
      }
      if (!diffs.isEmpty()) {
        throw new AssertionError(when + ": " + String.join("; ", diffs));
      }
    }

    private static <V> void diff(String what, Map<String, V> want, Map<String, V> got,
        List<String> out) {
      if (!want.equals(got)) {
        out.add(what + " declared " + want + " but external " + got);
      }
    }
  }
}
