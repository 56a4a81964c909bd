package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Exploration: shapes of trees against the gates of components in flight per level. */
class InFlightLevelsTest extends EngineTestBase {
  final Rows rows = new Rows();
  final List<App> opened = new ArrayList<>();

  @AfterEach
  void closeOpened() {
    opened.forEach(App::close);
  }

  App app(int parallelism, Consumer<Ctx> main) {
    Environment env = ON_POSTGRES
        ? Environment.builder().stateStore(store()).parallelism(parallelism).build()
        : Environment.builder().dbPath(dbPath).parallelism(parallelism).build();
    App app = App.create("levels" + parallelism, env, main);
    opened.add(app);
    return app;
  }

  /** Runs {@code what} on a thread of its own; on a hang, dumps every thread and fails. */
  <T> T within(String name, int seconds, Supplier<T> what) throws Exception {
    CompletableFuture<T> f = CompletableFuture.supplyAsync(what, ThreadPerTask.INSTANCE);
    try {
      return f.get(seconds, TimeUnit.SECONDS);
    } catch (TimeoutException hung) {
      StringBuilder dump = new StringBuilder();
      for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
        dump.append('"').append(e.getKey().getName()).append("\" ")
            .append(e.getKey().getState()).append('\n');
        for (StackTraceElement s : e.getValue()) {
          dump.append("    at ").append(s).append('\n');
        }
        dump.append('\n');
      }
      java.nio.file.Path out = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
          "wt-gates-dump-" + name + (ON_POSTGRES ? "-pg" : "") + ".txt");
      java.nio.file.Files.writeString(out, dump);
      throw new AssertionError(name + " hung; threads dumped to " + out);
    }
  }

  static List<String> created(List<String> keys) {
    List<String> out = new ArrayList<>();
    keys.forEach(k -> out.add("create " + k + "=v"));
    Collections.sort(out);
    return out;
  }

  // A: many parents, each waiting in a foreground child for bg children that wait in theirs.
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void foregroundInEveryLevel(int parallelism) throws Exception {
    int parents = 150;
    int children = ON_POSTGRES ? 20 : 40;
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
    within("A" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    within("A2-" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEmpty();
  }

  // B: a parallel stream of foreground children, each mounting bg children, in a bg body.
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void parallelStreamOfForegroundChildren(int parallelism) throws Exception {
    int n = 300;
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
    within("B" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
  }

  // C: a deep chain alternating mount and useMount, each link mounting a few bg leaves.
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void deepMixedChain(int parallelism) throws Exception {
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
    within("C" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
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

  // D: memoized parents over more children than a level's slots; hits, then some inputs change.
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void memoizedParents(int parallelism) throws Exception {
    int parents = 100;
    int children = 70;
    Map<Integer, String> inputs = new java.util.concurrent.ConcurrentHashMap<>();
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
    within("D" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    UpdateStats hits = within("D2-" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(hits.componentsMemoized()).isEqualTo(parents);
    for (int i = 0; i < parents; i += 10) {
      inputs.put(i, "w");
    }
    within("D3-" + parallelism, 90, app::update);
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

  // E: failing leaves below foreground children of more components than a level's slots.
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void failingLeaves(int parallelism) throws Exception {
    int n = 200;
    java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean(true);
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
    UpdateFailedException failed = null;
    try {
      within("E" + parallelism, 90, app::update);
    } catch (java.util.concurrent.ExecutionException e) {
      failed = (UpdateFailedException) e.getCause();
    }
    assertThat(failed).isNotNull();
    List<String> failedComponents = new ArrayList<>();
    failed.failures().forEach(f -> failedComponents.add(f.component()));
    Collections.sort(failedComponents);
    System.out.println("E failures " + failedComponents.size() + " " + failedComponents.subList(0, 4));
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (i % 7 != 0) {
        keys.add(i + "");
      }
    }
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    failing.set(false);
    within("E2-" + parallelism, 90, app::update);
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < n; i += 7) {
      rest.add(i + "");
    }
    assertThat(rows.takeLog()).isEqualTo(created(rest));
  }

  // F: a fatal error deep in the tree while every level holds slots; the next run finishes.
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void fatalErrorWhileSlotsAreHeld(int parallelism) throws Exception {
    java.util.concurrent.atomic.AtomicBoolean faulty = new java.util.concurrent.atomic.AtomicBoolean(true);
    int parents = 100;
    int children = 30;
    App app = app(parallelism, ctx -> {
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
    long started = System.nanoTime();
    Throwable thrown = null;
    try {
      within("F" + parallelism, 90, app::update);
    } catch (java.util.concurrent.ExecutionException e) {
      thrown = e.getCause();
    }
    System.out.println("F stopped after ms " + (System.nanoTime() - started) / 1_000_000);
    assertThat(thrown).isInstanceOf(OutOfMemoryError.class);
    rows.takeLog();
    faulty.set(false);
    within("F2-" + parallelism, 90, app::update);
    rows.takeLog();
    within("F3-" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(app.status().providers().get("rows")).hasSize(parents * children);
  }

  // G: preview and drop of a tree of foreground waits over more children than a level's slots.
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void previewAndDrop(int parallelism) throws Exception {
    int parents = 100;
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
    Preview preview = within("G" + parallelism, 90, app::preview);
    List<String> planned = new ArrayList<>();
    preview.actions().forEach(a -> {
      Rows.RowAction r = (Rows.RowAction) a.action().value();
      planned.add(a.action().verb() + " " + r.key() + "=" + r.value());
    });
    Collections.sort(planned);
    assertThat(planned).isEqualTo(created(keys));
    within("G2-" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    within("G3-" + parallelism, 90, app::dropState);
    List<String> deleted = new ArrayList<>();
    keys.forEach(k -> deleted.add("delete " + k));
    Collections.sort(deleted);
    assertThat(rows.takeLog()).isEqualTo(deleted);
  }

  // H: many children waiting in foreground children, each of which mounts more such children:
  // the bodies queued on a worker run nested in its waits.
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void foregroundWaitsTwoLevelsDown(int parallelism) throws Exception {
    int parents = 3;
    int children = 300;
    int grandchildren = 5;
    App app = app(parallelism, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      for (int i = 0; i < parents; i++) {
        int a = i;
        ctx.mount(a, c -> {
          for (int j = 0; j < children; j++) {
            int b = j;
            c.mount(b, cc -> cc.useMount("g", g -> {
              for (int k = 0; k < grandchildren; k++) {
                int d = k;
                g.mount(d, gc -> gc.useMount("h", h -> {
                  declareTargetState(h, p.targetState(a + "/" + b + "/" + d, "v"));
                  return null;
                }));
              }
              return null;
            }));
          }
        });
      }
    });
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < parents; i++) {
      for (int j = 0; j < children; j++) {
        for (int k = 0; k < grandchildren; k++) {
          keys.add(i + "/" + j + "/" + k);
        }
      }
    }
    Preview preview = within("H0-" + parallelism, 90, app::preview);
    assertThat(preview.actions()).hasSize(keys.size());
    within("H" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEqualTo(created(keys));
    within("H2-" + parallelism, 90, app::update);
    assertThat(rows.takeLog()).isEmpty();
  }

  /**
   * A component's children are leased in batches as large as their level's slots admit, however
   * long bodies hold a thread: no other worker can run them while this one holds their parent's
   * lease, so the bound of components leased ahead of their start, which leaves the rest of a
   * round to the other workers, has nothing to leave them. Under that bound, a body that held
   * its thread a while (a slow source, or the wait for a foreground subtree) narrowed it to two
   * per thread, and the children below it were leased two per round trip.
   */
  @org.junit.jupiter.api.Test
  void theChildrenOfALeasedComponentAreLeasedInBatchesAfterALongBody() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(ON_POSTGRES, "leases are a shared store's");
    int children = 200;
    List<Integer> childBatches = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.atomic.AtomicBoolean mounting =
        new java.util.concurrent.atomic.AtomicBoolean();
    io.cocoindex.runtime.state.StateStore counting =
        new io.cocoindex.runtime.state.ForwardingStateStore(store()) {
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
    within("leased", 60, app::update);
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
    System.out.println("child batches " + childBatches);
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
