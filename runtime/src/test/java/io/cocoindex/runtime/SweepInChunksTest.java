package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A large removal is swept in chunks: what the sweep holds at once (leases on a shared store,
 * the writes of one transaction) is bounded however much goes, each chunk is committed before
 * the next is applied, and a deletion limit is weighed over the whole sweep before anything is
 * deleted.
 */
class SweepInChunksTest extends EngineTestBase {
  /** The sweep's default chunk: at most this many deletions per transaction. */
  private static final int CHUNK = 2048;

  final Rows rows = new Rows();

  /** Counts the leases held at once and the largest write. */
  static final class Watched extends ForwardingStateStore {
    final AtomicInteger componentLeases = new AtomicInteger();
    final AtomicInteger mostComponentLeases = new AtomicInteger();
    final AtomicInteger stateLeases = new AtomicInteger();
    final AtomicInteger mostStateLeases = new AtomicInteger();
    final AtomicInteger largestWrite = new AtomicInteger();

    Watched(StateStore delegate) {
      super(delegate);
    }

    @Override
    public List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
      return counted(super.leaseComponents(app, componentPaths), componentLeases,
          mostComponentLeases);
    }

    @Override
    public List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> componentPaths) {
      return counted(super.leaseComponentsToSweep(app, componentPaths), componentLeases,
          mostComponentLeases);
    }

    @Override
    public List<AutoCloseable> leaseStates(String app, List<byte[]> statePaths) {
      return counted(super.leaseStates(app, statePaths), stateLeases, mostStateLeases);
    }

    private static List<AutoCloseable> counted(
        List<AutoCloseable> leases, AtomicInteger held, AtomicInteger most) {
      List<AutoCloseable> out = new ArrayList<>(leases.size());
      for (AutoCloseable lease : leases) {
        if (lease == null) {
          out.add(null);
          continue;
        }
        most.accumulateAndGet(held.incrementAndGet(), Math::max);
        out.add(() -> {
          held.decrementAndGet();
          lease.close();
        });
      }
      return out;
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      largestWrite.accumulateAndGet(writes.size(), Math::max);
      return super.write(app, writes);
    }

    /** The target states tracked now. */
    int tracked(String app) {
      AtomicInteger n = new AtomicInteger();
      scan(app, new byte[0], s -> n.incrementAndGet());
      return n.get();
    }
  }

  /** Keys "k00000".."k{n-1}". */
  static List<String> keys(int n) {
    return IntStream.range(0, n).mapToObj(i -> String.format("k%05d", i))
        .collect(Collectors.toList());
  }

  /** One component declaring every key as a row. */
  Consumer<Ctx> oneComponent(List<String> keys) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      List<String> own = List.copyOf(keys);
      ctx.mount("all", c -> own.forEach(k -> declareTargetState(c, p.targetState(k, "v"))));
    };
  }

  /** A component per key, each declaring its row. */
  Consumer<Ctx> componentPerKey(List<String> keys) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (String k : List.copyOf(keys)) {
        ctx.mount(k, c -> declareTargetState(c, p.targetState(k, "v")));
      }
    };
  }

  @Test
  void aComponentDroppingMoreRowsThanAChunkCommitsEachChunkBeforeApplyingTheNext() {
    int n = 2 * CHUNK + 100;
    List<String> declared = new ArrayList<>(keys(n));
    Watched store = new Watched(store());
    try (App app = App.create("chunks", Environment.builder().stateStore(store).build(),
        oneComponent(declared))) {
      app.update();
      assertThat(rows.takeLog()).hasSize(n);
      List<Integer> trackedAtEachCall = Collections.synchronizedList(new ArrayList<>());
      rows.onSinkCall = () -> trackedAtEachCall.add(store.tracked("chunks"));
      rows.largestBatch.set(0);
      store.largestWrite.set(0);

      declared.clear();
      app.update();

      assertThat(rows.takeLog()).hasSize(n)
          .containsExactlyElementsOf(keys(n).stream().map(k -> "delete " + k).toList());
      assertThat(rows.largestBatch.get()).as("deletions per sink call")
          .isLessThanOrEqualTo(CHUNK);
      assertThat(trackedAtEachCall).as("states tracked as each chunk is applied")
          .hasSizeGreaterThanOrEqualTo(3)
          .isSortedAccordingTo(Collections.reverseOrder())
          .doesNotHaveDuplicates();
      assertThat(store.largestWrite.get()).as("writes in one transaction")
          .isLessThanOrEqualTo(2 * CHUNK);
      assertThat(store.tracked("chunks")).isZero();
    }
  }

  @Test
  void removingThousandsOfComponentsHoldsABoundedNumberOfLeases() {
    int n = 3000;
    List<String> declared = new ArrayList<>(keys(n));
    Watched store = new Watched(store());
    try (App app = App.create("many", Environment.builder().stateStore(store).build(),
        componentPerKey(declared))) {
      app.update();
      assertThat(rows.takeLog()).hasSize(n);
      store.mostComponentLeases.set(0);
      store.mostStateLeases.set(0);

      declared.clear();
      app.update();

      assertThat(rows.takeLog())
          .containsExactlyInAnyOrderElementsOf(keys(n).stream().map(k -> "delete " + k).toList());
      assertThat(store.tracked("many")).isZero();
      assertThat(app.status().total()).isZero();
      // Each an advisory lock on PostgreSQL, whose lock table refused one per removed component.
      assertThat(store.mostComponentLeases.get()).as("stale components leased at once")
          .isLessThanOrEqualTo(256);
      assertThat(store.mostStateLeases.get()).as("states leased at once")
          .isLessThanOrEqualTo(ON_POSTGRES ? 1024 + 256 : 0);
      assertThat(store.componentLeases.get() + store.stateLeases.get()).as("leases left held")
          .isZero();
    }
  }

  @Test
  void aDeletionLimitIsWeighedOverEveryBatchBeforeAnythingIsDeleted() {
    int n = 600; // more stale components than one batch leases
    List<String> declared = new ArrayList<>(keys(n));
    App app = app(componentPerKey(declared));
    app.update();
    rows.takeLog();

    declared.clear();
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(n - 1)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 600 target states (600 through their handlers,"
            + " 0 with their containers), more than its deletion limit of 599");
    assertThat(rows.takeLog()).as("nothing deleted").isEmpty();
    assertThat(app.status().total()).isEqualTo(n);

    app.update(UpdateOptions.defaults().withDeletionLimit(n));
    assertThat(rows.takeLog())
        .containsExactlyInAnyOrderElementsOf(keys(n).stream().map(k -> "delete " + k).toList());
    assertThat(app.status().total()).isZero();
  }
}
