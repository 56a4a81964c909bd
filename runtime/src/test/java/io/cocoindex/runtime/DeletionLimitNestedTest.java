package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.declareTargetStateWithChild;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The deletion limit over nested containers whose states are owned by many components, swept in
 * chunks and batches of several sizes (the system property {@code cocoindex.sweep.chunk}): the
 * count is exact (each tracked state the update would delete, once), a refused update deletes
 * nothing and leaves every tracking record as it was, and an update within the limit deletes
 * exactly what an update without one does.
 */
class DeletionLimitNestedTest extends EngineTestBase {
  @RegisterExtension final SweepChunks sweepChunks = new SweepChunks();

  void sweepInChunksOf(int n) {
    sweepChunks.set(n);
  }

  /**
   * Table "T" of partitions (tables of rows), declared by {@code tableOwner} ("/" the root, "a0"
   * the first component in path order, "zz" the last): partition P1 and row f1 of it by
   * component "f", partition P2 by "p2"; rows r1, r2 (P1) by "a", r3 (P1) and r4 (P2) by "b",
   * r5 (P2) by "c", f2 (P2) by "f"; and row x1 of a flat provider by "x". Once {@link #declared}
   * is false, only "f" is mounted, and fails: its tracking is kept, so P1, f1 and f2 are no
   * candidates of the sweep, but T's drop takes them along with the rest.
   */
  final class Nested {
    final Rows flat = new Rows();
    final Rows rows = new Rows();
    final Tables partitions = new Tables(rows);
    final Tables tables = new Tables(rows, () -> ChildTargetDef.of(partitions.handler));
    final String tableOwner;
    boolean declared = true;

    Nested(String tableOwner) {
      this.tableOwner = tableOwner;
    }

    Consumer<Ctx> main() {
      return ctx -> {
        TargetStateProvider<Tables.TableSpec> root =
            registerRootTargetStatesProvider(ctx, "tables", tables.handler);
        TargetStateProvider<String> x = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
        if (!declared) {
          ctx.mount("f", c -> {
            throw new IllegalStateException("f fails");
          });
          return;
        }
        Tables.TableSpec spec = new Tables.TableSpec("g1");
        TargetStateProvider<Tables.TableSpec> t = tableOwner.equals("/")
            ? mountTarget(ctx, root.targetState("T", spec))
            : ctx.useMount(tableOwner, c -> mountTarget(c, root.targetState("T", spec)));
        TargetStateProvider<String> p2 =
            ctx.useMount("p2", c -> mountTarget(c, t.targetState("P2", spec)));
        TargetStateProvider<String> p1 = ctx.useMount("f", c -> {
          TargetStateProvider<String> p = mountTarget(c, t.targetState("P1", spec));
          declareTargetState(c, p.targetState("f1", "v"));
          declareTargetState(c, p2.targetState("f2", "v"));
          return p;
        });
        ctx.mount("a", c -> {
          declareTargetState(c, p1.targetState("r1", "v"));
          declareTargetState(c, p1.targetState("r2", "v"));
        });
        ctx.mount("b", c -> {
          declareTargetState(c, p1.targetState("r3", "v"));
          declareTargetState(c, p2.targetState("r4", "v"));
        });
        ctx.mount("c", c -> declareTargetState(c, p2.targetState("r5", "v")));
        ctx.mount("x", c -> declareTargetState(c, x.targetState("x1", "v")));
      };
    }

    List<String> logs() {
      List<String> out = new ArrayList<>(tables.takeLog());
      out.addAll(partitions.takeLog());
      out.addAll(rows.takeLog());
      out.addAll(flat.takeLog());
      return out;
    }
  }

  static Stream<Arguments> chunksAndTableOwners() {
    return Stream.of(1, 2, 3, 2048).flatMap(chunk ->
        Stream.of("/", "a0", "zz").map(owner -> Arguments.of(chunk, owner)));
  }

