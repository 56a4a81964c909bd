package io.cocoindex.runtime.workers;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.ThreadPerTask;
import io.cocoindex.runtime.ThrowawaySchema;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rule 10 between two workers, in a fixed order: worker A's orphan sweep must not delete a state
 * that worker B is taking over in the same round. B holds the component that takes the state
 * over while A's sweep runs; the sweep waits for B's component to be released, then finds the
 * state moved and leaves it alone. (The same race in {@link MultiWorkerTest} between two worker
 * processes is left to chance; here B is held at the point where a sweep that did not wait would
 * delete the state.)
 */
class TransferSweepOrderTest {
  /** How long A is given to finish on its own while B is held: with the wait, it cannot. */
  private static final long HELD_MILLIS = 1_500;

  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("ts_");
  /** Lets worker B finish its component; also counted down after a failure, before closing. */
  private final CountDownLatch releaseB = new CountDownLatch(1);
  private final List<String> log = Collections.synchronizedList(new ArrayList<>());
  private final TargetActionSink<Worker.Put> sink = TargetActionSink.of(actions ->
      actions.forEach(a -> log.add(a.verb() + " " + a.value().key()
          + (a.value().value() == null ? "" : "=" + a.value().value()))));

  @AfterEach
  void releaseB() {
    releaseB.countDown(); // a failed test must not leave B's update blocked while its app closes
  }

  /** A worker: its own connections to the shared store, the app every worker runs. */
  private App worker(BiConsumer<Ctx, TargetStateProvider<String>> main) {
    PostgresStateStore store = PostgresStateStore.open(pg.url());
    pg.closeLast(store);
    Worker.RowHandler handler = new Worker.RowHandler(sink);
    App app = App.create("workers", Environment.builder().stateStore(store).build(),
        ctx -> main.accept(ctx, registerRootTargetStatesProvider(ctx, "rows", handler)));
    pg.closeLast(app);
    return app;
  }

  @Test
  void aSweepWaitsForTheWorkerTakingItsOrphanOverAndLeavesTheStateToIt() throws Exception {
    // The round before: c1 declared x.
    worker((ctx, rows) -> ctx.mount("c1", c -> declareTargetState(c, rows.targetState("x", "1"))))
        .update();
    assertThat(log).containsExactly("create x=1");
    log.clear();

    // This round x moves to c2. Worker B runs c2 and is held in it, holding its lease.
    CountDownLatch bHoldsC2 = new CountDownLatch(1);
    App b = worker((ctx, rows) -> ctx.mount("c2", c -> {
      declareTargetState(c, rows.targetState("x", "2"));
      bHoldsC2.countDown();
      try {
        releaseB.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    CompletableFuture<Void> bRun = CompletableFuture.runAsync(b::update, ThreadPerTask.INSTANCE);
    assertThat(bHoldsC2.await(30, TimeUnit.SECONDS)).as("B started c2").isTrue();

    // Worker A runs the round's main: c1 now declares nothing, c2 is B's. A commits c1, so x is
    // an orphan candidate of its sweep, which must wait for B's c2 before deciding.
    App a = worker((ctx, rows) -> {
      ctx.mount("c1", c -> {});
      ctx.mount("c2", c -> declareTargetState(c, rows.targetState("x", "2")));
    });
    CompletableFuture<Void> aRun = CompletableFuture.runAsync(a::update, ThreadPerTask.INSTANCE);
    Thread.sleep(HELD_MILLIS);
    assertThat(log).as("applied while B holds c2").isEmpty();
    assertThat(aRun).as("A's run while B holds c2").isNotDone();

    releaseB.countDown();
    bRun.get(60, TimeUnit.SECONDS);
    aRun.get(60, TimeUnit.SECONDS);
    assertThat(log).as("a move is an update, never a delete and a create").containsExactly(
        "update x=2");
  }
}
