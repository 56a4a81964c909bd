package io.cocoindex.bench;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateOptions;
import io.cocoindex.runtime.UpdateStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A removal under a deletion limit beside a memoized component whose memo hits: {@code
 * components} components of {@code rows} rows each are created, then no longer mounted, in an
 * update whose limit is exactly the states they own. The memo hit keeps its component's tracking,
 * and before the forty-seventh session that alone made the update count its deletions in a pass
 * of its own, each stale row's handler asked twice. Prints the removal's time and the handler's
 * calls, on the embedded store.
 *
 * <pre>java -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.LimitedRemoval 1000 100 3</pre>
 */
public final class LimitedRemoval {
  private LimitedRemoval() {}

  /** Counts its reconcile calls. */
  static final class Counted implements TargetHandler<String, String, String> {
    final AtomicLong calls = new AtomicLong();
    private final DeepChain.Handler handler = new DeepChain.Handler();

    @Override
    public TargetReconcileOutput<String, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      calls.incrementAndGet();
      return handler.reconcile(key, desired, prev, mayBeMissing);
    }
  }

  public static void main(String[] args) throws Exception {
    int components = Integer.parseInt(args[0]);
    int rows = Integer.parseInt(args[1]);
    int rounds = Integer.parseInt(args[2]);
    System.out.printf(Locale.ROOT, "%6s %10s %10s %12s %14s %16s%n", "round", "components",
        "removed", "create ms", "removal ms", "handler calls");
    for (int round = 0; round < rounds; round++) {
      Path dir = Files.createTempDirectory("cocoindex-limited");
      try {
        Counted handler = new Counted();
        boolean[] mounted = {true};
        Consumer<Ctx> main = ctx -> {
          TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", handler);
          ctx.mountMemo("memo", "in", c -> declareTargetState(c, p.targetState("memo", "1")));
          for (int i = 0; mounted[0] && i < components; i++) {
            int component = i;
            ctx.mount(component, c -> {
              for (int r = 0; r < rows; r++) {
                declareTargetState(c, p.targetState(component + "/" + r, "v" + r));
              }
            });
          }
        };
        long start = System.nanoTime();
        update(dir, main, UpdateOptions.defaults());
        long create = System.nanoTime() - start;
        mounted[0] = false;
        handler.calls.set(0);
        start = System.nanoTime();
        UpdateStats stats = update(dir, main,
            UpdateOptions.defaults().withDeletionLimit((long) components * rows));
        long removal = System.nanoTime() - start;
        System.out.printf(Locale.ROOT, "%6d %10d %10d %12.0f %14.0f %16d%n", round, components,
            stats.total().deleted(), create / 1e6, removal / 1e6, handler.calls.get());
      } finally {
        EngineWorkloads.deleteTree(dir);
      }
    }
  }

  private static UpdateStats update(Path dir, Consumer<Ctx> main, UpdateOptions options) {
    try (App app = App.create("limited",
        Environment.builder().dbPath(dir.resolve("state")).build(), main)) {
      return app.update(options);
    }
  }
}
