package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.declareTargetStateWithChild;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The states the root component declares itself, in a round of two workers on one PostgreSQL
 * store. Every worker runs the root (only mounted components are leased and claimed), so each
 * reconciles the root's own states: worker A is held at its precommit until worker B has reached
 * the root's commit, which reads the store either before A's precommit (each then applies what it
 * planned: two creates of one state) or, under the root's lease, after A's commit (B finds the
 * state as A left it, and has nothing to do). The states of mounted components are written under
 * their leases already; these tests hold the root to the same rule.
 */
class RootStatesInARoundTest {
  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("rs_");

  /** Worker A's store: holds its first precommit of {@code key} until {@link #release}. */
  static final class HeldAtPrecommit extends ForwardingStateStore {
    final String key;
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    HeldAtPrecommit(StateStore delegate, String key) {
      super(delegate);
      this.key = key;
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      if (held.getCount() > 0 && SweepWithOtherWorkersTest.precommitsKey(writes, key)) {
        held.countDown();
        await(release);
      }
      return super.write(app, writes);
    }
  }

  /**
   * Worker B's store: notes ({@link #reached}) when B's root commit has read the root's states
   * (its owned states, or the paths it declares, new to it), or asks for the root's lease first.
   */
  static final class ReachingTheRoot extends ForwardingStateStore {
    final CountDownLatch reached = new CountDownLatch(1);

    ReachingTheRoot(StateStore delegate) {
      super(delegate);
    }

    @Override
    public AutoCloseable leaseComponent(String app, byte[] componentPath, boolean wait) {
      if (componentPath.length == 0) {
        reached.countDown();
      }
      return super.leaseComponent(app, componentPath, wait);
    }

    @Override
    public List<TrackedState> ownedBy(String app, byte[] componentPath) {
      List<TrackedState> owned = super.ownedBy(app, componentPath);
      if (componentPath.length == 0) {
        reached.countDown();
      }
      return owned;
    }

