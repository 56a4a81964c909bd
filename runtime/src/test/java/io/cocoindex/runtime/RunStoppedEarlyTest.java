package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.threads.SharedThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fatal error (out of memory) anywhere in a run stops the run, as a crash would: nothing is
 * applied or committed after it, the update throws that error as it was thrown, and the next
 * run finishes what the stopped one left. A task of the engine's threads that throws past itself
 * (what it was to complete, lost) stops the run too, rather than leaving it waiting for good;
 * that app then takes no further runs.
 */
@Timeout(60)
class RunStoppedEarlyTest extends EngineTestBase {
  final Rows rows = new Rows();
  volatile boolean faulty = true;
  /** Holds a component body until the test ends: it stands for a wait that never ends. */
  final CountDownLatch released = new CountDownLatch(1);

  @AfterEach
  void release() {
    released.countDown();
  }

  @Test
  void anOutOfMemoryErrorInABodyStopsTheRunAndIsThrownAsItWas() {
    CountDownLatch stopped = new CountDownLatch(1);
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      // Declares only once the run has stopped: its states are neither applied nor committed.
      ctx.mount("late", c -> {
        await(stopped);
        declareTargetState(c, p.targetState("late", "1"));
      });
      try {
        ctx.useMount("oom", c -> {
          if (faulty) {
            throw new OutOfMemoryError("test: out of memory in /oom");
          }
          declareTargetState(c, p.targetState("oom", "1"));
          return null;
        });
      } finally {
        stopped.countDown();
      }
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: out of memory in /oom");
    assertThat(rows.takeLog()).isEmpty();

    faulty = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("create late=1", "create oom=1");
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * On the shared store, the components still waiting to start once a run has stopped ask for no
   * lease: each took a round trip to the store before it saw the stop, all 199 here. The store is
   * told of the stop once.
   */
  @Test
  void theComponentsWaitingToStartWhenARunStopsAreNotLeased() {
    org.junit.jupiter.api.Assumptions.assumeTrue(ON_POSTGRES, "leases are the shared store's");
    int n = 200;
    CountDownLatch firstStarted = new CountDownLatch(1);
    AtomicBoolean thrown = new AtomicBoolean();
    AtomicInteger leasedAfterTheError = new AtomicInteger();
    AtomicInteger toldStopped = new AtomicInteger();
    StateStore counting = new ForwardingStateStore(store()) {
      @Override
      public List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
        if (thrown.get()) {
          leasedAfterTheError.addAndGet(componentPaths.size());
        }
        return super.leaseComponents(app, componentPaths);
      }

      @Override
      public void runAborted(String app, long version) {
        toldStopped.incrementAndGet();
        super.runAborted(app, version);
      }
    };
    App app = app("test", Environment.builder().stateStore(counting).parallelism(1).build(),
        ctx -> {
          TargetStateProvider<String> p =
              registerRootTargetStatesProvider(ctx, "rows", rows.handler);
          for (int i = 0; i < n; i++) {
            String key = String.format("%03d", i);
            ctx.mount(key, c -> {
              if (faulty && key.equals("000")) {
                firstStarted.countDown();
                // The others wait meanwhile, on the pool's one thread: no body has reported its
                // time, so they are leased two at a time (per thread), as they start.
                sleep(300);
                thrown.set(true);
                throw new OutOfMemoryError("test: out of memory in /000");
              }
              declareTargetState(c, p.targetState(key, "1"));
            });
            if (faulty && i == 0) {
              await(firstStarted);
            }
          }
        });
    assertThatThrownBy(app::update).isInstanceOf(OutOfMemoryError.class);
    // The two asked for while the first body ran, no more.
    assertThat(leasedAfterTheError.get()).isLessThanOrEqualTo(2);
    // Told once: the components that gave up as it stopped do not stop it again.
    assertThat(toldStopped.get()).isEqualTo(1);
    List<String> written = new ArrayList<>(rows.takeLog());

    faulty = false;
    app.update();
    written.addAll(rows.takeLog());
    // Every row written once, or again as an update where the stopped run applied it uncommitted.
    Set<String> writtenRows = new TreeSet<>();
    for (String line : written) {
      assertThat(line).matches("(create|update) \\d{3}=1");
      writtenRows.add(line.substring(line.indexOf(' ') + 1));
    }
    assertThat(writtenRows).hasSize(n);
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * The store is told of a run's stop once, however many components give up while it is being
   * told (here it takes 300 ms): each component that saw the run stopping and gave up, its cause
   * the fatal error, had stopped the run again, telling the store once more.
   */
  @Test
  void theStoreIsToldOfAStopOnceWhileComponentsGiveUp() {
    org.junit.jupiter.api.Assumptions.assumeTrue(ON_POSTGRES, "leases are the shared store's");
    AtomicInteger toldStopped = new AtomicInteger();
    StateStore counting = new ForwardingStateStore(store()) {
      @Override
      public void runAborted(String app, long version) {
        toldStopped.incrementAndGet();
        sleep(300);
        super.runAborted(app, version);
      }
    };
    App app = app("test", Environment.builder().stateStore(counting).parallelism(2).build(),
        ctx -> {
          TargetStateProvider<String> p =
              registerRootTargetStatesProvider(ctx, "rows", rows.handler);
          for (int i = 0; i < 100; i++) {
            String key = String.format("%03d", i);
            ctx.mount(key, c -> {
              if (faulty && key.equals("000")) {
                throw new OutOfMemoryError("test: out of memory in /000");
              }
              declareTargetState(c, p.targetState(key, "1"));
            });
          }
        });
    assertThatThrownBy(app::update).isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: out of memory in /000");
    assertThat(toldStopped.get()).isEqualTo(1);
  }

  @Test
  void anOutOfMemoryErrorInASinkStopsTheRunAndTheNextRunAppliesWhatItDidNot() {
    rows.onSinkCall = () -> {
      if (faulty) {
        throw new OutOfMemoryError("test: out of memory in the sink");
      }
    };
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> declareTargetState(c, p.targetState("a", "1")));
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: out of memory in the sink");
    assertThat(rows.takeLog()).isEmpty();
    rows.takeCalls();

    faulty = false;
    app.update();
    // Precommitted before the sink threw: the handler is told it may have been applied.
    assertThat(rows.takeLog()).containsExactly("update a=1");
    assertThat(rows.takeCalls()).extracting(Rows.Call::toString)
        .containsExactly("a desired=1 prev=[1] mbm=true");
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * The app's report of the stop says where the error was thrown: an out-of-memory error is
   * thrown by whatever allocates last, but a sink or a body holding too much is the usual cause,
   * and the update throws the error itself, which cannot say it.
   */
  @Test
  void theReportOfAStopNamesTheSinkItsActionsAndTheComponent() {
    rows.onSinkCall = () -> {
      throw new OutOfMemoryError("test: out of memory in the sink");
    };
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> declareTargetState(c, p.targetState("a", "1")));
    });
    assertThat(loggedDuring(app::update)).contains("update of app '" + app.name() + "' stopped"
        + " early by java.lang.OutOfMemoryError: test: out of memory in the sink (thrown in the"
        + " sink of provider 'rows' applying 1 action (create \"a\") for component /\"c\"): what"
        + " it committed before stands, and the next run finishes the rest");
  }

  @Test
  void theReportOfAStopNamesTheComponentWhoseBodyThrew() {
    App app = app(ctx -> ctx.mount("c", c -> {
      throw new OutOfMemoryError("test: out of memory in /c");
    }));
    assertThat(loggedDuring(app::update)).contains("update of app '" + app.name() + "' stopped"
        + " early by java.lang.OutOfMemoryError: test: out of memory in /c (thrown in component"
        + " /\"c\"): what it committed before stands");
  }

  @Test
  void anOutOfMemoryErrorInAPreviewIsThrownAsItWasAndTheAppGoesOn() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> {
        if (faulty) {
          throw new OutOfMemoryError("test: out of memory in /c");
        }
        declareTargetState(c, p.targetState("c", "1"));
      });
    });
    assertThatThrownBy(app::preview)
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: out of memory in /c");

    faulty = false;
    assertThat(app.preview().actions()).hasSize(1);
    app.update();
    assertThat(rows.takeLog()).containsExactly("create c=1");
  }

  @Test
  void anOutOfMemoryErrorInADropStopsItBeforeItDeletesAnything() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> {
        if (faulty) {
          throw new OutOfMemoryError("test: out of memory in /c");
        }
        declareTargetState(c, p.targetState("c", "1"));
      });
    });
    faulty = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("create c=1");

    // A drop runs the bodies for their registrations only; a failing one is otherwise let go.
    faulty = true;
    assertThatThrownBy(app::dropState)
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: out of memory in /c");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().toString()).contains("rows");

    faulty = false;
    app.dropState();
    assertThat(rows.takeLog()).containsExactly("delete c");
  }

  @Test
  void aTaskThatThrowsPastItselfStopsTheRunInsteadOfLeavingItWaiting() {
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> {
        if (faulty) {
          // A task that throws past itself, as the run's scan of the records did out of memory:
          // what it was to complete never is.
          ForkJoinTask.getPool().execute(() -> {
            throw new OutOfMemoryError("test: a task lost");
          });
          await(released); // the lost task's future, which nothing will complete
        }
        declareTargetState(c, p.targetState("c", "1"));
      });
    };
    App app = app(main);
    assertThatThrownBy(app::update)
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: a task lost");
    assertThatThrownBy(app::update)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("app 'test' takes no further runs: a task of the engine was lost in"
            + " an earlier one (java.lang.OutOfMemoryError: test: a task lost)");
    assertThat(app.status()).isNotNull(); // reading what it tracks still works

    faulty = false;
    released.countDown(); // the stuck body goes on, and commits nothing
    app.close();
    assertThat(rows.takeLog()).isEmpty();
    App reopened = app(main);
    reopened.update();
    assertThat(rows.takeLog()).containsExactly("create c=1");
  }

  /**
   * On the shared PostgreSQL store a component's lease is a lock of one of the store's sessions:
   * one a lost task holds is never given back while the store is open. An app opened again on
   * that store object skipped the component as another worker's, for good, and reported success.
   * It is refused now, naming why, until the lease is given back (here, the stuck body ends).
   */
  @Test
  void anAppOpenedAgainOnTheSharedStoreWhileALostTaskHoldsALeaseIsRefusedNotSkipping()
      throws InterruptedException {
    org.junit.jupiter.api.Assumptions.assumeTrue(ON_POSTGRES, "leases are the shared store's");
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> {
        if (faulty) {
          ForkJoinTask.getPool().execute(() -> {
            throw new OutOfMemoryError("test: a worker died");
          });
          await(released); // still held when the app is opened again: a lost task
        }
        declareTargetState(c, p.targetState("c", "1"));
      });
    };
    App app = app(main);
    assertThatThrownBy(app::update).isInstanceOf(OutOfMemoryError.class);
    faulty = false;
    app.close();
    App reopened = app(main);
    assertThatThrownBy(reopened::update)
        .isInstanceOf(io.cocoindex.runtime.state.StateStoreException.class)
        .hasMessageContaining("app 'test' cannot run on this state store: a run of it in this"
            + " process lost a task (one threw past itself) that holds 1 of its leases");
    assertThat(rows.takeLog()).isEmpty();

    released.countDown(); // the task ends after all: its commit refused, its lease given back
    for (int i = 0; i < 100; i++) {
      try {
        reopened.update();
        break;
      } catch (io.cocoindex.runtime.state.StateStoreException stillHeld) {
        Thread.sleep(50);
      }
    }
    assertThat(rows.takeLog()).containsExactly("create c=1");
  }

  @Test
  void aSharedEngineThreadWhoseTaskDiesStopsTheRunToo() {
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> {
        if (faulty) {
          // As the draining of an app's sink calls that runs out of memory in its own steps:
          // the calls it held are never completed.
          SharedThreads.execute("cocoindex-test-sink", () -> {
            throw new OutOfMemoryError("test: a sink thread's task died");
          });
          await(released); // a component waiting for one of those calls
        }
        declareTargetState(c, p.targetState("c", "1"));
      });
    };
    App app = app(main);
    assertThatThrownBy(app::update)
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: a sink thread's task died");
    assertThatThrownBy(app::update)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("app 'test' takes no further runs");

    faulty = false;
    released.countDown();
    app.close();
    assertThat(rows.takeLog()).isEmpty();
    App reopened = app(main);
    reopened.update();
    assertThat(rows.takeLog()).containsExactly("create c=1");
  }

  /**
   * The orphan sweep waits on the caller's thread for its deletions' sink calls: a lost one (a
   * shared thread's task died, and the call it held is never completed; here, a sink call that
   * never returns stands for it) must not leave the update waiting for good.
   */
  @Test
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aSharedEngineThreadWhoseTaskDiesDuringTheOrphanSweepStopsTheRun() {
    boolean[] declared = {true};
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> {
        if (declared[0]) {
          declareTargetState(c, p.targetState("a", "1"));
        }
      });
    };
    App app = app(main);
    app.update();
    assertThat(rows.takeLog()).containsExactly("create a=1");

    declared[0] = false;
    rows.onSinkCall = () -> {
      if (faulty) {
        SharedThreads.execute("cocoindex-test-sink", () -> {
          throw new OutOfMemoryError("test: a sink thread's task died in the sweep");
        });
        await(released); // the deletion's call, which nothing will complete
      }
    };
    assertThatThrownBy(app::update)
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: a sink thread's task died in the sweep");
    assertThatThrownBy(app::update)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("app 'test' takes no further runs");

    faulty = false;
    released.countDown(); // the stuck call goes on: its deletion is not committed
    app.close();
    awaitLogged(); // on the sink's thread, which the app's close does not wait for
    assertThat(rows.takeLog()).containsExactly("delete a");
    App reopened = app(main);
    reopened.update();
    assertThat(rows.takeLog()).containsExactly("delete a"); // precommitted, not committed
    reopened.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * A merged batch of sink calls that fails out of memory is not retried split by component, as
   * a failing batch otherwise is: the run stops, and nothing more is applied.
   */
  @Test
  void aMergedSinkBatchFailingOutOfMemoryIsNotRetriedSplit() {
    java.util.concurrent.atomic.AtomicInteger call = new java.util.concurrent.atomic.AtomicInteger();
    CountDownLatch firstCall = new CountDownLatch(1);
    rows.onSinkCall = () -> {
      if (!faulty) {
        return;
      }
      if (call.incrementAndGet() == 1) {
        // k1's alone; held while the other components submit theirs: they go out merged, in
        // the next call.
        firstCall.countDown();
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return;
      }
      throw new OutOfMemoryError("test: out of memory in a merged sink call");
    };
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("k1", c -> declareTargetState(c, p.targetState("k1", "1")));
      if (faulty) {
        await(firstCall);
      }
      for (String k : java.util.List.of("k2", "k3", "k4")) {
        ctx.mount(k, c -> declareTargetState(c, p.targetState(k, "1")));
      }
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: out of memory in a merged sink call");
    assertThat(rows.largestBatch.get()).isEqualTo(3); // the three others, merged
    assertThat(rows.sinkCalls.get()).isEqualTo(2); // and no call after the one that failed
    assertThat(rows.takeLog()).containsExactly("create k1=1");

    faulty = false;
    app.update();
    // Precommitted before the merged call failed: each may have been applied (k1 too, if its
    // commit came after the run stopped).
    assertThat(rows.takeLog())
        .contains("update k2=1", "update k3=1", "update k4=1")
        .isSubsetOf("update k1=1", "update k2=1", "update k3=1", "update k4=1");
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * What the app logged while {@code update} ran (slf4j-simple writes to {@code System.err}),
   * the update's own error expected and dropped.
   */
  private static String loggedDuring(Runnable update) {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      assertThatThrownBy(update::run).isInstanceOf(OutOfMemoryError.class);
    } finally {
      System.setErr(err);
    }
    return logged.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Waits (a bounded time) until the rows' sink has logged something. */
  private void awaitLogged() {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (rows.log.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
