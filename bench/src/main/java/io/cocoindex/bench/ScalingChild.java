package io.cocoindex.bench;

import static io.cocoindex.bench.EngineWorkloads.expect;

import io.cocoindex.bench.EngineBench.Site;
import io.cocoindex.bench.EngineBench.Timed;
import io.cocoindex.bench.EngineWorkloads.SizeFigures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Workload 6 at its largest N, in a child JVM with a small heap: the runs must complete under it
 * (tracking is not held in memory whole), and their cost per state is compared with that of a
 * tenth of N measured in the same JVM, on the same heap.
 *
 * <p>Per state, the heap moves the figures more than N does. A cold 100k run on a fixed 512 MB
 * heap cost 1.2-1.4x what it did on the main JVM's 2 GB (more young collections, each copying
 * the components in flight), and a heap that grows while the runs go pays page faults
 * (BENCHMARKS.md). A 1M first run, its JIT compiling, on a growing heap, looked 2.3x as costly
 * per state as the main JVM's 100k; measured compiled, on one fixed heap, beside 100k, 1M costs
 * about as much per state (0.8-0.9x cold, 0.7-1.2x warm).
 *
 * <p>The child's first run (a fresh JVM: class loading and the JIT compiling as it goes, which a
 * process that runs one update pays) is printed on its own. The timed cold runs come after
 * untimed cold runs of the small N until the JIT settles; the reruns, after untimed ones of their
 * own.
 */
final class ScalingChild {
  private ScalingChild() {}

  /** What the child measured: each N's figures (medians), and its first run, nanoseconds. */
  record Figures(SizeFigures large, SizeFigures small, double firstCold) {}

  /** Cold runs per N (each beside raw JDBC, on fresh files), and reruns per figure. */
  private static final int COLD_PAIRS = 3;

  private static final int RERUNS = 3;
  /**
   * Reruns of the small N: each lasts a tenth as long, and a median of three moved by a third
   * between runs of one build (30.8-48.1 ms warm at 100k, the thirty-first session), which alone
   * moved the 1M/100k ratio from 0.83x to 1.14x. Five times as many cost half the large N's time.
   */
  private static final int SMALL_RERUNS = 5 * RERUNS;
  /** Untimed runs before timed ones, at most, while the JIT is still compiling. */
  private static final int MAX_SETTLING_RUNS = 10;

  private static final String RESULT = "RESULT ";

  /** The child's heap: fixed and touched up front, as the harness asks of the main JVM. */
  static List<String> jvmFlags(String heap) {
    return List.of("-Xms" + heap, "-Xmx" + heap, "-XX:+AlwaysPreTouch");
  }

