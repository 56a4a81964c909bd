package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Trees against the gates of components in flight, one per nesting level ({@code Run#inFlight}):
 * more children per level than a gate's slots, components waiting in foreground children at
 * every level on pools of one and two threads, parallel streams, memoized parents, failures, a
 * run stopped early, a preview and a drop. A component at level L holds a slot of L's gate while
 * its body runs and while it waits for its children, who take L+1's; each run here must end, and
 * apply exactly what it declares.
 */
class InFlightLevelsTest extends EngineTestBase {
  final Rows rows = new Rows();
  private final List<App> opened = new ArrayList<>();

  @AfterEach
  void closeOpened() {
    opened.forEach(App::close);
  }

  /** An app on this test's store whose component pool has {@code parallelism} threads. */
  App app(int parallelism, Consumer<Ctx> main) {
    Environment env = ON_POSTGRES
        ? Environment.builder().stateStore(store()).parallelism(parallelism).build()
        : Environment.builder().dbPath(dbPath).parallelism(parallelism).build();
    App app = App.create("levels", env, main);
    opened.add(app);
    return app;
  }

  /**
   * What {@code run} returns, run on a thread of its own; a run that has not ended after {@code
   * seconds} fails the test with every thread's stack (the cycle a hang is waiting in).
   */
  static <T> T within(int seconds, Supplier<T> run) throws Exception {
    CompletableFuture<T> f = CompletableFuture.supplyAsync(run, ThreadPerTask.INSTANCE);
    try {
      return f.get(seconds, TimeUnit.SECONDS);
    } catch (TimeoutException hung) {
      throw new AssertionError(
          "the run did not end in " + seconds + " s\n" + ThreadDump.ofAllThreads());
    }
  }

  /** The error {@code run} ended with. */
  static Throwable thrownBy(Supplier<?> run) throws Exception {
    try {
      within(60, run);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the run did not fail");
  }

  /** The sink log of creating each of {@code keys} with value "v", sorted as takeLog sorts. */
  static List<String> created(List<String> keys) {
    List<String> out = new ArrayList<>();
    keys.forEach(k -> out.add("create " + k + "=v"));
    Collections.sort(out);
    return out;
  }

  /**
   * Components at two levels each wait in a foreground child for children of the next level,
   * more of them than a level's slots: a thread waiting in a foreground child waits for children
   * whose gate no waiting parent holds.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void componentsWaitingInForegroundChildrenAtEveryLevelFinish(int parallelism)
      throws Exception {
    int parents = 80;
    int children = ON_POSTGRES ? 15 : 40;
    App app = app(parallelism, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < parents; i++) {
        int a = i;
        ctx.mount(a, c -> {
          c.mount("own", o -> declareTargetState(o, p.targetState(a + "", "v")));
          c.useMount("f", f -> {
            for (int j = 0; j < children; j++) {
              int b = j;
              f.mount(b, cc -> cc.useMount("g", g -> {
                g.mount("x", x -> declareTargetState(x, p.targetState(a + "/" + b + "x", "v")));
                g.mount("y", y -> declareTargetState(y, p.targetState(a + "/" + b + "y", "v")));
                return null;
              }));
            }
            return null;
          });
        });
      }
    });
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < parents; i++) {
      keys.add(i + "");
      for (int j = 0; j < children; j++) {
        keys.add(i + "/" + j + "x");
        keys.add(i + "/" + j + "y");
      }
    }
    within(60, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    within(60, app::update);
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * A body's parallel stream mounts foreground children on the pool's threads, each mounting
   * children that wait in foreground children of their own: more than a level's slots.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aParallelStreamOfForegroundChildrenMountingMoreThanALevelsSlotsFinishes(int parallelism)
      throws Exception {
    int n = 200;
    App app = app(parallelism, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int r = 0; r < 3; r++) {
        int top = r;
        ctx.mount(top, c -> IntStream.range(0, n).parallel().forEach(i -> c.useMount(i, f -> {
          f.mount("a", a -> declareTargetState(a, p.targetState(top + "/" + i + "a", "v")));
          f.mount("b", b -> b.useMount("u", u -> {
            u.mount("leaf", l -> declareTargetState(l, p.targetState(top + "/" + i + "b", "v")));
            return null;
          }));
          return null;
        })));
      }
    });
    List<String> keys = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      for (int i = 0; i < n; i++) {
        keys.add(r + "/" + i + "a");
        keys.add(r + "/" + i + "b");
      }
    }
    within(60, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
  }

  /**
   * A chain 400 deep alternating a mounted link and two foreground ones (past the 64 foreground
   * components a thread nests), each link mounting three leaves: some 130 levels of gates.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aDeepChainMixingMountedAndForegroundLinksFinishes(int parallelism) throws Exception {
    int depth = 400;
    App app = app(parallelism, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      link(ctx, p, 0, depth);
    });
    List<String> keys = new ArrayList<>();
    for (int d = 0; d < depth; d++) {
      for (int k = 0; k < 3; k++) {
        keys.add(String.format("%03d-%d", d, k));
      }
    }
    within(60, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    within(60, app::update);
    assertThat(rows.takeLog()).isEmpty();
  }

  private static void link(Ctx c, TargetStateProvider<String> p, int d, int depth) {
    if (d == depth) {
      return;
    }
    for (int k = 0; k < 3; k++) {
      String key = String.format("%03d-%d", d, k);
      c.mount("leaf" + k, l -> declareTargetState(l, p.targetState(key, "v")));
    }
    if (d % 3 == 0) {
      c.mount("next", n -> link(n, p, d + 1, depth));
    } else {
      c.useMount("next", n -> {
        link(n, p, d + 1, depth);
        return null;
      });
    }
  }

  /**
   * Memoized parents of more children than a level's slots: every memo holds in the next run,
   * and a changed input reruns its parent's whole subtree alone.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void memoizedParentsOfMoreChildrenThanALevelsSlotsHitAndMiss(int parallelism)
      throws Exception {
    int parents = 100;
    int children = 70;
    Map<Integer, String> inputs = new ConcurrentHashMap<>();
    for (int i = 0; i < parents; i++) {
      inputs.put(i, "v");
    }
    App app = app(parallelism, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < parents; i++) {
        int a = i;
        String value = inputs.get(a);
        ctx.mountMemo(a, value, c -> {
          for (int j = 0; j < children; j++) {
            int b = j;
            c.mount(b, cc -> declareTargetState(cc, p.targetState(a + "/" + b, value)));
          }
          c.useMount("f", f -> {
            f.mount("x", x -> declareTargetState(x, p.targetState(a + "x", value)));
            return null;
          });
        });
      }
    });
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < parents; i++) {
      keys.add(i + "x");
      for (int j = 0; j < children; j++) {
        keys.add(i + "/" + j);
      }
    }
    within(60, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    UpdateStats hits = within(60, app::update);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(hits.componentsMemoized()).isEqualTo(parents);
    assertThat(hits.componentsRun()).as("the root alone").isEqualTo(1);
    for (int i = 0; i < parents; i += 10) {
      inputs.put(i, "w");
    }
    within(60, app::update);
    List<String> updated = new ArrayList<>();
    for (int i = 0; i < parents; i += 10) {
      updated.add("update " + i + "x=w");
      for (int j = 0; j < children; j++) {
        updated.add("update " + i + "/" + j + "=w");
      }
    }
    Collections.sort(updated);
    assertThat(rows.takeLog()).isEqualTo(updated);
  }

  /**
   * Of 200 children of one component, each waiting in a foreground child for a leaf, every
   * seventh leaf fails: it fails its child (its foreground parent throws), the others apply,
   * and the next run applies the rest.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void failingLeavesFailOnlyTheirOwnBranches(int parallelism) throws Exception {
    int n = 200;
    AtomicBoolean failing = new AtomicBoolean(true);
    App app = app(parallelism, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("p", pc -> {
        for (int i = 0; i < n; i++) {
          int a = i;
          pc.mount(a, c -> c.useMount("g", g -> {
            g.mount("leaf", leaf -> {
              if (failing.get() && a % 7 == 0) {
                throw new IllegalStateException("leaf " + a);
              }
              declareTargetState(leaf, p.targetState(a + "", "v"));
            });
            return null;
          }));
        }
      });
    });
    Throwable failed = thrownBy(app::update);
    assertThat(failed).isInstanceOf(UpdateFailedException.class);
    List<String> failedComponents = new ArrayList<>();
    ((UpdateFailedException) failed).failures().forEach(f -> failedComponents.add(f.component()));
    Collections.sort(failedComponents);
    List<String> expectedFailures = new ArrayList<>();
    List<String> applied = new ArrayList<>();
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (i % 7 == 0) {
        expectedFailures.add("/\"p\"/" + i);
        expectedFailures.add("/\"p\"/" + i + "/\"g\"/\"leaf\"");
        rest.add(i + "");
      } else {
        applied.add(i + "");
      }
    }
    Collections.sort(expectedFailures);
    assertThat(failedComponents).isEqualTo(expectedFailures);
    assertThat(rows.takeLog()).isEqualTo(created(applied));
    failing.set(false);
    within(60, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(rest));
  }

  /**
   * A fatal error in one leaf of 3,000, while every level holds slots, stops the run: the update
   * throws it as it was thrown, and the next run applies what the stopped one did not. Before the
   * gate per level, the stopped run's 3,000 children, each waiting in a foreground child, were
   * queued at once on the worker that mounted them, which ran them nested in its waits until its
   * stack overflowed: the run never ended (the same without the fatal error).
   */
  @Test
  void aFatalErrorWhileEveryLevelHoldsSlotsStopsTheRunAndTheNextFinishes() throws Exception {
    AtomicBoolean faulty = new AtomicBoolean(true);
    int parents = 100;
    int children = 30;
    App app = app(2, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < parents; i++) {
        int a = i;
        ctx.mount(a, c -> {
          for (int j = 0; j < children; j++) {
            int b = j;
            c.mount(b, cc -> cc.useMount("g", g -> {
              g.mount("leaf", leaf -> {
                if (faulty.get() && a == 50 && b == 20) {
                  throw new OutOfMemoryError("test: out of memory in a leaf");
                }
                declareTargetState(leaf, p.targetState(a + "/" + b, "v"));
              });
              return null;
            }));
          }
        });
      }
    });
    assertThat(thrownBy(app::update)).isInstanceOf(OutOfMemoryError.class)
        .hasMessage("test: out of memory in a leaf");
    List<String> written = new ArrayList<>(rows.takeLog());
    faulty.set(false);
    within(60, app::update);
    written.addAll(rows.takeLog());
    // A row the stopped run applied but did not commit is written again, as an update.
    TreeSet<String> writtenRows = new TreeSet<>();
    for (String line : written) {
      assertThat(line).matches("(create|update) .*");
      writtenRows.add(line.substring(line.indexOf(' ') + 1));
    }
    TreeSet<String> declared = new TreeSet<>();
    for (int i = 0; i < parents; i++) {
      for (int j = 0; j < children; j++) {
        declared.add(i + "/" + j + "=v");
      }
    }
    assertThat(writtenRows).isEqualTo(declared);
    within(60, app::update);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers().get("rows")).hasSize(parents * children);
  }

  /**
   * A preview plans exactly what the update then applies, and a drop deletes it all, for
   * components waiting in foreground children whose parallel streams mount more children than a
   * level's slots (a preview's and a drop's components commit at once, on the thread that ends
   * them: the slots they give back admit the next components there).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aPreviewAndADropOfForegroundWaitsOverParallelStreamsFinish(int parallelism)
      throws Exception {
    int parents = 60;
    int children = 30;
    App app = app(parallelism, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < parents; i++) {
        int a = i;
        ctx.mount(a, c -> c.useMount("f", f -> {
          IntStream.range(0, children).parallel().forEach(j -> f.mount(j, cc -> cc.useMount("g",
              g -> {
                g.mount("leaf", l -> declareTargetState(l, p.targetState(a + "/" + j, "v")));
                return null;
              })));
          return null;
        }));
      }
    });
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < parents; i++) {
      for (int j = 0; j < children; j++) {
        keys.add(i + "/" + j);
      }
    }
    Preview preview = within(60, app::preview);
    List<String> planned = new ArrayList<>();
    preview.actions().forEach(a -> {
      Rows.RowAction r = (Rows.RowAction) a.action().value();
      planned.add(a.action().verb() + " " + r.key() + "=" + r.value());
    });
    Collections.sort(planned);
    assertThat(planned).isEqualTo(created(keys));
    within(60, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    within(60, app::dropState);
    List<String> deleted = new ArrayList<>();
    keys.forEach(k -> deleted.add("delete " + k));
    Collections.sort(deleted);
    assertThat(rows.takeLog()).isEqualTo(deleted);
    assertThat(app.status().providers()).isEmpty();
  }

  /**
   * Three components of 300 children each, each child waiting in a foreground child for five
   * of its own that wait in theirs: previewed, applied, and run again with nothing to do. Before
   * the gate per level, on PostgreSQL, the children queued on the worker that mounted them ran
   * nested in its waits: its stack overflowed on a pool of one thread, and on two the run never
   * ended. With the gate, a worker still held up to a level's slots of them nested, and about one
   * run in four never ended (the next case says why); now it holds one of each level at most.
   */
  @Test
  void childrenWaitingForTheirOwnInForegroundChildrenNestNoDeeperThanTheirLevelsSlots()
      throws Exception {
    App app = app(2, waitingTree(3, 300, 5, (level, path, body) -> body.run()));
    List<String> keys = waitingTreeKeys(3, 300, 5);
    assertThat(within(60, app::preview).actions()).hasSize(keys.size());
    within(60, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    within(60, app::update);
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * A worker waiting in a component runs, nested in that wait, only bodies of components deeper
   * than every one it is running: on its stack, background components of ever deeper levels,
   * one of each at most. A body of a level it holds a slot of, run there, would keep that slot
   * from the components that its own subtree waits for; the components of the previous case
   * hung that way about one run in four on PostgreSQL, a worker holding 68 children nested.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aWaitingWorkerRunsNestedOnlyBodiesDeeperThanThoseItRuns(int parallelism)
      throws Exception {
    ThreadLocal<List<Integer>> levelsRunning = ThreadLocal.withInitial(ArrayList::new);
    List<String> nestedAtOrBelow = Collections.synchronizedList(new ArrayList<>());
    App app = app(parallelism, waitingTree(2, 100, 3, (level, path, body) -> {
      List<Integer> running = levelsRunning.get();
      if (!running.isEmpty() && running.get(running.size() - 1) >= level) {
        nestedAtOrBelow.add(path + " at level " + level + " over " + running);
      }
      running.add(level);
      try {
        body.run();
      } finally {
        running.remove(running.size() - 1);
      }
    }));
    within(60, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(waitingTreeKeys(2, 100, 3)));
    assertThat(nestedAtOrBelow).isEmpty();
  }

  /** Runs the body of a background component of {@link #waitingTree}, given its level and path. */
  interface AroundBody {
    void run(int level, String path, Runnable body);
  }

  /**
   * A main mounting {@code parents} components of {@code children} children, each child waiting
   * in a foreground child for {@code grandchildren} of its own that wait in theirs, each declaring
   * the row {@code parent/child/grandchild}; every background body runs through {@code around}.
   */
  Consumer<Ctx> waitingTree(int parents, int children, int grandchildren, AroundBody around) {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < parents; i++) {
        int a = i;
        ctx.mount(a, c -> around.run(0, "" + a, () -> {
          for (int j = 0; j < children; j++) {
            int b = j;
            c.mount(b, cc -> around.run(1, a + "/" + b, () -> cc.useMount("g", g -> {
              for (int k = 0; k < grandchildren; k++) {
                int d = k;
                g.mount(d, gc -> around.run(2, a + "/" + b + "/" + d,
                    () -> gc.useMount("h", h -> {
                      declareTargetState(h, p.targetState(a + "/" + b + "/" + d, "v"));
                      return null;
                    })));
              }
              return null;
            })));
          }
        }));
      }
    };
  }

  /** The rows {@link #waitingTree} declares. */
  static List<String> waitingTreeKeys(int parents, int children, int grandchildren) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < parents; i++) {
      for (int j = 0; j < children; j++) {
        for (int k = 0; k < grandchildren; k++) {
          keys.add(i + "/" + j + "/" + k);
        }
      }
    }
    return keys;
  }

  /**
   * A component's children are leased in batches as large as their level's slots admit, however
   * long bodies hold a thread: no other worker can run them while this one holds their parent's
   * lease, so the bound of components leased ahead of their start, which leaves the rest of a
   * round to the other workers, has nothing to leave them. Under that bound, a body that held
   * its thread a while (a slow source, or the wait for a foreground subtree) narrowed it to two
   * per thread, and the children below it were leased two per round trip.
   */
  @Test
  void theChildrenOfALeasedComponentAreLeasedInBatchesAfterALongBody() throws Exception {
    assumeTrue(ON_POSTGRES, "leases are a shared store's");
    int children = 200;
    List<Integer> childBatches = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean mounting = new AtomicBoolean();
    StateStore counting = new ForwardingStateStore(store()) {
      @Override
      public List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
        if (mounting.get()) {
          childBatches.add(componentPaths.size());
        }
        return super.leaseComponents(app, componentPaths);
      }
    };
    App app = App.create("leased", Environment.builder().stateStore(counting).parallelism(1)
        .build(), ctx -> {
          TargetStateProvider<String> p =
              registerRootTargetStatesProvider(ctx, "rows", rows.handler);
          // Holds its thread a quarter of a second: the mean time bodies hold one, for a while.
          ctx.mount("slow", s -> sleep(250));
          ctx.mount("parent", c -> {
            sleep(400); // after "slow" has reported its time
            mounting.set(true);
            for (int i = 0; i < children; i++) {
              String key = String.format("%03d", i);
              c.mount(i, cc -> declareTargetState(cc, p.targetState(key, "v")));
            }
          });
        });
    opened.add(app);
    within(60, app::update);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < children; i++) {
      keys.add(String.format("%03d", i));
    }
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    // The first 64 children, their level's slots, are requested while the parent mounts them.
    int calls = 0;
    int leased = 0;
    synchronized (childBatches) {
      for (int batch : childBatches) {
        calls++;
        leased += batch;
        if (leased >= 64) {
          break;
        }
      }
    }
    assertThat(calls).as("round trips leasing the first 64 children").isLessThanOrEqualTo(3);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
