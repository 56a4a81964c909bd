package io.cocoindex.bench;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.codec.KeyEncoding;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * A memoized component's subtree read whole, as a killed run's memo is taken up: by a read per
 * component below it (the take-up before the forty-seventh session) and by {@code
 * StateStore.ownedInSubtree} (a window of owners per query), alternating in one JVM, on the
 * embedded store and, given a PostgreSQL URL, on the shared one (in a schema of its own). Prints
 * the median of each and the states read.
 *
 * <pre>java -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.SubtreeReads 10000 10 5 [url]</pre>
 */
public final class SubtreeReads {
  private SubtreeReads() {}

  public static void main(String[] args) throws Exception {
    int components = Integer.parseInt(args[0]);
    int rows = Integer.parseInt(args[1]);
    int rounds = Integer.parseInt(args[2]);
    String postgres = args.length > 3 ? args[3] : null;
    System.out.printf(Locale.ROOT, "%-10s %10s %10s %16s %16s %8s%n", "store", "components",
        "states", "per component ms", "windows ms", "ratio");
    Path dir = Files.createTempDirectory("cocoindex-subtree");
    try (StateStore sqlite = SqliteStateStore.open(dir.resolve("state"))) {
      measure("sqlite", sqlite, components, rows, rounds);
    } finally {
      EngineWorkloads.deleteTree(dir);
    }
    if (postgres != null) {
      String schema = "subtree_" + ProcessHandle.current().pid();
      Sql.execute(postgres, "CREATE SCHEMA " + schema);
      try (StateStore pg = PostgresStateStore.open(postgres
          + (postgres.contains("?") ? "&" : "?") + "currentSchema=" + schema)) {
        measure("postgresql", pg, components, rows, rounds);
      } finally {
        Sql.execute(postgres, "DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  private static void measure(String name, StateStore store, int components, int rows,
      int rounds) {
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p =
          registerRootTargetStatesProvider(ctx, "rows", new DeepChain.Handler());
      ctx.mountMemo("subtree", components, sub -> {
        for (int c = 0; c < components; c++) {
          int component = c;
          sub.mount(component, cc -> {
            for (int r = 0; r < rows; r++) {
              declareTargetState(cc, p.targetState(component + "/" + r, "v" + r));
            }
          });
        }
      });
    };
    try (App app = App.create("subtree", Environment.builder().stateStore(store).build(), main)) {
      app.update();
    }
    byte[] subtree = subtreePath(store);
    long[] perComponent = new long[rounds];
    long[] windows = new long[rounds];
    long states = 0;
    for (int round = 0; round < rounds; round++) {
      long start = System.nanoTime();
      long a = store.ownedBy("subtree", subtree).size();
      for (byte[] below : store.componentPathsBelow("subtree", subtree)) {
        a += store.ownedBy("subtree", below).size();
      }
      perComponent[round] = System.nanoTime() - start;
      long[] b = {0};
      start = System.nanoTime();
      store.ownedInSubtree("subtree", subtree, (owner, s) -> b[0] += s.size());
      windows[round] = System.nanoTime() - start;
      if (a != b[0]) {
        throw new AssertionError("the two reads disagree: " + a + " and " + b[0]);
      }
      states = a;
    }
    double before = median(perComponent) / 1e6;
    double after = median(windows) / 1e6;
    System.out.printf(Locale.ROOT, "%-10s %10d %10d %16.1f %16.1f %8.3f%n", name, components,
        states, before, after, after / before);
  }

  /** The encoded path of the memoized component, the app's first component below the root. */
  private static byte[] subtreePath(StateStore store) {
    List<byte[]> paths = new ArrayList<>();
    store.componentsInOrder("subtree", r -> paths.add(r.path()));
    for (byte[] p : paths) {
      byte[] end = KeyEncoding.descendantsEnd(p);
      long below = paths.stream().filter(q -> Arrays.compareUnsigned(q, p) > 0
          && Arrays.compareUnsigned(q, end) < 0).count();
      if (below > 0 && p.length > 0) {
        return p;
      }
    }
    throw new IllegalStateException("no component with components below it");
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
