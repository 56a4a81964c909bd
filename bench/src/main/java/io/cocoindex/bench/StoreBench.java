package io.cocoindex.bench;

import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Workload 7: component commits per second on the embedded state store, with group commit
 * (many components committing at once) against one transaction per component (each commit
 * waited for before the next).
 */
final class StoreBench {
  static final int STATES_PER_COMMIT = 10;
  static final int THREADS = 16;

  private StoreBench() {}

  static void run(Config cfg, Path tmp, Report report) {
    for (SqliteStateStore.Durability d : SqliteStateStore.Durability.values()) {
      double sequential = measure(tmp.resolve("store-seq-" + d), d, cfg.storeCommits(), false);
      double grouped = measure(tmp.resolve("store-group-" + d), d, cfg.storeCommits(), true);
      String what = "state store, synchronous=" + d + ", commits of " + STATES_PER_COMMIT
          + " states";
      report.info("7", what + ": 1 tx per component",
          String.format(Locale.ROOT, "%,.0f commits/s", sequential), "");
      report.info("7", what + ": group commit (" + THREADS + " committers)",
          String.format(Locale.ROOT, "%,.0f commits/s", grouped),
          Report.fmtRatio(grouped / sequential) + " 1 tx each");
    }
  }

  /** Commits per second of {@code commits} component commits. */
  static double measure(Path dir, SqliteStateStore.Durability durability, int commits,
      boolean concurrent) {
    EngineWorkloads.deleteTree(dir);
    SqliteStateStore store = SqliteStateStore.open(dir, durability);
    try {
      // Warm the connection and the JIT with a few commits that are not counted.
      for (int i = 0; i < 20; i++) {
        store.write("warmup", commit(i)).join();
      }
      long start = System.nanoTime();
      if (concurrent) {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
          List<Future<?>> workers = new ArrayList<>();
          for (int t = 0; t < THREADS; t++) {
            workers.add(pool.submit(() -> {
              int i;
              while ((i = next.getAndIncrement()) < commits) {
                store.write("bench", commit(i)).join();
              }
            }));
          }
          for (Future<?> w : workers) {
            w.get();
          }
        } catch (Exception e) {
          throw new IllegalStateException("a committer failed", e);
        } finally {
          pool.shutdown();
        }
      } else {
        for (int i = 0; i < commits; i++) {
          store.write("bench", commit(i)).join();
        }
      }
      long nanos = System.nanoTime() - start;
      return commits / (nanos / 1e9);
    } finally {
      store.close();
      EngineWorkloads.deleteTree(dir);
    }
  }

  /** What a component of {@value #STATES_PER_COMMIT} rows commits: its states and its record. */
  private static List<StateWrite> commit(int component) {
    byte[] owner = ("/component/" + component).getBytes(StandardCharsets.UTF_8);
    List<StateWrite> writes = new ArrayList<>(STATES_PER_COMMIT + 1);
    for (int s = 0; s < STATES_PER_COMMIT; s++) {
      byte[] path = ("/@tables/\"t\"/" + component + "/" + s).getBytes(StandardCharsets.UTF_8);
      byte[] record = new byte[18];
      record[0] = (byte) component;
      record[1] = (byte) s;
      writes.add(new StateWrite.PutState(new TrackedState(path, owner,
          List.of(new PossibleRecord(1, record)), 0, 0, 1, 1)));
    }
    writes.add(new StateWrite.PutComponent(
        new io.cocoindex.runtime.state.ComponentRecord(owner, null, null, null,
            STATES_PER_COMMIT), 1));
    return writes;
  }
}
