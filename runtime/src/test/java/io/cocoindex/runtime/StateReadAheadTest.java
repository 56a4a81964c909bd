package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.OwnedStates;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * On the embedded store a rerun reads its components' tracked states ahead, several components
 * per read, when they ask in path order; what they find is what they own, including after
 * states moved between components in the same run.
 */
class StateReadAheadTest extends EngineTestBase {
  private static final int COMPONENTS = 200;

  final Rows rows = new Rows();
  /** Component name to its rows (key to value). */
  final Map<String, Map<String, String>> components = new TreeMap<>();

  /** Counts the reads of components' states the engine makes. */
  static final class Reads extends ForwardingStateStore {
    final AtomicInteger ownedBy = new AtomicInteger();
    final AtomicInteger ownedByFrom = new AtomicInteger();
    final AtomicInteger statesRead = new AtomicInteger();

    Reads(StateStore delegate) {
      super(delegate);
    }

    @Override
    public List<TrackedState> ownedBy(String app, byte[] componentPath) {
      ownedBy.incrementAndGet();
      List<TrackedState> read = super.ownedBy(app, componentPath);
      statesRead.addAndGet(read.size());
      return read;
    }

    @Override
    public Map<ByteKey, OwnedStates> ownedByFrom(String app, byte[] componentPath,
        byte[] before, int maxChunks) {
      ownedByFrom.incrementAndGet();
      Map<ByteKey, OwnedStates> read = super.ownedByFrom(app, componentPath, before, maxChunks);
      read.values().forEach(v -> statesRead.addAndGet(v.get().size()));
      return read;
    }

    /** How many reads, since the last take. */
    int take() {
      statesRead.set(0);
      return ownedBy.getAndSet(0) + ownedByFrom.getAndSet(0);
    }
  }

  StateReadAheadTest() {
    for (int c = 0; c < COMPONENTS; c++) {
      Map<String, String> own = new TreeMap<>();
      own.put(String.format("r%03d-a", c), "v1");
      own.put(String.format("r%03d-b", c), "v1");
      components.put(String.format("c%03d", c), own);
    }
  }

  /** Mounts the components in path order. */
  Consumer<Ctx> main() {
    return main(new ArrayList<>(components.keySet()));
  }

  /** Mounts the components in {@code order}, each declaring its rows as they are now. */
  Consumer<Ctx> main(List<String> order) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (String name : order) {
        Map<String, String> own = Map.copyOf(components.get(name));
        ctx.mount(name, c -> own.forEach((k, v) -> declareTargetState(c, p.targetState(k, v))));
      }
    };
  }

  @Test
  void componentsAskingInPathOrderShareReadsAndFindWhatTheyOwn() {
    assumeTrue(!ON_POSTGRES, "the embedded store is its app's only writer");
    Reads store = new Reads(store());
    try (App app = App.create("ahead", Environment.builder().stateStore(store).build(), main())) {
      app.update();
      assertThat(rows.takeLog()).hasSize(2 * COMPONENTS);
      assertThat(store.take()).as("a first run reads nothing").isZero();

      app.update();
      assertThat(rows.takeLog()).isEmpty();
      // Components run in parallel and some ask out of order: each is still read once.
      assertThat(store.statesRead.get()).as("each state read once").isEqualTo(2 * COMPONENTS);
      assertThat(store.take()).as("reads for %d components", COMPONENTS)
          .isBetween(1, COMPONENTS / 4);

      // A row moves from c150 to c010 (which runs before it), one changes, one is dropped.
      components.get("c150").remove("r150-a");
      components.get("c010").put("r150-a", "v1");
      components.get("c020").put("r020-a", "v2");
      components.get("c030").remove("r030-b");
      app.update();
      assertThat(rows.takeLog()).containsExactly("delete r030-b", "update r020-a=v2");

      // The moved row is c010's now: dropped from c010, it is deleted.
      components.get("c010").remove("r150-a");
      app.update();
      assertThat(rows.takeLog()).containsExactly("delete r150-a");
      app.update();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  @Test
  void componentsAskingInNoUsefulOrderAreReadOneByOne() {
    assumeTrue(!ON_POSTGRES, "the embedded store is its app's only writer");
    Reads store = new Reads(store());
    List<String> order = new ArrayList<>(components.keySet());
    java.util.Collections.shuffle(order, new java.util.Random(7));
    try (App app = App.create("shuffled", Environment.builder().stateStore(store).build(),
        main(order))) {
      app.update();
      rows.takeLog();
      store.take();

      components.get("c123").put("r123-a", "v2");
      app.update();
      assertThat(rows.takeLog()).containsExactly("update r123-a=v2");
      assertThat(store.statesRead.get()).as("read ahead in vain a little, not a window each time")
          .isLessThanOrEqualTo(2 * (2 * COMPONENTS));
    }
  }
}
