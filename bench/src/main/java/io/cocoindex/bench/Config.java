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
 * @param coldIterations cold runs per side (raw and cocoindex alternate)
 * @param warmIterations warm reruns per figure
 * @param scaling the N of the scaling workload (6) run in this JVM
 * @param childRows the N run in a child JVM under {@code childHeap} (0: none)
 * @param childHeap the child's -Xmx
 * @param storeCommits component commits per store figure (7)
 * @param jmhForks 0 runs JMH in this JVM (codecs, 8)
 * @param jmhWarmupMillis per warm-up iteration
 * @param jmhMeasureMillis per measured iteration
 * @param jmhIterations warm-up and measured iterations each, per round
 * @param jmhRounds JMH runs, the order of the two codecs reversed every other run (the ratio is
 *     their median)
 * @param connectors annotated connectors compiled (9)
 * @param compileIterations measured compilations per side
 */
record Config(
    String name,
    int rows,
    int rowsPerComponent,
    int warmupRounds,
    int coldIterations,
    int warmIterations,
    List<Integer> scaling,
    int childRows,
    String childHeap,
    int storeCommits,
    int jmhForks,
    int jmhWarmupMillis,
    int jmhMeasureMillis,
    int jmhIterations,
    int jmhRounds,
    int connectors,
    int compileIterations) {

  static Config named(String size) {
    switch (size.toLowerCase(Locale.ROOT)) {
      case "tiny":
        return new Config("tiny", 1_000, 100, 1, 1, 2, List.of(500, 1_000), 2_000, "512m",
            100, 0, 100, 100, 1, 1, 3, 1);
      case "default":
        return new Config("default", 100_000, 100, 2, 7, 5, List.of(10_000, 100_000), 1_000_000,
            "512m", 3_000, 1, 1_000, 1_000, 3, 5, 50, 7);
      case "full":
        return new Config("full", 100_000, 100, 3, 5, 9, List.of(10_000, 100_000), 1_000_000,
            "512m", 10_000, 2, 2_000, 2_000, 5, 5, 50, 15);
      default:
        throw new IllegalArgumentException(
            "unknown size '" + size + "': use tiny, default or full");
    }
  }
}
