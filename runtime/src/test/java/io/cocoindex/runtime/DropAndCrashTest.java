package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.StateStoreException;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** dropState (rule 13) and the crash windows around the sink (rule 3). */
class DropAndCrashTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Map<String, String> declared = new TreeMap<>();

  Consumer<Ctx> main() {
    return main(rows.handler);
  }

  /** A component per declared key, declaring it through {@code handler}. */
  Consumer<Ctx> main(io.cocoindex.TargetHandler<String, String, Rows.RowAction> handler) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", handler);
      declared.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, p.targetState(k, v))));
    };
  }

  /** Runs {@code app} on a, b and c, then declares a alone for its next run. */
  void declareABAndCThenAAlone(App app) {
    declared.put("a", "1");
    declared.put("b", "1");
    declared.put("c", "1");
    app.update();
    rows.takeLog();
    declared.remove("b");
    declared.remove("c");
  }

  @Test
  void dropStateDeletesEverythingThroughTheHandlersAndAnUpdateRecreatesIt() {
    App app = app(main());
    declared.put("a", "1");
    declared.put("b", "1");
    app.update();
    rows.takeLog();

    UpdateStats dropped = app.dropState();
    assertThat(rows.takeLog()).containsExactly("delete a", "delete b");
    assertThat(dropped.of("rows").deleted()).isEqualTo(2);

    app.update();
    assertThat(rows.takeLog()).containsExactly("create a=1", "create b=1");
  }

  @Test
  void dropStateFromAFreshAppReachesTheHandlersThroughMainsRegistrations() {
    declared.put("a", "1");
    try (App first = App.create("docs", environment(), main())) {
      first.update();
    }
    rows.takeLog();
    declared.clear(); // the new process declares nothing, but registers the same provider
    try (App fresh = App.create("docs", environment(), main())) {
      fresh.dropState();
    }
    assertThat(rows.takeLog()).containsExactly("delete a");
    assertThat(store().apps()).isEmpty();
  }

  @Test
  void failedDeleteDuringDropKeepsTrackingAndARerunFinishesTheDrop() {
    App app = app(main());
    declared.put("a", "1");
    declared.put("b", "1");
    app.update();
    rows.takeLog();

    rows.failWhen = r -> r.key().equals("b");
    assertThatThrownBy(app::dropState).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted sink failure on b");
    assertThat(rows.takeLog()).containsExactly("delete a");

    rows.failWhen = r -> false;
    app.dropState();
    assertThat(rows.takeLog()).containsExactly("delete b");
    app.dropState();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void dropReachesAProviderRegisteredInsideAMemoizedComponent() {
    declared.put("a", "1");
    Consumer<Ctx> main = ctx -> declared.forEach((k, v) -> ctx.mountMemo(k, v, c -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(c, "rows", rows.handler);
      declareTargetState(c, p.targetState(k, v));
    }));
    try (App first = App.create("memo", environment(), main)) {
      first.update();
    }
    rows.takeLog();
    try (App fresh = App.create("memo", environment(), main)) {
      fresh.dropState();
    }
    assertThat(rows.takeLog()).containsExactly("delete a");
    assertThat(store().apps()).isEmpty();
  }

  @Test
  void dropThatCannotReachAProviderFailsNamingItAndKeepsItsStates() {
    declared.put("a", "1");
    boolean[] register = {true};
    App app = app(ctx -> {
      if (!register[0]) {
        throw new IllegalStateException("the configuration is unreadable");
      }
      main().accept(ctx);
    });
    app.update();
    rows.takeLog();

    register[0] = false;
    assertThatThrownBy(app::dropState).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("provider 'rows' was not registered by main in this drop");
    assertThat(app.status().total()).as("nothing forgotten").isEqualTo(1);

    register[0] = true;
    app.dropState();
    assertThat(rows.takeLog()).containsExactly("delete a");
    assertThat(store().apps()).isEmpty();
  }

  @Test
  void aDropThatFailedHalfWayLeavesNoMemoToSkipRecreatingWhatItDeleted() {
    Rows other = new Rows();
    App app = app(ctx -> {
      TargetStateProvider<String> flat = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      TargetStateProvider<String> more = registerRootTargetStatesProvider(ctx, "other", other.handler);
      ctx.mountMemo("m", "input", c -> {
        declareTargetState(c, flat.targetState("ok", "1"));
        declareTargetState(c, more.targetState("bad", "1"));
      });
    });
    app.update();
    rows.takeLog();
    other.takeLog();

    other.failWhen = r -> true;
    assertThatThrownBy(app::dropState).isInstanceOf(UpdateFailedException.class);
    assertThat(rows.takeLog()).containsExactly("delete ok");

    other.failWhen = r -> false;
    app.update();
    assertThat(rows.takeLog()).as("the component ran again").containsExactly("create ok=1");
    assertThat(other.takeLog()).containsExactly("update bad=1");
  }

  @Test
  void writeThatLandedButWhoseCommitWasLostIsDeletedWhenUndeclared() {
    FaultyStateStore store = new FaultyStateStore(store());
    try (App app = App.create("crash", Environment.builder().stateStore(store).build(), main())) {
      declared.put("a", "1");
      store.failWrite = FaultyStateStore::isCommit;
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("injected write failure");
      assertThat(rows.takeLog()).containsExactly("create a=1");
      store.failWrite = w -> false;
      rows.takeCalls();

      declared.clear();
      app.update();
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", null, List.of("1"), true));
      assertThat(rows.takeLog()).containsExactly("delete a");
    }
  }

  @Test
  void componentsPrecommitOnlyWhatTheyApply() {
    FaultyStateStore store = new FaultyStateStore(store());
    List<Integer> precommitSizes = new ArrayList<>();
    store.failWrite = w -> {
      precommitSizes.add(w.size());
      return false;
    };
    try (App app = App.create("sizes", Environment.builder().stateStore(store).build(), main())) {
      declared.put("a", "1");
      app.update();
      precommitSizes.clear();
      app.update();
      // An unchanged rerun writes nothing at all: no precommit, no commit.
      assertThat(precommitSizes).isEmpty();
    }
  }

  @Test
  void aSweepWhoseCommitIsLostFailsItsOwnersAndARerunDeletesAgain() {
    FaultyStateStore store = new FaultyStateStore(store());
    try (App app = App.create("sweep", Environment.builder().stateStore(store).build(), main())) {
      declared.put("a", "1");
      declared.put("b", "1");
      app.update();
      rows.takeLog();

      // The settle of b's deletion and the removal of b's component record commit together.
      declared.remove("b");
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.DeleteComponent);
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("committing the deletion of target states no longer declared by")
          .hasMessageContaining("injected write failure");
      assertThat(rows.takeLog()).containsExactly("delete b");

      store.failWrite = w -> false;
      rows.takeCalls();
      app.update();
      // Its tracking was kept: b may or may not exist, so it is deleted again.
      assertThat(rows.takeCalls()).containsExactly(
          new Rows.Call("a", "1", List.of("1"), false), new Rows.Call("b", null, List.of("1"), true));
      assertThat(rows.takeLog()).containsExactly("delete b");
      app.update();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  @Test
  void aSweepWhosePrecommitFailsDeletesNothingFailsItsOwnersAndARerunDeletes() {
    FaultyStateStore store = new FaultyStateStore(store());
    try (App app = App.create("sweep", Environment.builder().stateStore(store).build(), main())) {
      declareABAndCThenAAlone(app);
      // Nothing else precommits in this run: a is unchanged.
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.Precommit);
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("/\"b\": precommitting the deletion of target states no longer"
              + " declared by /\"b\" failed: " + StateStoreException.class.getName()
              + ": injected write failure")
          .hasMessageContaining("/\"c\": precommitting the deletion of target states no longer"
              + " declared by /\"c\" failed");
      assertThat(rows.takeLog()).as("no delete without its precommit").isEmpty();

      store.failWrite = w -> false;
      rows.takeCalls();
      app.update();
      // Their tracking is as it was: b and c exist, and are deleted now.
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "1", List.of("1"), false),
          new Rows.Call("b", null, List.of("1"), false),
          new Rows.Call("c", null, List.of("1"), false));
      assertThat(rows.takeLog()).containsExactly("delete b", "delete c");
      app.update();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  @Test
  void aHandlerFailingOnAnOrphanFailsItsOwnerAloneKeepsItAndARerunDeletesIt() {
    boolean[] failing = {true};
    Rows.Handler inner = rows.handler;
    io.cocoindex.TargetHandler<String, String, Rows.RowAction> handler =
        (key, desired, prev, mayBeMissing) -> {
          if (desired == null && failing[0] && Rows.keyText(key).equals("b")) {
            throw new IllegalStateException("the handler cannot delete b");
          }
          return inner.reconcile(key, desired, prev, mayBeMissing);
        };
    App app = app(main(handler));
    declareABAndCThenAAlone(app);
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("of provider 'rows' failed to reconcile key \"b\": "
            + "java.lang.IllegalStateException: the handler cannot delete b")
        .satisfies(e -> assertThat(((UpdateFailedException) e).failures()).hasSize(1));
    assertThat(rows.takeLog()).as("c, whose owner did not fail, is deleted").containsExactly(
        "delete c");
    assertThat(app.status().providers().get("rows"))
        .containsExactlyInAnyOrder(io.cocoindex.StableKey.of("a"), io.cocoindex.StableKey.of("b"));

    failing[0] = false;
    rows.takeCalls();
    app.update();
    assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "1", List.of("1"), false),
        new Rows.Call("b", null, List.of("1"), false));
    assertThat(rows.takeLog()).containsExactly("delete b");
    assertThat(app.status().providers().get("rows"))
        .containsExactly(io.cocoindex.StableKey.of("a"));
  }

  /**
   * On a store shared by workers, a component whose lease the store cannot take (its connection
   * lost, say) fails, naming the store's error, and keeps its tracking; the run goes on and
   * commits the rest (here the root's own state), and the next run processes it.
   */
  @Test
  void aComponentWhoseLeaseTheStoreCannotTakeFailsAndRunsNextTime() {
    org.junit.jupiter.api.Assumptions.assumeTrue(ON_POSTGRES, "only a shared store leases");
    boolean[] failing = {false};
    io.cocoindex.runtime.state.StateStore store =
        new io.cocoindex.runtime.state.ForwardingStateStore(store()) {
          @Override
          public List<AutoCloseable> leaseComponents(String app, List<byte[]> paths) {
            if (failing[0] && paths.stream().anyMatch(p ->
                new String(p, java.nio.charset.StandardCharsets.ISO_8859_1).contains("child"))) {
              throw new StateStoreException("the lease connection is lost (scripted)");
            }
            return super.leaseComponents(app, paths);
          }
        };
    String[] value = {"1"};
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declareTargetState(ctx, p.targetState("root", value[0]));
      ctx.mount("child", c -> declareTargetState(c, p.targetState("x", value[0])));
    };
    try (App app = App.create("leases", Environment.builder().stateStore(store).build(), main)) {
      app.update();
      assertThat(rows.takeLog()).containsExactly("create root=1", "create x=1");

      value[0] = "2";
      failing[0] = true;
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("/\"child\": the lease connection is lost (scripted)")
          .satisfies(e -> assertThat(((UpdateFailedException) e).failures()).hasSize(1));
      assertThat(rows.takeLog()).containsExactly("update root=2");

      failing[0] = false;
      app.update();
      assertThat(rows.takeLog()).containsExactly("update x=2");
    }
  }
}
