package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The orphan sweep reads the states of the components a run no longer mounts a part of a batch
 * at a time, not one component at a time (on a shared store, a round trip each: 5,000 of them
 * to remove 5,000 components), and no read holds more states than about 4,096, by the
 * components' records, unless one component owns more. On a store with one writer its batches
 * of small components are larger than the 256 a shared store leases at once, and it reconciles
 * the rows it read so (up to 16 MiB of records a batch), not read again by path.
 */
class StaleStatesReadTogetherTest extends EngineTestBase {
  /** The sweep's sizes, set to their default here: the PostgreSQL run makes them tiny. */
  @RegisterExtension final SweepChunks sweepChunks = new SweepChunks();

  final Rows rows = new Rows();

  /**
   * Notes the components whose states are read alone, what each read of several brought, and
   * the states read by path and leased.
   */
  static final class Observed extends ForwardingStateStore {
    final List<String> readAlone = Collections.synchronizedList(new ArrayList<>());
    /** Per read of several components: how many components, and how many states they own. */
    final List<List<Integer>> readTogether = Collections.synchronizedList(new ArrayList<>());
    final List<String> readByPath = Collections.synchronizedList(new ArrayList<>());
    final List<String> leased = Collections.synchronizedList(new ArrayList<>());
    /**
     * Components leased to run (not to sweep) since the test cleared it: on a shared store their
     * lease batches read their states with {@code ownedByEach} too, which is not the sweep's.
     */
    final Set<ByteKey> leasedToRun = ConcurrentHashMap.newKeySet();

    Observed(StateStore delegate) {
      super(delegate);
    }

    private static String state(byte[] path) {
      return Rows.keyText(TargetPath.decode(path).last());
    }

    @Override
    public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
      paths.forEach(p -> readByPath.add(state(p)));
      return super.getAll(app, paths);
    }

    @Override
    public List<AutoCloseable> leaseStates(String app, List<byte[]> statePaths) {
      statePaths.forEach(p -> leased.add(state(p)));
      return super.leaseStates(app, statePaths);
    }

    @Override
    public List<TrackedState> ownedBy(String app, byte[] componentPath) {
      TargetPath p = TargetPath.decode(componentPath);
      readAlone.add(p.depth() == 0 ? "(root)" : Rows.keyText(p.last()));
      return super.ownedBy(app, componentPath);
    }