  /** Every tracked state and component record of {@code app}, as text. */
  List<String> tracking(String app) {
    StateStore store = store();
    HexFormat hex = HexFormat.of();
    List<String> out = new ArrayList<>();
    store.scan(app, new byte[0], s -> {
      List<String> records = new ArrayList<>();
      for (PossibleRecord r : s.records()) {
        records.add(r.version() + ":" + (r.isNone() ? "none" : hex.formatHex(r.record())));
      }
      out.add(TargetPath.decode(s.path()) + " of " + TargetPath.decode(s.owner()) + " "
          + records + " children " + s.childGeneration() + "/" + s.childEpoch() + " parent "
          + s.parentGeneration() + "/" + s.parentEpoch());
    });
    for (ComponentRecord c : store.components(app)) {
      out.add("component " + TargetPath.decode(c.path()) + " memo "
          + Arrays.toString(c.memoFingerprint()) + " " + Arrays.toString(c.memoDependencies())
          + " " + Arrays.toString(c.memoValues()) + " " + c.stateCount());
    }
    out.sort(null);
    return out;
  }

  /**
   * Eleven states go: x1 and T through their handlers, and P1, P2, f1, f2, r1..r5 along with T,
   * each counted once however the chunks and batches fall (P1 and the rows of "f" read below T
   * in the store, the others as the sweep meets them). A limit of ten refuses the update:
   * nothing is deleted and no tracking record changes.
   */
  @ParameterizedTest
  @MethodSource("chunksAndTableOwners")
  void aTableOfPartitionsCountsEachStateItTakesAlongOnce(int chunk, String tableOwner) {
    sweepInChunksOf(chunk);
    Nested n = new Nested(tableOwner);
    App app = app(n.main());
    app.update();
    n.logs();
    assertThat(app.status().total()).isEqualTo(11);

    n.declared = false;
    List<String> before = tracking("test");
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(10)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("f fails")
        .hasMessageContaining("would delete 11 target states (2 through their handlers,"
            + " 9 with their containers), more than its deletion limit of 10");
    assertThat(n.logs()).as("nothing deleted").isEmpty();
    assertThat(tracking("test")).as("the tracking records").isEqualTo(before);
  }

  /**
   * With a limit of exactly eleven, the update does what one without a limit does (a twin app on
   * the same store): x1's delete and T's drop, and every tracked state gone.
   */
  @ParameterizedTest
  @MethodSource("chunksAndTableOwners")
  void aLimitOfExactlyTheCountDeletesWhatNoLimitDoes(int chunk, String tableOwner) {
    sweepInChunksOf(chunk);
    Nested limited = new Nested(tableOwner);
    Nested free = new Nested(tableOwner);
    App a = app("limited", limited.main());
    App b = app("free", free.main());
    a.update();
    b.update();
    assertThat(limited.logs()).isEqualTo(free.logs());

    limited.declared = false;
    free.declared = false;
    assertThatThrownBy(() -> a.update(UpdateOptions.defaults().withDeletionLimit(11)))
        .isInstanceOfSatisfying(UpdateFailedException.class, e -> onlyFFailed(e));
    assertThatThrownBy(b::update)
        .isInstanceOfSatisfying(UpdateFailedException.class, e -> onlyFFailed(e));
    List<String> deleted = limited.logs();
    assertThat(deleted).containsExactly("drop T", "delete x1");
    assertThat(deleted).isEqualTo(free.logs());
    assertThat(tracking("limited")).isEqualTo(tracking("free"));
    assertThat(a.status().total()).isZero();
  }

  static void onlyFFailed(UpdateFailedException e) {
    assertThat(e.failures()).extracting(ComponentFailure::component).containsExactly("/\"f\"");
  }

