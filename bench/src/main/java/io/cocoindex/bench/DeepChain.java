package io.cocoindex.bench;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A plain (not memoized) chain of nested components: the component at depth d declares two
 * states and mounts exactly one child at depth d+1. For each depth, in one JVM and on a fresh
 * embedded store: a cold run, a warm rerun with nothing changed, and a run that no longer mounts
 * the chain (the sweep removes every component and state). Prints each per component, in wall
 * time and in the process's CPU time (a chain commits one component after another: a cold run
 * mostly waits for the store's commits). {@code -Drounds=N} repeats the list.
 *
 * <pre>java -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.DeepChain [mount|use] 400 800 1600 3200</pre>
 *
 * {@code mount} chains with {@code Ctx.mount} (the default), {@code use} with
 * {@code Ctx.useMount} (each parent waits on its child inside its body).
 */
public final class DeepChain {
  private DeepChain() {}

  /** A sink that counts actions; the tracking record is the value. */
  static final AtomicLong APPLIED = new AtomicLong();
  static final TargetActionSink<String> SINK =
      TargetActionSink.of(actions -> APPLIED.addAndGet(actions.size()));

  static final class Handler implements TargetHandler<String, String, String> {
    @Override
    public TargetReconcileOutput<String, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      if (desired == null) {
        return prev.isEmpty() && !mayBeMissing ? null
            : TargetReconcileOutput.of(TargetAction.delete(key.toString()), SINK, null);
      }
      if (!mayBeMissing && prev.size() == 1 && prev.get(0).equals(desired)) {
        return null;
      }
      return TargetReconcileOutput.of(prev.isEmpty() ? TargetAction.create(desired)
          : TargetAction.update(desired), SINK, desired);
    }
  }

  public static void main(String[] args) throws Exception {
    boolean use = false;
    int first = 0;
    if (args.length > 0 && (args[0].equals("use") || args[0].equals("mount"))) {
      use = args[0].equals("use");
      first = 1;
    }
    int rounds = Integer.getInteger("rounds", 1);
    System.out.printf(Locale.ROOT, "chain by %s%n", use ? "useMount" : "mount");
    System.out.printf(Locale.ROOT, "%8s %10s %10s %10s %10s %10s %10s %10s %10s %10s%n",
        "depth", "cold ms", "cold us/c", "cpu us/c", "warm ms", "warm us/c", "cpu us/c",
        "remove ms", "remove us/c", "cpu us/c");
    for (int round = 0; round < rounds; round++) {
      for (int i = first; i < args.length; i++) {
        int depth = Integer.parseInt(args[i]);
        run(depth, use);
      }
    }
  }

  static void run(int depth, boolean use) throws Exception {
    Path dir = Files.createTempDirectory("cocoindex-chain");
    try {
      boolean[] mountChain = {true};
      Consumer<Ctx> main = ctx -> {
        TargetStateProvider<String> rows =
            registerRootTargetStatesProvider(ctx, "rows", new Handler());
        if (mountChain[0]) {
          link(ctx, rows, 0, depth, use);
        }
      };
      long[] cold = timed(dir, main);
      long[] warm = timed(dir, main);
      mountChain[0] = false;
      long[] removal = timed(dir, main);
      System.out.printf(Locale.ROOT,
          "%8d %10.0f %10.1f %10.1f %10.0f %10.1f %10.1f %10.0f %10.1f %10.1f%n", depth,
          cold[0] / 1e6, cold[0] / 1e3 / depth, cold[1] / 1e3 / depth,
          warm[0] / 1e6, warm[0] / 1e3 / depth, warm[1] / 1e3 / depth,
          removal[0] / 1e6, removal[0] / 1e3 / depth, removal[1] / 1e3 / depth);
    } finally {
      EngineWorkloads.deleteTree(dir);
    }
  }

  static void link(Ctx ctx, TargetStateProvider<String> rows, int d, int depth, boolean use) {
    if (d == depth) {
      return;
    }
    Consumer<Ctx> body = c -> {
      declareTargetState(c, rows.targetState("a" + d, "v" + d));
      declareTargetState(c, rows.targetState("b" + d, "w" + d));
      link(c, rows, d + 1, depth, use);
    };
    if (use) {
      ctx.useMount("c" + d, c -> {
        body.accept(c);
        return null;
      });
    } else {
      ctx.mount("c" + d, body);
    }
  }

  /** Wall and process CPU nanoseconds of one update (open, run, close). */
  static long[] timed(Path dir, Consumer<Ctx> main) throws Exception {
    var os = (com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    long cpu = os.getProcessCpuTime();
    long start = System.nanoTime();
    try (App app = App.create("chain", Environment.builder().dbPath(dir.resolve("state")).build(),
        main)) {
      app.update();
    }
    return new long[] {System.nanoTime() - start, os.getProcessCpuTime() - cpu};
  }
}
