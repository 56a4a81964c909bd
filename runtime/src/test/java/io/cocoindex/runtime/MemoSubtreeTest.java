package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A memo stands for its component's whole subtree, which a hit skips (rule 14): it is
 * invalidated by what any descendant declared on, and it is recorded only once the states and
 * components the subtree no longer has are deleted, so that a deletion that failed, or never
 * ran, is retried by the next run.
 */
class MemoSubtreeTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  final AtomicInteger parentRuns = new AtomicInteger();
  String generation = "g1";
  /** The memoized parent's input. */
  String input = "i1";
  /** The parent's children (plain components) and the rows each declares. */
  final Map<String, Set<String>> children = new TreeMap<>();

  TargetStateProvider<String> docsTable(Ctx ctx) {
    TargetStateProvider<Tables.TableSpec> p =
        registerRootTargetStatesProvider(ctx, "tables", tables.handler);
    return mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
  }

  /** A memoized parent whose rows are all declared by its plain child components. */
  App parentApp() {
    return app(this::parentMain);
  }

  /** {@link #parentApp} on {@code store}, which the caller closes with the app. */
  App parentApp(StateStore store) {
    return App.create("lost", Environment.builder().stateStore(store).build(), this::parentMain);
  }

  void parentMain(Ctx ctx) {
    TargetStateProvider<String> docs = docsTable(ctx);
    ctx.mountMemo("parent", input, parent -> {
      parentRuns.incrementAndGet();
      children.forEach((child, keys) -> parent.mount(child,
          c -> keys.forEach(k -> declareTargetState(c, docs.targetState(k, "v1")))));
    });
  }

  void settle(App app) {
    app.update();
    parentRuns.set(0);
    rows.takeLog();
    rows.takeCalls();
  }

  @Test
  void destructiveInvalidationReachesAMemoWhoseChildDeclaredTheRows() {
    children.put("c", Set.of("r1"));
    App app = parentApp();
    settle(app);

    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation = "g2";
    app.update();
    assertThat(parentRuns.getAndSet(0)).isEqualTo(1);
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    app.update();
    assertThat(parentRuns.get()).as("a hit again").isZero();
  }

  @Test
  void lossyInvalidationReachesAMemoWhoseChildDeclaredTheRows() {
    children.put("c", Set.of("r1"));
    App app = parentApp();
    settle(app);

    tables.invalidation = TargetChildInvalidation.LOSSY;
    generation = "g2";
    app.update();
    assertThat(parentRuns.get()).isEqualTo(1);
    assertThat(rows.takeLog()).containsExactly("update r1=v1");
  }

  @Test
  void invalidationReachesAnOuterMemoThroughAnInnerOne() {
    App app = app(ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      ctx.mountMemo("outer", input, outer -> {
        parentRuns.incrementAndGet();
        outer.mountMemo("inner", "same", inner -> inner.mount("leaf",
            c -> declareTargetState(c, docs.targetState("r1", "v1"))));
      });
    });
    settle(app);
    app.update();
    assertThat(parentRuns.get()).as("both memos hold").isZero();

    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation = "g2";
    app.update();
    assertThat(parentRuns.get()).isEqualTo(1);
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
  }

  @Test
  void aHitCountsTheStatesItsWholeSubtreeCarriesForward() {
    children.put("a", Set.of("r1", "r2"));
    children.put("b", Set.of("r3"));
    App app = parentApp();
    settle(app);

    UpdateStats stats = app.update();
    assertThat(parentRuns.get()).isZero();
    assertThat(stats.of("tables/docs")).isEqualTo(new UpdateStats.ProviderStats(0, 0, 0, 3));
  }

  @Test
  void aFailedDeleteOfAStateTheMemoizedSubtreeNoLongerDeclaresIsRetried() {
    children.put("c", new TreeSet<>(Set.of("r1", "r2")));
    App app = parentApp();
    settle(app);

    input = "i2";
    children.put("c", Set.of("r1"));
    rows.failWhen = a -> a.key().equals("r2");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted sink failure on r2");
    assertThat(parentRuns.getAndSet(0)).isEqualTo(1);

    // Same input: the memo was not recorded, so the parent runs again and the delete is retried.
    rows.failWhen = a -> false;
    rows.takeLog();
    app.update();
    assertThat(parentRuns.getAndSet(0)).isEqualTo(1);
    assertThat(rows.takeLog()).containsExactly("delete r2");

    app.update();
    assertThat(parentRuns.get()).as("recorded once the delete went through").isZero();
  }

  @Test
  void aFailedDeleteOfAChildTheMemoizedParentNoLongerMountsIsRetried() {
    children.put("a", Set.of("r1"));
    children.put("b", Set.of("r2"));
    App app = parentApp();
    settle(app);

    input = "i2";
    children.remove("b");
    rows.failWhen = a -> a.key().equals("r2");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    parentRuns.set(0);

    rows.failWhen = a -> false;
    rows.takeLog();
    app.update();
    assertThat(parentRuns.getAndSet(0)).isEqualTo(1);
    assertThat(rows.takeLog()).containsExactly("delete r2");

    app.update();
    assertThat(parentRuns.get()).isZero();
    assertThat(app.status().total()).isEqualTo(2); // the table and r1
  }

  @Test
  void aMemoWhoseSweepWasNeverCommittedIsNotRecorded() {
    FaultyStateStore store = new FaultyStateStore(store());
    children.put("a", Set.of("r1"));
    children.put("b", Set.of("r2"));
    App app = parentApp(store);
    try (app) {
      settle(app);

      // The sweep's commit (the one that deletes b's record) is lost, as in a crash after the
      // sink deleted r2: the parent's memo, held back for it, is lost with it.
      input = "i2";
      children.remove("b");
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.DeleteComponent);
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      assertThat(rows.takeLog()).containsExactly("delete r2");
      parentRuns.set(0);

      store.failWrite = w -> false;
      app.update();
      assertThat(parentRuns.getAndSet(0)).isEqualTo(1);
      assertThat(rows.takeLog()).containsExactly("delete r2"); // possibly applied: again
      app.update();
      assertThat(parentRuns.get()).isZero();
    }
  }

  /**
   * A run that dies after a child's commit and before its memoized parent's, then a source as
   * it was before that run: the parent's old memo must not hit, or the row the child added stays
   * for good. The child's first precommit forgets the memos above it.
   */
  @Test
  void aMemoOfAParentWhoseCommitWasLostDoesNotHideWhatItsChildChanged() {
    FaultyStateStore store = new FaultyStateStore(store());
    children.put("c", Set.of("r1"));
    App app = parentApp(store);
    try (app) {
      settle(app);

      // The parent's commit (its record, with the new memo) is lost, as in a crash after the
      // child's commit.
      input = "i2";
      children.put("c", new TreeSet<>(Set.of("r1", "r2")));
      byte[] parent = TargetPath.ROOT.child(StableKey.of("parent")).encoded();
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.PutComponent pc
          && Arrays.equals(pc.component().path(), parent));
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      assertThat(rows.takeLog()).containsExactly("create r2=v1");
      parentRuns.set(0);

      store.failWrite = w -> false;
      input = "i1";
      children.put("c", Set.of("r1"));
      app.update();
      assertThat(parentRuns.getAndSet(0)).isEqualTo(1);
      assertThat(rows.takeLog()).containsExactly("delete r2");
      app.update();
      assertThat(parentRuns.get()).as("a hit again").isZero();
      assertThat(app.status().total()).isEqualTo(2); // the table and r1
    }
  }

  /**
   * A memoized parent that no longer mounts a child holds its memo back for the sweep; the run's
   * root then fails, which keeps the sweep off everything below it, the child included. The
   * memo must not be recorded: a hit next time would skip the child's row for good.
   */
  @Test
  void aMemoHeldBackForASweepThatAFailedAncestorKeptOffIsNotRecorded() {
    children.put("a", Set.of("r1"));
    children.put("b", Set.of("r2"));
    boolean[] rootFails = {false};
    App app = app(ctx -> {
      parentMain(ctx);
      if (rootFails[0]) {
        throw new IllegalStateException("scripted failure of the root");
      }
    });
    settle(app);

    input = "i2";
    children.remove("b");
    rootFails[0] = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure of the root");
    assertThat(rows.takeLog()).isEmpty();
    parentRuns.set(0);

    rootFails[0] = false;
    app.update();
    assertThat(parentRuns.getAndSet(0)).isEqualTo(1);
    assertThat(rows.takeLog()).containsExactly("delete r2");
    app.update();
    assertThat(parentRuns.get()).isZero();
  }

  /**
   * A memoized component fails (or its memoized parent does, the row being a plain child's) in
   * the run whose sweep drops the table its row is in: the row goes with the table (rule 8), its
   * tracking with it. The memo recorded when the component declared the row must go too:
   * mounted again on that input, the table declared again (its child generation starting over
   * at the one the memo recorded), it hit, and the row stayed missing for good. The same with a
   * table its handler abandons (the sweep forgets it with what is below it).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"its own row", "a child's row", "its own row, the table abandoned"})
  void aMemoOfAFailedComponentWhoseRowsATableDropTookAlongDoesNotHit(String form) {
    boolean childOwnsTheRow = form.equals("a child's row");
    tables.abandonWhenUndeclared = form.endsWith("abandoned");
    boolean[] tableDeclared = {true};
    boolean[] fails = {false};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs = tableDeclared[0]
          ? mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation))) : null;
      mountM(ctx, docs, childOwnsTheRow, fails);
    });
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    rows.takeCalls();

    tableDeclared[0] = false;
    input = "i2";
    fails[0] = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure of m");
    assertThat(tables.takeLog())
        .containsExactlyElementsOf(tables.abandonWhenUndeclared ? List.of() : List.of("drop docs"));
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers().values()).allMatch(List::isEmpty);

    tableDeclared[0] = true;
    input = "i1";
    fails[0] = false;
    parentRuns.set(0);
    app.update();
    assertThat(parentRuns.getAndSet(0)).as("m runs: its table is back").isEqualTo(1);
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    assertThat(app.status().providers()).containsEntry("tables", List.of(StableKey.of("docs")))
        .containsEntry("tables/docs", List.of(StableKey.of("r1")));
    assertThat(app.status().unsettled()).isEmpty();

    app.update();
    assertThat(parentRuns.get()).as("a hit again").isZero();
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * The same one level down, where the sweep forgets what it takes along: a DESTRUCTIVE change
   * of table t destroys its partition p1, which is no longer declared, in the run in which the
   * memoized component owning a row of p1 fails. p1 declared again starts over at the child
   * generation the memo recorded, and the memo hit.
   */
  @Test
  void aMemoOfAFailedComponentWhoseRowsADestroyedPartitionTookAlongDoesNotHit() {
    Tables partitions = new Tables(rows);
    Tables table = new Tables(rows, () -> ChildTargetDef.of(partitions.handler));
    boolean[] partitionDeclared = {true};
    boolean[] fails = {false};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", table.handler);
      TargetStateProvider<Tables.TableSpec> parts =
          mountTarget(ctx, p.targetState("t", new Tables.TableSpec(generation)));
      TargetStateProvider<String> p1 = partitionDeclared[0]
          ? mountTarget(ctx, parts.targetState("p1", new Tables.TableSpec("p"))) : null;
      mountM(ctx, p1, false, fails);
    });
    app.update();
    assertThat(table.takeLog()).containsExactly("ensure t");
    assertThat(partitions.takeLog()).containsExactly("ensure p1");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    rows.takeCalls();

    table.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation = "g2";
    partitionDeclared[0] = false;
    input = "i2";
    fails[0] = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure of m");
    assertThat(table.takeLog()).containsExactly("ensure t");
    assertThat(partitions.takeLog()).as("destroyed with t, not dropped").isEmpty();
    assertThat(rows.takeLog()).isEmpty();

    partitionDeclared[0] = true;
    input = "i1";
    fails[0] = false;
    parentRuns.set(0);
    app.update();
    assertThat(parentRuns.get()).as("m runs: its memo went with the row").isEqualTo(1);
    assertThat(partitions.takeLog()).containsExactly("ensure p1");
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    assertThat(app.status().unsettled()).isEmpty();
  }

  /**
   * A memoized component whose input does not change, in the run that no longer declares the
   * table its row is in: the table was declared from outside its subtree and is not declared
   * now, so its memo does not hold (its body runs, and declares nothing), and the sweep drops the
   * table, taking the row along. Its memo is recorded without the table: once the table is
   * declared again (starting over at the child generation the memo first recorded), the memo
   * does not hold either, and the row is created again. (Before the memo held in the run without
   * the table, and, once the table was back, it hit and the row was never created again.)
   */
  @Test
  void aMemoThatHitOverARowOfATableNoLongerDeclaredDoesNotHoldOnceTheTableIsDropped() {
    boolean[] tableDeclared = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs = tableDeclared[0]
          ? mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation))) : null;
      ctx.mountMemo("m", input, m -> {
        parentRuns.incrementAndGet();
        if (docs != null) {
          declareTargetState(m, docs.targetState("r1", "v1"));
        }
      });
    });
    settle(app);
    tables.takeLog();

    tableDeclared[0] = false;
    app.update();
    assertThat(parentRuns.getAndSet(0)).as("m runs: its table is not declared").isEqualTo(1);
    assertThat(tables.takeLog()).containsExactly("drop docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers().values()).allMatch(List::isEmpty);

    tableDeclared[0] = true;
    app.update();
    assertThat(parentRuns.getAndSet(0)).as("m runs: its table is back").isEqualTo(1);
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    app.update();
    assertThat(parentRuns.get()).as("a hit again").isZero();
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * The sweep forgets a state, with no action, that a memoized component whose commit was lost
   * (its body completed) no longer declares: its table is declared without children now (as a
   * directory that is now a file, the table's own action took its rows along), or, a partition,
   * its handler abandons it. The component kept its record, and with it the memo recorded when
   * it declared the state: once its input went back, the table declared with children again (its
   * child generation where the memo recorded it), the memo hit, and the row stayed missing (the
   * partition untracked) for good.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"a row, its table declared without children", "a partition, abandoned"})
  void aMemoOfAComponentWhoseCommitWasLostDoesNotOutliveAStateTheSweepForgets(String form) {
    boolean partition = form.startsWith("a partition");
    Tables partitions = new Tables(rows);
    Tables table = new Tables(rows, () -> ChildTargetDef.of(partitions.handler));
    partitions.abandonWhenUndeclared = partition;
    boolean[] withChildren = {true};
    FaultyStateStore store = new FaultyStateStore(store());
    App app = App.create("forgotten", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", (partition ? table : tables).handler);
      if (!withChildren[0]) {
        declareTargetState(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
        ctx.mountMemo("m", input, m -> parentRuns.incrementAndGet());
        return;
      }
      if (partition) {
        TargetStateProvider<Tables.TableSpec> parts =
            mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
        ctx.mountMemo("m", input, m -> {
          parentRuns.incrementAndGet();
          if (input.equals("i1")) {
            declareTargetState(m, parts.targetState("p1", new Tables.TableSpec("p")));
          }
        });
      } else {
        TargetStateProvider<String> docs =
            mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
        ctx.mountMemo("m", input, m -> {
          parentRuns.incrementAndGet();
          if (input.equals("i1")) {
            declareTargetState(m, docs.targetState("r1", "v1"));
          }
        });
      }
    });
    try (app) {
      app.update();
      assertThat(partition ? partitions.takeLog() : rows.takeLog())
          .containsExactly(partition ? "ensure p1" : "create r1=v1");

      // m no longer declares its state, and has nothing else to do: its commit is the write of
      // its record alone, lost.
      input = "i2";
      withChildren[0] = partition;
      byte[] m = TargetPath.ROOT.child(StableKey.of("m")).encoded();
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.PutComponent pc
          && Arrays.equals(pc.component().path(), m));
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("injected write failure");
      assertThat(partitions.takeLog()).as("abandoned, not dropped").isEmpty();
      assertThat(rows.takeLog()).isEmpty();
      assertThat(app.status().providers()).as("forgotten by the sweep")
          .containsExactly(Map.entry("tables", List.of(StableKey.of("docs"))));

      store.failWrite = w -> false;
      input = "i1";
      withChildren[0] = true;
      parentRuns.set(0);
      app.update();
      assertThat(parentRuns.getAndSet(0)).as("m runs: its memo went with the state").isOne();
      assertThat(partition ? partitions.takeLog() : rows.takeLog())
          .containsExactly(partition ? "ensure p1" : "create r1=v1");
      assertThat(app.status().providers()).containsEntry("tables/docs",
          List.of(StableKey.of(partition ? "p1" : "r1")));
      assertThat(app.status().unsettled()).isEmpty();

      app.update();
      assertThat(parentRuns.get()).as("a hit again").isZero();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  /**
   * A component fails (its body throws: its tracking is kept) in the run that declares the table
   * its row is in without children (as a directory that is now a file): the table's own action
   * took the row along, as it did the rows of the components that committed, which the sweep
   * forgets. The failed component's row stayed tracked, passed for current once the table had
   * children again (its child generation where it was), and was never written again: the
   * component, running, found it unchanged; memoized, its memo hit.
   */
  @ParameterizedTest(name = "memoized: {0}")
  @ValueSource(booleans = {false, true})
  void aRowOfAFailedComponentBelowATableDeclaredWithoutChildrenIsWrittenAgain(boolean memoized) {
    boolean[] withChildren = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs = null;
      if (withChildren[0]) {
        docs = mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
      } else {
        declareTargetState(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
      }
      TargetStateProvider<String> rowsOf = docs;
      Consumer<Ctx> m = c -> {
        parentRuns.incrementAndGet();
        if (rowsOf == null) {
          throw new IllegalStateException("scripted failure of m");
        }
        declareTargetState(c, rowsOf.targetState("r1", "v1"));
      };
      if (memoized) {
        ctx.mountMemo("m", input, m);
      } else {
        ctx.mount("m", m);
      }
    });
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    withChildren[0] = false;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure of m");
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers()).as("r1 went with the table's action")
        .containsExactly(Map.entry("tables", List.of(StableKey.of("docs"))));

    withChildren[0] = true;
    parentRuns.set(0);
    rows.takeCalls();
    app.update();
    assertThat(parentRuns.getAndSet(0)).isOne();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    assertThat(app.status().providers()).containsEntry("tables/docs", List.of(StableKey.of("r1")));

    app.update();
    assertThat(parentRuns.get()).isEqualTo(memoized ? 0 : 1);
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * As above, with the sweep's write that forgets r1 lost (m failing or not: the sweep forgets
   * r1 either way): r1 went with the table's action all the same, and must not pass for current
   * once the table has children again. The table's own record, written with its component's
   * commit, says so: its children are of an older generation once it is a table again.
   */
  @ParameterizedTest(name = "m fails: {0}")
  @ValueSource(booleans = {true, false})
  void aRowBelowATableDeclaredWithoutChildrenIsWrittenAgainAfterItsForgettingWasLost(
      boolean mFailsThen) {
    boolean[] withChildren = {true};
    boolean[] mFails = {false};
    FaultyStateStore store = new FaultyStateStore(store());
    App app = App.create("forget", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs = null;
      if (withChildren[0]) {
        docs = mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
      } else {
        declareTargetState(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
      }
      TargetStateProvider<String> rowsOf = docs;
      ctx.mount("m", m -> {
        if (mFails[0]) {
          throw new IllegalStateException("scripted failure of m");
        }
        if (rowsOf != null) {
          declareTargetState(m, rowsOf.targetState("r1", "v1"));
        }
      });
    });
    try (app) {
      app.update();
      assertThat(rows.takeLog()).containsExactly("create r1=v1");
      tables.takeLog();

      withChildren[0] = false;
      mFails[0] = mFailsThen;
      // A tree per row forgotten, or, with nothing kept below docs on the embedded store, one
      // range below docs.
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.DeleteTree
          || x instanceof StateWrite.DeleteBelow);
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining(mFailsThen ? "scripted failure of m" : "injected write failure");
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(rows.takeLog()).isEmpty();
      assertThat(app.status().unsettled()).as("r1, still tracked, gone from the target")
          .singleElement().satisfies(u -> {
            assertThat(u.path()).endsWith("\"r1\"");
            assertThat(u.containerInvalidated()).isTrue();
          });

      store.failWrite = w -> false;
      withChildren[0] = true;
      mFails[0] = false;
      rows.takeCalls();
      app.update();
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("r1", "v1", List.of(), true));
      assertThat(rows.takeLog()).containsExactly("create r1=v1");
      assertThat(app.status().providers()).containsEntry("tables/docs",
          List.of(StableKey.of("r1")));
      assertThat(app.status().unsettled()).isEmpty();

      app.update();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  /**
   * As above, a level deeper: the failing component m owns a partition p1 of the table (itself a
   * container), and m's memoized child w declares row r1 in it. The table's action took p1 and
   * r1 along; the sweep forgets p1 with what is tracked below it, and the memos of the components
   * declaring there: w did not fail (m's body threw before mounting it), and its memo, kept, hit
   * once p1 was created again, its child generation where w's memo had recorded it.
   */
  @Test
  void aMemoBelowAFailedComponentsPartitionOfATableDeclaredWithoutChildrenGoesWithIt() {
    Tables partitions = new Tables(rows);
    Tables table = new Tables(rows, () -> ChildTargetDef.of(partitions.handler));
    boolean[] withChildren = {true};
    AtomicInteger wRuns = new AtomicInteger();
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", table.handler);
      if (!withChildren[0]) {
        declareTargetState(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
        ctx.mount("m", m -> {
          throw new IllegalStateException("scripted failure of m");
        });
        return;
      }
      TargetStateProvider<Tables.TableSpec> parts =
          mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
      ctx.mount("m", m -> {
        TargetStateProvider<String> p1 =
            mountTarget(m, parts.targetState("p1", new Tables.TableSpec("p")));
        m.mountMemo("w", input, w -> {
          wRuns.incrementAndGet();
          declareTargetState(w, p1.targetState("r1", "v1"));
        });
      });
    });
    app.update();
    assertThat(table.takeLog()).containsExactly("ensure docs");
    assertThat(partitions.takeLog()).containsExactly("ensure p1");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    withChildren[0] = false;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure of m");
    assertThat(partitions.takeLog()).isEmpty();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers()).as("p1 and r1 went with the table's action")
        .containsExactly(Map.entry("tables", List.of(StableKey.of("docs"))));

    withChildren[0] = true;
    wRuns.set(0);
    app.update();
    assertThat(partitions.takeLog()).containsExactly("ensure p1");
    assertThat(wRuns.getAndSet(0)).as("w runs: its memo went with p1").isOne();
    assertThat(rows.takeLog()).containsExactly("create r1=v1");

    app.update();
    assertThat(wRuns.get()).as("a hit again").isZero();
    assertThat(partitions.takeLog()).as("a container's action on every run").containsExactly(
        "ensure p1");
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * Memoized component m on {@code input} (its runs counted in {@code parentRuns}): declares row
   * r1 into {@code rowsOf} when given, itself or through its plain child c, and fails at its end
   * while {@code fails[0]}.
   */
  private void mountM(
      Ctx ctx, TargetStateProvider<String> rowsOf, boolean throughChild, boolean[] fails) {
    ctx.mountMemo("m", input, m -> {
      parentRuns.incrementAndGet();
      if (rowsOf != null && throughChild) {
        m.mount("c", c -> declareTargetState(c, rowsOf.targetState("r1", "v1")));
      } else if (rowsOf != null) {
        declareTargetState(m, rowsOf.targetState("r1", "v1"));
      }
      if (fails[0]) {
        throw new IllegalStateException("scripted failure of m");
      }
    });
  }

  /**
   * A memoized partition p below the memoized c4 (below the plain c3) mounts its own table and
   * declares its rows into it. A run removes p's row and c4 fails at its end: the row's deletion
   * is a change below c4, so c4's memo must not hold when the row comes back.
   */
  @Test
  void aRowDeletedBelowAMemoizedComponentThatFailedIsCreatedWhenItComesBack() {
    Map<String, String> partRows = new TreeMap<>(Map.of("k0", "v0"));
    boolean[] c4Fails = {false};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> tp =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      Map<String, String> input = new TreeMap<>(partRows);
      ctx.mount("c3", c3 -> c3.mountMemo("c4", input, c4 -> {
        c4.mountMemo("p1", input, p -> {
          TargetStateProvider<String> rp =
              mountTarget(p, tp.targetState("p1", new Tables.TableSpec(generation)));
          input.forEach((k, v) -> declareTargetState(p, rp.targetState(k, v)));
        });
        if (c4Fails[0]) {
          throw new IllegalStateException("c4 fails at its end");
        }
      }));
    });
    app.update();
    assertThat(rows.takeLog()).containsExactly("create k0=v0");
    app.update();

    partRows.remove("k0");
    c4Fails[0] = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("c4 fails at its end");
    List<String> deleted = rows.takeLog();

    partRows.put("k0", "v0");
    c4Fails[0] = false;
    app.update();
    List<String> after = rows.takeLog();
    assertThat(deleted).containsExactly("delete k0");
    assertThat(after).containsExactly("create k0=v0");
  }

  /**
   * A state moved as it was (no action) from c0 to c5, the plain child of the memoized p, in a
   * run in which p fails at its end; then p's input goes back to what it was, and nobody
   * declares the state. p kept its record, and its old memo carried the state c5 now owned
   * forward: it was never deleted (the soak of the nested model, seed 103, once memo hits
   * counted as declarations, reported it as declared twice).
   */
  @Test
  void aStateTakenOverBelowAMemoizedComponentThatFailedIsNotCarriedForwardByItsOldMemo() {
    String[] pInput = {"i1"};
    boolean[] pFails = {false};
    Map<String, String> c0Rows = new TreeMap<>(Map.of("k0", "v0"));
    Map<String, String> c5Rows = new TreeMap<>();
    App app = app(ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      if (!c0Rows.isEmpty()) {
        ctx.mountMemo("c0", Map.copyOf(c0Rows), c ->
            c0Rows.forEach((k, v) -> declareTargetState(c, docs.targetState(k, v))));
      }
      ctx.mountMemo("p", pInput[0], pc -> {
        if (!c5Rows.isEmpty()) {
          pc.mount("c5", c -> c5Rows.forEach((k, v) -> declareTargetState(c, docs.targetState(k, v))));
        }
        if (pFails[0]) {
          throw new IllegalStateException("p fails at its end");
        }
      });
    });
    app.update();
    assertThat(rows.takeLog()).containsExactly("create k0=v0");

    c0Rows.clear();
    c5Rows.put("k0", "v0");
    pInput[0] = "i2";
    pFails[0] = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("p fails at its end");
    assertThat(rows.takeLog()).isEmpty(); // moved as it was

    c5Rows.clear();
    pInput[0] = "i1";
    pFails[0] = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete k0");
    assertThat(app.status().total()).isEqualTo(1); // the table alone
  }

  /**
   * A component's first precommit forgets the memo of every memoized ancestor, those with plain
   * components between them included, nearest first (each component reaches the memoized ones
   * above it through links from one to the next, not by walking every parent).
   */
  @Test
  void aPrecommitForgetsTheMemoOfEveryMemoizedAncestorAcrossPlainOnes() {
    FaultyStateStore store = new FaultyStateStore(store());
    List<List<StateWrite>> writes =
        java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    store.failWrite = w -> {
      writes.add(List.copyOf(w));
      return false;
    };
    String[] leafRows = {"r1"};
    App app = App.create("across", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      ctx.mountMemo("outer", input, outer -> outer.mount("mid",
          mid -> mid.mountMemo("inner", input, inner -> inner.mount("leaf",
              leaf -> {
                for (String k : leafRows) {
                  declareTargetState(leaf, docs.targetState(k, "v1"));
                }
              }))));
    });
    try (app) {
      settle(app);
      input = "i2";
      leafRows[0] = "r2";
      writes.clear();
      app.update();
      assertThat(rows.takeLog()).containsExactly("create r2=v1", "delete r1");

      TargetPath outer = TargetPath.ROOT.child(StableKey.of("outer"));
      TargetPath inner = outer.child(StableKey.of("mid")).child(StableKey.of("inner"));
      List<StateWrite> leafPrecommit = writes.stream()
          .filter(w -> w.stream().anyMatch(x -> x instanceof StateWrite.Precommit pc
              && TargetPath.decode(pc.state().path()).last().equals(StableKey.of("r2"))))
          .findFirst().orElseThrow();
      assertThat(leafPrecommit.stream()
          .filter(x -> x instanceof StateWrite.InvalidateMemo)
          .map(x -> TargetPath.decode(((StateWrite.InvalidateMemo) x).path())))
          .containsExactly(inner, outer);
      app.update();
      assertThat(rows.takeLog()).isEmpty();
    }
  }
}