    @Override
    public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
      List<TrackedState> found = super.getAll(app, paths);
      reached.countDown(); // the root declares, and mounts nothing: its takeover reads
      return found;
    }
  }

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(1, TimeUnit.MINUTES)) {
        throw new AssertionError("waited a minute for the other worker");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  App app(StateStore store, Consumer<Ctx> main) {
    App app = App.create("w", Environment.builder().stateStore(store).build(), main);
    pg.closeLast(store);
    pg.closeLast(app);
    return app;
  }

  /**
   * Runs worker A (held at its precommit of {@code key}) and worker B together, B reaching its
   * root's commit while A is held; both on {@code main}.
   */
  void round(String key, Consumer<Ctx> main) throws Exception {
    HeldAtPrecommit storeA = new HeldAtPrecommit(PostgresStateStore.open(pg.url()), key);
    ReachingTheRoot storeB = new ReachingTheRoot(PostgresStateStore.open(pg.url()));
    App a = app(storeA, main);
    App b = app(storeB, main);
    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update,
        ThreadPerTask.INSTANCE);
    await(storeA.held);
    CompletableFuture<UpdateStats> runB = CompletableFuture.supplyAsync(b::update,
        ThreadPerTask.INSTANCE);
    try {
      await(storeB.reached);
    } finally {
      storeA.release.countDown();
    }
    runA.get(1, TimeUnit.MINUTES);
    runB.get(1, TimeUnit.MINUTES);
  }

  /** The states the root owns, as the store tracks them. */
  List<TrackedState> rootStates() {
    StateStore store = PostgresStateStore.open(pg.url());
    pg.closeLast(store);
    return store.ownedBy("w", TargetPath.ROOT.encoded());
  }

  @Test
  void aStateTheRootDeclaresIsCreatedOnceInARoundOfTwoWorkers() throws Exception {
    Rows rows = new Rows();
    Consumer<Ctx> main = ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "rows", rows.handler).targetState("t", "v1"));

    round("t", main);

    assertThat(rows.takeLog()).containsExactly("create t=v1");
    assertThat(rows.takeCalls()).extracting(Rows.Call::toString).containsExactly(
        "t desired=v1 prev=[] mbm=true", "t desired=v1 prev=[v1] mbm=false");
    assertThat(rootStates()).singleElement()
        .satisfies(s -> assertThat(s.records()).hasSize(1));
  }

  /**
   * A root whose memoized function read its record while its body ran (before its lease, and
   * before A's commit wrote the record) reads it again under the lease.
   */
  @Test
  void aRootReadingItsRecordInItsBodyCreatesItsStateOnceInARoundOfTwoWorkers() throws Exception {
    Rows rows = new Rows();
    Consumer<Ctx> main = ctx -> {
      String value = ctx.memo("value", 1, String.class, n -> "v" + n);
      declareTargetState(ctx,
          registerRootTargetStatesProvider(ctx, "rows", rows.handler).targetState("t", value));
    };

    round("t", main);

    assertThat(rows.takeLog()).containsExactly("create t=v1");
    assertThat(rootStates()).singleElement()
        .satisfies(s -> assertThat(s.records()).hasSize(1));
  }

  @Test
  void aStateTheRootChangesIsUpdatedOnceInARoundOfTwoWorkers() throws Exception {
    Rows rows = new Rows();
    String[] value = {"v1"};
    Consumer<Ctx> main = ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "rows", rows.handler).targetState("t", value[0]));
    app(PostgresStateStore.open(pg.url()), main).update();
    rows.takeLog();
    rows.takeCalls();

    value[0] = "v2";
    round("t", main);

    assertThat(rows.takeLog()).containsExactly("update t=v2");
    assertThat(rows.takeCalls()).extracting(Rows.Call::toString).containsExactly(
        "t desired=v2 prev=[v1] mbm=false", "t desired=v2 prev=[v2] mbm=false");
    assertThat(rootStates()).singleElement()
        .satisfies(s -> assertThat(s.records()).hasSize(1));
  }

  /**
   * A state the root no longer declares goes to each worker's orphan sweep, which leases it and
   * reads it again: A's sweep deletes it, B's finds it gone. (A root declaring nothing takes no
   * lease for its commit: B reads the root's states while A's deletion is held.)
   */
  @Test
  void aStateTheRootNoLongerDeclaresIsDeletedOnceInARoundOfTwoWorkers() throws Exception {
    Rows rows = new Rows();
    boolean[] declares = {true};
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      if (declares[0]) {
        declareTargetState(ctx, p.targetState("t", "v1"));
      }
    };
    app(PostgresStateStore.open(pg.url()), main).update();
    rows.takeLog();
    rows.takeCalls();

    declares[0] = false;
    round("t", main);

    assertThat(rows.takeLog()).containsExactly("delete t");
    assertThat(rows.takeCalls()).extracting(Rows.Call::toString)
        .containsExactly("t desired=null prev=[v1] mbm=false");
    assertThat(rootStates()).isEmpty();
  }

  /**
   * A container the root declares, and a row the root declares in it: B refreshes the table A
   * created (a container's handler returns an action on every run) and finds the row current.
   */
  @Test
  void aContainerTheRootDeclaresHasItsChildrenCreatedOnceInARoundOfTwoWorkers()
      throws Exception {
    Rows rows = new Rows();
    Tables tables = new Tables(rows);
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs =
          declareTargetStateWithChild(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      declareTargetState(ctx, docs.targetState("r1", "v1"));
    };

    round("docs", main);

    assertThat(tables.takeLog()).as("A's create, then B's refresh")
        .containsExactly("ensure docs", "ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    assertThat(rows.takeCalls()).extracting(Rows.Call::toString).containsExactly(
        "r1 desired=v1 prev=[] mbm=true", "r1 desired=v1 prev=[v1] mbm=false");
    assertThat(rootStates()).hasSize(2)
        .allSatisfy(s -> assertThat(s.records()).hasSize(1));
  }
}
