package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.declareTargetStateWithChild;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The orphan sweep with two workers on one PostgreSQL store, in one JVM: worker 1 is held inside
 * its sweep (before a precommit) while worker 2 runs a whole update. A stale component the sweep
 * leased stays leased until its record is gone or kept (to the sweep's end when it leased every
 * stale component up front, and for a record waiting for the candidates no handler resolved),
 * so worker 2 cannot mount it meanwhile; and a deletion limit counts only what this worker
 * sweeps, not what another worker's sweep holds, but for what lies below a container this
 * worker would delete (its Delete takes that along).
 */
class SweepWithOtherWorkersTest {
  @RegisterExtension
  final SweepChunks chunks = new SweepChunks();

  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("r_");

  /** Holds the first write that {@link #holdWhen} picks until {@link #release}. */
  static final class Holding extends ForwardingStateStore {
    volatile Predicate<List<StateWrite>> holdWhen = w -> false;
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    Holding(StateStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      if (held.getCount() > 0 && holdWhen.test(writes)) {
        held.countDown();
        try {
          release.await(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return super.write(app, writes);
    }
  }

  static boolean precommitsKey(List<StateWrite> writes, String key) {
    return writes.stream().anyMatch(w -> w instanceof StateWrite.Precommit p
        && TargetPath.decode(p.state().path()).last().equals(StableKey.of(key)));
  }

  App app(StateStore store, Consumer<Ctx> main) {
    App app = App.create("w", Environment.builder().stateStore(store).build(), main);
    pg.closeLast(store);
    pg.closeLast(app);
    return app;
  }

  /**
   * Worker 1 removes component "a", whose row lies in table "docs" of component "z" (a later
   * batch): "a"'s record waits for the end of the sweep, where its row is settled. Worker 2,
   * whose run starts meanwhile, would mount "a" again (a row "x" in a flat provider): it finds
   * "a" leased until then, so worker 1's end of sweep never deletes a record worker 2 wrote
   * (which would leave "x" tracked by a component the app no longer knows, never deleted).
   */
  @Test
  void aRecordAwaitingTheUnresolvedCandidatesIsNotDeletedAfterAnotherWorkerMountedIt()
      throws Exception {
    recordAwaitingTheUnresolvedCandidates(0);
  }

  @Test
  void aRecordAwaitingTheUnresolvedCandidatesKeepsItsLeaseInASweepLeasingBatchByBatch()
      throws Exception {
    // More stale components than the sweep leases up front: "a" and "z" in different batches.
    recordAwaitingTheUnresolvedCandidates(1100);
  }

  void recordAwaitingTheUnresolvedCandidates(int fillers) throws Exception {
    Rows rows = new Rows();
    Tables tables = new Tables(rows);
    Rows flat = new Rows();
    boolean[] full = {true};
    Consumer<Ctx> main1 = ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      if (full[0]) {
        TargetStateProvider<String> docs = ctx.useMount("z",
            c -> mountTarget(c, p.targetState("docs", new Tables.TableSpec("g1"))));
        ctx.mount("a", c -> declareTargetState(c, docs.targetState("r1", "v1")));
        ctx.mount("b", c -> declareTargetState(c, f.targetState("b1", "v1")));
        for (int i = 0; i < fillers; i++) {
          String key = String.format("f%04d", i);
          ctx.mount(key, c -> declareTargetState(c, f.targetState(key, "v1")));
        }
      }
    };
    Consumer<Ctx> main2 = ctx -> {
      registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      ctx.mount("a", c -> declareTargetState(c, f.targetState("x", "v2")));
    };
    Holding store1 = new Holding(PostgresStateStore.open(pg.url()));
    App w1 = app(store1, main1);
    w1.update();
    assertThat(rows.takeLog()).containsExactly("create r1=v1");
    assertThat(flat.takeLog()).hasSize(1 + fillers).contains("create b1=v1");
    tables.takeLog();

    full[0] = false;
    store1.holdWhen = w -> precommitsKey(w, "docs"); // the drop of the table, batch of "z"
    CompletableFuture<Void> first = CompletableFuture.runAsync(w1::update, ThreadPerTask.INSTANCE);
    assertThat(store1.held.await(1, TimeUnit.MINUTES)).as("worker 1 reached the table's drop")
        .isTrue();

    App w2 = app(PostgresStateStore.open(pg.url()), main2);
    try {
      w2.update();
    } catch (UpdateFailedException e) {
      // whatever worker 2 reports, what matters is what is tracked at the end
    }
    store1.release.countDown();
    first.get(1, TimeUnit.MINUTES);

    byte[] a = TargetPath.ROOT.child(StableKey.of("a")).encoded();
    if (!store1.ownedBy("w", a).isEmpty()) {
      assertThat(store1.component("w", a))
          .as("the record of \"a\", which owns tracked states (worker 2's x)").isPresent();
    }

    // Nothing mounts "a" any more: whatever it made must go.
    full[0] = false;
    w1.update();
    List<String> created = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    for (String entry : flat.takeLog()) {
      (entry.startsWith("delete ") ? deleted : created).add(entry.replaceFirst("^\\w+ ", "")
          .replaceFirst("=.*", ""));
    }
    created.removeAll(deleted);
    assertThat(created).as("flat rows created and never deleted").isEmpty();
    assertThat(w1.status().total()).as("target states still tracked").isZero();
  }

  /** The flat rows the sink holds now, from its log (creates and updates minus deletes). */
  static List<String> net(List<String> log) {
    List<String> present = new ArrayList<>();
    for (String entry : log) {
      String key = entry.replaceFirst("^\\w+ ", "").replaceFirst("=.*", "");
      present.remove(key);
      if (!entry.startsWith("delete ")) {
        present.add(key);
      }
    }
    present.sort(null);
    return present;
  }

  /**
   * Worker 1 sweeps stale components "a", "b" and "s", held inside the batch of "a". Worker 2's
   * run, with an input that mounts "s" again (a foreground mount, which waits for a held lease),
   * declares row "x" in it. A sweep of no more stale components than it leases up front holds
   * "s" from its start, so worker 2 waits and mounts "s" after the sweep, and "x" stays.
   */
  @Test
  void aStaleComponentOfALaterBatchMountedMeanwhileByAnotherWorkerKeepsWhatItDeclared()
      throws Exception {
    staleComponentMountedMidSweep(0);
  }

  /**
   * As above, with more stale components than the sweep leases up front: "s" is leased only at
   * its batch, after worker 2 mounted it (not waiting: "s" was free) and declared "x" there. The
   * sweep finds it mounted in this round by another worker (a foreground lease claims the
   * component as a background one does) and leaves it, so "x" stays. (Before foreground leases
   * claimed, the sweep found "s" free at its batch and deleted the row worker 2 had just
   * declared.)
   */
  @Test
  void aStaleComponentOfALaterBatchMountedByAnotherWorkerBeforeItsBatchKeepsWhatItDeclared()
      throws Exception {
    staleComponentMountedMidSweep(1100);
  }

  void staleComponentMountedMidSweep(int fillers) throws Exception {
    Rows flat = new Rows();
    boolean[] full = {true};
    Consumer<Ctx> main1 = ctx -> {
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      if (full[0]) {
        ctx.mount("a", c -> declareTargetState(c, f.targetState("a1", "v1")));
        ctx.mount("b", c -> declareTargetState(c, f.targetState("b1", "v1")));
        for (int i = 0; i < fillers; i++) {
          String key = String.format("f%04d", i); // between "b" and "s": "s" in the last batch
          ctx.mount(key, c -> declareTargetState(c, f.targetState(key, "v1")));
        }
        ctx.mount("s", c -> declareTargetState(c, f.targetState("s1", "v1")));
      }
    };
    Consumer<Ctx> main2 = ctx -> {
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      ctx.useMount("s", c -> {
        declareTargetState(c, f.targetState("x", "v2"));
        return null;
      });
    };
    Holding store1 = new Holding(PostgresStateStore.open(pg.url()));
    App w1 = app(store1, main1);
    w1.update();

    full[0] = false;
    store1.holdWhen = w -> precommitsKey(w, "a1"); // the first batch: "a"
    CompletableFuture<Void> first = CompletableFuture.runAsync(w1::update, ThreadPerTask.INSTANCE);
    assertThat(store1.held.await(1, TimeUnit.MINUTES)).isTrue();

    App w2 = app(PostgresStateStore.open(pg.url()), main2);
    CompletableFuture<Void> second = CompletableFuture.runAsync(() -> {
      try {
        w2.update();
      } catch (UpdateFailedException e) {
        // what matters is what the target holds at the end
      }
    }, ThreadPerTask.INSTANCE);
    try {
      second.get(fillers > 0 ? 60 : 2, TimeUnit.SECONDS); // done only if "s" was free to mount
    } catch (java.util.concurrent.TimeoutException stillWaiting) {
      // worker 2 waits for the lease worker 1 holds on "s"
    }
    store1.release.countDown();
    first.get(1, TimeUnit.MINUTES);
    second.get(1, TimeUnit.MINUTES);

    assertThat(net(new ArrayList<>(flat.log)))
        .as("rows in the target after both runs: worker 2's input, the later one, declares x;"
            + " the sink's log: " + flat.log)
        .containsExactly("x");
  }

  /**
   * Worker 1's input no longer mounts "s"; its run is held at the precommit of "k" (changed),
   * before its sweep starts. Worker 2's input mounts "s" again (a foreground mount) and declares
   * row "x" there (and no longer "k", which worker 1 holds), and its run ends. Worker 1's sweep
   * then finds "s" stale, by its input (an older one), and free: mounted by another worker in
   * this round, it is left alone, and "x" stays. (Before foreground leases claimed, the sweep
   * leased "s" up front and deleted the row worker 2 had just declared.)
   */
  /**
   * As below, but worker 2 dies (its sessions end, as when it is killed) after it committed "s"
   * with row "x", while its run goes on elsewhere. Its claim on "s" still tells that a newer
   * input mounted "s" in this round: worker 1's sweep, by its older input, leaves "s", and "x"
   * stays (the next run decides). Taking over a dead run's claim is right for a component the
   * taker processes, not for one it would sweep: the dead run may have finished it.
   */
  @Test
  void aStaleComponentMountedByAWorkerThatDiedSinceKeepsWhatItDeclared() throws Exception {
    Rows flat = new Rows();
    String[] kValue = {"v1"};
    boolean[] withS = {true};
    Consumer<Ctx> main1 = ctx -> {
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      ctx.mount("k", c -> declareTargetState(c, f.targetState("k1", kValue[0])));
      if (withS[0]) {
        ctx.mount("s", c -> declareTargetState(c, f.targetState("s1", "v1")));
      }
    };
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch stuck = new CountDownLatch(1);
    Consumer<Ctx> main2 = ctx -> {
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      ctx.useMount("s", c -> {
        declareTargetState(c, f.targetState("x", "v2"));
        return null;
      });
      ctx.useMount("t", c -> { // "s" committed: worker 2 dies here
        reached.countDown();
        try {
          stuck.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return null;
      });
    };
    Holding store1 = new Holding(PostgresStateStore.open(pg.url()));
    App w1 = app(store1, main1);
    w1.update();
    assertThat(flat.takeLog()).containsExactlyInAnyOrder("create k1=v1", "create s1=v1");

    withS[0] = false;
    kValue[0] = "v2";
    store1.holdWhen = w -> precommitsKey(w, "k1");
    CompletableFuture<Void> first = CompletableFuture.runAsync(w1::update, ThreadPerTask.INSTANCE);
    assertThat(store1.held.await(1, TimeUnit.MINUTES)).as("worker 1 reached k's precommit")
        .isTrue();

    String dying = pg.name() + "_dying";
    PostgresStateStore store2 = PostgresStateStore.open(pg.url() + "&ApplicationName=" + dying);
    App w2 = App.create("w", Environment.builder().stateStore(store2).build(), main2);
    CompletableFuture<Void> second = CompletableFuture.runAsync(w2::update, ThreadPerTask.INSTANCE);
    try {
      assertThat(reached.await(1, TimeUnit.MINUTES)).as("worker 2 committed s").isTrue();
      try (Connection c = DriverManager.getConnection(pg.serverUrl());
          Statement st = c.createStatement()) {
        st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            + " WHERE application_name = '" + dying + "'");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
          try (var rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity"
              + " WHERE application_name = '" + dying + "'")) {
            rs.next();
            if (rs.getLong(1) == 0) {
              break;
            }
          }
          assertThat(System.nanoTime()).as("worker 2's sessions ended").isLessThan(deadline);
          Thread.sleep(10);
        }
      }
      store1.release.countDown();
      first.get(1, TimeUnit.MINUTES);
    } finally {
      stuck.countDown();
      try {
        second.get(1, TimeUnit.MINUTES);
      } catch (Exception expected) {
        // its sessions are gone
      }
      try {
        w2.close();
        store2.close();
      } catch (RuntimeException expected) {
        // likewise
      }
    }

