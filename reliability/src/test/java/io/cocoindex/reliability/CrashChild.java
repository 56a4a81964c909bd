package io.cocoindex.reliability;

import io.cocoindex.TargetAction;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.samples.sqlite.SqliteDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The crash harness's child JVM: runs one update of {@link CrashApp} on {@code World.of(seed,
 * generation)} and, when {@code -Dcrash.point} names a crash point, halts the JVM there (no
 * shutdown hooks, no finally blocks: as {@code kill -9} would) at the {@code -Dcrash.after}-th
 * occurrence. Prints {@code START} before the update and {@code DONE <counts>} after it.
 *
 * <p>Args: stateDir targetDb outDir seed generation.
 */
public final class CrashChild {
  static final int HALT = 99;

  /** Where the child halts. */
  enum Point {
    NONE, BEFORE_SINK, IN_SINK, AFTER_SINK, AFTER_PRECOMMIT, BEFORE_COMMIT, IN_COMMIT;

    static Point parse(String s) {
      return valueOf(s.toUpperCase().replace('-', '_'));
    }

    String label() {
      return name().toLowerCase().replace('_', '-');
    }
  }

  static final AtomicInteger sinkCalls = new AtomicInteger();
  static final AtomicInteger precommits = new AtomicInteger();
  static final AtomicInteger commits = new AtomicInteger();

  public static void main(String[] args) throws Exception {
    Path stateDir = Path.of(args[0]);
    Path targetDb = Path.of(args[1]);
    Path outDir = Path.of(args[2]);
    long seed = Long.parseLong(args[3]);
    int generation = Integer.parseInt(args[4]);
    Point point = Point.parse(System.getProperty("crash.point", "none"));
    int after = Integer.getInteger("crash.after", 1);

    Interposer interposer = new Interposer(new Interposer.SinkHook() {
      @Override
      public <A> void apply(Interposer.RealSink<A> real, List<TargetAction<A>> actions)
          throws Exception {
        int n = sinkCalls.incrementAndGet();
        boolean here = n == after;
        if (here && point == Point.BEFORE_SINK) {
          halt();
        }
        if (here && point == Point.IN_SINK && actions.size() > 1) {
          real.apply(actions.subList(0, actions.size() / 2));
          halt();
        }
        real.apply(actions);
        if (here && (point == Point.AFTER_SINK || point == Point.IN_SINK)) {
          halt();
        }
      }
    });
    ForwardingStateStore store = new ForwardingStateStore(SqliteStateStore.open(stateDir)) {
      @Override
      public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
        if (ForwardingStateStore.isCommit(writes)) {
          boolean here = commits.incrementAndGet() == after;
          if (here && point == Point.BEFORE_COMMIT) {
            halt();
          }
          CompletableFuture<Void> f = delegate.write(app, writes);
          if (here && point == Point.IN_COMMIT) {
            // Halt while the writer thread is (or may be) inside the transaction.
            long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(1_000_000);
            while (System.nanoTime() < until) {
              Thread.onSpinWait();
            }
            halt();
          }
          return f;
        }
        boolean here = precommits.incrementAndGet() == after;
        CompletableFuture<Void> f = delegate.write(app, writes);
        if (here && point == Point.AFTER_PRECOMMIT) {
          f.join();
          halt();
        }
        return f;
      }

      /** Recording the run as settled is a commit too: the one that settles what it applied. */
      @Override
      public void runSettled(String app, long version) {
        boolean here = commits.incrementAndGet() == after;
        if (here && point == Point.BEFORE_COMMIT) {
          halt();
        }
        if (here && point == Point.IN_COMMIT) {
          Thread writer = new Thread(() -> delegate.runSettled(app, version));
          writer.start();
          long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(1_000_000);
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
          halt();
        }
        delegate.runSettled(app, version);
      }
    };
    World world = World.of(seed, generation);
    int code = 0;
    try (SqliteDatabase db = SqliteDatabase.open(targetDb);
        App app = App.create("crash", Environment.builder().stateStore(store)
            .provide(CrashApp.DB, db).build(), CrashApp.main(world, outDir, interposer))) {
      System.out.println("START");
      System.out.flush();
      try {
        app.update();
      } catch (UpdateFailedException e) {
        System.out.println("FAILED " + e.getMessage().replace('\n', ' '));
        code = 3;
      }
    } finally {
      store.close();
    }
    System.out.println("DONE sink=" + sinkCalls.get() + " precommit=" + precommits.get()
        + " commit=" + commits.get());
    System.out.flush();
    System.exit(code);
  }

  static void halt() {
    System.out.flush();
    Runtime.getRuntime().halt(HALT);
  }
}
