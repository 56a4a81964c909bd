package io.cocoindex.bench;

import java.util.List;
import java.util.Locale;

/**
 * What one harness run measures: the sizes of each workload and how many iterations give each
 * median.
 *
 * @param name tiny, default or full
 * @param rows N of the main workloads (1-5)
 * @param rowsPerComponent rows declared per processing component (100: 1,000 components at 100k)
 * @param warmupRounds untimed rounds of every run before the timed ones, at least
 * @param maxWarmupRounds untimed rounds at most: past the least, rounds go on while the JIT is
 *     still compiling (see {@code EngineWorkloads#warmUp})
 * @param coldIterations cold runs per side (raw and cocoindex alternate)
 * @param warmIterations warm reruns per figure
 * @param scaling the N of the scaling workload (6) run in this JVM
 * @param childRows the N run in a child JVM under {@code childHeap} (0: none), beside a tenth
 *     of it in the same JVM ({@link ScalingChild})
 * @param childHeap the child's heap (its -Xms and -Xmx)
 * @param storeCommits component commits per store figure (7)
 * @param jmhWarmupMillis per warm-up iteration of the codecs (8), all run by JMH in this JVM
 * @param jmhMeasureMillis per measured iteration (one per turn)
 * @param jmhTurnWarmups warm-up iterations per turn
 * @param jmhFirstWarmups warm-up iterations of each codec before the first turn (in this JVM)
 * @param jmhTurns turns per codec, the order of the two codecs reversed every other turn (the
 *     ratio is the median of the turns')
 * @param connectors annotated connectors compiled (9)
 * @param compileIterations measured compilations per side
 */
record Config(
    String name,
    int rows,
    int rowsPerComponent,
    int warmupRounds,
    int maxWarmupRounds,
    int coldIterations,
    int warmIterations,
    List<Integer> scaling,
    int childRows,
    String childHeap,
    int storeCommits,
    int jmhWarmupMillis,
    int jmhMeasureMillis,
    int jmhTurnWarmups,
    int jmhFirstWarmups,
    int jmhTurns,
    int connectors,
    int compileIterations) {

  static Config named(String size) {
    switch (size.toLowerCase(Locale.ROOT)) {
      case "tiny":
        return new Config("tiny", 1_000, 100, 1, 1, 1, 2, List.of(500, 1_000), 2_000, "512m",
            100, 100, 100, 1, 1, 1, 3, 1);
      case "default":
        return new Config("default", 100_000, 100, 2, 14, 11, 11, List.of(10_000, 100_000), 1_000_000,
            "512m", 3_000, 200, 300, 1, 8, 21, 50, 7);
      case "full":
        return new Config("full", 100_000, 100, 3, 16, 5, 9, List.of(10_000, 100_000), 1_000_000,
            "512m", 10_000, 300, 500, 1, 12, 41, 50, 15);
      default:
        throw new IllegalArgumentException(
            "unknown size '" + size + "': use tiny, default or full");
    }
  }
}
