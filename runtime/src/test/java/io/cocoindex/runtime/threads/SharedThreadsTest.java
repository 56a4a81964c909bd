package io.cocoindex.runtime.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A shared thread carries its task's name while it runs, the idle name once the task ends, and
 * once waiting for work, takes the next task rather than a new thread starting for it.
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