  /**
   * The table's handler abandons T once it is no longer declared (it returns no action, so T and
   * what is in it stay in the database): the sweep forgets T's tracking with everything below
   * it and deletes none of it, so only x1 counts (they counted: 6 states "with their
   * containers", the candidates below T, and the update was refused).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 2048})
  void statesForgottenWithAnAbandonedTableAreNoDeletions(int chunk) {
    sweepInChunksOf(chunk);
    Nested n = new Nested("zz");
    App app = app(n.main());
    app.update();
    n.logs();

    n.declared = false;
    n.tables.abandonWhenUndeclared = true;
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(0)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 1 target states (1 through their handlers,"
            + " 0 with their containers), more than its deletion limit of 0");
    assertThat(n.logs()).as("nothing deleted").isEmpty();

    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(1)))
        .isInstanceOfSatisfying(UpdateFailedException.class, e -> onlyFFailed(e));
    assertThat(n.logs()).containsExactly("delete x1");
    assertThat(app.status().total()).isZero();
  }

  /**
   * T changes so that its partitions are destroyed (DESTRUCTIVE) in the run that no longer
   * declares P1 (nor flat row x1): T's recreate takes P1 and its rows along, and the sweep only
   * forgets them (the limit does not weigh a container's recreate), so only x1 counts (they
   * counted: 3 states "with their containers", the rows below P1, and the update was refused).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 2048})
  void statesForgottenBelowAPartitionItsTableDestroyedAreNoDeletions(int chunk) {
    sweepInChunksOf(chunk);
    Rows flat = new Rows();
    Rows rows = new Rows();
    Tables partitions = new Tables(rows);
    Tables tables = new Tables(rows, () -> ChildTargetDef.of(partitions.handler));
    String[] generation = {"g1"};
    boolean[] declared = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> root =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> x = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      TargetStateProvider<Tables.TableSpec> t =
          mountTarget(ctx, root.targetState("T", new Tables.TableSpec(generation[0])));
      if (declared[0]) {
        TargetStateProvider<String> p1 = ctx.useMount("p1",
            c -> mountTarget(c, t.targetState("P1", new Tables.TableSpec("g1"))));
        ctx.mount("a", c -> {
          declareTargetState(c, p1.targetState("r1", "v"));
          declareTargetState(c, p1.targetState("r2", "v"));
        });
        ctx.mount("b", c -> declareTargetState(c, p1.targetState("r3", "v")));
        ctx.mount("x", c -> declareTargetState(c, x.targetState("x1", "v")));
      }
    });
    app.update();
    tables.takeLog();
    partitions.takeLog();
    rows.takeLog();
    flat.takeLog();

    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation[0] = "g2";
    declared[0] = false;
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(0)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 1 target states (1 through their handlers,"
            + " 0 with their containers), more than its deletion limit of 0");
    assertThat(tables.takeLog()).as("the recreate").containsExactly("ensure T");
    assertThat(flat.takeLog()).isEmpty();

    app.update(UpdateOptions.defaults().withDeletionLimit(1));
    assertThat(tables.takeLog()).containsExactly("ensure T");
    assertThat(partitions.takeLog()).as("P1 went with T's recreate").isEmpty();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(flat.takeLog()).containsExactly("delete x1");
    assertThat(app.status().total()).isEqualTo(1);
  }

  /**
   * T is declared as a state without children (as a directory that is now a file) in the run
   * in which the owners of its partition P1 and of P1's rows are no longer mounted: T's own
   * action took care of what was below it, and the sweep only forgets P1 and its rows, so only
   * x1 counts (they counted: the 2 rows "with their containers", and the update was refused).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 2048})
  void statesForgottenBelowAContainerDeclaredWithoutChildrenAreNoDeletions(int chunk) {
    sweepInChunksOf(chunk);
    Rows flat = new Rows();
    Rows rows = new Rows();
    Tables partitions = new Tables(rows);
    Tables tables = new Tables(rows, () -> ChildTargetDef.of(partitions.handler));
    boolean[] declared = {true};
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> root =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> x = registerRootTargetStatesProvider(ctx, "flat", flat.handler);
      if (!declared[0]) {
        declareTargetState(ctx, root.targetState("T", new Tables.TableSpec("g1")));
        return;
      }
      TargetStateProvider<Tables.TableSpec> t =
          mountTarget(ctx, root.targetState("T", new Tables.TableSpec("g1")));
      TargetStateProvider<String> p1 = ctx.useMount("p1",
          c -> mountTarget(c, t.targetState("P1", new Tables.TableSpec("g1"))));
      ctx.mount("a", c -> declareTargetState(c, p1.targetState("r1", "v")));
      ctx.mount("b", c -> declareTargetState(c, p1.targetState("r2", "v")));
      ctx.mount("x", c -> declareTargetState(c, x.targetState("x1", "v")));
    });
    app.update();
    tables.takeLog();
    partitions.takeLog();
    rows.takeLog();
    flat.takeLog();

    declared[0] = false;
    assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(0)))
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("would delete 1 target states (1 through their handlers,"
            + " 0 with their containers), more than its deletion limit of 0");
    assertThat(flat.takeLog()).isEmpty();

    app.update(UpdateOptions.defaults().withDeletionLimit(1));
    assertThat(partitions.takeLog()).isEmpty();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(flat.takeLog()).containsExactly("delete x1");
    assertThat(app.status().total()).isEqualTo(1);
  }

  /**
   * A random removal from a random shape (see {@link RandomShape}), one per seed, the chunk size
   * drawn too. A twin app without a limit runs the removal first; what it deleted is the oracle:
   * its sinks' deletes and drops, and the states tracked before the removal below each table or
   * partition it dropped. With a limit of one less, the update is refused naming exactly that
   * count, deletes nothing, and leaves every tracked state (and every record of a component it
   * did not run) as it was; with a limit of exactly that count, it deletes what the twin did.
   * Seeds 1-40 (5 of which failed before forgotten states stopped counting; 77 of 600), or as
   * many as {@code -Dcocoindex.test.limitSeeds=N} asks.
   */
  @ParameterizedTest
  @MethodSource("seeds")
  void aRandomRemovalIsCountedAsTheTwinWithoutALimitDeletes(int seed) {
    Random random = new Random(seed);
    sweepInChunksOf(new int[] {1, 2, 3, 5, 2048}[random.nextInt(5)]);
    RandomShape limited = new RandomShape(seed);
    RandomShape free = new RandomShape(seed);
    App a = app("limited", limited.main());
    App b = app("free", free.main());
    a.update();
    b.update();
    limited.logs();
    free.logs();

    List<TargetPath> trackedBefore = new ArrayList<>();
    store().scan("free", new byte[0], st -> trackedBefore.add(TargetPath.decode(st.path())));
    limited.remove();
    free.remove();
    updateIgnoringFailures(b, UpdateOptions.defaults());
    List<String> deleted = free.logs();
    long expected = 0;
    for (String entry : deleted) {
      if (entry.startsWith("drop ")) {
        String container = entry.substring("drop ".length());
        TargetPath path = trackedBefore.stream()
            .filter(p -> p.last().equals(StableKey.of(container))).findFirst()
            .orElseThrow();
        expected += 1 + trackedBefore.stream()
            .filter(p -> p.depth() > path.depth() && p.startsWith(path)).count();
      } else if (entry.startsWith("delete ")) {
        expected++;
      }
    }

    if (expected > 0) {
      List<String> states = states("limited");
      List<String> records = recordsNotRunBy("limited", limited);
      long limit = expected - 1;
      assertThatThrownBy(() -> a.update(UpdateOptions.defaults().withDeletionLimit(limit)))
          .as("shape %s", limited).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("would delete " + expected + " target states (");
      assertThat(limited.logs()).as("nothing deleted (containers declared are ensured)")
          .allMatch(entry -> entry.startsWith("ensure "));
      assertThat(states("limited")).as("tracked states").isEqualTo(states);
      assertThat(recordsNotRunBy("limited", limited)).isEqualTo(records);
    }
    updateIgnoringFailures(a, UpdateOptions.defaults().withDeletionLimit(expected));
    assertThat(limited.logs()).as("shape %s", limited).isEqualTo(deleted);
    assertThat(withoutVersions(states("limited"))).isEqualTo(withoutVersions(states("free")));
  }

