package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetAction;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetStateProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A preview plans exactly what the update that follows it applies (nothing changing in between):
 * random runs of tables declared, changed (refreshed, LOSSY or DESTRUCTIVE), dropped and declared
 * again, their rows declared by components (two of them memoized) that come and go, each run
 * previewed and then applied,
 * the preview's actions against the sinks' logs; after each update, the tracked states are
 * exactly those declared, and a final drop of the app's state drops each table (its rows with it)
 * and leaves nothing tracked. So {@code preview --detailed-exitcode} tells the truth, and a
 * reviewed plan is the one carried out.
 */
class PreviewMatchesUpdateTest extends EngineTestBase {
  static final int TABLES = 3;
  static final int KEYS = 6;
  static final int COMPONENTS = 4;

  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  /** table -> its generation, for the tables declared. */
  final Map<Integer, String> declaredTables = new TreeMap<>();
  /** (table, key) -> (component, value), for the rows declared. */
  final Map<List<Integer>, List<Object>> declaredRows = new TreeMap<>(
      (a, b) -> a.get(0).equals(b.get(0)) ? a.get(1) - b.get(1) : a.get(0) - b.get(0));

  static List<Long> seeds() {
    List<Long> out = new ArrayList<>();
    for (long s = 1; s <= 40; s++) {
      out.add(s);
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void aPreviewPlansWhatTheUpdateAfterItApplies(long seed) {
    Random random = new Random(seed);
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      Map<Integer, TargetStateProvider<String>> mounted = new TreeMap<>();
      declaredTables.forEach((t, generation) -> mounted.put(t,
          mountTarget(ctx, p.targetState("t" + t, new Tables.TableSpec(generation)))));
      for (int c = 0; c < COMPONENTS; c++) {
        int comp = c;
        List<Map.Entry<List<Integer>, List<Object>>> mine = new ArrayList<>();
        declaredRows.forEach((tk, cv) -> {
          if ((int) cv.get(0) == comp && mounted.containsKey(tk.get(0))) {
            mine.add(Map.entry(tk, cv));
          }
        });
        if (mine.isEmpty()) {
          continue; // mounted only while it declares something
        }
        java.util.function.Consumer<io.cocoindex.Ctx> body = cc -> mine.forEach(e ->
            declareTargetState(cc, mounted.get(e.getKey().get(0)).targetState(
                "r" + e.getKey().get(1), (String) e.getValue().get(1))));
        if (comp < 2) {
          // Memoized on its rows alone: a table's invalidation must make it miss by itself.
          ctx.mountMemo("c" + comp, mine.toString(), body);
        } else {
          ctx.mount("c" + comp, body);
        }
      }
    });
    StringBuilder history = new StringBuilder("seed " + seed + ":");
    for (int step = 0; step < 8; step++) {
      int edits = 1 + random.nextInt(5);
      for (int e = 0; e < edits; e++) {
        history.append(' ').append(edit(random));
      }
      history.append(" |");
      Preview preview = app.preview();
      List<String> planned = new ArrayList<>();
      for (PlannedAction a : preview.actions()) {
        planned.add(logLine(a.action()));
      }
      Collections.sort(planned);
      app.update();
      List<String> applied = new ArrayList<>(rows.takeLog());
      applied.addAll(tables.takeLog());
      Collections.sort(applied);
      assertThat(applied).as(history.toString()).isEqualTo(planned);
      assertThat(app.preview().hasChanges()).as(history + " then previewed again").isFalse();
      assertThat(app.status().providers()).as(history + " tracked").isEqualTo(tracked());
    }
    // Dropping the app's state drops each table, its rows with it, and leaves nothing tracked.
    app.dropState();
    List<String> drops = new ArrayList<>();
    declaredTables.keySet().forEach(t -> drops.add("drop t" + t));
    assertThat(tables.takeLog()).as(history + " dropped")
        .containsExactlyInAnyOrderElementsOf(drops);
    assertThat(rows.takeLog()).as(history + " dropped").isEmpty();
    assertThat(app.status().providers()).as(history + " dropped").isEmpty();
  }

  /** What the status must list after a successful update: the tables, and each one's rows. */
  private Map<String, List<io.cocoindex.StableKey>> tracked() {
    Map<String, List<io.cocoindex.StableKey>> out = new TreeMap<>();
    declaredTables.keySet().forEach(t -> out.computeIfAbsent("tables", k -> new ArrayList<>())
        .add(io.cocoindex.StableKey.of("t" + t)));
    declaredRows.keySet().forEach(tk -> {
      if (declaredTables.containsKey(tk.get(0))) {
        out.computeIfAbsent("tables/t" + tk.get(0), k -> new ArrayList<>())
            .add(io.cocoindex.StableKey.of("r" + tk.get(1)));
      }
    });
    return out;
  }

  /** One random change to what is declared, described for the failure message. */
  private String edit(Random random) {
    int t = random.nextInt(TABLES);
    switch (random.nextInt(6)) {
      case 0: {
        declaredTables.remove(t);
        return "drop t" + t;
      }
      case 1: {
        String generation = "g" + random.nextInt(3);
        TargetChildInvalidation kind = new TargetChildInvalidation[] {
            null, TargetChildInvalidation.LOSSY, TargetChildInvalidation.DESTRUCTIVE}[
            random.nextInt(3)];
        tables.invalidation = kind;
        declaredTables.put(t, generation);
        return "t" + t + "=" + generation + "(" + kind + ")";
      }
      case 2: {
        int k = random.nextInt(KEYS);
        declaredRows.remove(List.of(t, k));
        return "-t" + t + "/r" + k;
      }
      default: {
        int k = random.nextInt(KEYS);
        int c = random.nextInt(COMPONENTS);
        String v = "v" + random.nextInt(3);
        declaredRows.put(List.of(t, k), List.of(c, v));
        declaredTables.putIfAbsent(t, "g0");
        return "t" + t + "/r" + k + "=" + v + "@c" + c;
      }
    }
  }

  /** A planned action as its sink logs it when applied. */
  private static String logLine(TargetAction<?> action) {
    Object v = action.value();
    if (v instanceof Rows.RowAction r) {
      return action.verb() + " " + r.key() + (r.value() == null ? "" : "=" + r.value());
    }
    Tables.TableAction table = (Tables.TableAction) v;
    return (table.drop() ? "drop " : "ensure ") + table.name();
  }
}
