package io.cocoindex.runtime.threads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A shared thread carries its task's name while it runs, the idle name once the task ends, and
 * once waiting for work, takes the next task rather than a new thread starting for it. Apps of
 * one name take back their component pool; only so many pools no app uses are kept; a worn pool
 * gives way to a new one, and ends once its last app lets it go.
 */
class SharedThreadsTest {

  @Test
  void aTaskRunsUnderItsNameAndItsThreadIsIdleOnceItEnds() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    AtomicReference<String> nameWhileRunning = new AtomicReference<>();

    SharedThreads.execute("shared-threads-test-task", () -> {
      ranOn.set(Thread.currentThread());
      nameWhileRunning.set(Thread.currentThread().getName());
    }).get(10, TimeUnit.SECONDS);

    assertThat(nameWhileRunning).hasValue("shared-threads-test-task");
    assertThat(ranOn.get().getName()).isEqualTo(SharedThreads.IDLE_NAME);
    assertThat(ranOn.get().isDaemon()).isTrue();
  }

  @Test
  void theNextTaskRunsOnTheThreadTheLastOneLeft() throws Exception {
    AtomicReference<Thread> first = new AtomicReference<>();
    AtomicReference<Thread> second = new AtomicReference<>();

    SharedThreads.execute("first", () -> first.set(Thread.currentThread()))
        .get(10, TimeUnit.SECONDS);
    // Idle once it waits for work again (until then a task arriving would find no idle thread).
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (first.get().getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    SharedThreads.execute("second", () -> second.set(Thread.currentThread()))
        .get(10, TimeUnit.SECONDS);

    assertThat(second.get()).isSameAs(first.get());
  }

  @Test
  void anAppNameTakesBackItsPoolAndOnlySoManyUnusedPoolsAreKept() throws Exception {
    ComponentPool held = SharedThreads.acquireComponentPool("pools-test-held", "store", 2);
    ComponentPool first = SharedThreads.acquireComponentPool("pools-test-0", "store", 2);
    SharedThreads.releaseComponentPool(first);

    assertThat(SharedThreads.acquireComponentPool("pools-test-0", "store", 2)).isSameAs(first);
    SharedThreads.releaseComponentPool(first);
    ComponentPool other = SharedThreads.acquireComponentPool("pools-test-0", "store", 4);
    assertThat(other).as("another parallelism, another pool").isNotSameAs(first);
    SharedThreads.releaseComponentPool(other);
    other = SharedThreads.acquireComponentPool("pools-test-0", "other store", 2);
    assertThat(other).as("another store (another tenant's), another pool").isNotSameAs(first);
    SharedThreads.releaseComponentPool(other);

    ComponentPool last = null;
    for (int i = 1; i <= 3 * SharedThreads.IDLE_POOLS_KEPT; i++) {
      last = SharedThreads.acquireComponentPool("pools-test-" + i, "store", 2);
      SharedThreads.releaseComponentPool(last);
    }

    assertThat(first.isShutdown()).as("the least recently used unused pool").isTrue();
    String lastName = "pools-test-" + 3 * SharedThreads.IDLE_POOLS_KEPT;
    assertThat(SharedThreads.acquireComponentPool(lastName, "store", 2))
        .as("the last one released").isSameAs(last);
    SharedThreads.releaseComponentPool(last);
    assertThat(held.isShutdown()).as("a pool an app holds").isFalse();
    assertThat(held.submit(() -> 42).get(10, TimeUnit.SECONDS)).isEqualTo(42);
    SharedThreads.releaseComponentPool(held);
    assertThatThrownBy(() -> SharedThreads.releaseComponentPool(held))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no app named 'pools-test-held' holds this component pool");
  }

  @Test
  void aWornPoolGivesWayToANewOneAndEndsOnceItsLastAppLetsItGo() throws Exception {
    ComponentPool worn;
    ComponentPool second;
    System.setProperty(ComponentPool.RENEW_AFTER_PROPERTY, "2");
    try {
      worn = SharedThreads.acquireComponentPool("pools-test-worn", "store", 2);
      second = SharedThreads.acquireComponentPool("pools-test-worn", "store", 2);
    } finally {
      System.clearProperty(ComponentPool.RENEW_AFTER_PROPERTY);
    }
    assertThat(second).as("two apps of one name").isSameAs(worn);
    ComponentPoolTest.startWorkers(worn, 2);
    assertThat(worn.worn()).isTrue();

    ComponentPool renewed = SharedThreads.renewComponentPool(worn);
    assertThat(renewed).isNotSameAs(worn);
    assertThat(worn.isShutdown()).as("the other app still holds it").isFalse();
    assertThat(worn.submit(() -> 42).get(10, TimeUnit.SECONDS)).isEqualTo(42);
    assertThat(SharedThreads.renewComponentPool(worn)).as("the other app's renewal")
        .isSameAs(renewed);
    assertThat(worn.isShutdown()).as("let go by both apps").isTrue();
    ComponentPool next = SharedThreads.acquireComponentPool("pools-test-worn", "store", 2);
    assertThat(next).as("the next app of the name").isSameAs(renewed);

    for (int i = 0; i < 3; i++) {
      SharedThreads.releaseComponentPool(renewed);
    }
    assertThat(renewed.isShutdown()).as("kept for the next app of the name").isFalse();
    assertThatThrownBy(() -> SharedThreads.releaseComponentPool(worn))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no app named 'pools-test-worn' holds this component pool");
  }

  @Test
  void aFailingTaskFailsItsFutureAndLeavesItsThreadIdle() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    Thread.UncaughtExceptionHandler quiet = (t, e) -> {};

    CompletableFuture<Void> ended = SharedThreads.execute("failing", () -> {
      ranOn.set(Thread.currentThread());
      Thread.currentThread().setUncaughtExceptionHandler(quiet);
      throw new IllegalStateException("the task failed");
    });

    assertThat(ended).failsWithin(10, TimeUnit.SECONDS)
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(IllegalStateException.class)
        .withMessageContaining("the task failed");
    assertThat(ranOn.get().getName()).isEqualTo(SharedThreads.IDLE_NAME);
  }
}
