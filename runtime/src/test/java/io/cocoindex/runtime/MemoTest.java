package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cocoindex.Ctx;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;

/** Memoized components and functions (rule 14). */
class MemoTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  /** Each memoized component's input; its body declares the input's text under its name. */
  final Map<String, Object> inputs = new TreeMap<>();
  final AtomicInteger bodies = new AtomicInteger();
  String generation = "g1";

  /** Registers the tables provider and mounts the "docs" table, whose rows the tests declare. */
  TargetStateProvider<String> docsTable(Ctx ctx) {
    TargetStateProvider<Tables.TableSpec> p =
        registerRootTargetStatesProvider(ctx, "tables", tables.handler);
    return mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
  }

  App memoApp() {
    return app(this::memoMain);
  }

  /** {@link #memoApp} on {@code store}, named {@code name}; the caller closes it. */
  App memoApp(StateStore store, String name) {
    return App.create(name, Environment.builder().stateStore(store).build(), this::memoMain);
  }

  void memoMain(Ctx ctx) {
    TargetStateProvider<String> docs = docsTable(ctx);
    inputs.forEach((name, content) -> ctx.mountMemo(name, content, c -> {
      bodies.incrementAndGet();
      declareTargetState(c, docs.targetState(name, String.valueOf(content)));
    }));
  }

  /** Logs how the engine reads component records: "read <path>" alone, or "scan". */
  static final class ComponentReads extends ForwardingStateStore {
    final List<String> reads = Collections.synchronizedList(new ArrayList<>());

    ComponentReads(StateStore delegate) {
      super(delegate);
    }

    @Override
    public Optional<ComponentRecord> component(String app, byte[] path) {
      reads.add("read " + TargetPath.decode(path));
      return super.component(app, path);
    }

    @Override
    public void componentsInOrder(String app, Consumer<ComponentRecord> visitor) {
      reads.add("scan");
      super.componentsInOrder(app, visitor);
    }

    List<String> take() {
      synchronized (reads) {
        List<String> out = List.copyOf(reads);
        reads.clear();
        return out;
      }
    }
  }

  @Test
  void onTheEmbeddedStoreARunReadsEveryComponentRecordInOneScan() {
    assumeTrue(!ON_POSTGRES, "the store shared by workers groups its point reads instead");
    for (int i = 0; i < 300; i++) {
      inputs.put("f" + i, "v1");
    }
    ComponentReads store = new ComponentReads(store());
    try (App app = App.create("scan", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      inputs.forEach((name, content) -> ctx.mountMemo(name, content, c -> {
        bodies.incrementAndGet();
        declareTargetState(c, docs.targetState(name, String.valueOf(content)));
      }));
    })) {
      app.update();
      bodies.set(0);
      rows.takeLog();
      store.take();

      inputs.put("f7", "v2");
      inputs.remove("f8");
      app.update();

      assertThat(bodies.get()).isEqualTo(1);
      assertThat(rows.takeLog()).containsExactly("delete f8", "update f7=v2");
      // The scan starts with the run, on the pool. The table's foreground mount, which the
      // root waits for, reads its own record alone while the scan is under way: the scan is
      // not on its path. One scan then serves the memo checks, the records the components
      // commit against, and the orphan sweep's search for components no longer mounted (f8's,
      // deleted above; the table's component, read before the scan and committed since, is
      // not taken for one).
      List<String> reads = store.take();
      assertThat(reads).containsOnlyOnce("scan").isSubsetOf("scan", "read " + TABLE_MOUNT)
          .doesNotHaveDuplicates();
    }
  }

  @Test
  void aRunThatFailsBeforeAnyComponentAsksEndsItsScanFirst() {
    assumeTrue(!ON_POSTGRES, "the store shared by workers reads records one by one");
    inputs.put("f1", "v1");
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    StateStore slowScan = new ForwardingStateStore(store()) {
      @Override
      public void componentsInOrder(String app, Consumer<ComponentRecord> visitor) {
        events.add("scan");
        try {
          Thread.sleep(300);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        events.add("scan ended");
        super.componentsInOrder(app, visitor);
      }
    };
    boolean[] fail = {false};
    try (App app = App.create("early", Environment.builder().stateStore(slowScan).build(),
        ctx -> {
          if (fail[0]) {
            throw new IllegalStateException("the source is unreachable");
          }
          TargetStateProvider<String> docs = docsTable(ctx);
          inputs.forEach((name, content) -> ctx.mountMemo(name, content,
              c -> declareTargetState(c, docs.targetState(name, String.valueOf(content)))));
        })) {
      app.update();
      events.clear();
      fail[0] = true;

      assertThatThrownBy(app::update).hasMessageContaining("the source is unreachable");
      events.add("update returned");

      // The scan started with the run was under way when its main failed: the run ended
      // after it, so nothing of the run reads the store once update has returned.
      assertThat(events).containsExactly("scan", "scan ended", "update returned");
      assertThat(app.status().toString()).contains("f1");
    }
  }

  /** The path of the foreground component that {@link #docsTable} mounts. */
  static final String TABLE_MOUNT = "/[@target, \"tables\", \"docs\"]";

  @Test
  void onlyTheComponentWhoseInputChangedRuns() {
    for (int i = 0; i < 1000; i++) {
      inputs.put("f" + i, "v1");
    }
    App app = memoApp();
    app.update();
    assertThat(bodies.getAndSet(0)).isEqualTo(1000);
    assertThat(rows.takeLog()).hasSize(1000);

    inputs.put("f42", "v2");
    UpdateStats stats = app.update();
    assertThat(bodies.getAndSet(0)).isEqualTo(1);
    assertThat(rows.takeLog()).containsExactly("update f42=v2");
    assertThat(stats.componentsMemoized()).isEqualTo(999);
    assertThat(stats.of("tables/docs")).isEqualTo(new UpdateStats.ProviderStats(0, 1, 0, 999));
  }

  @Test
  void destructiveInvalidationOfTheProviderRerunsEveryMemoOnceThenHitsAgain() {
    for (int i = 0; i < 20; i++) {
      inputs.put("f" + i, "v1");
    }
    App app = memoApp();
    app.update();
    bodies.set(0);
    rows.takeLog();

    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation = "g2";
    app.update();
    assertThat(bodies.getAndSet(0)).isEqualTo(20);
    assertThat(rows.takeLog()).hasSize(20).allMatch(l -> l.startsWith("create "));

    app.update();
    assertThat(bodies.get()).isZero();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void lossyInvalidationAndFullReprocessAlsoRerunMemos() {
    inputs.put("a", "v1");
    App app = memoApp();
    app.update();
    bodies.set(0);
    rows.takeLog();

    tables.invalidation = TargetChildInvalidation.LOSSY;
    generation = "g2";
    app.update();
    assertThat(bodies.getAndSet(0)).isEqualTo(1);
    assertThat(rows.takeLog()).containsExactly("update a=v1");

    app.update(UpdateOptions.fullReprocess());
    assertThat(bodies.getAndSet(0)).isEqualTo(1);
    app.update();
    assertThat(bodies.get()).isZero();
  }

  /**
   * The table the memoized components declare into is renamed: their inputs are unchanged, but
   * what they declared into is no longer declared, so their memos do not hold and they declare
   * their rows into the new table in the same run (the memos had carried the rows forward under
   * the dropped table, leaving the new one empty for a run).
   */
  @Test
  void memoizedComponentsFollowTheirTableToANewNameInTheSameRun() {
    inputs.put("a", "v1");
    inputs.put("b", "v1");
    String[] table = {"docs"};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> rowsOf =
          mountTarget(ctx, p.targetState(table[0], new Tables.TableSpec(generation)));
      inputs.forEach((name, content) -> ctx.mountMemo(name, content, c -> {
        bodies.incrementAndGet();
        declareTargetState(c, rowsOf.targetState(name, String.valueOf(content)));
      }));
    });
    app.update();
    bodies.set(0);
    rows.takeLog();
    tables.takeLog();

    table[0] = "articles";
    UpdateStats stats = app.update();
    assertThat(bodies.getAndSet(0)).isEqualTo(2);
    assertThat(tables.takeLog()).containsExactly("ensure articles", "drop docs");
    assertThat(rows.takeLog()).containsExactly("create a=v1", "create b=v1");
    assertThat(stats.of("tables/articles")).isEqualTo(new UpdateStats.ProviderStats(2, 0, 0, 0));
    assertThat(stats.componentsMemoized()).isZero();

    app.update();
    assertThat(bodies.getAndSet(0)).isZero();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(tables.takeLog()).containsExactly("ensure articles"); // its refresh

    table[0] = "docs"; // back: the memos were recorded without docs, so they do not hold
    app.update();
    assertThat(bodies.getAndSet(0)).isEqualTo(2);
    assertThat(tables.takeLog()).containsExactly("ensure docs", "drop articles");
    assertThat(rows.takeLog()).containsExactly("create a=v1", "create b=v1");
    app.update();
    assertThat(bodies.get()).isZero();
  }

  /**
   * A memoized component whose table another component mounts itself (a partition, declared
   * inside the memoized subtree) still hits: only containers declared outside its subtree must
   * be declared again before its memo holds.
   */
  @Test
  void aMemoizedComponentMountingItsOwnTableStillHits() {
    inputs.put("a", "v1");
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      inputs.forEach((name, content) -> ctx.mountMemo(name, content, c -> {
        bodies.incrementAndGet();
        TargetStateProvider<String> own =
            mountTarget(c, p.targetState("part-" + name, new Tables.TableSpec(generation)));
        declareTargetState(c, own.targetState(name, String.valueOf(content)));
      }));
    });
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure part-a");
    assertThat(rows.takeLog()).containsExactly("create a=v1");
    bodies.set(0);

    UpdateStats stats = app.update();
    assertThat(bodies.get()).isZero();
    assertThat(stats.componentsMemoized()).isEqualTo(1);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(tables.takeLog()).isEmpty();
  }

  /**
   * A component declares a key that an unchanged, memoized component owns: both declare it (the
   * memo stands for the same declarations), which is an error, not a move. As a move, the key
   * went back and forth between the two on every run, each run forgetting the memo of the one
   * it took the key from, and no run saw a duplicate.
   */
  @Test
  void aKeyAlsoDeclaredByAMemoizedComponentIsAnErrorNotAMove() {
    Map<String, List<String>> declares = new TreeMap<>();
    declares.put("a", List.of("k1"));
    declares.put("b", List.of("k2"));
    java.util.concurrent.atomic.AtomicReference<App> self =
        new java.util.concurrent.atomic.AtomicReference<>();
    App app = app(ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      declares.forEach((name, keys) -> ctx.mountMemo(name, List.copyOf(keys), c -> {
        // b's claim comes after a's memo check: b waits for it.
        long until = System.nanoTime() + 10_000_000_000L;
        while (name.equals("b") && keys.size() > 1 && self.get().progress().memoized() < 1
            && System.nanoTime() < until) {
          Thread.onSpinWait();
        }
        keys.forEach(k -> declareTargetState(c, docs.targetState(k, name)));
      }));
    });
    self.set(app);
    app.update();
    assertThat(rows.takeLog()).containsExactly("create k1=a", "create k2=b");

    declares.put("b", List.of("k2", "k1"));
    for (int run = 0; run < 3; run++) {
      assertThatThrownBy(app::update)
          .isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("(key \"k1\" of provider 'tables/docs') is declared by two"
              + " components in one run: /\"a\" and /\"b\" (/\"a\" by its memo, its input"
              + " unchanged; if it no longer declares it, the memo is stale: put what changed in"
              + " its input, or run a full reprocess)");
      assertThat(rows.takeLog()).as("run %d", run).isEmpty();
    }
  }

  /**
   * The same duplicate, the memoized owner's memo checked after the other component took the
   * key over (that one runs first, in the foreground): the memoized component fails, and so does
   * every later run, until one of them stops declaring the key.
   */
  @Test
  void aKeyTakenFromAMemoizedComponentBeforeItsMemoCheckFailsThatComponent() {
    Map<String, List<String>> declares = new TreeMap<>();
    declares.put("a", List.of("k1"));
    List<String> taker = new ArrayList<>(List.of("k2"));
    App app = app(ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      ctx.useMount("b", c -> {
        taker.forEach(k -> declareTargetState(c, docs.targetState(k, "b")));
        return null;
      });
      declares.forEach((name, keys) -> ctx.mountMemo(name, List.copyOf(keys), c ->
          keys.forEach(k -> declareTargetState(c, docs.targetState(k, name)))));
    });
    app.update();
    assertThat(rows.takeLog()).containsExactly("create k1=a", "create k2=b");

    taker.add("k1");
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        // By its memo, or by its body when b's takeover forgot that memo before a's check read
        // it (on a store read component by component): a fails either way.
        .hasMessageContaining("(key \"k1\" of provider 'tables/docs') is declared by two"
            + " components in one run: /\"b\" and /\"a\"");
    assertThat(rows.takeLog()).containsExactly("update k1=b");
    for (int run = 0; run < 2; run++) {
      assertThatThrownBy(app::update)
          .isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("is declared by two components in one run: /\"b\" and /\"a\"");
      assertThat(rows.takeLog()).as("run %d", run).isEmpty();
    }
  }

  @Test
  void removedMemoizedComponentsStatesAreDeleted() {
    inputs.put("a", "v1");
    inputs.put("b", "v1");
    App app = memoApp();
    app.update();
    rows.takeLog();
    inputs.remove("b");
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete b");
  }

  @Test
  void aMemoHitKeepsItsChildComponentsStatesAndARemovedSiblingsGo() {
    // Each memoized parent mounts child components that declare the states (a file and its
    // chunks); on a hit the children do not run, and their tracking must survive the sweep.
    Map<String, Integer> parents = new TreeMap<>(Map.of("p1", 3, "p2", 2, "p10", 2));
    App app = app(ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      parents.forEach((name, children) -> ctx.mountMemo(name, children, c -> {
        bodies.incrementAndGet();
        for (int k = 0; k < children; k++) {
          String key = name + "-" + k;
          c.mount("c" + k, cc -> declareTargetState(cc, docs.targetState(key, "v")));
        }
      }));
    });
    app.update();
    assertThat(bodies.getAndSet(0)).isEqualTo(3);
    assertThat(rows.takeLog()).hasSize(7);

    app.update();
    assertThat(bodies.getAndSet(0)).isZero();
    assertThat(rows.takeLog()).isEmpty();

    // "p1" is a prefix of "p10" as text, not as a path: p10's children stay when p1 goes.
    parents.remove("p1");
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete p1-0", "delete p1-1", "delete p1-2");
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  /** A memoized function is a cache: a changed result type, or an unreadable value, computes. */
  @Test
  void aMemoizedFunctionWhoseResultTypeChangedComputesAnew() {
    boolean[] asInt = {false};
    AtomicInteger computed = new AtomicInteger();
    App app = app(ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      ctx.mount("x", c -> {
        Object r = asInt[0]
            ? c.memo("parse", "42", Integer.class, s -> {
              computed.incrementAndGet();
              return Integer.valueOf(s);
            })
            : c.memo("parse", "42", String.class, s -> "v" + s);
        declareTargetState(c, docs.targetState("a", String.valueOf(r)));
      });
    });
    app.update();
    assertThat(rows.takeLog()).containsExactly("create a=v42");
    asInt[0] = true;
    app.update();
    assertThat(rows.takeLog()).containsExactly("update a=42");
    app.update();
    assertThat(computed.get()).as("then cached as an Integer").isEqualTo(1);
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void memoizedFunctionReturnsTheCachedResultForTheSameInput() {
    AtomicInteger computed = new AtomicInteger();
    String[] input = {"hello world"};
    App app = app(ctx -> ctx.mount("doc", c -> {
      Integer words = c.memo("wordCount", input[0], Integer.class, s -> {
        computed.incrementAndGet();
        return s.split(" ").length;
      });
      assertThat(words).isEqualTo(input[0].split(" ").length);
    }));
    app.update();
    app.update();
    assertThat(computed.get()).isEqualTo(1);
    input[0] = "one two three";
    app.update();
    assertThat(computed.get()).isEqualTo(2);
    app.update(UpdateOptions.fullReprocess());
    assertThat(computed.get()).isEqualTo(3);
  }

  @Test
  void anInputThatCannotBeFingerprintedFailsItsChildAloneAndKeepsItsStates() {
    for (int i = 0; i < 100; i++) {
      inputs.put("f" + i, "v1");
    }
    App app = memoApp();
    app.update();
    bodies.set(0);
    rows.takeLog();

    inputs.put("f42", new Object());
    assertThatThrownBy(app::update)
        .isInstanceOfSatisfying(UpdateFailedException.class, e -> {
          assertThat(e.failures()).singleElement().satisfies(f -> {
            assertThat(f.component()).isEqualTo("/\"f42\"");
            assertThat(f.error()).hasMessageStartingWith(
                "cannot fingerprint a value of type java.lang.Object");
          });
          assertThat(e.stats().componentsMemoized()).isEqualTo(99);
        });
    assertThat(bodies.get()).isZero();
    assertThat(rows.takeLog()).isEmpty();

    // Its tracking was kept: with its old input back, its memo hits again.
    inputs.put("f42", "v1");
    app.update();
    assertThat(bodies.get()).isZero();
    assertThat(rows.takeLog()).isEmpty();
  }

  /** A memo input whose fingerprinting is slow and counted (its component is read then). */
  record SlowInput(int n) {
    static final AtomicInteger FINGERPRINTED = new AtomicInteger();

    @Override
    public int n() {
      FINGERPRINTED.incrementAndGet();
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return n;
    }
  }

  @Test
  void memoChecksWaitingForThePoolAreBoundedSoInputsAreNotAllHeldAtOnce() {
    int[] mostWaiting = {0};
    App app = app(ctx -> {
      for (int i = 0; i < 300; i++) {
        ctx.mountMemo("c" + i, new SlowInput(i), c -> bodies.incrementAndGet());
        // Mounted but not yet fingerprinted: inputs held by checks queued on the pool.
        mostWaiting[0] = Math.max(mostWaiting[0], i + 1 - SlowInput.FINGERPRINTED.get());
      }
    });
    SlowInput.FINGERPRINTED.set(0);
    app.update();
    assertThat(bodies.getAndSet(0)).isEqualTo(300);
    assertThat(mostWaiting[0]).isBetween(1, 32);

    SlowInput.FINGERPRINTED.set(0);
    mostWaiting[0] = 0;
    app.update();
    assertThat(bodies.get()).isZero();
    assertThat(mostWaiting[0]).isBetween(1, 32);
  }

  @Test
  void aMemoRecordedByARunThatDiedBeforeItWasSettledIsTakenUpWithItsStatesSettled() {
    assumeTrue(!ON_POSTGRES, "the shared store settles state by state, in each commit");
    inputs.put("a", "v1");
    boolean[] dies = {false};
    // A run that "dies" right before it is recorded as settled: everything it committed stays.
    StateStore store = new ForwardingStateStore(store()) {
      @Override
      public void runSettled(String app, long version) {
        if (!dies[0]) {
          super.runSettled(app, version);
        }
      }
    };
    try (App app = App.create("unsettled", Environment.builder().stateStore(store).build(),
        ctx -> {
          TargetStateProvider<String> docs = docsTable(ctx);
          inputs.forEach((name, content) -> ctx.mountMemo(name, content, c -> {
            bodies.incrementAndGet();
            declareTargetState(c, docs.targetState(name, String.valueOf(content)));
          }));
        })) {
      app.update();
      inputs.put("a", "v2");
      dies[0] = true;
      app.update();
      assertThat(rows.takeLog()).containsExactly("create a=v1", "update a=v2");
      bodies.set(0);

      // Its memo was written by its commit, after its row was applied: the next run takes it
      // up, settling the row to v2, rather than running the component again.
      assertThat(app.status().unsettled()).hasSize(1);
      dies[0] = false;
      rows.takeCalls();
      assertThat(app.update().componentsMemoized()).isEqualTo(1);
      assertThat(bodies.get()).isZero();
      assertThat(rows.takeCalls()).isEmpty();
      assertThat(app.status().unsettled()).isEmpty();

      // Settled to what the dead run applied: going back to v1 is a write against v2 alone.
      inputs.put("a", "v1");
      app.update();
      assertThat(bodies.getAndSet(0)).isEqualTo(1);
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "v1", List.of("v2"), false));
      assertThat(rows.takeLog()).containsExactly("update a=v1");
    }
  }

  @Test
  void aChangeWhoseCommitWasLostIsUndoneWhenTheInputGoesBackToItsMemoizedValue() {
    FaultyStateStore store = new FaultyStateStore(store());
    inputs.put("a", "v1");
    try (App app = memoApp(store, "memo-lost-commit")) {
      app.update();
      assertThat(rows.takeLog()).containsExactly("create a=v1");

      // The input changes, the sink writes v2, and the commit is lost (the process died there).
      inputs.put("a", "v2");
      store.failWrite = w -> w.stream().noneMatch(x -> x instanceof StateWrite.Precommit)
          && w.stream().anyMatch(x -> x instanceof StateWrite.Settle
              || x instanceof StateWrite.PutComponent);
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      assertThat(rows.takeLog()).containsExactly("update a=v2");
      store.failWrite = w -> false;

      // The source goes back: the target holds v2, so the memo of v1 must not hold.
      inputs.put("a", "v1");
      app.update();
      assertThat(rows.takeLog()).containsExactly("update a=v1");
      app.update();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  /**
   * A memoized component no longer mounted: the sweep deletes its rows, and its record (which
   * holds the memo) goes only with the sweep's commit. A run that died in between, followed by
   * the component mounted again on the same input, had the memo hit, and the deleted row stayed
   * deleted for good.
   */
  @ParameterizedTest
  @ValueSource(strings = {"commit lost", "delete failed"})
  void aMemoOfAnUnmountedComponentWhoseSweepDidNotCommitDoesNotHideItsDeletion(String fault) {
    FaultyStateStore store = new FaultyStateStore(store());
    inputs.put("a", "v1");
    inputs.put("b", "v1");
    try (App app = memoApp(store, "memo-unmounted")) {
      app.update();
      assertThat(rows.takeLog()).containsExactly("create a=v1", "create b=v1");

      inputs.remove("b");
      if (fault.equals("commit lost")) {
        store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.DeleteComponent);
      } else {
        rows.failWhen = a -> a.key().equals("b");
      }
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
      store.failWrite = w -> false;
      rows.failWhen = a -> false;
      assertThat(rows.takeLog()).isEqualTo(
          fault.equals("commit lost") ? List.of("delete b") : List.of());

      // Mounted again on its input of before: the row may be gone, so the memo must not hold.
      inputs.put("b", "v1");
      bodies.set(0);
      app.update();
      assertThat(bodies.get()).isEqualTo(1);
      assertThat(rows.takeLog()).containsExactly("update b=v1");
      app.update();
      assertThat(rows.takeLog()).isEmpty();
      assertThat(app.status().unsettled()).isEmpty();
    }
  }

  @Test
  void aFailingComponentDoesNotCostTheHealthyOnesTheirMemos() {
    inputs.put("good", "v1");
    inputs.put("new", "v1");
    boolean[] badFails = {true};
    AtomicInteger badRuns = new AtomicInteger();
    App app = app(ctx -> {
      TargetStateProvider<String> docs = docsTable(ctx);
      inputs.forEach((name, content) -> ctx.mountMemo(name, content, c -> {
        bodies.incrementAndGet();
        declareTargetState(c, docs.targetState(name, String.valueOf(content)));
      }));
      ctx.mountMemo("bad", "v1", c -> {
        badRuns.incrementAndGet();
        if (badFails[0]) {
          throw new IllegalStateException("unreadable source");
        }
        declareTargetState(c, docs.targetState("bad", "v1"));
      });
    });
    assertThatThrownBy(app::update).hasMessageContaining("unreadable source");
    assertThat(bodies.getAndSet(0)).isEqualTo(2);

    // The run was not settled as a whole (a component failed): the healthy components' states
    // were settled one by one, and their memos with them.
    inputs.put("new", "v2");
    assertThatThrownBy(app::update).hasMessageContaining("unreadable source");
    assertThat(bodies.getAndSet(0)).as("only the changed one").isEqualTo(1);
    assertThatThrownBy(app::update).hasMessageContaining("unreadable source");
    assertThat(bodies.getAndSet(0)).as("both hit").isZero();

    badFails[0] = false;
    app.update();
    assertThat(bodies.get()).isZero();
    assertThat(badRuns.get()).isEqualTo(4);
    assertThat(rows.takeLog()).containsExactly(
        "create bad=v1", "create good=v1", "create new=v1", "update new=v2");
  }

  @Test
  void aMemoizedComponentThatCarriesOnPastAFailedMountOfATableRecordsNoMemo() {
    AtomicInteger runs = new AtomicInteger();
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      ctx.mountMemo("m", "v1", c -> {
        runs.incrementAndGet();
        TargetStateProvider<String> docs;
        try {
          docs = mountTarget(c, p.targetState("docs", new Tables.TableSpec("g1")));
        } catch (RuntimeException tableFailed) {
          return; // the app skips what it cannot set up
        }
        declareTargetState(c, docs.targetState("d", "v1"));
      });
    });
    tables.failCreate = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure creating table docs");
    assertThat(tables.takeLog()).isEmpty();

    // Its table's mount failed: the run that follows runs it again, and the table is created.
    tables.failCreate = false;
    app.update();
    assertThat(runs.get()).isEqualTo(2);
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create d=v1");
    assertThat(app.status().unsettled()).isEmpty();
    app.update();
    assertThat(runs.get()).as("then it hits").isEqualTo(2);
    assertThat(tables.takeLog()).isEmpty();
  }

  @Test
  void aParentsMemoOfARunThatDiedSettlesItsChildrensStatesWhenTakenUp() {
    assumeTrue(!ON_POSTGRES, "the shared store settles state by state, in each commit");
    boolean[] dies = {false};
    String[] value = {"v1"};
    StateStore store = new ForwardingStateStore(store()) {
      @Override
      public void runSettled(String app, long version) {
        if (!dies[0]) {
          super.runSettled(app, version);
        }
      }
    };
    try (App app = App.create("nested", Environment.builder().stateStore(store).build(),
        ctx -> {
          TargetStateProvider<String> docs = docsTable(ctx);
          ctx.mountMemo("parent", value[0], parent -> {
            bodies.incrementAndGet();
            parent.mount("child", c -> declareTargetState(c, docs.targetState("a", value[0])));
          });
        })) {
      app.update();
      value[0] = "v2";
      dies[0] = true; // the child's row is applied, its settlement never recorded
      app.update();
      assertThat(rows.takeLog()).containsExactly("create a=v1", "update a=v2");
      bodies.set(0);

      dies[0] = false;
      rows.takeCalls();
      app.update();
      assertThat(bodies.get()).as("the parent's memo taken up").isZero();
      assertThat(app.status().unsettled()).as("the child's row settled with it").isEmpty();

      value[0] = "v1";
      app.update();
      assertThat(bodies.get()).isEqualTo(1);
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "v1", List.of("v2"), false));
    }
  }
}