  static IntStream seeds() {
    return IntStream.rangeClosed(1, Integer.getInteger("cocoindex.test.limitSeeds", 40));
  }

  static void updateIgnoringFailures(App app, UpdateOptions options) {
    try {
      app.update(options);
    } catch (UpdateFailedException e) {
      assertThat(e.failures()).extracting(ComponentFailure::component)
          .as("only \"f\" fails").containsOnly("/\"f\"");
    }
  }

  List<String> states(String app) {
    return tracking(app).stream().filter(t -> !t.startsWith("component ")).toList();
  }

  /** The records of the components {@code shape}'s removal does not run. */
  List<String> recordsNotRunBy(String app, RandomShape shape) {
    return tracking(app).stream().filter(t -> t.startsWith("component /")
        && shape.notRun.stream().anyMatch(c -> t.startsWith("component /\"" + c + "\""))).toList();
  }

  static List<String> withoutVersions(List<String> states) {
    return states.stream().map(t -> t.replaceAll("\\b\\d+:", "")).toList();
  }

  /**
   * Tables T0, T1 of partitions of rows, each table declared by the root (through its own
   * target component), or by component "a{i}" or "z{i}" (first and last in path order); each
   * partition by component "p{i}{j}" or by "f"; rows by components "c0".."c3" or "f", and flat
   * rows by the c components. The removal undeclares tables and partitions (their owners
   * unmounted, or mounted and declaring nothing), unmounts c components or drops some of their
   * rows, may make the handlers abandon what is no longer declared, and fails "f" (its tracking
   * kept).
   */
  final class RandomShape {
    final Random random;
    final Rows flat = new Rows();
    final Rows rows = new Rows();
    final Tables partitions = new Tables(rows);
    final Tables tables = new Tables(rows, () -> ChildTargetDef.of(partitions.handler));
    final boolean withF;
    /** Table index -> owner ("/" or a component name). */
    final List<String> tableOwners = new ArrayList<>();
    /** Partition name -> {table index, owner}. */
    final Map<String, String[]> partitionOwners = new TreeMap<>();
    /** Row key -> {partition name or "" (flat), owner}. */
    final Map<String, String[]> rowOwners = new TreeMap<>();
    boolean removed;
    final Set<String> undeclared = new HashSet<>();
    final Set<String> unmounted = new HashSet<>();
    final Set<String> notRun = new HashSet<>();

