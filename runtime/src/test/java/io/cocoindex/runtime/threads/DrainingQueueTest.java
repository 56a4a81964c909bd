package io.cocoindex.runtime.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/** Every item added reaches the consumer or is failed: none waits for a drain that never runs. */
class DrainingQueueTest {
  record Item(int n, CompletableFuture<Integer> done) {
    Item(int n) {
      this(n, new CompletableFuture<>());
    }
  }

  /** An executor that holds its tasks until {@link #runAll}. */
  static final class Held implements Executor {
    final List<Runnable> tasks = new ArrayList<>();

    @Override
    public void execute(Runnable r) {
      tasks.add(r);
    }

    void runAll() {
      while (!tasks.isEmpty()) {
        tasks.remove(0).run();
      }
    }
  }

  @Test
  void itemsAddedWhileADrainIsPendingGoOutTogetherInBatchesOfAtMostTheBound() {
    Held executor = new Held();
    List<List<Integer>> batches = new ArrayList<>();
    DrainingQueue<Item> queue = new DrainingQueue<>(executor, 2, batch -> {
      batches.add(batch.stream().map(Item::n).toList());
      batch.forEach(i -> i.done().complete(i.n()));
    }, (i, e) -> i.done().completeExceptionally(e));

    List<Item> items = List.of(new Item(1), new Item(2), new Item(3));
    items.forEach(queue::add);
    assertThat(executor.tasks).hasSize(1);
    executor.runAll();

    assertThat(batches).containsExactly(List.of(1, 2), List.of(3));
    assertThat(items).allMatch(i -> i.done().join() == i.n());
  }

  @Test
  void anExecutorThatRefusesTheDrainFailsTheItemsAndALaterAddDrainsAgain() {
    boolean[] refuse = {true};
    List<Integer> consumed = new ArrayList<>();
    DrainingQueue<Item> queue = new DrainingQueue<>(r -> {
      if (refuse[0]) {
        throw new RejectedExecutionException("pool shut down");
      }
      r.run();
    }, 10, batch -> batch.forEach(i -> {
      consumed.add(i.n());
      i.done().complete(i.n());
    }), (i, e) -> i.done().completeExceptionally(e));

    Item refused = new Item(1);
    queue.add(refused);
    assertThat(refused.done()).isCompletedExceptionally();
    assertThat(refused.done().handle((v, e) -> e.getMessage()).join()).isEqualTo("pool shut down");

    refuse[0] = false;
    Item later = new Item(2);
    queue.add(later);
    assertThat(later.done().join()).isEqualTo(2);
    assertThat(consumed).containsExactly(2);
  }

  @Test
  void aConsumerThatThrowsFailsItsBatchAndTheNextBatchStillGoesOut() {
    Held executor = new Held();
    DrainingQueue<Item> queue = new DrainingQueue<>(executor, 1, batch -> {
      if (batch.get(0).n() == 1) {
        throw new IllegalStateException("sink broke");
      }
      batch.forEach(i -> i.done().complete(i.n()));
    }, (i, e) -> i.done().completeExceptionally(e));

    Item first = new Item(1);
    Item second = new Item(2);
    queue.add(first);
    queue.add(second);
    executor.runAll();

    assertThat(first.done().handle((v, e) -> e.getMessage()).join()).isEqualTo("sink broke");
    assertThat(second.done().join()).isEqualTo(2);
  }
}
