package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The orphan sweep at the boundaries of its chunks: each test sets the chunk size it needs (the
 * system property {@code cocoindex.sweep.chunk}, read as each sweep starts) so that a removal
 * of a few states crosses chunks and batches, on the embedded store as on PostgreSQL. A chunk is
 * precommitted, applied and committed before the next is reconciled, so a failure or a crash
 * between two chunks leaves the earlier chunks done and the rest tracked; the next run must
 * finish exactly what is left: nothing deleted twice that a committed chunk settled, nothing
 * left behind, and no memo left standing over states a committed chunk took away.
 */
class SweepChunkBoundariesTest extends EngineTestBase {

  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  /** Body runs per component name (a memo hit runs none). */
  final Map<String, AtomicInteger> bodyRuns = new ConcurrentHashMap<>();
  @RegisterExtension final SweepChunks sweepChunks = new SweepChunks();

  /** Every sweep of this test goes in chunks (and stale batches) of {@code n}. */
  void sweepInChunksOf(int n) {
    sweepChunks.set(n);
  }

  int runs(String component) {
    AtomicInteger n = bodyRuns.get(component);
    return n == null ? 0 : n.get();
  }

  void ran(String component) {
    bodyRuns.computeIfAbsent(component, k -> new AtomicInteger()).incrementAndGet();
  }