    RandomShape(int seed) {
      random = new Random(seed * 7919L);
      withF = random.nextBoolean();
      int n = 0;
      int tableCount = 1 + random.nextInt(2);
      for (int i = 0; i < tableCount; i++) {
        tableOwners.add(new String[] {"/", "a" + i, "z" + i}[random.nextInt(3)]);
        int partitionCount = random.nextInt(3);
        for (int j = 0; j < partitionCount; j++) {
          String owner = withF && random.nextInt(4) == 0 ? "f" : "p" + i + j;
          partitionOwners.put("P" + i + j, new String[] {Integer.toString(i), owner});
          int rowCount = random.nextInt(4);
          for (int k = 0; k < rowCount; k++) {
            rowOwners.put("r" + n++, new String[] {"P" + i + j, rowOwner()});
          }
        }
      }
      int flatCount = random.nextInt(3);
      for (int k = 0; k < flatCount; k++) {
        rowOwners.put("x" + n++, new String[] {"", "c" + random.nextInt(4)});
      }
    }

    private String rowOwner() {
      return withF && random.nextInt(5) == 0 ? "f" : "c" + random.nextInt(4);
    }

    /** Draws the removal. */
    void remove() {
      removed = true;
      tables.abandonWhenUndeclared = random.nextInt(4) == 0;
      partitions.abandonWhenUndeclared = random.nextInt(4) == 0;
      for (int i = 0; i < tableOwners.size(); i++) {
        if (random.nextInt(3) == 0) {
          undeclared.add("T" + i);
          if (random.nextBoolean()) {
            unmounted.add(tableOwners.get(i));
          }
        }
      }
      partitionOwners.forEach((name, o) -> {
        if (!o[1].equals("f") && (undeclared.contains("T" + o[0]) || random.nextInt(3) == 0)) {
          undeclared.add(name);
          if (random.nextBoolean()) {
            unmounted.add(o[1]);
          }
        }
      });
      for (int c = 0; c < 4; c++) {
        if (random.nextInt(3) == 0) {
          unmounted.add("c" + c);
        }
      }
      rowOwners.forEach((key, o) -> {
        if (!o[1].equals("f") && random.nextInt(3) == 0) {
          undeclared.add(key);
        }
      });
      unmounted.remove("/");
      for (String c : unmounted) {
        notRun.add(c);
      }
      if (withF) {
        notRun.add("f");
      }
    }