    @Override
    public List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
      componentPaths.forEach(p -> leasedToRun.add(ByteKey.of(p)));
      return super.leaseComponents(app, componentPaths);
    }

    @Override
    public List<List<TrackedState>> ownedByEach(String app, List<byte[]> componentPaths) {
      List<List<TrackedState>> owned = super.ownedByEach(app, componentPaths);
      if (!componentPaths.stream().allMatch(p -> leasedToRun.contains(ByteKey.of(p)))) {
        readTogether.add(List.of(componentPaths.size(),
            owned.stream().mapToInt(List::size).sum()));
      }
      return owned;
    }
  }

  Observed store;
  App app;
  /** How many of the small components the root mounts; the two large ones go with the rest. */
  volatile int smallMounted = 600;

  @BeforeEach
  void open() {
    sweepChunks.useDefault();
    store = new Observed(store());
    app = App.create("stale", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      if (smallMounted == 600) {
        for (int b = 0; b < 2; b++) {
          String big = "big-" + b;
          ctx.mount(big, c -> {
            for (int i = 0; i < 2_500; i++) {
              declareTargetState(c, p.targetState(big + "/" + i, "v"));
            }
          });
        }
      }
      for (int i = 0; i < smallMounted; i++) {
        String key = String.format("k-%03d", i);
        ctx.mount(key, c -> declareTargetState(c, p.targetState(key, "v")));
      }
    });
  }

  @AfterEach
  void closeApp() {
    if (app != null) {
      app.close(); // before the base class closes the store under it
    }
  }

  @Test
  void theStatesOfComponentsNoLongerMountedAreReadTogetherInBoundedParts() {
    app.update();
    assertThat(rows.takeLog()).hasSize(5_600);
    store.readAlone.clear();
    store.readTogether.clear();
    store.leasedToRun.clear();

    smallMounted = 100;
    UpdateStats stats = app.update();

    Set<String> expected = new TreeSet<>();
    for (int b = 0; b < 2; b++) {
      for (int i = 0; i < 2_500; i++) {
        expected.add("delete big-" + b + "/" + i);
      }
    }
    for (int i = 100; i < 600; i++) {
      expected.add(String.format("delete k-%03d", i));
    }
    List<String> log = rows.takeLog();
    assertThat(log).hasSize(expected.size());
    assertThat(new TreeSet<>(log)).isEqualTo(expected);
    assertThat(stats.total().deleted()).isEqualTo(5_500);

    // Those the root still mounts read their own (on the shared store, with their lease batch).
    assertThat(store.readAlone).as("no stale component read alone")
        .noneMatch(c -> c.startsWith("big-") || c.compareTo("k-100") >= 0);
    // The 502 stale components in path order: the first large one read on its own, the second
    // with the 99 small ones that fit beside it (by their records, 16 states each at most),
    // then the rest of the batch 256 at a time. The sweep's batches are 256 components on a
    // store shared by workers (each a lease); on one with a single writer, more, up to 2,048,
    // while their records count at most 32,768 states: here all 502 at once.
    if (ON_POSTGRES) {
      assertThat(store.readTogether).containsExactly(
          List.of(1, 2_500), List.of(100, 2_599), List.of(155, 155), List.of(246, 246));
    } else {
      assertThat(store.readTogether).containsExactly(
          List.of(1, 2_500), List.of(100, 2_599), List.of(256, 256), List.of(145, 145));
    }

    app.update();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().total()).isEqualTo(100);
  }

  /**
   * The sweep reconciles a stale component's states with the rows it read them with, on a store
   * with one writer: nothing but its own earlier chunks writes meanwhile, and they leave the
   * rows of later candidates as they were. Reading them again by path was half of its time in
   * SQLite. On a shared store another worker may take a state over meanwhile: each is read again
   * by path, once, under its lease. Here the 5,500 removed states go in three chunks of one
   * batch on the store with one writer.
   */
  @Test
  void onAStoreWithOneWriterTheStatesOfStaleComponentsAreReadOnce() {
    app.update();
    rows.takeLog();
    store.readTogether.clear();
    store.readByPath.clear();
    store.leasedToRun.clear();
    store.leased.clear();

    smallMounted = 100;
    app.update();

    Set<String> removed = new TreeSet<>();
    for (int b = 0; b < 2; b++) {
      for (int i = 0; i < 2_500; i++) {
        removed.add("big-" + b + "/" + i);
      }
    }
    for (int i = 100; i < 600; i++) {
      removed.add(String.format("k-%03d", i));
    }
    List<String> log = rows.takeLog();
    assertThat(log).hasSize(removed.size());
    assertThat(new TreeSet<>(log))
        .isEqualTo(new TreeSet<>(removed.stream().map(k -> "delete " + k).toList()));
    assertThat(store.readTogether.stream().mapToInt(r -> r.get(1)).sum())
        .as("stale states read with their components").isEqualTo(5_500);
    List<String> staleReadByPath = store.readByPath.stream().filter(removed::contains).toList();
    if (ON_POSTGRES) {
      assertThat(staleReadByPath).hasSize(5_500).doesNotHaveDuplicates();
      assertThat(store.leased.stream().filter(removed::contains).toList())
          .containsExactlyElementsOf(staleReadByPath);
    } else {
      assertThat(staleReadByPath).as("stale states read again by path").isEmpty();
      assertThat(store.leased).isEmpty();
    }
    assertThat(app.status().total()).isEqualTo(100);
  }

  /**
   * The rows a batch keeps are bounded by their records' bytes, about 16 MiB: past that, on a
   * store with one writer too, a candidate is read again by path, so that a batch of large
   * records does not hold them all. Here 40 stale components of a state of 1 MiB each: the first
   * 16 keep their rows.
   */
  @Test
  void theRowsABatchKeepsAreBoundedByTheirRecordsBytes() {
    String large = "x".repeat(1 << 20);
    boolean[] mounted = {true};
    Rows big = new Rows();
    App bigApp = App.create("large", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", big.handler);
      for (int i = 0; mounted[0] && i < 40; i++) {
        String key = String.format("c-%02d", i);
        ctx.mount(key, c -> declareTargetState(c, p.targetState(key, large)));
      }
    });
    try {
      bigApp.update();
      assertThat(big.takeLog()).hasSize(40);
      store.readByPath.clear();

      mounted[0] = false;
      bigApp.update();

      List<String> removed = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        removed.add(String.format("c-%02d", i));
      }
      assertThat(big.takeLog()).containsExactlyElementsOf(
          removed.stream().map(k -> "delete " + k).toList());
      List<String> readAgain = store.readByPath.stream().filter(removed::contains).toList();
      assertThat(readAgain).containsExactlyElementsOf(
          ON_POSTGRES ? removed : removed.subList(16, 40));
    } finally {
      bigApp.close();
    }
  }
}
