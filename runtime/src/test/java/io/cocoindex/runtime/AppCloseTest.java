package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Closing an app: the store is released at once, so the next app on it opens and updates. On the
 * embedded store the next app of the closed one's name runs on the component pool it started
 * (apps of another name have their own); on a store shared by workers each app has its own, and a
 * closed app's workers end on their own. A closed app refuses to update, preview, drop or report.
 * An update another thread runs finishes first; one that closes its own app releases it as it
 * ends.
 */
class AppCloseTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);

  Consumer<Ctx> main(String value) {
    return main(value, ConcurrentHashMap.newKeySet());
  }

  /** As {@link #main(String)}, noting in {@code ranOn} the threads that ran its components. */
  Consumer<Ctx> main(String value, Set<Thread> ranOn) {
    return ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs = mountTarget(ctx, p.targetState("docs",
          new Tables.TableSpec("g1")));
      for (int i = 0; i < 50; i++) {
        String key = "r" + i;
        ctx.mount(key, c -> {
          ranOn.add(Thread.currentThread());
          declareTargetState(c, docs.targetState(key, value));
        });
      }
    };
  }

  @Test
  void aClosedAppReleasesItsStoreAndItsWorkersServeTheNextAppOfItsNameOrEnd() throws Exception {
    Set<Thread> firstRanOn = ConcurrentHashMap.newKeySet();
    App first = App.create("closing", environment(), main("v1", firstRanOn));
    first.update();
    rows.takeLog();

    first.close();

    Set<Thread> secondRanOn = ConcurrentHashMap.newKeySet();
    try (App second = App.create("closing", environment(), main("v2", secondRanOn))) {
      second.update();
    }
    assertThat(rows.takeLog()).hasSize(50).allMatch(line -> line.endsWith("=v2"));
    assertThat(firstRanOn).isNotEmpty()
        .allMatch(t -> t.getName().startsWith("cocoindex-closing-component-"));
    assertThat(secondRanOn)
        .allMatch(t -> t.getName().startsWith("cocoindex-closing-component-"));
    if (ON_POSTGRES) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (firstRanOn.stream().anyMatch(Thread::isAlive) && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(firstRanOn).as("the closed app's own workers").noneMatch(Thread::isAlive);
    } else {
      // Which of the pool's workers takes a task is the pool's choice: on two cores the second
      // app's components can all go to a worker the first app started but never ran one on.
      assertThat(poolsOf(secondRanOn)).as("the component pool the closed app started, reused")
          .isEqualTo(poolsOf(firstRanOn)).hasSize(1);
    }

    Set<Thread> otherRanOn = ConcurrentHashMap.newKeySet();
    try (App other = App.create("closing-other", environment(), main("v1", otherRanOn))) {
      other.update();
    }
    assertThat(otherRanOn).as("another app's workers").doesNotContainAnyElementsOf(firstRanOn)
        .allMatch(t -> t.getName().startsWith("cocoindex-closing-other-component-"));
    assertThat(poolsOf(otherRanOn)).as("another app's pool")
        .doesNotContainAnyElementsOf(poolsOf(firstRanOn));
    for (ThrowingCallable closedUse : List.<ThrowingCallable>of(first::update, first::preview,
        first::dropState, first::status)) {
      assertThatThrownBy(closedUse).isInstanceOf(IllegalStateException.class)
          .hasMessage("app 'closing' is closed");
    }
  }

  @Test
  @Timeout(60)
  void anAppClosedFromInsideItsSinkIsReleasedWhenTheUpdateEnds() {
    AtomicReference<App> self = new AtomicReference<>();
    AtomicReference<String> sinkThread = new AtomicReference<>();
    rows.onSinkCall = () -> {
      sinkThread.compareAndSet(null, Thread.currentThread().getName());
      self.get().close(); // on a sink thread: waiting for the update would never end
    };
    App app = App.create("closing-sink", environment(), main("v1"));
    self.set(app);

    assertThat(app.update().of("tables/docs").created()).isEqualTo(50);

    assertThat(sinkThread.get()).isEqualTo("cocoindex-closing-sink-sink");
    assertThatThrownBy(app::update).isInstanceOf(IllegalStateException.class)
        .hasMessage("app 'closing-sink' is closed");
    rows.onSinkCall = () -> {};
    try (App next = App.create("closing-sink", environment(), main("v1"))) {
      assertThat(next.update().of("tables/docs").unchanged()).isEqualTo(50);
    }
  }

  @Test
  void closingWaitsForAnUpdateThatAnotherThreadRuns() throws Exception {
    CountDownLatch inBody = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    Consumer<Ctx> blocking = ctx -> {
      main("v1").accept(ctx);
      ctx.mount("slow", c -> {
        inBody.countDown();
        await(proceed);
      });
    };
    App app = App.create("busy", environment(), blocking);
    ExecutorService threads = Executors.newCachedThreadPool(); // a thread each, whatever the cores
    CompletableFuture<UpdateStats> update = CompletableFuture.supplyAsync(app::update, threads);
    assertThat(inBody.await(10, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Void> close = CompletableFuture.runAsync(app::close, threads);
    CompletableFuture<Void> closeAgain = CompletableFuture.runAsync(app::close, threads);
    // The app refuses new work as soon as a close has begun (on a thread that may take a while
    // to start on a loaded machine), while the closes wait for the update.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!refusesStatus(app) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThatThrownBy(app::status).isInstanceOf(IllegalStateException.class)
        .hasMessage("app 'busy' is closed");
    Thread.sleep(100);
    assertThat(close).as("close waits for the update").isNotDone();
    assertThat(closeAgain).as("so does a second close").isNotDone();

    proceed.countDown();
    close.get(10, TimeUnit.SECONDS);
    closeAgain.get(10, TimeUnit.SECONDS);
    assertThat(update.get(10, TimeUnit.SECONDS).of("tables/docs").created()).isEqualTo(50);
    try (App next = App.create("busy", environment(), main("v1"))) {
      assertThat(next.update().of("tables/docs").unchanged()).isEqualTo(50);
    }
    threads.shutdown();
  }

  /**
   * A close interrupted while it waits for an update another thread runs waits all the same (the
   * store must not go under the update), and returns with its thread still interrupted.
   */
  @Test
  void aCloseInterruptedWhileItWaitsForAnUpdateWaitsAllTheSameAndStaysInterrupted()
      throws Exception {
    CountDownLatch inBody = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    App app = App.create("busy", environment(), ctx -> {
      main("v1").accept(ctx);
      ctx.mount("slow", c -> {
        inBody.countDown();
        await(proceed);
      });
    });
    ExecutorService threads = Executors.newCachedThreadPool();
    CompletableFuture<UpdateStats> update = CompletableFuture.supplyAsync(app::update, threads);
    assertThat(inBody.await(10, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Boolean> closedInterrupted = new CompletableFuture<>();
    Thread closing = new Thread(() -> {
      app.close();
      closedInterrupted.complete(Thread.currentThread().isInterrupted());
    });
    closing.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (closing.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    closing.interrupt();
    Thread.sleep(100);
    assertThat(closedInterrupted).as("still waiting for the update").isNotDone();

    proceed.countDown();
    assertThat(closedInterrupted.get(10, TimeUnit.SECONDS)).as("interrupted still").isTrue();
    assertThat(update.get(10, TimeUnit.SECONDS).of("tables/docs").created()).isEqualTo(50);
    threads.shutdown();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void closedFromItsOwnRunTheAppIsReleasedWhenTheUpdateEnds(boolean fromAComponent) {
    AtomicReference<App> self = new AtomicReference<>();
    App app = App.create("self", environment(), ctx -> {
      main("v1").accept(ctx);
      if (fromAComponent) {
        ctx.mount("closer", c -> self.get().close()); // on a component thread
      } else {
        self.get().close(); // in main, on the thread that called update
      }
    });
    self.set(app);

    assertThat(app.update().of("tables/docs").created()).isEqualTo(50);
    assertThatThrownBy(app::update).isInstanceOf(IllegalStateException.class)
        .hasMessage("app 'self' is closed");
    try (App next = App.create("self", environment(), main("v1"))) {
      assertThat(next.update().of("tables/docs").unchanged()).isEqualTo(50);
    }
  }

  private static boolean refusesStatus(App app) {
    try {
      app.status();
      return false;
    } catch (IllegalStateException closed) {
      return true;
    }
  }

  private static Set<ForkJoinPool> poolsOf(Set<Thread> workers) {
    return workers.stream().map(t -> ((ForkJoinWorkerThread) t).getPool())
        .collect(Collectors.toSet());
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }


  /** {@link App#progress} reports a drop as it reports an update (its Javadoc says so). */
  @Test
  void progressIsReportedWhileADropRuns() {
    AtomicReference<App> self = new AtomicReference<>();
    List<RunProgress> seen = new java.util.ArrayList<>();
    App app = app(ctx -> {
      main("v").accept(ctx);
      seen.add(self.get().progress());
    });
    self.set(app);
    app.update();
    app.dropState();

    assertThat(seen).hasSize(2).doesNotContainNull();
    assertThat(app.progress()).isNull();
  }

  /**
   * Two apps of one name on two embedded stores (two tenants' state, updated at the same time)
   * do not share a component pool: neither takes the other's workers, nor waits for the other's
   * update to close. On one store they do, however its directory is spelled (through a link,
   * say): the store's identity is its file's real path.
   */
  @Test
  void appsOfOneNameOnTwoEmbeddedStoresRunOnPoolsOfTheirOwn(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path otherStore, @org.junit.jupiter.api.io.TempDir java.nio.file.Path links)
      throws Exception {
    org.junit.jupiter.api.Assumptions.assumeFalse(ON_POSTGRES, "embedded stores only");
    Set<ForkJoinPool> first = ConcurrentHashMap.newKeySet();
    Set<ForkJoinPool> second = ConcurrentHashMap.newKeySet();
    Set<ForkJoinPool> viaLink = ConcurrentHashMap.newKeySet();
    App one = app("tenant", ctx -> {
      main("v").accept(ctx);
      ctx.mount("where", c -> first.add(ForkJoinTask.getPool()));
    });
    try (App other = App.create("tenant", Environment.builder().dbPath(otherStore).build(),
        ctx -> {
          main("v").accept(ctx);
          ctx.mount("where", c -> second.add(ForkJoinTask.getPool()));
        })) {
      one.update();
      other.update();
    }
    java.nio.file.Path link =
        java.nio.file.Files.createSymbolicLink(links.resolve("store"), dbPath);
    try (App oneViaLink = App.create("tenant", Environment.builder().dbPath(link).build(),
        ctx -> {
          main("v").accept(ctx);
          ctx.mount("where", c -> viaLink.add(ForkJoinTask.getPool()));
        })) {
      oneViaLink.update();
    }

    assertThat(first).hasSize(1).doesNotContainNull();
    assertThat(second).hasSize(1).doesNotContainAnyElementsOf(first);
    assertThat(viaLink).as("the first store, through a link").isEqualTo(first);
  }
}
