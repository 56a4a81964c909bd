package io.cocoindex.bench;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.TrackedState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The run after a killed run, taking up the memo of one memoized component whose subtree is
 * {@code components} children of {@code rows} rows each: the killed run (a store that does not
 * record it settled, as if the process died before) leaves every state possibly applied and the
 * memo stamped; the next run, on the same input, settles the subtree's states and records the
 * memo. Prints that run's time, the states it settled, and the reads of one component's states
 * it made through the store's {@code ownedBy} (one per component of the subtree, before the
 * forty-seventh session). On the embedded store: only a store that records settled runs stamps
 * memos.
 *
 * <pre>java -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.KilledRunTakeUp 10000 10 3</pre>
 */
public final class KilledRunTakeUp {
  private KilledRunTakeUp() {}

  /** Plays a process that dies before recording its run settled; counts per-owner reads. */
  static final class KilledStore extends ForwardingStateStore {
    volatile boolean dies;
    final AtomicLong ownedByReads = new AtomicLong();

    KilledStore(SqliteStateStore delegate) {
      super(delegate);
    }

    @Override
    public void runSettled(String app, long version) {
      if (!dies) {
        super.runSettled(app, version);
      }
    }

    @Override
    public List<TrackedState> ownedBy(String app, byte[] componentPath) {
      ownedByReads.incrementAndGet();
      return super.ownedBy(app, componentPath);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: KilledRunTakeUp <components> <rows per component> <rounds>");
      System.exit(2);
    }
    int components = Integer.parseInt(args[0]);
    int rows = Integer.parseInt(args[1]);
    int rounds = Integer.parseInt(args[2]);
    System.out.printf(Locale.ROOT, "%6s %10s %10s %12s %14s %12s %12s%n", "round", "components",
        "states", "killed ms", "take-up ms", "memo hits", "ownedBy reads");
    for (int round = 0; round < rounds; round++) {
      run(round, components, rows);
    }
  }

  private static void run(int round, int components, int rows) throws Exception {
    Path dir = Files.createTempDirectory("cocoindex-takeup");
    try (KilledStore store = new KilledStore(
        SqliteStateStore.open(dir.resolve("state"), SqliteStateStore.Durability.NORMAL))) {
      Consumer<Ctx> main = ctx -> {
        TargetStateProvider<String> p =
            registerRootTargetStatesProvider(ctx, "rows", new DeepChain.Handler());
        ctx.mountMemo("subtree", components, sub -> {
          declareTargetState(sub, p.targetState("subtree", "root"));
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
      store.dies = true;
      long start = System.nanoTime();
      update(store, main);
      long killed = System.nanoTime() - start;
      store.dies = false;
      store.ownedByReads.set(0);
      start = System.nanoTime();
      UpdateStats stats = update(store, main);
      long takeUp = System.nanoTime() - start;
      System.out.printf(Locale.ROOT, "%6d %10d %10d %12.0f %14.1f %12d %12d%n", round,
          components, (long) components * rows + 1, killed / 1e6, takeUp / 1e6,
          stats.componentsMemoized(), store.ownedByReads.get());
    } finally {
      EngineWorkloads.deleteTree(dir);
    }
  }

  private static UpdateStats update(KilledStore store, Consumer<Ctx> main) {
    try (App app = App.create("takeup", Environment.builder().stateStore(store).build(), main)) {
      return app.update();
    }
  }
}
