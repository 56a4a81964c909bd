package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StoreLockedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Environment.Builder.waitForLock}: an update that finds the app's update lock held waits
 * for it as long as asked, then runs; without a wait it fails at once, naming the holder.
 */
@SuppressWarnings("try") // the locks are held for their blocks, unreferenced in them
class LockWaitTest {
  @TempDir Path dir;
  final Rows rows = new Rows();

  App app(Duration wait) {
    return App.create("app", Environment.builder().dbPath(dir).waitForLock(wait).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declareTargetState(ctx, p.targetState("k", "v"));
    });
  }

  @Test
  void anUpdateWaitsForTheHolderAndRunsOnceItIsDone() throws Exception {
    try (SqliteStateStore other = SqliteStateStore.open(dir); App app = app(Duration.ofMinutes(1))) {
      AutoCloseable held = other.lockForUpdate("app");
      CompletableFuture<UpdateStats> update = CompletableFuture.supplyAsync(app::update,
          ThreadPerTask.INSTANCE);
      Thread.sleep(300);
      assertThat(update).as("waiting while the lock is held").isNotDone();
      assertThat(rows.takeLog()).isEmpty();

      held.close();
      assertThat(update.get(30, TimeUnit.SECONDS).of("rows").created()).isEqualTo(1);
      assertThat(rows.takeLog()).containsExactly("create k=v");
    }
  }

  @Test
  void aWaitThatRunsOutFailsNamingTheHolderAndTheWait() throws Exception {
    try (SqliteStateStore other = SqliteStateStore.open(dir);
        AutoCloseable held = other.lockForUpdate("app");
        App app = app(Duration.ofMillis(200))) {
      assertThatThrownBy(app::update)
          .isInstanceOf(StoreLockedException.class)
          .hasMessageContaining("pid " + ProcessHandle.current().pid())
          .hasMessageEndingWith("(waited PT0.2S for it)");
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  /**
   * An update interrupted while it waits for the lock stops waiting: it fails as one that found
   * the lock held, at once, and its thread stays interrupted.
   */
  @Test
  void anUpdateInterruptedWhileItWaitsForTheLockFailsAndStaysInterrupted() throws Exception {
    try (SqliteStateStore other = SqliteStateStore.open(dir);
        AutoCloseable held = other.lockForUpdate("app");
        App app = app(Duration.ofMinutes(1))) {
      CompletableFuture<Throwable> failure = new CompletableFuture<>();
      CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
      Thread waiting = new Thread(() -> {
        try {
          app.update();
          failure.complete(null);
        } catch (Throwable e) {
          failure.complete(e);
        }
        interruptedAfter.complete(Thread.currentThread().isInterrupted());
      });
      waiting.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (waiting.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      waiting.interrupt();

      assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(StoreLockedException.class)
          .hasMessageContaining("pid " + ProcessHandle.current().pid())
          .hasMessageNotContaining("waited");
      assertThat(interruptedAfter.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  @Test
  void withoutAWaitAnUpdateFailsAtOnce() throws Exception {
    try (SqliteStateStore other = SqliteStateStore.open(dir);
        AutoCloseable held = other.lockForUpdate("app");
        App app = app(Duration.ZERO)) {
      assertThatThrownBy(app::update)
          .isInstanceOf(StoreLockedException.class)
          .hasMessageNotContaining("waited");
    }
  }

  @Test
  void aNegativeWaitIsRejected() {
    assertThatThrownBy(() -> Environment.builder().waitForLock(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the wait for the update lock is negative: PT-1S");
  }
}