    boolean declares(String name) {
      return !removed || !undeclared.contains(name);
    }

    boolean mounts(String component) {
      return !removed || !unmounted.contains(component);
    }

    Consumer<Ctx> main() {
      return ctx -> {
        TargetStateProvider<Tables.TableSpec> root =
            registerRootTargetStatesProvider(ctx, "tables", tables.handler);
        TargetStateProvider<String> x =
            registerRootTargetStatesProvider(ctx, "flat", flat.handler);
        Tables.TableSpec spec = new Tables.TableSpec("g1");
        Map<String, TargetStateProvider<?>> providers = new HashMap<>();
        for (int i = 0; i < tableOwners.size(); i++) {
          String name = "T" + i;
          String owner = tableOwners.get(i);
          if (owner.equals("/")) {
            if (declares(name)) {
              providers.put(name, mountTarget(ctx, root.targetState(name, spec)));
            }
          } else if (mounts(owner)) {
            TargetStateProvider<Tables.TableSpec> t = ctx.useMount(owner, c -> declares(name)
                ? declareTargetStateWithChild(c, root.targetState(name, spec)) : null);
            if (t != null) {
              providers.put(name, t);
            }
          }
        }
        partitionOwners.forEach((name, o) -> {
          if (o[1].equals("f") || !mounts(o[1])) {
            return;
          }
          @SuppressWarnings("unchecked")
          TargetStateProvider<Tables.TableSpec> t =
              (TargetStateProvider<Tables.TableSpec>) providers.get("T" + o[0]);
          TargetStateProvider<String> p = ctx.useMount(o[1], c -> declares(name)
              ? declareTargetStateWithChild(c, t.targetState(name, spec)) : null);
          if (p != null) {
            providers.put(name, p);
          }
        });
        if (withF) {
          if (removed) {
            ctx.mount("f", c -> {
              throw new IllegalStateException("f fails");
            });
          } else {
            ctx.useMount("f", c -> {
              partitionOwners.forEach((name, o) -> {
                if (o[1].equals("f")) {
                  @SuppressWarnings("unchecked")
                  TargetStateProvider<Tables.TableSpec> t =
                      (TargetStateProvider<Tables.TableSpec>) providers.get("T" + o[0]);
                  providers.put(name, mountTarget(c, t.targetState(name, spec)));
                }
              });
              declareRows(c, "f", providers, x);
              return null;
            });
          }
        }
        for (int k = 0; k < 4; k++) {
          String component = "c" + k;
          if (mounts(component)) {
            ctx.mount(component, c -> declareRows(c, component, providers, x));
          }
        }
      };
    }

    @SuppressWarnings("unchecked")
    void declareRows(Ctx c, String owner, Map<String, TargetStateProvider<?>> providers,
        TargetStateProvider<String> flatProvider) {
      rowOwners.forEach((key, o) -> {
        if (!o[1].equals(owner) || !declares(key)) {
          return;
        }
        TargetStateProvider<String> p = o[0].isEmpty() ? flatProvider
            : (TargetStateProvider<String>) providers.get(o[0]);
        if (p != null) {
          declareTargetState(c, p.targetState(key, "v"));
        }
      });
    }

    List<String> logs() {
      List<String> out = new ArrayList<>(tables.takeLog());
      out.addAll(partitions.takeLog());
      out.addAll(rows.takeLog());
      out.addAll(flat.takeLog());
      out.sort(null);
      return out;
    }

    @Override
    public String toString() {
      return "tables " + tableOwners + ", partitions " + partitionOwners.entrySet().stream()
          .map(e -> e.getKey() + "=" + Arrays.toString(e.getValue())).toList() + ", rows "
          + rowOwners.entrySet().stream().map(e -> e.getKey() + "=" + Arrays.toString(e.getValue()))
          .toList() + ", undeclared " + new TreeSet<>(undeclared) + ", unmounted "
          + new TreeSet<>(unmounted) + ", abandoning " + tables.abandonWhenUndeclared
          + "/" + partitions.abandonWhenUndeclared;
    }
  }
}