  /**
   * Rows whose handler abandons a row no longer declared: it asks for no delete (the row stays
   * in the target), and the sweep forgets its tracking.
   */
  final TargetHandler<String, String, Rows.RowAction> abandoning = new TargetHandler<>() {
    @Override
    public TargetReconcileOutput<Rows.RowAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      return desired == null ? null : rows.handler.reconcile(key, desired, prev, mayBeMissing);
    }
  };

  /** The write that settles or forgets the state whose last key is {@code key}. */
  static boolean settles(List<StateWrite> writes, String key) {
    StableKey k = StableKey.of(key);
    for (StateWrite w : writes) {
      byte[] path = w instanceof StateWrite.Settle s ? s.state().path()
          : w instanceof StateWrite.DeleteTree t ? t.path()
          : w instanceof StateWrite.DeleteState d ? d.path() : null;
      if (path != null && TargetPath.decode(path).last().equals(k)) {
        return true;
      }
    }
    return false;
  }

  /** The write that deletes the record of the component {@code name} (a child of the root). */
  static boolean deletesRecordOf(List<StateWrite> writes, String name) {
    StableKey k = StableKey.of(name);
    return writes.stream().anyMatch(w -> w instanceof StateWrite.DeleteComponent d
        && TargetPath.decode(d.path()).equals(TargetPath.ROOT.child(k)));
  }

  /** The rows the sink holds after {@code log} (creates and updates minus deletes), sorted. */
  static List<String> net(List<String> log) {
    Map<String, String> present = new HashMap<>();
    for (String entry : log) {
      String body = entry.replaceFirst("^\\w+ ", "");
      String key = body.replaceFirst("=.*", "");
      if (entry.startsWith("delete ")) {
        present.remove(key);
      } else {
        present.put(key, body);
      }
    }
    List<String> out = new ArrayList<>(present.values());
    out.sort(null);
    return out;
  }

  App app(FaultyStateStore store, String name, Consumer<Ctx> main) {
    return App.create(name, Environment.builder().stateStore(store).build(), main);
  }

  // ---- 1. A chunk that only forgets states ----------------------------------------------------

  /**
   * Memoized component "m" (input unchanged throughout) declared rows r1..r3 on a handler that
   * abandons a row no longer declared. Unmounted, "m" is stale: in chunks of two, the first chunk
   * only forgets r1 and r2 (no delete action, so no precommit), and the second forgets r3 and
   * deletes "m"'s record, a commit the store loses. "m" mounted again on the same input must run
   * (its memo forgotten with the first chunk's commit) and declare r1 and r2 again: a memo hit
   * would carry r3 forward only, and r1 and r2 would stay untracked for good.
   *
   * <p>Fails with the fix of commit fdff3be reverted (a forget-only chunk's commit then carried
   * no invalidation of its stale owners' memos): the memo hits and nothing is declared again.
   */
  @Test
  void aChunkThatOnlyForgetsAStaleOwnersStatesForgetsItsMemoBeforeALaterChunkIsLost() {
    sweepInChunksOf(2);
    FaultyStateStore store = new FaultyStateStore(store());
    boolean[] mounted = {true};
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kept", abandoning);
      if (mounted[0]) {
        ctx.mountMemo("m", "in", c -> {
          ran("m");
          for (String k : List.of("r1", "r2", "r3")) {
            declareTargetState(c, p.targetState(k, "v1"));
          }
        });
      }
    };
    try (App app = app(store, "forget", main)) {
      app.update();
      assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1", "create r3=v1");

      mounted[0] = false;
      store.failWrite = w -> deletesRecordOf(w, "m"); // the second chunk's commit
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      assertThat(rows.takeLog()).as("abandoned rows get no delete").isEmpty();
      assertThat(app.status().total()).as("r3: the first chunk forgot r1 and r2").isEqualTo(1);

      store.failWrite = w -> false;
      mounted[0] = true;
      app.update();
      assertThat(runs("m")).as("body runs of m: its memo did not hit").isEqualTo(2);
      assertThat(rows.takeLog()).as("r1 and r2 declared again; r3 was tracked as it is")
          .containsExactly("create r1=v1", "create r2=v1");
      assertThat(app.status().total()).isEqualTo(3);
    }
  }

  /**
   * As above, the rows owned by child "m/c" (not memoized) of memoized "m": the first chunk's
   * commit forgets the memo of the stale memoized ancestor of the rows' owner.
   *
   * <p>Fails with the fix of commit fdff3be reverted, as above.
   */
  @Test
  void aChunkThatOnlyForgetsStatesForgetsTheMemoOfTheirOwnersStaleMemoizedAncestor() {
    sweepInChunksOf(2);
    FaultyStateStore store = new FaultyStateStore(store());
    boolean[] mounted = {true};
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kept", abandoning);
      if (mounted[0]) {
        ctx.mountMemo("m", "in", c -> {
          ran("m");
          c.mount("c", cc -> {
            for (String k : List.of("r1", "r2", "r3")) {
              declareTargetState(cc, p.targetState(k, "v1"));
            }
          });
        });
      }
    };
    try (App app = app(store, "forget2", main)) {
      app.update();
      assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1", "create r3=v1");

      mounted[0] = false;
      store.failWrite = w -> deletesRecordOf(w, "m"); // the batch's last chunk
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      assertThat(rows.takeLog()).isEmpty();
      assertThat(app.status().total()).as("r3: the first chunk forgot r1 and r2").isEqualTo(1);

      store.failWrite = w -> false;
      mounted[0] = true;
      app.update();
      assertThat(runs("m")).as("body runs of m: its memo did not hit").isEqualTo(2);
      assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
      assertThat(app.status().total()).isEqualTo(3);
    }
  }

  /**
   * Stale "a" owns table "docs", whose handler abandons it once undeclared; its row r1 belongs
   * to stale memoized "b" of the same batch. One commit forgets the table with its row, forgets
   * the memo of "b" (its row went with the table) and deletes both records: the memo's
   * invalidation must come before the records' deletion, since on a store shared by workers an
   * invalidation creates the record it finds missing, and "b" was left with a record of nothing.
   *
   * <p>Fails on PostgreSQL with the fix of commit fdff3be reverted (which wrote the invalidation
   * after the records' deletion): one component record is left.
   */
  @Test
  void aTableAbandonedWithTheRowOfAStaleComponentOfItsBatchLeavesNoRecordBehind() {
    sweepInChunksOf(2);
    tables.abandonWhenUndeclared = true;
    boolean[] mounted = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      if (mounted[0]) {
        TargetStateProvider<String> docs = ctx.useMount("a",
            c -> mountTarget(c, p.targetState("docs", new Tables.TableSpec("g1"))));
        ctx.mountMemo("b", "in", c -> {
          ran("b");
          declareTargetState(c, docs.targetState("r1", "v1"));
        });
      }
    });
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    mounted[0] = false;
    app.update();
    assertThat(tables.takeLog()).as("abandoned: no drop").isEmpty();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().total()).isZero();
    assertThat(app.status().components()).as("component records").isZero();

    mounted[0] = true;
    app.update();
    assertThat(runs("b")).as("body runs of b").isEqualTo(2);
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  // ---- 2. A failure or a crash between two chunks ---------------------------------------------

  /** Component "all" declares k0..k4 while {@code declared[0]}; memoized on that flag. */
  Consumer<Ctx> fiveRows(boolean[] declared, boolean[] mounted) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      if (mounted[0]) {
        boolean d = declared[0];
        ctx.mountMemo("all", d, c -> {
          ran("all");
          if (d) {
            for (String k : List.of("k0", "k1", "k2", "k3", "k4")) {
              declareTargetState(c, p.targetState(k, "v1"));
            }
          }
        });
      }
    };
  }

  static final List<String> FIVE_CREATED = List.of(
      "create k0=v1", "create k1=v1", "create k2=v1", "create k3=v1", "create k4=v1");

  /**
   * A committed component stops declaring k0..k4, swept in chunks {k0,k1}, {k2,k3}, {k4}; the
   * sink fails the second chunk. The first and third commit; the next run deletes k2 and k3
   * only, once each, and the component's memo is recorded only then.
   */
  @Test
  void aSinkFailingOnTheSecondChunkLeavesExactlyThatChunkToTheNextRun() {
    sweepInChunksOf(2);
    boolean[] declared = {true};
    App app = app(fiveRows(declared, new boolean[] {true}));
    app.update();
    List<String> sink = new ArrayList<>(rows.takeLog());
    assertThat(sink).containsExactlyElementsOf(FIVE_CREATED);

    declared[0] = false;
    rows.failWhen = a -> a.key().equals("k2");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted sink failure on k2");
    List<String> second = rows.takeLog();
    assertThat(second).containsExactly("delete k0", "delete k1", "delete k4");
    sink.addAll(second);
    assertThat(app.status().total()).as("k2 and k3").isEqualTo(2);

    rows.failWhen = a -> false;
    app.update();
    List<String> third = rows.takeLog();
    assertThat(third).containsExactly("delete k2", "delete k3");
    sink.addAll(third);
    assertThat(net(sink)).as("rows in the target").isEmpty();
    assertThat(app.status().total()).isZero();

    app.update();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(runs("all")).as("the memo of the empty input is recorded: no fourth run")
        .isEqualTo(3);
  }

  /**
   * As above, the sink applies the second chunk and the store fails its commit: the sweep stops
   * there (k4 is not reached). The next run deletes k2 and k3 again (their deletion applied, but
   * as far as the store knows it may not have: each keeps its possible records, rule 3) and k4,
   * and never k0 or k1, which the first chunk settled.
   */
  @Test
  void aStoreFailingAtTheSecondChunksCommitStopsTheSweepAndTheNextRunFinishesIt() {
    sweepInChunksOf(2);
    FaultyStateStore store = new FaultyStateStore(store());
    boolean[] declared = {true};
    try (App app = app(store, "lost", fiveRows(declared, new boolean[] {true}))) {
      app.update();
      List<String> sink = new ArrayList<>(rows.takeLog());
      assertThat(sink).containsExactlyElementsOf(FIVE_CREATED);

      declared[0] = false;
      store.failWrite = w -> settles(w, "k2");
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      List<String> second = rows.takeLog();
      assertThat(second).containsExactly("delete k0", "delete k1", "delete k2", "delete k3");
      sink.addAll(second);

      store.failWrite = w -> false;
      rows.takeCalls();
      app.update();
      assertThat(rows.calls.stream().filter(c -> c.desired() == null).map(Rows.Call::toString))
          .containsExactlyInAnyOrder(
              "k2 desired=null prev=[v1] mbm=true",
              "k3 desired=null prev=[v1] mbm=true",
              "k4 desired=null prev=[v1] mbm=false");
      List<String> third = rows.takeLog();
      assertThat(third).containsExactly("delete k2", "delete k3", "delete k4");
      sink.addAll(third);
      assertThat(net(sink)).as("rows in the target").isEmpty();
      assertThat(app.status().total()).isZero();
    }
  }

  /**
   * As above, the store fails the second chunk's precommit: k2 and k3 are neither applied nor
   * written (their owner fails), the sweep goes on to k4. The next run deletes k2 and k3, whose
   * tracking is as it was (one record, none possibly missing).
   */
  @Test
  void aStoreFailingAtTheSecondChunksPrecommitLeavesThatChunkAsItWasForTheNextRun() {
    sweepInChunksOf(2);
    FaultyStateStore store = new FaultyStateStore(store());
    boolean[] declared = {true};
    try (App app = app(store, "pre", fiveRows(declared, new boolean[] {true}))) {
      app.update();
      List<String> sink = new ArrayList<>(rows.takeLog());

      declared[0] = false;
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.Precommit p
          && TargetPath.decode(p.state().path()).last().equals(StableKey.of("k2")));
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      List<String> second = rows.takeLog();
      assertThat(second).containsExactly("delete k0", "delete k1", "delete k4");
      sink.addAll(second);

      store.failWrite = w -> false;
      rows.takeCalls();
      app.update();
      assertThat(rows.takeCalls().stream().filter(c -> c.desired() == null)
          .map(Rows.Call::toString)).containsExactly(
              "k2 desired=null prev=[v1] mbm=false", "k3 desired=null prev=[v1] mbm=false");
      List<String> third = rows.takeLog();
      assertThat(third).containsExactly("delete k2", "delete k3");
      sink.addAll(third);
      assertThat(net(sink)).isEmpty();
      assertThat(app.status().total()).isZero();
    }
  }

  /**
   * A stale memoized component's rows go in chunks; the sink fails the second. The component
   * keeps its record (it still owns k2 and k3), but not its memo, forgotten with the first
   * chunk's precommit: mounted again on the same input it runs, creates what the sweep deleted
   * and rewrites what it may have (k2 and k3 may be missing, as far as the store knows).
   */
  @Test
  void aStaleMemoizedComponentWhoseSecondChunkFailsRunsAgainWhenMountedOnTheSameInput() {
    sweepInChunksOf(2);
    boolean[] mounted = {true};
    App app = app(fiveRows(new boolean[] {true}, mounted));
    app.update();
    List<String> sink = new ArrayList<>(rows.takeLog());

    mounted[0] = false;
    rows.failWhen = a -> a.key().equals("k2");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    List<String> second = rows.takeLog();
    assertThat(second).containsExactly("delete k0", "delete k1", "delete k4");
    sink.addAll(second);
    assertThat(app.status().total()).isEqualTo(2);
    assertThat(app.status().components()).as("the record of \"all\" is kept")
        .isEqualTo(1);

    rows.failWhen = a -> false;
    mounted[0] = true;
    app.update();
    assertThat(runs("all")).as("body runs: the memo did not hit").isEqualTo(2);
    List<String> third = rows.takeLog();
    assertThat(third).containsExactly("create k0=v1", "create k1=v1", "create k4=v1",
        "update k2=v1", "update k3=v1");
    sink.addAll(third);
    assertThat(net(sink)).containsExactly("k0=v1", "k1=v1", "k2=v1", "k3=v1", "k4=v1");
    assertThat(app.status().total()).isEqualTo(5);
  }

  /**
   * Stale memoized components "a", "b", "c", a batch each (chunks of one): "a"'s batch commits,
   * "b"'s row is deleted and its commit lost; the sweep stops before "c". Mounted again on their
   * inputs, "a" (record gone) and "b" (memo forgotten in its precommit) run; "c", which the
   * sweep never touched, hits its memo. What the target holds at the end is what they declare.
   */
  @Test
  void aCommitLostBetweenTwoBatchesLeavesEachStaleComponentConvergingOnItsNextMount() {
    sweepInChunksOf(1);
    FaultyStateStore store = new FaultyStateStore(store());
    boolean[] mounted = {true};
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      if (mounted[0]) {
        for (String comp : List.of("a", "b", "c")) {
          ctx.mountMemo(comp, "in", c -> {
            ran(comp);
            declareTargetState(c, p.targetState(comp + "1", "v1"));
          });
        }
      }
    };
    try (App app = app(store, "batches", main)) {
      app.update();
      List<String> sink = new ArrayList<>(rows.takeLog());
      assertThat(sink).containsExactly("create a1=v1", "create b1=v1", "create c1=v1");

      mounted[0] = false;
      store.failWrite = w -> deletesRecordOf(w, "b");
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      List<String> second = rows.takeLog();
      assertThat(second).containsExactly("delete a1", "delete b1");
      sink.addAll(second);
      assertThat(app.status().total()).as("b1 (unsettled) and c1").isEqualTo(2);

      store.failWrite = w -> false;
      mounted[0] = true;
      app.update();
      assertThat(List.of(runs("a"), runs("b"), runs("c"))).as("body runs of a, b, c")
          .containsExactly(2, 2, 1);
      List<String> third = rows.takeLog();
      assertThat(third).containsExactly("create a1=v1", "update b1=v1");
      sink.addAll(third);
      assertThat(net(sink)).containsExactly("a1=v1", "b1=v1", "c1=v1");
      assertThat(app.status().total()).isEqualTo(3);
    }
  }

  /**
   * A drop deletes k0 and k1 in its first chunk; the sink fails its second (the drop fails,
   * its tracking of k2..k4 kept). An update on the input of before must run "all" (its memo went
   * with the first chunk's precommit): a hit would leave k0 and k1 missing for good.
   */
  @Test
  void aDropFailingInItsSecondChunkLeavesNoMemoOverWhatItsFirstDeleted() {
    sweepInChunksOf(2);
    App app = app(fiveRows(new boolean[] {true}, new boolean[] {true}));
    app.update();
    List<String> sink = new ArrayList<>(rows.takeLog());

    rows.failWhen = a -> a.key().equals("k2");
    assertThatThrownBy(app::dropState).hasMessageContaining("scripted sink failure on k2");
    List<String> dropped = rows.takeLog();
    assertThat(dropped).containsExactly("delete k0", "delete k1", "delete k4");
    sink.addAll(dropped);

    rows.failWhen = a -> false;
    int before = runs("all"); // the drop runs main too, for its registrations
    app.update();
    assertThat(runs("all") - before).as("body runs: the memo did not hit").isEqualTo(1);
    List<String> third = rows.takeLog();
    assertThat(third).containsExactly("create k0=v1", "create k1=v1", "create k4=v1",
        "update k2=v1", "update k3=v1");
    sink.addAll(third);
    assertThat(net(sink)).containsExactly("k0=v1", "k1=v1", "k2=v1", "k3=v1", "k4=v1");
  }

  // ---- 3. Edges of the chunking -----------------------------------------------------------------

  /** Component "all" (not memoized) declares k0..k{n-1} while mounted. */
  Consumer<Ctx> rowsOfOneComponent(int n, boolean[] mounted) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      if (mounted[0]) {
        ctx.mount("all", c -> {
          for (int i = 0; i < n; i++) {
            declareTargetState(c, p.targetState("k" + i, "v1"));
          }
        });
      }
    };
  }

  /**
   * Four rows go in two full chunks of two: a limit of three refuses the update (counted over
   * both chunks, nothing deleted); a limit of exactly four lets every row go.
   */
  @Test
  void aDeletionLimitEqualToAWholeNumberOfChunksLetsEveryChunkGo() {
    sweepInChunksOf(2);
    boolean[] mounted = {true};
    App app = app(rowsOfOneComponent(4, mounted));
    app.update();
    rows.takeLog();

    mounted[0] = false;
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(3)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 4 target states (4 through their handlers,"
            + " 0 with their containers), more than its deletion limit of 3");
    assertThat(rows.takeLog()).as("nothing deleted").isEmpty();
    assertThat(app.status().total()).isEqualTo(4);

    app.update(UpdateOptions.defaults().withDeletionLimit(4));
    assertThat(rows.takeLog()).containsExactly("delete k0", "delete k1", "delete k2", "delete k3");
    assertThat(app.status().total()).isZero();
  }

  /**
   * Stale "t" owns table "docs" and its rows r1, r2; stale "u" owns row u1. In chunks of one the
   * table's drop fills its chunk, and its rows (below it) stay in that chunk: counted with their
   * container, never reconciled. Limit three refuses, exactly four goes.
   */
  @Test
  void aDeletionLimitCountsTheRowsOfATableThatFillsItsChunk() {
    sweepInChunksOf(1);
    Rows flat = new Rows();
    boolean[] mounted = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      if (mounted[0]) {
        ctx.mount("t", c -> {
          TargetStateProvider<String> docs =
              mountTarget(c, p.targetState("docs", new Tables.TableSpec("g1")));
          declareTargetState(c, docs.targetState("r1", "v1"));
          declareTargetState(c, docs.targetState("r2", "v1"));
        });
        ctx.mount("u", c -> declareTargetState(c, f.targetState("u1", "v1")));
      }
    });
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
    tables.takeLog();
    flat.takeLog();

    mounted[0] = false;
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(3)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 4 target states (2 through their handlers,"
            + " 2 with their containers), more than its deletion limit of 3");
    assertThat(tables.takeLog()).isEmpty();
    assertThat(flat.takeLog()).isEmpty();

    rows.takeCalls();
    app.update(UpdateOptions.defaults().withDeletionLimit(4));
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(flat.takeLog()).containsExactly("delete u1");
    assertThat(rows.takeLog()).as("rows go with their table").isEmpty();
    assertThat(rows.takeCalls()).as("rows reconciled").isEmpty();
    assertThat(app.status().total()).isZero();
  }

  /**
   * Table "docs" of stale "a" goes in the first batch (chunks and batches of one); its row r1
   * belongs to stale memoized "m" of a later batch, which also owns flat row x1. The table's
   * drop takes r1 along (never reconciled); "m"'s batch deletes x1 through its handler.
   */
  Consumer<Ctx> tableOfAWithRowsOfM(boolean[] mounted, Rows flat) {
    return ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      if (mounted[0]) {
        TargetStateProvider<String> docs = ctx.useMount("a",
            c -> mountTarget(c, p.targetState("docs", new Tables.TableSpec("g1"))));
        ctx.mountMemo("m", "in", c -> {
          ran("m");
          declareTargetState(c, docs.targetState("r1", "v1"));
          declareTargetState(c, f.targetState("x1", "v1"));
        });
      }
    };
  }

  @Test
  void anOwnerOfALaterBatchLosesItsRowsWithTheTableAndItsOtherStatesThroughTheirHandler() {
    sweepInChunksOf(1);
    Rows flat = new Rows();
    boolean[] mounted = {true};
    App app = app(tableOfAWithRowsOfM(mounted, flat));
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    assertThat(flat.takeLog()).containsExactly("create x1=v1");
    tables.takeLog();
    rows.takeCalls();

    mounted[0] = false;
    app.update();
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(rows.takeCalls()).as("rows reconciled").isEmpty();
    assertThat(flat.takeLog()).containsExactly("delete x1");
    assertThat(app.status().total()).isZero();
    assertThat(app.status().components()).isZero();

    mounted[0] = true;
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    assertThat(flat.takeLog()).containsExactly("create x1=v1");
  }

  /**
   * As above, and every write after the table's drop commits is lost (a crash there): "m"
   * keeps its record, and x1. Its memo went with the drop's precommit, so mounted again on
   * the same input it runs and creates r1 in the table again (x1 it finds as it was).
   */
  @Test
  void aCrashAfterATableDropInAnEarlierBatchLeavesNoMemoOverItsRowsOwnersOfLaterBatches() {
    sweepInChunksOf(1);
    FaultyStateStore store = new FaultyStateStore(store());
    Rows flat = new Rows();
    boolean[] mounted = {true};
    try (App app = app(store, "cut", tableOfAWithRowsOfM(mounted, flat))) {
      app.update();
      rows.takeLog();
      flat.takeLog();
      tables.takeLog();

      mounted[0] = false;
      boolean[] dropped = {false};
      Predicate<List<StateWrite>> afterDrop = w -> {
        if (settles(w, "docs")) {
          dropped[0] = true;
          return false;
        }
        return dropped[0] && w.stream().noneMatch(x -> x instanceof StateWrite.Precommit);
      };
      store.failWrite = afterDrop;
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      assertThat(tables.takeLog()).containsExactly("drop docs");
      assertThat(flat.takeLog()).as("x1's deletion applied, its commit lost")
          .containsExactly("delete x1");
      store.failWrite = w -> false;

      mounted[0] = true;
      app.update();
      assertThat(runs("m")).as("body runs of m: its memo did not hit").isEqualTo(2);
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(rows.takeLog()).as("r1, dropped with the table, created again")
          .containsExactly("create r1=v1");
      assertThat(flat.takeLog()).as("x1 may be missing: written again")
          .containsExactly("update x1=v1");
    }
  }

  /**
   * Memoized "p" mounts "p/x" (row x1) and memoized "p/y" (declares nothing) on input "two"; on input
   * "none" it mounts neither. In batches of one, "p/y"'s batch, the sweep's last, has no
   * candidate at all: it deletes "p/y"'s record and records "p"'s memo, held back for the sweep;
   * the same input again hits it.
   */
  @Test
  void aLastBatchWithoutCandidatesDeletesItsRecordsAndRecordsTheMemosHeldForTheSweep() {
    sweepInChunksOf(1);
    String[] input = {"two"};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      String in = input[0];
      ctx.mountMemo("p", in, c -> {
        ran("p");
        if (in.equals("two")) {
          c.mount("x", cc -> declareTargetState(cc, p.targetState("x1", "v1")));
          c.mountMemo("y", "in", cc -> { });
        }
      });
    });
    app.update();
    assertThat(rows.takeLog()).containsExactly("create x1=v1");
    long componentsBefore = app.status().components();

    input[0] = "none";
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete x1");
    assertThat(app.status().total()).isZero();
    assertThat(app.status().components()).as("p/x and p/y gone, p kept")
        .isEqualTo(componentsBefore - 2);

    app.update();
    assertThat(runs("p")).as("body runs of p: the memo recorded by the last batch hits")
        .isEqualTo(2);
    assertThat(rows.takeLog()).isEmpty();
  }
}