    assertThat(flat.takeLog())
        .as("the sink's log, sorted: worker 2 declares x in s (and dies before its sweep,"
            + " which would delete s1: the next run's), worker 1 writes k")
        .containsExactly("create x=v2", "update k1=v2");
  }

  @Test
  void aStaleComponentMountedByAnotherWorkerBeforeTheSweepStartsKeepsWhatItDeclared()
      throws Exception {
    Rows flat = new Rows();
    String[] kValue = {"v1"};
    boolean[] withS = {true};
    Consumer<Ctx> main1 = ctx -> {
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      ctx.mount("k", c -> declareTargetState(c, f.targetState("k1", kValue[0])));
      if (withS[0]) {
        ctx.mount("s", c -> declareTargetState(c, f.targetState("s1", "v1")));
      }
    };
    Consumer<Ctx> main2 = ctx -> { // "k" is worker 1's, held: its sweep leaves it
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      ctx.useMount("s", c -> {
        declareTargetState(c, f.targetState("x", "v2"));
        return null;
      });
    };
    Holding store1 = new Holding(PostgresStateStore.open(pg.url()));
    App w1 = app(store1, main1);
    w1.update();
    assertThat(flat.takeLog()).containsExactlyInAnyOrder("create k1=v1", "create s1=v1");

    withS[0] = false;
    kValue[0] = "v2";
    store1.holdWhen = w -> precommitsKey(w, "k1");
    CompletableFuture<Void> first = CompletableFuture.runAsync(w1::update, ThreadPerTask.INSTANCE);
    assertThat(store1.held.await(1, TimeUnit.MINUTES)).as("worker 1 reached k's precommit")
        .isTrue();

    App w2 = app(PostgresStateStore.open(pg.url()), main2);
    w2.update(); // "s" is free
    store1.release.countDown();
    first.get(1, TimeUnit.MINUTES);

    assertThat(flat.takeLog())
        .as("the sink's log, sorted: worker 2 mounts s (x in, s1 out), worker 1 writes k")
        .containsExactly("create x=v2", "delete s1", "update k1=v2");
    byte[] s = TargetPath.ROOT.child(StableKey.of("s")).encoded();
    assertThat(store1.component("w", s)).as("the record of s, worker 2's").isPresent();
    assertThat(w1.status().total()).as("k1 and x tracked").isEqualTo(2);
  }

