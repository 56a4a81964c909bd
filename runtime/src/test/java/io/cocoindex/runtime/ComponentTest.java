package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.TargetStateProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Processing components: own commits, orphans, ownership transfer and batching (rules 4, 5, 10). */
class ComponentTest extends EngineTestBase {
  final Rows rows = new Rows();
  /** component name -> (key -> value) it declares. */
  final Map<String, Map<String, String>> components = new ConcurrentHashMap<>();

  App componentsApp() {
    return app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (String name : new TreeMap<>(components).keySet()) {
        ctx.mount(name, c -> components.get(name)
            .forEach((k, v) -> declareTargetState(c, p.targetState(k, v))));
      }
    });
  }

  @Test
  void everyMountedComponentRunsInEveryUpdateEvenBackToBack() {
    // On a shared store each component is leased; the leases of one update must not still be
    // held when the next one starts, or its components are skipped as if another worker ran them.
    java.util.concurrent.atomic.AtomicInteger bodies = new java.util.concurrent.atomic.AtomicInteger();
    App app = app(ctx -> {
      for (int i = 0; i < 300; i++) {
        ctx.mount("c" + i, c -> bodies.incrementAndGet());
      }
    });
    for (int update = 1; update <= 5; update++) {
      app.update();
      assertThat(bodies.get()).as("component bodies run after update %d", update)
          .isEqualTo(300 * update);
    }
  }

  @Test
  void theRootRunsOnTheThreadThatCallsUpdateAndDropState() {
    // Not on the component pool: a pool worker waiting for a foreground target's commit relies
    // on the pool starting another worker for the stages queued on itself, and runs were seen
    // never to end when it did not. Mounted components still run on the pool.
    List<Thread> roots = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Thread> mounted = new java.util.concurrent.CopyOnWriteArrayList<>();
    App app = app(ctx -> {
      roots.add(Thread.currentThread());
      ctx.mount("c", c -> mounted.add(Thread.currentThread()));
    });
    app.update();
    app.dropState();
    assertThat(roots).containsExactly(Thread.currentThread(), Thread.currentThread());
    assertThat(mounted).hasSize(2)
        .allMatch(t -> t instanceof java.util.concurrent.ForkJoinWorkerThread);
  }

  /**
   * A body declaring through the Ctx of a component whose body has returned (captured from
   * outside its lambda) fails that component, and the error says which Ctx to use.
   */
  @Test
  void declaringThroughACapturedCtxOfAFinishedComponentNamesTheCtxToUse() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      io.cocoindex.Ctx finished = ctx.useMount("f", f -> f); // returns once f has committed
      ctx.mount("c", c -> declareTargetState(finished, p.targetState("k", "v")));
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("/\"c\": cannot declare a target state in component /\"f\" after its"
            + " body returned: inside a mounted component, use the Ctx its lambda was given, not"
            + " one captured from outside it");
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * A body declaring through the Ctx of its parent whose body still runs (captured from outside
   * its lambda) fails too, rather than declaring the state as the parent's: in a foreground
   * child, and in a mounted one that runs while its parent waits.
   */
  @Test
  void declaringThroughTheCapturedCtxOfARunningAncestorFails() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.useMount("f", f -> {
        declareTargetState(ctx, p.targetState("k", "v"));
        return null;
      });
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("/\"f\": cannot declare a target state in component / from the"
            + " body of its descendant /\"f\": inside a mounted component, use the Ctx its lambda"
            + " was given, not one captured from outside it");
    assertThat(rows.takeLog()).isEmpty();

    java.util.concurrent.CountDownLatch tried = new java.util.concurrent.CountDownLatch(1);
    App mounting = app("mounting", ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> {
        c.mount("d", d -> {
          try {
            declareTargetState(c, p.targetState("k", "v"));
          } finally {
            tried.countDown();
          }
        });
        try {
          tried.await(10, TimeUnit.SECONDS); // c's body still runs while d declares
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
    });
    assertThatThrownBy(mounting::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("/\"c\"/\"d\": cannot declare a target state in component /\"c\""
            + " from the body of its descendant /\"c\"/\"d\"");
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void everyComponentKnowsItsAppsName() {
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    App app = app("indexer", ctx -> {
      seen.add(ctx.appName());
      ctx.mount("c", c -> seen.add(c.appName()));
      ctx.useMount("f", f -> seen.add(f.appName()));
    });
    app.update();
    assertThat(seen).containsExactly("indexer", "indexer", "indexer");
  }

  @Test
  void unmountedComponentsStatesAreDeletedAndOnlyThose() {
    App app = componentsApp();
    components.put("x", Map.of("x", "1"));
    components.put("y", Map.of("y", "1"));
    app.update();
    assertThat(rows.takeLog()).containsExactly("create x=1", "create y=1");

    components.remove("y");
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete y");

    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void ownershipTransferToAnotherComponentIsOneUpdate() {
    App app = componentsApp();
    components.put("c1", Map.of("x", "1"));
    app.update();
    rows.takeLog();
    rows.takeCalls();

    components.clear();
    components.put("c2", Map.of("x", "2"));
    app.update();
    assertThat(rows.takeLog()).containsExactly("update x=2");
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("x", "2", List.of("1"), false));

    components.clear();
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete x");
  }

  @Test
  void ownershipTransferWhileTheOldOwnerStillRunsIsOneUpdate() {
    App app = componentsApp();
    components.put("c1", Map.of("x", "1", "y", "1"));
    app.update();
    rows.takeLog();

    components.put("c1", Map.of("y", "1"));
    components.put("c2", Map.of("x", "2"));
    app.update();
    assertThat(rows.takeLog()).containsExactly("update x=2");

    components.put("c2", Map.of());
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete x");
  }

  @Test
  void ownershipTransferIsOneUpdateWhicheverOfTheTwoComponentsCommitsFirst() {
    // The taker's commit may move the state before the old owner reads what it owns: the old
    // owner then no longer owns it, and still does not declare it.
    for (boolean ownerFirst : List.of(true, false)) {
      Rows log = new Rows();
      Map<String, Map<String, String>> declared = new ConcurrentHashMap<>();
      declared.put("c1", Map.of("x", "1", "y", "1"));
      App app = app("owner-first-" + ownerFirst, ctx -> {
        TargetStateProvider<String> p =
            registerRootTargetStatesProvider(ctx, "rows", log.handler);
        for (String name : ownerFirst ? List.of("c1", "c2") : List.of("c2", "c1")) {
          Map<String, String> states = declared.get(name);
          if (states != null) {
            ctx.useMount(name, c -> {
              states.forEach((k, v) -> declareTargetState(c, p.targetState(k, v)));
              return null;
            });
          }
        }
      });
      app.update();
      assertThat(log.takeLog()).containsExactly("create x=1", "create y=1");

      declared.put("c1", Map.of("y", "1"));
      declared.put("c2", Map.of("x", "2"));
      app.update();
      assertThat(log.takeLog()).as("owner first: %s", ownerFirst).containsExactly("update x=2");

      declared.put("c2", Map.of());
      app.update();
      assertThat(log.takeLog()).as("owner first: %s", ownerFirst).containsExactly("delete x");
    }
  }

  @Test
  void concurrentComponentsShareSinkCalls() {
    rows.sinkDelayMillis = 20;
    App app = componentsApp();
    for (int i = 0; i < 50; i++) {
      components.put("c" + i, Map.of("k" + i, "v"));
    }
    app.update();
    assertThat(rows.takeLog()).hasSize(50);
    assertThat(rows.sinkCalls.get()).isLessThan(50);
  }

  @Test
  void smallComponentsThatChangeGoManyToASinkCallAndARerunThatChangesNothingCallsNone()
      throws Exception {
    // At most 64 components are in flight at first. Once components that change something have
    // reconciled, a store that is its app's only writer admits as many as hold about 32k
    // declared states, up to 256: here, one state each. A shared store keeps 64, so that other
    // workers find the rest free. While the first sink call is held, no component can finish
    // (each waits for its action to be applied), so the components that reconciled meanwhile
    // are those in flight. Those whose actions were queued meanwhile go in the next call
    // together (how many depends on the machine's speed).
    AtomicInteger reconciledWhileHeld = holdTheFirstSinkCall();
    App app = componentsApp();
    for (int i = 0; i < 400; i++) {
      components.put(String.format("c%03d", i), Map.of(String.format("k%03d", i), "v"));
    }
    app.update();
    assertThat(rows.takeLog()).hasSize(400);
    assertAsManyAsAGateAdmits(reconciledWhileHeld.get());
    assertThat(rows.largestBatch.get()).as("the components that piled up go in one call")
        .isGreaterThan(1);

    int calls = rows.sinkCalls.get();
    app.update();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(rows.sinkCalls.get()).isEqualTo(calls);
  }

  @Test
  void theChildrenOfOneComponentAreAsFewInFlightAsTheRootsOwn() throws Exception {
    // As above, one level down: a component mounting 400 children holds a slot of the first
    // level's gate while it waits for them, and they take the next level's. Before, they ran
    // without a bound: a component mounting 100,000 children of ten states ran out of memory at
    // -Xmx512m, and 20,000 children's leases filled PostgreSQL's lock table.
    AtomicInteger reconciledWhileHeld = holdTheFirstSinkCall();
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("parent", parent -> {
        for (int i = 0; i < 400; i++) {
          String key = String.format("k%03d", i);
          parent.mount(i, c -> declareTargetState(c, p.targetState(key, "v")));
        }
      });
    });
    app.update();
    assertThat(rows.takeLog()).hasSize(400);
    assertAsManyAsAGateAdmits(reconciledWhileHeld.get());
  }

  @Test
  void parentsFillingEveryLevelsSlotsWhileWaitingForTheirChildrenStillFinish() {
    // 300 components, more than a level's 256 slots, each waiting for 3 children that wait for
    // a grandchild: every level makes progress while the one above waits for it.
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < 300; i++) {
        int parent = i;
        ctx.mount(parent, c -> {
          for (int j = 0; j < 3; j++) {
            int child = j;
            c.mount(child, cc -> cc.mount("leaf", leaf -> declareTargetState(leaf,
                p.targetState(parent + "/" + child, "v"))));
          }
        });
      }
    });
    app.update();
    assertThat(rows.takeLog()).containsExactlyElementsOf(createdRows(300, 3));
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  /** The sorted log of rows {@code "parent/child"} created with value v. */
  private static List<String> createdRows(int parents, int children) {
    List<String> created = new ArrayList<>();
    for (int i = 0; i < parents; i++) {
      for (int j = 0; j < children; j++) {
        created.add("create " + i + "/" + j + "=v");
      }
    }
    Collections.sort(created);
    return created;
  }

  @Test
  void aBodyMountingThousandsOfChildrenWaitsWhileTooManyAwaitASlot() {
    // A child mounted waits for a slot of its gate holding its context and its start's futures;
    // a body mounting a million children held them all and ran out of memory at -Xmx512m. With
    // the sink held, no child finishes: the body must wait once 1,024 children await a slot.
    int children = 4_000;
    AtomicInteger started = new AtomicInteger();
    AtomicInteger mostMountedNotStarted = new AtomicInteger();
    AtomicBoolean bodyDone = new AtomicBoolean();
    Thread[] body = new Thread[1];
    AtomicBoolean held = new AtomicBoolean();
    rows.onSinkCall = () -> {
      if (held.compareAndSet(false, true)) {
        holdUntilDoneOrWaiting(bodyDone, body[0]);
      }
    };
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("parent", parent -> {
        body[0] = Thread.currentThread();
        for (int i = 0; i < children; i++) {
          String key = String.format("k%04d", i);
          parent.mount(i, c -> {
            started.incrementAndGet();
            declareTargetState(c, p.targetState(key, "v"));
          });
          mostMountedNotStarted.accumulateAndGet(i + 1 - started.get(), Math::max);
        }
        bodyDone.set(true);
      });
    });
    app.update();
    assertThat(rows.takeLog()).hasSize(children);
    // 1,024 awaiting a slot, one more mounted before the body waits, and those holding one of
    // the level's 256 slots, not yet started.
    assertThat(mostMountedNotStarted.get()).isLessThanOrEqualTo(1_024 + 1 + 256);
  }

  /**
   * Holds the sink call it runs in until {@code done} is set, or {@code thread} has been seen
   * waiting for 200 ms on end (30 s at most).
   */
  private static void holdUntilDoneOrWaiting(AtomicBoolean done, Thread thread) {
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      int waitingPolls = 0;
      while (!done.get() && waitingPolls < 20 && System.nanoTime() < deadline) {
        Thread.sleep(10);
        boolean waiting = thread != null && (thread.getState() == Thread.State.WAITING
            || thread.getState() == Thread.State.TIMED_WAITING);
        waitingPolls = waiting ? waitingPolls + 1 : 0;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Holds the first sink call until the components in flight have reconciled ({@link
   * #inFlightWhileHeld}); the returned counter then says how many did (-1 before).
   */
  private AtomicInteger holdTheFirstSinkCall() {
    AtomicInteger reconciledWhileHeld = new AtomicInteger(-1);
    rows.onSinkCall = () -> {
      if (reconciledWhileHeld.get() < 0) {
        reconciledWhileHeld.set(inFlightWhileHeld());
      }
    };
    return reconciledWhileHeld;
  }

  /**
   * A gate of small components admits more than its first 64 on a store that is its app's only
   * writer, up to 256; a shared store's keeps 64.
   */
  private static void assertAsManyAsAGateAdmits(int inFlight) {
    if (ON_POSTGRES) {
      assertThat(inFlight).isBetween(2, 64);
    } else {
      assertThat(inFlight).isBetween(65, 256);
    }
  }

  /**
   * Holds the sink call it runs in until the components in flight have reconciled (on the
   * embedded store, until more than 64 have, waiting up to 30 s; on a shared one, for a second),
   * and returns how many reconciled.
   */
  private int inFlightWhileHeld() {
    try {
      if (ON_POSTGRES) {
        Thread.sleep(1_000);
      } else {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (rows.calls.size() <= 64 && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        Thread.sleep(200); // time for more than the gate allows to show, were they admitted
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return rows.calls.size();
  }

  @Test
  void aStateTakenOverByAComponentThatFailedIsStillReachedFromItsUnmountedOwner() {
    App app = componentsApp();
    components.put("c1", Map.of("x", "1"));
    app.update();
    assertThat(rows.takeLog()).containsExactly("create x=1");

    // c2 takes x over as it is (no action, its new owner is written at c2's commit) and fails
    // on another row; c1 is no longer mounted.
    components.clear();
    components.put("c2", Map.of("x", "1", "y", "1"));
    rows.failWhen = r -> r.key().equals("y");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers()).as("x still tracked, y possibly created")
        .isEqualTo(Map.of("rows",
            List.of(io.cocoindex.StableKey.of("x"), io.cocoindex.StableKey.of("y"))));

    // Nobody declares x any more: it is deleted (its owner is still c1, whose record says so).
    rows.failWhen = r -> false;
    components.put("c2", Map.of("y", "1"));
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete x", "update y=1");
    assertThat(app.status().providers())
        .isEqualTo(Map.of("rows", List.of(io.cocoindex.StableKey.of("y"))));
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * A state moves, as it is, to a component whose body then throws, its old owner no longer
   * mounted: the body declared it before throwing, so the run's sweep keeps it, and the next run
   * moves it with no action. (The sweep deleted it, and the next run created it again: a move
   * that cost a delete and a create, the row missing in between, which the preview before the
   * failed run did not plan; the model-based soak's preview oracle found it, seeds
   * 1513119982554989113, -5394526343538548604, -7734130824615566799.)
   */
  @Test
  void aStateMovedToAComponentWhoseBodyFailsAfterDeclaringItIsKeptAndMovedNextRun() {
    AtomicBoolean c2Fails = new AtomicBoolean();
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (String name : new TreeMap<>(components).keySet()) {
        ctx.mount(name, c -> {
          components.get(name).forEach((k, v) -> declareTargetState(c, p.targetState(k, v)));
          if (name.equals("c2") && c2Fails.get()) {
            throw new IllegalStateException("c2 fails after declaring");
          }
        });
      }
    });
    components.put("c1", Map.of("x", "1"));
    app.update();
    assertThat(rows.takeLog()).containsExactly("create x=1");

    components.clear();
    components.put("c2", Map.of("x", "1"));
    assertThat(app.preview().actions()).as("a move as it is").isEmpty();
    c2Fails.set(true);
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(rows.takeLog()).as("x kept for c2, which declared it").isEmpty();
    assertThat(app.status().providers())
        .isEqualTo(Map.of("rows", List.of(io.cocoindex.StableKey.of("x"))));

    c2Fails.set(false);
    app.update();
    assertThat(rows.takeLog()).as("moved to c2 as it is").isEmpty();
    assertThat(app.status().components()).as("c2's record alone: c1's went").isEqualTo(1);
    components.clear();
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete x");
  }

  @Test
  void failingComponentInAMergedBatchFailsAloneAndIsRetriedAlone() {
    rows.sinkDelayMillis = 5;
    App app = componentsApp();
    for (int i = 0; i < 20; i++) {
      components.put("c" + i, Map.of("k" + i, "v"));
    }
    rows.failWhen = r -> r.key().equals("k7");
    assertThatThrownBy(app::update)
        .isInstanceOfSatisfying(UpdateFailedException.class, e -> {
          assertThat(e.failures()).hasSize(1);
          assertThat(e.failures().get(0).component()).isEqualTo("/\"c7\"");
          assertThat(e.stats().of("rows").created()).isEqualTo(19);
        });
    List<String> applied = rows.takeLog();
    assertThat(applied).hasSize(19).doesNotContain("create k7=v");

    rows.failWhen = r -> false;
    rows.takeCalls();
    app.update();
    // The failed attempt's record stays possible: the retry sees it, with the state maybe missing.
    assertThat(rows.takeCalls()).filteredOn(c -> c.key().equals("k7"))
        .containsExactly(new Rows.Call("k7", "v", List.of("v"), true));
    assertThat(rows.takeLog()).containsExactly("update k7=v");
  }

  @Test
  void duplicateKeyFailsItsComponentPersistsNothingForItAndHealthyOnesCommit() {
    boolean[] twice = {true};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("good", c -> declareTargetState(c, p.targetState("g", "1")));
      ctx.mount("bad", c -> {
        declareTargetState(c, p.targetState("b", "1"));
        if (twice[0]) {
          declareTargetState(c, p.targetState("b", "2"));
        }
      });
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining(
            "key \"b\" of provider 'rows' is declared twice in component /\"bad\"");
    assertThat(rows.takeLog()).containsExactly("create g=1");
    rows.takeCalls();

    twice[0] = false;
    app.update();
    // Nothing of the failed attempt was persisted: "b" is new.
    assertThat(rows.takeCalls()).filteredOn(c -> c.key().equals("b"))
        .containsExactly(new Rows.Call("b", "1", List.of(), true));
    assertThat(rows.takeLog()).containsExactly("create b=1");
  }

  @Test
  void keyDeclaredByTwoComponentsInOneRunFailsOneOfThemAndTheOtherCommits() {
    App app = componentsApp();
    components.put("a", Map.of("k", "from a"));
    components.put("b", Map.of("k", "from b"));
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("target state /@rows/\"k\" (key \"k\" of provider 'rows') is"
            + " declared by two components in one run");
    List<String> log = rows.takeLog();
    assertThat(log).hasSize(1);
    assertThat(log.get(0)).isIn("create k=from a", "create k=from b");

    components.remove("a");
    app.update();
    assertThat(rows.takeLog()).containsExactlyElementsOf(
        log.get(0).equals("create k=from b") ? List.of() : List.of("update k=from b"));
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void aKeyItsOwnerDeclaresAgainWhileAnotherTakesItOverFailsWhicheverClaimsSecond() {
    // A component's own paths stay out of the run's claim table; a takeover is checked against
    // the owner's declarations instead, whether the owner claims before or after the taker.
    for (boolean ownerFirst : List.of(true, false)) {
      Rows log = new Rows();
      Map<String, String> declared = new ConcurrentHashMap<>(Map.of("a", "1 from a"));
      App app = app("owner-first-" + ownerFirst, ctx -> {
        TargetStateProvider<String> p =
            registerRootTargetStatesProvider(ctx, "rows", log.handler);
        List<String> order = ownerFirst ? List.of("a", "b") : List.of("b", "a");
        for (String name : order) {
          String value = declared.get(name);
          if (value != null) {
            ctx.useMount(name, c -> {
              declareTargetState(c, p.targetState("k", value));
              return null;
            });
          }
        }
      });
      app.update();
      assertThat(log.takeLog()).containsExactly("create k=1 from a");

      declared.put("a", "2 from a");
      declared.put("b", "from b");
      assertThatThrownBy(app::update)
          .as("owner first: %s", ownerFirst)
          .isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("target state /@rows/\"k\" (key \"k\" of provider 'rows') is"
              + " declared by two components in one run: "
              + (ownerFirst ? "/\"a\" and /\"b\"" : "/\"b\" and /\"a\""));
      assertThat(log.takeLog()).as("owner first: %s", ownerFirst)
          .containsExactly(ownerFirst ? "update k=2 from a" : "update k=from b");
    }
  }

  /**
   * A handler that deletes a state no longer declared but returns a tracking record with the
   * Delete fails the run, naming itself and the key, and applies nothing. (The record kept the
   * state tracked, and the state was deleted again in every run.)
   */
  @Test
  void aDeleteReturnedWithATrackingRecordIsAClearErrorAndNothingIsApplied() {
    List<String> applied = new java.util.concurrent.CopyOnWriteArrayList<>();
    io.cocoindex.TargetActionSink<String> sink = io.cocoindex.TargetActionSink.of(
        actions -> actions.forEach(a -> applied.add(a.verb() + " " + a.value())));
    io.cocoindex.TargetHandler<String, String, String> keepsARecord =
        (key, desired, prev, mayBeMissing) -> desired != null
            ? (prev.contains(desired) ? null : io.cocoindex.TargetReconcileOutput.of(
                io.cocoindex.TargetAction.create(desired), sink, desired))
            : io.cocoindex.TargetReconcileOutput.of(
                io.cocoindex.TargetAction.delete(key.asString()), sink, "gone");
    boolean[] declared = {true};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kept", keepsARecord);
      ctx.mount("c", c -> {
        if (declared[0]) {
          declareTargetState(c, p.targetState("k", "v"));
        }
      });
    });
    app.update();
    declared[0] = false;
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("of provider 'kept' returned a Delete with a tracking record for key")
        .hasMessageContaining("a deletion's tracking record is null");
    assertThat(applied).as("the deletion not applied").containsExactly("create v");
  }

  @Test
  void duplicateProviderNameIsAClearError() {
    App app = app(ctx -> {
      registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      registerRootTargetStatesProvider(ctx, "rows", rows.handler);
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("provider name 'rows' is already registered in this run")
        .hasMessageContaining("Register each provider once per run");
  }

  @Test
  void unsupportedKeyTypeIsAClearErrorAndNothingIsPersisted() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declareTargetState(ctx, p.targetState("ok", "1"));
      declareTargetState(ctx, p.targetState(3.5, "1"));
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("unsupported key type java.lang.Double");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(rows.takeCalls()).isEmpty();
  }

  @Test
  void previewListsPlannedActionsRunsNoSinkAndPersistsNothing() {
    App app = componentsApp();
    components.put("c1", Map.of("a", "1"));
    app.update();
    rows.takeLog();

    components.put("c1", Map.of("a", "2", "b", "1"));
    components.put("c2", Map.of("c", "1"));
    Preview preview = app.preview();
    assertThat(preview.actions())
        .extracting(a -> a.action().verb() + " " + Rows.keyText(a.key()))
        .containsExactlyInAnyOrder("update a", "create b", "create c");
    assertThat(preview.byProvider()).containsOnlyKeys("rows");
    assertThat(rows.takeLog()).isEmpty();

    assertThat(app.preview().actions()).hasSize(3);
    app.update();
    assertThat(rows.takeLog()).containsExactly("create b=1", "create c=1", "update a=2");
  }

  @Test
  void previewPlansDeletesOfUndeclaredStates() {
    App app = componentsApp();
    components.put("c1", Map.of("a", "1"));
    app.update();
    components.clear();
    assertThat(app.preview().actions())
        .extracting(a -> a.action().verb() + " " + Rows.keyText(a.key()))
        .containsExactly("delete a");
  }

  @Test
  void useMountReturnsAfterItsChildCommitted() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      int before = ctx.useMount("setup", c -> {
        declareTargetState(c, p.targetState("schema", "v1"));
        return 7;
      });
      assertThat(before).isEqualTo(7);
      assertThat(rows.log).contains("create schema=v1");
      ctx.mount("data", c -> declareTargetState(c, p.targetState("row", "1")));
    });
    app.update();
    assertThat(rows.takeLog()).containsExactly("create row=1", "create schema=v1");
  }

  /**
   * One target after another: the parent declares its document only once the child's row is
   * applied. When the row's write fails, {@code useMount} throws, the parent fails with it, and
   * its document is not written; the next run writes both.
   */
  @Test
  void aTargetDeclaredAfterAForegroundChildWhoseWriteFailedIsNotWritten() {
    Rows search = new Rows();
    App app = app(ctx -> {
      TargetStateProvider<String> table =
          registerRootTargetStatesProvider(ctx, "table", rows.handler);
      TargetStateProvider<String> index =
          registerRootTargetStatesProvider(ctx, "index", search.handler);
      ctx.mount("p1", c -> {
        c.useMount("row", r -> {
          declareTargetState(r, table.targetState("p1", "9.99"));
          return null;
        });
        declareTargetState(c, index.targetState("p1", "9.99"));
      });
    });
    rows.failWhen = a -> a.key().equals("p1");

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(rows.takeLog()).as("the table").isEmpty();
    assertThat(search.takeLog()).as("the index").isEmpty();

    rows.failWhen = a -> false;
    app.update();
    // An update: the failed write's record is possible, as it may have landed.
    assertThat(rows.takeLog()).as("the table").containsExactly("update p1=9.99");
    assertThat(search.takeLog()).as("the index").containsExactly("create p1=9.99");
  }

  /**
   * A foreground mount whose subtree failed names that failure, not a sibling's whose path merely
   * begins with the same text (component 12 is not below component 1).
   */
  @Test
  void aFailedForegroundMountNamesItsOwnSubtreesFailureNotASiblingsOfLongerKey() {
    List<String> messages = new java.util.ArrayList<>();
    App app = app(ctx -> {
      for (int key : new int[] {12, 1}) {
        try {
          ctx.useMount(key, c -> {
            c.mount("child", cc -> {
              throw new IllegalStateException("child of " + key + " broke");
            });
            return null;
          });
        } catch (RuntimeException e) {
          messages.add(e.getMessage());
        }
      }
    });

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(messages).hasSize(2);
    assertThat(messages.get(1)).contains("child of 1 broke").doesNotContain("child of 12");
  }
}
