package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two workers on one PostgreSQL store, one of which dies in the middle of a round (its server
 * sessions end, as when its process is killed) or has its run stopped by a fatal error: the
 * other finishes what it had claimed and left half done in the same round, rather than leaving
 * it to the next run, and leaves what it had finished as it wrote it.
 */
class WorkerDiedMidRoundTest {
  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("d_");
  /** Released in the rerun: B mounts "x" once A died; A's body waits until B is done. */
  volatile CountDownLatch bMayMount = new CountDownLatch(0);
  volatile CountDownLatch aInBody = new CountDownLatch(0);
  volatile CountDownLatch aMayGoOn = new CountDownLatch(0);
  /** Counted down by B's {@code main} once it read its input (see {@link #xOnItsInput}). */
  volatile CountDownLatch bReadItsInput = new CountDownLatch(0);

  /** {@code resource}, its close failing quietly: a dead worker's sessions are gone. */
  private static AutoCloseable quietly(AutoCloseable resource) {
    return () -> {
      try {
        resource.close();
      } catch (RuntimeException sessionsGone) {
        // the dead worker's
      }
    };
  }

  App worker(String name, Consumer<Ctx> main) {
    return worker(name, main, store -> store);
  }

  /** A worker on a store of its own, as {@code decorate} makes it of the PostgreSQL one. */
  App worker(String name, Consumer<Ctx> main, UnaryOperator<StateStore> decorate) {
    StateStore store = decorate.apply(PostgresStateStore.open(
        pg.url() + "&ApplicationName=" + name));
    App app = App.create("w", Environment.builder().stateStore(store).build(), main);
    pg.closeLast(quietly(store));
    pg.closeLast(quietly(app));
    return app;
  }