  /**
   * Worker 1 is deleting the rows of three stale components (holding their leases); worker 2,
   * with a deletion limit of 1, finds the same components stale. It counts none of them (another
   * worker sweeps them), so its update is not refused for deletions it would not make.
   */
  @Test
  void aDeletionLimitDoesNotCountWhatAnotherWorkerIsSweeping() throws Exception {
    Rows flat = new Rows();
    boolean[] full = {true};
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      if (full[0]) {
        for (String k : List.of("k1", "k2", "k3")) {
          ctx.mount(k, c -> declareTargetState(c, f.targetState(k, "v1")));
        }
      }
    };
    Holding store1 = new Holding(PostgresStateStore.open(pg.url()));
    App w1 = app(store1, main);
    w1.update();
    flat.takeLog();

    full[0] = false;
    store1.holdWhen = w -> w.stream().anyMatch(x -> x instanceof StateWrite.Precommit);
    CompletableFuture<Void> first = CompletableFuture.runAsync(w1::update, ThreadPerTask.INSTANCE);
    assertThat(store1.held.await(1, TimeUnit.MINUTES)).isTrue();

    App w2 = app(PostgresStateStore.open(pg.url()), main);
    Throwable refused = null;
    try {
      w2.update(UpdateOptions.defaults().withDeletionLimit(1));
    } catch (UpdateFailedException e) {
      refused = e;
    }
    store1.release.countDown();
    first.get(1, TimeUnit.MINUTES);
    assertThat(refused).as("worker 2's update (limit 1)").isNull();
    w1.update();
    assertThat(w1.status().total()).isZero();
  }

  /**
   * Worker 1, whose input still declares table "docs" (in "t") but no longer mounts "s",
   * is deleting the rows r1 and r2 that "s" declared in it, held before their precommit. Worker
   * 2's input declares neither, and its update has a limit of 1: "s" is left to worker 1's
   * sweep, and worker 2's own sweep would drop "docs", whose drop takes r1 and r2 along, as the
   * counting pass counts below a container what another worker's sweep holds. That makes 3, over
   * the limit: worker 2 drops nothing. (With no stale component left to it, worker 2 used to skip
   * the counting pass, its one candidate within the limit, and dropped the table.)
   */
  @Test
  void aDeletionLimitCountsWhatAContainerTakesAlongWhenEveryStaleComponentIsAnotherWorkers()
      throws Exception {
    Rows rows = new Rows();
    Tables tables = new Tables(rows);
    boolean[] tableDeclared = {true};
    boolean[] sMounted = {true};
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      // "t" declares the table (no other component does): one of t's candidates once it stops.
      TargetStateProvider<String> docs = ctx.useMount("t", c -> tableDeclared[0]
          ? declareTargetStateWithChild(c, p.targetState("docs", new Tables.TableSpec("g1")))
          : null);
      if (tableDeclared[0]) {
        if (sMounted[0]) {
          ctx.mount("s", c -> {
            declareTargetState(c, docs.targetState("r1", "v1"));
            declareTargetState(c, docs.targetState("r2", "v1"));
          });
        }
      }
    };
    Holding store1 = new Holding(PostgresStateStore.open(pg.url()));
    App w1 = app(store1, main);
    w1.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");

    sMounted[0] = false;
    store1.holdWhen = w -> precommitsKey(w, "r1");
    CompletableFuture<Void> first = CompletableFuture.runAsync(w1::update, ThreadPerTask.INSTANCE);
    assertThat(store1.held.await(1, TimeUnit.MINUTES)).isTrue();
    assertThat(tables.takeLog()).containsExactly("ensure docs");

    tableDeclared[0] = false; // worker 2's input (worker 1 has run its components)
    App w2 = app(PostgresStateStore.open(pg.url()), main);
    Throwable refused = null;
    try {
      w2.update(UpdateOptions.defaults().withDeletionLimit(1));
    } catch (UpdateFailedException e) {
      refused = e;
    }
    assertThat(tables.takeLog()).as("worker 2 drops nothing").isEmpty();
    store1.release.countDown();
    first.get(1, TimeUnit.MINUTES);
    assertThat(refused).as("worker 2's update (limit 1)").isNotNull()
        .hasMessageContaining("would delete 3 target states (1 through their handlers,"
            + " 2 with their containers), more than its deletion limit of 1");
    assertThat(rows.takeLog()).as("worker 1's sweep").containsExactly("delete r1", "delete r2");
  }

  /**
   * Stale component "s" owns rows r1 and r2 in table "docs" of stale component "a", and another
   * worker's sweep holds "s" (its lease, taken here as that sweep takes it). The worker updating
   * now, with a limit of 1,102, has more stale components (1,100 fillers of a flat row each) than
   * it leases up front, and leases them batch by batch. Its first batch holds "a", whose table
   * its counting pass counts, with nothing below it that is no candidate yet: "s" is found held
   * only at its batch, the last. The table's drop takes r1 and r2 along all the same: 1,103
   * states, over the limit. (The pass counted 1,101, r1 and r2 neither below the table nor in
   * their batch, and the table was dropped.)
   */
  @Test
  void aDeletionLimitCountsWhatAContainerTakesAlongOfAComponentFoundHeldInALaterBatch()
      throws Exception {
    Rows rows = new Rows();
    Tables tables = new Tables(rows);
    Rows flat = new Rows();
    boolean[] mounted = {true};
    int fillers = 1100;
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> f = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      if (!mounted[0]) {
        return;
      }
      TargetStateProvider<String> docs = ctx.useMount("a",
          c -> mountTarget(c, p.targetState("docs", new Tables.TableSpec("g1"))));
      for (int i = 0; i < fillers; i++) {
        String key = String.format("f%04d", i);
        ctx.mount(key, c -> declareTargetState(c, f.targetState(key, "v1")));
      }
      ctx.mount("s", c -> {
        declareTargetState(c, docs.targetState("r1", "v1"));
        declareTargetState(c, docs.targetState("r2", "v1"));
      });
    };
    App app = app(PostgresStateStore.open(pg.url()), main);
    app.update();
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
    assertThat(flat.takeLog()).hasSize(fillers);
    tables.takeLog();

    StateStore other = PostgresStateStore.open(pg.url());
    pg.closeLast(other);
    AutoCloseable sweepingS =
        other.leaseComponent("w", TargetPath.ROOT.child(StableKey.of("s")).encoded(), true);
    assertThat(sweepingS).isNotNull();
    pg.closeLast(sweepingS);

    mounted[0] = false;
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(fillers + 2)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 1103 target states (1101 through their handlers,"
            + " 2 with their containers), more than its deletion limit of 1102");
    assertThat(tables.takeLog()).as("nothing dropped").isEmpty();
    assertThat(flat.takeLog()).as("nothing deleted").isEmpty();
  }

  /** Holds the sweep once it has leased its first batch of stale components, until released. */
  static final class HoldingAfterFirstSweepLease extends ForwardingStateStore {
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean armed;

    HoldingAfterFirstSweepLease(StateStore delegate) {
      super(delegate);
    }

    @Override
    public List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> paths) {
      List<AutoCloseable> leases = super.leaseComponentsToSweep(app, paths);
      if (armed) {
        armed = false;
        held.countDown();
        try {
          release.await(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return leases;
    }
  }

  /**
   * Worker 1 declares table docs without children (a directory that became a file), its
   * component a declaring nothing there and s no longer mounted; its sweep, in batches of one,
   * has leased s (first in path order) when worker 2, whose newer view of the source has docs with
   * rows again, runs a whole update: it mounts docs (the component of docs's rows, next in worker
   * 1's order, which its sweep then finds mounted in the round and leaves), processes a again
   * (its run started after worker 1 claimed a), declaring a9 in place of a1 (which it forgets:
   * docs's action ended its child generation), mounts n, declaring n1, and leaves s to worker 1.
   * Worker 1's sweep then forgets s's rows, in one range of the owner it holds, and leaves worker
   * 2's rows tracked: a range below docs of every owner took a9 and n1, which worker 2 applied,
   * and the next run would find them untracked. (While a sweep holds the component of docs's
   * rows, a worker mounting docs waits for it, and writes nothing below docs meanwhile.)
   */
  @Test
  void theRangeOfAFormerContainersRowsLeavesWhatAnotherWorkerWroteThereMeanwhile()
      throws Exception {
    chunks.set(1); // each stale component leased in a call of its own
    Rows rows = new Rows();
    Tables tables = new Tables(rows);
    boolean[] worker1WithChildren = {true};
    Consumer<Ctx> main1 = ctx -> {
      TargetStateProvider<Tables.TableSpec> t =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      Tables.TableSpec spec = new Tables.TableSpec("g1");
      if (worker1WithChildren[0]) {
        TargetStateProvider<String> docs = mountTarget(ctx, t.targetState("docs", spec));
        ctx.mount("a", c -> declareTargetState(c, docs.targetState("a1", "v1")));
        ctx.mount("s", c -> {
          declareTargetState(c, docs.targetState("s1", "v1"));
          declareTargetState(c, docs.targetState("s2", "v1"));
        });
      } else {
        declareTargetState(ctx, t.targetState("docs", spec));
        ctx.mount("a", c -> { });
      }
    };
    Consumer<Ctx> main2 = ctx -> { // s is not mounted here, and held by worker 1's sweep
      TargetStateProvider<Tables.TableSpec> t =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs =
          mountTarget(ctx, t.targetState("docs", new Tables.TableSpec("g1")));
      ctx.mount("a", c -> declareTargetState(c, docs.targetState("a9", "v2")));
      ctx.mount("n", c -> declareTargetState(c, docs.targetState("n1", "v2")));
    };
    HoldingAfterFirstSweepLease store1 =
        new HoldingAfterFirstSweepLease(PostgresStateStore.open(pg.url()));
    App w1 = app(store1, main1);
    w1.update();
    assertThat(rows.takeLog()).containsExactly("create a1=v1", "create s1=v1", "create s2=v1");

    worker1WithChildren[0] = false;
    store1.armed = true;
    CompletableFuture<Void> first = CompletableFuture.runAsync(w1::update, ThreadPerTask.INSTANCE);
    assertThat(store1.held.await(1, TimeUnit.MINUTES)).as("worker 1's sweep leased s").isTrue();
    assertThat(rows.takeLog()).as("docs's action took the rows along").isEmpty();

    try {
      App w2 = app(PostgresStateStore.open(pg.url()), main2);
      w2.update();
      // a1, of the child generation docs's action ended, is forgotten, not deleted.
      assertThat(rows.takeLog()).as("worker 2 writes its rows")
          .containsExactly("create a9=v2", "create n1=v2");
    } finally {
      store1.release.countDown();
    }
    first.get(1, TimeUnit.MINUTES);

    assertThat(rows.takeLog()).as("worker 1 forgets s's rows, applying nothing").isEmpty();
    assertThat(w1.status().providers()).as("worker 2's rows tracked, s's gone")
        .containsEntry("tables/docs", List.of(StableKey.of("a9"), StableKey.of("n1")));
    byte[] s = TargetPath.ROOT.child(StableKey.of("s")).encoded();
    assertThat(store1.component("w", s)).as("s's record, swept").isEmpty();
  }
}
