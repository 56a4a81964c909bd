package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On a store shared by workers, the records of background components are read with their leases,
 * a query per lease batch ({@code LeaseBatcher}), not each by its component as it commits: the
 * reads grouped only the components whose threads asked at once, a few a round trip. What each
 * run applies is what it applied when every component read its own.
 */
class RecordsReadWithLeasesTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Map<String, String> values = new ConcurrentHashMap<>();

  /** Notes which component records are read, singly and by batch. */
  static final class Observed extends ForwardingStateStore {
    final List<String> readAlone = Collections.synchronizedList(new ArrayList<>());
    final List<String> readInBatches = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger batches = new AtomicInteger();
    volatile boolean batchReadsFail;

    Observed(StateStore delegate) {
      super(delegate);
    }

    @Override
    public Optional<ComponentRecord> component(String app, byte[] path) {
      readAlone.add(name(path));
      return super.component(app, path);
    }

    @Override
    public List<Optional<ComponentRecord>> componentsAt(String app, List<byte[]> paths) {
      if (batchReadsFail) {
        throw new IllegalStateException("scripted failure of a batch read");
      }
      batches.incrementAndGet();
      paths.forEach(p -> readInBatches.add(name(p)));
      return super.componentsAt(app, paths);
    }

    private static String name(byte[] path) {
      TargetPath p = TargetPath.decode(path);
      return p.depth() == 0 ? "(root)" : Rows.keyText(p.last());
    }

    /** What was read alone and in batches since the last call, each sorted. */
    List<List<String>> take() {
      List<List<String>> out = List.of(sortedCopy(readAlone), sortedCopy(readInBatches));
      readAlone.clear();
      readInBatches.clear();
      batches.set(0);
      return out;
    }

    private static List<String> sortedCopy(List<String> names) {
      synchronized (names) {
        List<String> copy = new ArrayList<>(names);
        Collections.sort(copy);
        return copy;
      }
    }
  }

  Observed store;
  App app;

  @BeforeEach
  void sharedStoreOnly() {
    Assumptions.assumeTrue(ON_POSTGRES, "the embedded store takes no leases");
    store = new Observed(store());
    for (int i = 0; i < 100; i++) {
      values.put(String.format("c%03d", i), "v1");
    }
    app = App.create("records", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
        ctx.mount(e.getKey(), c -> declareTargetState(c, p.targetState(e.getKey(), e.getValue())));
      }
      ctx.mountMemo("memo", values.get("c000"),
          c -> declareTargetState(c, p.targetState("memo", "m")));
    });
  }

  private static List<String> components() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      names.add(String.format("c%03d", i));
    }
    return names;
  }

  @AfterEach
  void closeApp() {
    if (app != null) {
      app.close(); // before the base class closes the store under it
    }
  }

  @Test
  void eachLeasedComponentsRecordIsReadOnceInItsLeaseBatch() {
    app.update();
    assertThat(rows.takeLog()).hasSize(101).contains("create c042=v1", "create memo=m");
    List<List<String>> read = store.take();
    // The root's, read by the thread that runs it, and the memoized component's, read for its
    // check before it is leased: alone. Every other component's, once, in a batch.
    assertThat(read.get(0)).containsExactly("(root)", "memo");
    assertThat(read.get(1)).containsExactlyElementsOf(components());

    app.update();
    assertThat(rows.takeLog()).isEmpty();
    int batches = store.batches.get();
    read = store.take();
    assertThat(read.get(0)).containsExactly("(root)", "memo");
    assertThat(read.get(1)).containsExactlyElementsOf(components());
    assertThat(batches).as("queries for 100 records").isLessThan(100);

    values.put("c042", "v2");
    app.update();
    assertThat(rows.takeLog()).containsExactly("update c042=v2");
  }

  @Test
  void whenTheBatchReadFailsEachComponentReadsItsOwn() {
    app.update();
    rows.takeLog();
    store.take();
    store.batchReadsFail = true;

    values.put("c007", "v2");
    app.update();
    assertThat(rows.takeLog()).containsExactly("update c007=v2");
    List<String> alone = new ArrayList<>(components());
    alone.add("(root)");
    alone.add("memo");
    Collections.sort(alone);
    assertThat(store.take().get(0)).containsExactlyElementsOf(alone);
  }
}