  /** Runs {@link #measure} in a child JVM with {@code heap}; parses its result line. */
  static Figures run(int rows, int perComponent, String heap) {
    List<String> args = List.of("--child-size", String.valueOf(rows), "--rows-per-component",
        String.valueOf(perComponent));
    Map<String, Double> values = new HashMap<>();
    StringBuilder output = new StringBuilder();
    int exit;
    try {
      exit = ChildJvm.run(jvmFlags(heap), Main.class, args, line -> {
        output.append(line).append('\n');
        if (line.startsWith(RESULT)) {
          for (String kv : line.substring(RESULT.length()).trim().split(" ")) {
            String[] parts = kv.split("=");
            values.put(parts[0], Double.parseDouble(parts[1]));
          }
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a child JVM for " + args, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the child JVM", e);
    }
    if (exit != 0 || !values.containsKey("firstCold")) {
      throw new IllegalStateException("the child JVM (" + jvmFlags(heap) + ", " + args
          + ") failed with exit code " + exit + ":\n" + output);
    }
    return new Figures(figures(values, "large", rows), figures(values, "small", smallRows(rows,
        perComponent)), values.get("firstCold"));
  }

  private static SizeFigures figures(Map<String, Double> values, String prefix, int rows) {
    return new SizeFigures(rows, values.get(prefix + "Raw"), values.get(prefix + "Cold"),
        values.get(prefix + "Warm"), values.get(prefix + "Memo"));
  }

  /** The N compared with {@code rows}: a tenth of it, at least one component. */
  static int smallRows(int rows, int perComponent) {
    return Math.max(perComponent, rows / 10);
  }

  /** The child JVM's side: measures both N and prints the result line {@link #run} reads. */
  static void measure(int rows, int perComponent, Path tmp) {
    Dataset large = new Dataset(rows, perComponent);
    Dataset small = new Dataset(smallRows(rows, perComponent), perComponent);
    Path dir = tmp.resolve("child-" + rows);

    Site first = Site.in(dir, "first");
    double firstCold = cold(first, large).nanos();
    delete(first);

    untilCompiled(() -> {
      Site settling = Site.in(dir, "settling");
      cold(settling, small);
      delete(settling);
    });
    Sizes largeRuns = new Sizes(large, RERUNS);
    Sizes smallRuns = new Sizes(small, SMALL_RERUNS);
    Path rawFile = dir.resolve("raw.sqlite");
    for (int i = 0; i < COLD_PAIRS; i++) {
      for (Sizes s : List.of(smallRuns, largeRuns)) {
        s.raw.add(expect("raw cold", EngineBench.rawCold(rawFile, s.data), s.data.rows).nanos());
        EngineWorkloads.deleteFile(rawFile);
        if (s.site != null) {
          delete(s.site);
        }
        s.site = Site.in(dir, (s == largeRuns ? "large" : "small") + i);
        s.cold.add(cold(s.site, s.data).nanos());
      }
    }

    untilCompiled(() -> expect("warm", EngineBench.update(largeRuns.site, large, false), 0));
    for (Sizes s : List.of(smallRuns, largeRuns)) {
      for (int i = 0; i < s.reruns; i++) {
        s.warm.add(expect("warm", EngineBench.update(s.site, s.data, false), 0).nanos());
      }
    }
    // The same state, now through memoized components: the first run records the memos (every
    // component runs, nothing changes), the next ones are memo hits.
    for (Sizes s : List.of(smallRuns, largeRuns)) {
      expect("memo conversion", EngineBench.update(s.site, s.data, true), 0);
    }
    untilCompiled(() -> expect("memo warm", EngineBench.update(largeRuns.site, large, true), 0));
    for (Sizes s : List.of(smallRuns, largeRuns)) {
      for (int i = 0; i < s.reruns; i++) {
        s.memo.add(expect("memo warm", EngineBench.update(s.site, s.data, true), 0).nanos());
      }
    }
    EngineWorkloads.deleteTree(dir);

    StringBuilder line = new StringBuilder(RESULT)
        .append(String.format(Locale.ROOT, "firstCold=%.0f", firstCold));
    smallRuns.append("small", line);
    largeRuns.append("large", line);
    System.out.println(line);
  }

  /** One N's data set, its current site and its timings. */
  private static final class Sizes {
    final Dataset data;
    /** Timed reruns per figure. */
    final int reruns;
    Site site;
    final List<Long> raw = new ArrayList<>();
    final List<Long> cold = new ArrayList<>();
    final List<Long> warm = new ArrayList<>();
    final List<Long> memo = new ArrayList<>();

    Sizes(Dataset data, int reruns) {
      this.data = data;
      this.reruns = reruns;
    }

    void append(String prefix, StringBuilder line) {
      line.append(String.format(Locale.ROOT, " %sRaw=%.0f %sCold=%.0f %sWarm=%.0f %sMemo=%.0f",
          prefix, Stats.median(raw), prefix, Stats.median(cold), prefix, Stats.median(warm),
          prefix, Stats.median(memo)));
    }
  }

  /** A first run on an empty site. */
  private static Timed cold(Site site, Dataset data) {
    return EngineWorkloads.expectAtLeast("cold", EngineBench.update(site, data, false), data.rows);
  }

  private static void delete(Site site) {
    EngineWorkloads.deleteTree(site.state());
    EngineWorkloads.deleteFile(site.db());
  }

  /** Runs {@code run}, untimed, until one spends little of its time compiling. */
  private static void untilCompiled(Runnable run) {
    JitClock jit = new JitClock();
    for (int i = 0; i < MAX_SETTLING_RUNS; i++) {
      if (jit.settled(jit.shareWhile(run))) {
        return;
      }
    }
  }
}