  /**
   * Worker B's run starts, and its {@code main} waits. Worker A's run then mounts "x" (claiming
   * it in the round) and dies in its body. B mounts "x" next: claimed since B's run started, by
   * a run that neither holds its lock nor ended, so B takes it over and writes "x1=v2" in this
   * round. (B skipped it as another worker's, and "x1" stayed at v1 until the next run.)
   */
  @Test
  void aComponentClaimedByAWorkerThatDiedIsFinishedByAnotherInTheSameRound() throws Exception {
    Rows rows = new Rows();
    String[] value = {"v1"};
    Consumer<Ctx> mainA = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("x", c -> {
        aInBody.countDown();
        await(aMayGoOn);
        declareTargetState(c, p.targetState("x1", value[0]));
      });
    };
    Consumer<Ctx> mainB = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      await(bMayMount);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", value[0])));
    };
    App b = worker(pg.name() + "_b", mainB);
    b.update();
    assertThat(rows.takeLog()).containsExactly("create x1=v1");

    value[0] = "v2";
    bMayMount = new CountDownLatch(1);
    aInBody = new CountDownLatch(1);
    aMayGoOn = new CountDownLatch(1);
    CompletableFuture<UpdateStats> runB = CompletableFuture.supplyAsync(b::update,
        ThreadPerTask.INSTANCE);
    awaitRunsAlive(1); // B's run has started: its version is allocated, its lock held

    App a = worker(pg.name() + "_a", mainA);
    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update,
        ThreadPerTask.INSTANCE);
    assertThat(aInBody.await(1, TimeUnit.MINUTES)).as("A in x's body").isTrue();
    TestPostgres.terminateSessions(pg.serverUrl(), pg.name() + "_a");
    bMayMount.countDown();

    UpdateStats stats = runB.get(1, TimeUnit.MINUTES);
    assertThat(rows.takeLog()).as("B took x over in this round").containsExactly("update x1=v2");
    assertThat(stats.total().changed()).isEqualTo(1);

    aMayGoOn.countDown(); // A's body ends; its run cannot commit
    try {
      runA.get(1, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException expected) {
      // its sessions are gone
    }
    assertThat(rows.takeLog()).as("nothing more from A").isEmpty();
  }

  /**
   * B's run starts and reads its input ("v2"), and its {@code main} waits. The input changes
   * ("v3"); A's run mounts "x", writes "x1=v3", and dies in the body of "y". B mounts "x" next,
   * with its older input: claimed since B's run started by a run that died, but finished by it,
   * so B leaves it, and "x1" keeps the newer value. (B took it over and wrote "x1=v2" over A's
   * "x1=v3", which stayed until the next run.)
   */
  @Test
  void aComponentAWorkerFinishedBeforeItDiedKeepsWhatItWrote() throws Exception {
    Rows rows = new Rows();
    String[] value = {"v1"};
    Consumer<Ctx> mainA = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      String input = value[0];
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", input)));
      ctx.mount("y", c -> {
        aInBody.countDown();
        await(aMayGoOn);
        declareTargetState(c, p.targetState("y1", input));
      });
    };
    App b = worker(pg.name() + "_b", xOnItsInput(rows, value));
    b.update();
    assertThat(rows.takeLog()).containsExactly("create x1=v1");

    value[0] = "v2";
    aInBody = new CountDownLatch(1);
    aMayGoOn = new CountDownLatch(1);
    CompletableFuture<UpdateStats> runB = startOnItsInput(b);

    value[0] = "v3";
    App a = worker(pg.name() + "_a", mainA);
    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update,
        ThreadPerTask.INSTANCE);
    assertThat(aInBody.await(1, TimeUnit.MINUTES)).as("A in y's body").isTrue();
    awaitNewestRunFinishedAClaim(); // x's, as A gave it back
    TestPostgres.terminateSessions(pg.serverUrl(), pg.name() + "_a");
    bMayMount.countDown();

    runB.get(1, TimeUnit.MINUTES);
    assertThat(rows.takeLog()).as("A wrote x; B left it").containsExactly("update x1=v3");

    aMayGoOn.countDown();
    try {
      runA.get(1, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException expected) {
      // its sessions are gone
    }
    assertThat(rows.takeLog()).as("nothing more from A").isEmpty();
  }

  /**
   * As above, but A dies after x's commit and before x's lease is given back (the release
   * thread's next batch): B, with its older input, leaves x all the same, and "x1" keeps the
   * newer value. (x's claim was marked finished only as its lease was given back: B took x over
   * and wrote "x1=v2" over A's "x1=v3", which stayed until the next run.)
   */
  @Test
  void aComponentAWorkerCommittedBeforeItDiedKeepsWhatItWroteThoughItsLeaseWasNotGivenBack()
      throws Exception {
    Rows rows = new Rows();
    String[] value = {"v1"};
    Consumer<Ctx> mainA = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      String input = value[0];
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", input)));
    };
    App b = worker(pg.name() + "_b", xOnItsInput(rows, value));
    b.update();
    assertThat(rows.takeLog()).containsExactly("create x1=v1");

    value[0] = "v2";
    CompletableFuture<UpdateStats> runB = startOnItsInput(b);

    value[0] = "v3";
    GiveBackHeld[] storeA = new GiveBackHeld[1];
    App a = worker(pg.name() + "_a", mainA, store -> storeA[0] = new GiveBackHeld(store, false));
    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update,
        ThreadPerTask.INSTANCE);
    try {
      assertThat(storeA[0].givingBack.await(1, TimeUnit.MINUTES)).as("x committed").isTrue();
      assertThat(rows.takeLog()).as("A wrote x").containsExactly("update x1=v3");
      TestPostgres.terminateSessions(pg.serverUrl(), pg.name() + "_a");
      bMayMount.countDown();
      runB.get(1, TimeUnit.MINUTES);
      assertThat(rows.takeLog()).as("B left x").isEmpty();
    } finally {
      storeA[0].mayGiveBack.countDown();
    }
    try {
      runA.get(1, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException expected) {
      // its sessions are gone
    }
    assertThat(rows.takeLog()).as("nothing more from A").isEmpty();
  }

  /**
   * As above, but A lives on and its run is stopped (out of memory in "y") after x's commit and
   * before x's lease is given back: x stays finished, and B, with its older input, leaves it.
   * (The leases of a run stopped early are given back without marking their claims, so x looked
   * half done: B took it over and wrote "x1=v2" over A's "x1=v3".)
   */
  @Test
  void aComponentCommittedBeforeItsRunWasStoppedKeepsWhatItWrote() throws Exception {
    Rows rows = new Rows();
    String[] value = {"v1"};
    GiveBackHeld[] storeA = new GiveBackHeld[1];
    Consumer<Ctx> mainA = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      String input = value[0];
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", input)));
      ctx.mount("y", c -> {
        awaitManaged(storeA[0].givingBack);
        throw new OutOfMemoryError("scripted: the worker ran out of memory in y");
      });
    };
    App b = worker(pg.name() + "_b", xOnItsInput(rows, value));
    b.update();
    assertThat(rows.takeLog()).containsExactly("create x1=v1");

    value[0] = "v2";
    CompletableFuture<UpdateStats> runB = startOnItsInput(b);

    value[0] = "v3";
    App a = worker(pg.name() + "_a", mainA, store -> storeA[0] = new GiveBackHeld(store, false));
    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update,
        ThreadPerTask.INSTANCE);
    try {
      assertThat(storeA[0].givingBack.await(1, TimeUnit.MINUTES)).as("x committed").isTrue();
      assertThat(storeA[0].aborted.await(1, TimeUnit.MINUTES)).as("A's run stopped").isTrue();
    } finally {
      storeA[0].mayGiveBack.countDown();
    }
    java.util.concurrent.ExecutionException stopped = org.junit.jupiter.api.Assertions.assertThrows(
        java.util.concurrent.ExecutionException.class, () -> runA.get(1, TimeUnit.MINUTES));
    assertThat(stopped.getCause()).isInstanceOf(OutOfMemoryError.class);
    assertThat(rows.takeLog()).as("A wrote x").containsExactly("update x1=v3");

    bMayMount.countDown();
    runB.get(1, TimeUnit.MINUTES);
    assertThat(rows.takeLog()).as("B left x").isEmpty();
  }

  /**
   * B's run starts and reads its input, which mounts "s", and its {@code main} waits. The input
   * changes: A's run mounts "x" alone, its orphan sweep deletes "s1" and s's record, and A dies
   * before the sweep gives s's lease back. B mounts "s" next, with its older input: claimed since
   * B's run started by a run that died, but finished by it (swept), so B leaves it, and "s1"
   * stays deleted. (The sweep's claims were marked finished only as their leases were given
   * back, at the sweep's end: B took s over and created "s1" again, which stayed until the next
   * run.)
   */
  @Test
  void aComponentSweptBeforeItsWorkerDiedStaysSweptThoughItsLeaseWasNotGivenBack()
      throws Exception {
    Rows rows = new Rows();
    boolean[] mountsS = {true};
    Consumer<Ctx> mainA = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", "v1")));
    };
    Consumer<Ctx> mainB = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      boolean withS = mountsS[0];
      bReadItsInput.countDown();
      await(bMayMount);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", "v1")));
      if (withS) {
        ctx.mount("s", c -> declareTargetState(c, p.targetState("s1", "v1")));
      }
    };
    App b = worker(pg.name() + "_b", mainB);
    b.update();
    assertThat(rows.takeLog()).containsExactlyInAnyOrder("create x1=v1", "create s1=v1");

    CompletableFuture<UpdateStats> runB = startOnItsInput(b);

    mountsS[0] = false;
    GiveBackHeld[] storeA = new GiveBackHeld[1];
    App a = worker(pg.name() + "_a", mainA, store -> storeA[0] = new GiveBackHeld(store, true));
    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update,
        ThreadPerTask.INSTANCE);
    try {
      assertThat(storeA[0].givingBack.await(1, TimeUnit.MINUTES)).as("s swept").isTrue();
      assertThat(rows.takeLog()).as("A swept s").containsExactly("delete s1");
      TestPostgres.terminateSessions(pg.serverUrl(), pg.name() + "_a");
      bMayMount.countDown();
      runB.get(1, TimeUnit.MINUTES);
      assertThat(rows.takeLog()).as("B left s").isEmpty();
    } finally {
      storeA[0].mayGiveBack.countDown();
    }
    try {
      runA.get(1, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException expected) {
      // its sessions are gone
    }
    assertThat(rows.takeLog()).as("nothing more from A").isEmpty();
  }

  /**
   * A store whose first component lease (one of the orphan sweep's, with {@code sweep}), once
   * closed (its component done), is given back only when the test lets it: the worker can die
   * in between.
   */
  static final class GiveBackHeld extends ForwardingStateStore {
    final CountDownLatch givingBack = new CountDownLatch(1);
    final CountDownLatch mayGiveBack = new CountDownLatch(1);
    /** Counted down once the engine told the store the run was stopped early. */
    final CountDownLatch aborted = new CountDownLatch(1);
    private final boolean sweep;
    private final java.util.concurrent.atomic.AtomicBoolean first =
        new java.util.concurrent.atomic.AtomicBoolean(true);

    GiveBackHeld(StateStore store, boolean sweep) {
      super(store);
      this.sweep = sweep;
    }

    @Override
    public AutoCloseable leaseComponent(String app, byte[] componentPath, boolean wait) {
      AutoCloseable lease = super.leaseComponent(app, componentPath, wait);
      return sweep ? lease : held(lease);
    }

    @Override
    public List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
      List<AutoCloseable> leases = new ArrayList<>(super.leaseComponents(app, componentPaths));
      if (!sweep) {
        leases.replaceAll(this::held);
      }
      return leases;
    }

    @Override
    public List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> componentPaths) {
      List<AutoCloseable> leases =
          new ArrayList<>(super.leaseComponentsToSweep(app, componentPaths));
      if (sweep) {
        leases.replaceAll(this::held);
      }
      return leases;
    }

    @Override
    public void runAborted(String app, long version) {
      super.runAborted(app, version);
      aborted.countDown();
    }

    private AutoCloseable held(AutoCloseable lease) {
      if (lease == null) {
        return null;
      }
      return () -> {
        if (first.compareAndSet(true, false)) {
          givingBack.countDown();
          awaitManaged(mayGiveBack);
        }
        lease.close();
      };
    }
  }

  /**
   * B's run starts, and its {@code main} waits. A's run mounts "x", whose body fails with an
   * out-of-memory error: A's run stops, as after a crash, and its worker lives on. B mounts "x"
   * next: claimed in this round by a run that ended without finishing it, so B takes it over and
   * writes "x1=v2" in this round. (A's run recorded its end, its claim stood, and "x1" stayed at
   * v1 until the next run.)
   */
  @Test
  void aComponentARunStoppedEarlyLeftIsFinishedByAnotherInTheSameRound() throws Exception {
    Rows rows = new Rows();
    String[] value = {"v1"};
    Consumer<Ctx> mainA = ctx -> {
      registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("x", c -> {
        throw new OutOfMemoryError("scripted: the worker ran out of memory in x");
      });
    };
    Consumer<Ctx> mainB = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      await(bMayMount);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", value[0])));
    };
    App b = worker(pg.name() + "_b", mainB);
    b.update();
    assertThat(rows.takeLog()).containsExactly("create x1=v1");

    value[0] = "v2";
    runBWhileAStops(b, worker(pg.name() + "_a", mainA));
    assertThat(rows.takeLog()).as("B took x over in this round").containsExactly("update x1=v2");
  }

  /**
   * As above, but "x" is half done when A's run stops: its sink call is under way, and the
   * out-of-memory error is thrown in "y". Stopping the run fails x's sink submission at once,
   * which fails x and gives its lease back: that lease must not mark x's claim finished. The
   * call returns once A's component locks are given back, and A's run ends after it. B then
   * takes x over in this round and writes "x1=v2". (The run was told stopped to the store only
   * after its sink submissions were failed, so x's lease, given back in between, marked the
   * claim finished: B left x, and "x1" stayed at v1 until the next run.)
   */
  @Test
  void aComponentWhoseSinkCallTheStopCutShortIsFinishedByAnotherInTheSameRound()
      throws Exception {
    Rows rowsA = new Rows();
    Rows rowsB = new Rows();
    String[] value = {"v1"};
    CountDownLatch aInSink = new CountDownLatch(1);
    rowsA.onSinkCall = () -> {
      aInSink.countDown();
      // y's and x's: A's run is stopped
      TestPostgres.awaitComponentLocksGivenBack(pg.serverUrl(), pg.name() + "_a");
    };
    Consumer<Ctx> mainA = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rowsA.handler);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", value[0])));
      ctx.mount("y", c -> {
        await(aInSink);
        throw new OutOfMemoryError("scripted: the worker ran out of memory in y");
      });
    };
    Consumer<Ctx> mainB = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rowsB.handler);
      await(bMayMount);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", value[0])));
    };
    App b = worker(pg.name() + "_b", mainB);
    b.update();
    assertThat(rowsB.takeLog()).containsExactly("create x1=v1");

    value[0] = "v2";
    runBWhileAStops(b, worker(pg.name() + "_a", mainA));
    assertThat(rowsB.takeLog()).as("B took x over in this round").containsExactly("update x1=v2");
  }

  /**
   * B's {@code main}: it reads its input ({@code value}), says so ({@link #bReadItsInput}), waits
   * for {@link #bMayMount}, and mounts "x", which declares "x1" with the value it read.
   */
  private Consumer<Ctx> xOnItsInput(Rows rows, String[] value) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      String input = value[0];
      bReadItsInput.countDown();
      await(bMayMount);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", input)));
    };
  }

  /** Starts B's run and returns once its {@code main} read its input and waits to mount. */
  private CompletableFuture<UpdateStats> startOnItsInput(App b) throws InterruptedException {
    bMayMount = new CountDownLatch(1);
    bReadItsInput = new CountDownLatch(1);
    CompletableFuture<UpdateStats> run = CompletableFuture.supplyAsync(b::update,
        ThreadPerTask.INSTANCE);
    assertThat(bReadItsInput.await(1, TimeUnit.MINUTES)).as("B read its input").isTrue();
    return run;
  }

  /**
   * Starts B's run (its {@code main} waits for {@link #bMayMount}), runs A's to its stop on an
   * out-of-memory error, then lets B go on and waits for its run to end.
   */
  private void runBWhileAStops(App b, App a) throws Exception {
    bMayMount = new CountDownLatch(1);
    CompletableFuture<UpdateStats> runB = CompletableFuture.supplyAsync(b::update,
        ThreadPerTask.INSTANCE);
    awaitRunsAlive(1);
    Throwable stopped = org.junit.jupiter.api.Assertions.assertThrows(Throwable.class, a::update);
    assertThat(stopped).isInstanceOf(OutOfMemoryError.class);
    bMayMount.countDown();
    runB.get(1, TimeUnit.MINUTES);
  }

  /**
   * A's run is stopped (out of memory in "y") while the sink call that writes "x1=a" for "x" is
   * under way; the stop fails x's submission at once, and x's lease is given back. That call
   * lands once the test lets it return. Whoever writes x next must do so after it: B, whose run
   * goes on, may take x over in this round only once that call returned, and otherwise leaves x
   * to its next run, which writes "x1=v2" over A's "x1=a". (A's run gave its lock back without
   * waiting for the call: B took x over, wrote and tracked "x1=v2", then A's late call wrote
   * "x1=a", and B's next run, its input unchanged, found x tracked as declared: "x1" stayed at
   * A's value, which no tracking record holds.)
   */
  @Test
  void aSinkCallAStoppedRunHadUnderWayLandsBeforeAnotherWorkerWritesItsComponent()
      throws Exception {
    Rows rows = new Rows(); // one sink, written by both workers
    String[] value = {"v1"};
    java.util.concurrent.atomic.AtomicBoolean holdNextCall =
        new java.util.concurrent.atomic.AtomicBoolean();
    CountDownLatch aInSink = new CountDownLatch(1);
    CountDownLatch aSinkMayReturn = new CountDownLatch(1);
    rows.onSinkCall = () -> {
      if (holdNextCall.compareAndSet(true, false)) {
        aInSink.countDown();
        await(aSinkMayReturn);
      }
    };
    Consumer<Ctx> mainA = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", "a")));
      ctx.mount("y", c -> {
        await(aInSink);
        throw new OutOfMemoryError("scripted: the worker ran out of memory in y");
      });
    };
    Consumer<Ctx> mainB = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      await(bMayMount);
      ctx.mount("x", c -> declareTargetState(c, p.targetState("x1", value[0])));
    };
    App b = worker(pg.name() + "_b", mainB);
    b.update();
    assertThat(rows.takeLog()).containsExactly("create x1=v1");

    value[0] = "v2";
    bMayMount = new CountDownLatch(1);
    CompletableFuture<UpdateStats> runB = CompletableFuture.supplyAsync(b::update,
        ThreadPerTask.INSTANCE);
    awaitRunsAlive(1);

    App a = worker(pg.name() + "_a", mainA);
    holdNextCall.set(true);
    CompletableFuture<UpdateStats> runA = CompletableFuture.supplyAsync(a::update,
        ThreadPerTask.INSTANCE);
    try {
      assertThat(aInSink.await(1, TimeUnit.MINUTES)).as("A's call for x under way").isTrue();
      try {
        runA.get(3, TimeUnit.SECONDS); // stopped, and ended unless it waits for its call
      } catch (java.util.concurrent.TimeoutException waitsForItsCall) {
        // its run goes on until the call returns
      } catch (java.util.concurrent.ExecutionException stopped) {
        assertThat(stopped.getCause()).isInstanceOf(OutOfMemoryError.class);
      }
      bMayMount.countDown();
      runB.get(1, TimeUnit.MINUTES);
    } finally {
      aSinkMayReturn.countDown(); // A's call lands now
    }
    try {
      runA.get(1, TimeUnit.MINUTES);
    } catch (java.util.concurrent.ExecutionException stopped) {
      assertThat(stopped.getCause()).isInstanceOf(OutOfMemoryError.class);
    }

    b.update(); // B's input unchanged: "x1=v2"
    List<String> written;
    synchronized (rows.log) {
      written = new ArrayList<>(rows.log);
    }
    assertThat(written).as("the sink's writes, in order").isNotEmpty();
    assertThat(written.get(written.size() - 1)).as("x1 as tracked").isEqualTo("update x1=v2");
  }

  /** Waits until the newest run of the test's pg.name() marked one of its claims finished. */
  private void awaitNewestRunFinishedAClaim() throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    String claims = pg.name() + ".cocoindex_claim";
    try (Connection c = DriverManager.getConnection(pg.serverUrl());
        Statement s = c.createStatement()) {
      while (true) {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + claims + " WHERE"
            + " run_finished_at = claimed_at AND run_version = (SELECT max(run_version) FROM " + claims + ")")) {
          rs.next();
          if (rs.getLong(1) > 0) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("claims finished").isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }

  /**
   * Waits for {@code latch} on a component pool's thread as a managed block: the pool then runs
   * the run's other tasks on a spare.
   */
  private static void awaitManaged(CountDownLatch latch) {
    try {
      java.util.concurrent.ForkJoinPool.managedBlock(
          new java.util.concurrent.ForkJoinPool.ManagedBlocker() {
            @Override
            public boolean block() {
              await(latch);
              return true;
            }

            @Override
            public boolean isReleasable() {
              return latch.getCount() == 0;
            }
          });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(1, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the test's latch was not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits until {@code n} runs of this test's stores hold their shared run locks. */
  private void awaitRunsAlive(int n) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    try (Connection c = DriverManager.getConnection(pg.serverUrl());
        PreparedStatement q = c.prepareStatement("SELECT count(*) FROM pg_locks"
            + " WHERE locktype = 'advisory' AND granted AND mode = 'ShareLock' AND pid IN"
            + " (SELECT pid FROM pg_stat_activity WHERE application_name LIKE ?)")) {
      q.setString(1, pg.name() + "\\_%");
      while (true) {
        try (ResultSet rs = q.executeQuery()) {
          rs.next();
          if (rs.getLong(1) >= n) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("runs started").isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }
}
