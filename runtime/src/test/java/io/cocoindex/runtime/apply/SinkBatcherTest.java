package io.cocoindex.runtime.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How actions reach a sink (DESIGN rule 5): one call at a time per sink, what arrives during a
 * call merged into the next one, a failed merged batch retried split along submissions; and on
 * the sink's own thread, never the submitting component's.
 */
class SinkBatcherTest {
  private static final String SINK_THREAD = "test-sink";

  private final ExecutorService executor =
      Executors.newCachedThreadPool(r -> new Thread(r, SINK_THREAD));
  private final SinkBatcher batcher = new SinkBatcher(executor);

  /** Records each call: the thread that made it and the actions it was given. */
  private final List<String> calls = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void stop() throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }

  private TargetActionSink<String> recordingSink(CountDownLatch entered, CountDownLatch release) {
    return TargetActionSink.of(actions -> {
      calls.add(Thread.currentThread().getName() + " " + values(actions));
      entered.countDown();
      await(release);
      for (TargetAction<String> a : actions) {
        if (a.value().startsWith("bad")) {
          throw new IllegalStateException("cannot apply " + a.value());
        }
      }
    });
  }

  private static List<String> values(List<TargetAction<String>> actions) {
    return actions.stream().map(TargetAction::value).toList();
  }

  private static List<TargetAction<String>> creates(String... values) {
    return Arrays.stream(values).map(TargetAction::create).toList();
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aSubmissionIsAppliedOnTheSinksThreadNotTheSubmittersOne() {
    TargetActionSink<String> sink = recordingSink(new CountDownLatch(1), new CountDownLatch(0));

    batcher.submit(sink, "c1", creates("refresh")).join();

    assertThat(calls).containsExactly(SINK_THREAD + " [refresh]");
  }

  /** Opens to let the first call of {@link #firstCallUnderWay} finish. */
  private final CountDownLatch release = new CountDownLatch(1);

  /** A sink, and its first call (on "a", from "c1"), under way until {@link #release} opens. */
  private record UnderWay(TargetActionSink<String> sink, CompletableFuture<Void> first) {}

  private UnderWay firstCallUnderWay() {
    CountDownLatch entered = new CountDownLatch(1);
    TargetActionSink<String> sink = recordingSink(entered, release);
    CompletableFuture<Void> first = batcher.submit(sink, "c1", creates("a"));
    await(entered);
    return new UnderWay(sink, first);
  }

  @Test
  void whatArrivesDuringACallGoesOutTogetherInTheNextOne() throws Exception {
    UnderWay call = firstCallUnderWay();

    CompletableFuture<Void> second = batcher.submit(call.sink(), "c2", creates("b"));
    CompletableFuture<Void> third = batcher.submit(call.sink(), "c3", creates("c", "d"));
    assertThat(second).isNotDone();
    release.countDown();
    CompletableFuture.allOf(call.first(), second, third).get(10, TimeUnit.SECONDS);

    assertThat(calls).containsExactly(SINK_THREAD + " [a]", SINK_THREAD + " [b, c, d]");
  }

  @Test
  void aFailedMergedBatchIsRetriedSplitSoOnlyTheFailingSubmissionFails() throws Exception {
    UnderWay call = firstCallUnderWay();

    CompletableFuture<Void> good = batcher.submit(call.sink(), "c2", creates("b"));
    CompletableFuture<Void> bad = batcher.submit(call.sink(), "c3", creates("bad c"));
    release.countDown();
    CompletableFuture.allOf(call.first(), good).get(10, TimeUnit.SECONDS);
    assertThat(bad).failsWithin(10, TimeUnit.SECONDS)
        .withThrowableThat().havingRootCause().withMessage("cannot apply bad c");

    assertThat(calls).containsExactly(SINK_THREAD + " [a]", SINK_THREAD + " [b, bad c]",
        SINK_THREAD + " [b]", SINK_THREAD + " [bad c]");
  }
}
