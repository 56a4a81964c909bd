package io.cocoindex.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The benchmark harness: runs every workload side by side and prints one table of figures and
 * ratios against the targets.
 *
 * <pre>
 * java -jar bench/target/cocoindex-bench.jar [--size tiny|default|full]
 *     [--only engine,store,codec,processor] [--dir DIR]
 * </pre>
 */
public final class Main {
  static final List<String> PARTS = List.of("engine", "store", "codec", "processor");

  private Main() {}

  public static void main(String[] args) {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    if (args.length >= 2 && args[0].equals("--child-size")) {
      int rows = Integer.parseInt(args[1]);
      int per = args.length >= 4 ? Integer.parseInt(args[3]) : 100;
      Path tmp = tempDir(null);
      try {
        ScalingChild.measure(rows, per, tmp);
      } finally {
        EngineWorkloads.deleteTree(tmp);
      }
      return;
    }
    run(args, System.out);
  }

  /** Runs the harness with {@code args}; prints progress and the table to {@code out}. */
  static Report run(String[] args, PrintStream out) {
    String size = "default";
    Set<String> parts = new LinkedHashSet<>(PARTS);
    Path dir = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--size":
          size = value(args, ++i);
          break;
        case "--only":
          parts = new LinkedHashSet<>(Arrays.asList(value(args, ++i).split(",")));
          if (!PARTS.containsAll(parts)) {
            throw new IllegalArgumentException("--only takes some of " + PARTS + ": " + parts);
          }
          break;
        case "--dir":
          dir = Path.of(value(args, ++i));
          break;
        default:
          throw new IllegalArgumentException("unknown argument " + args[i]
              + "; usage: [--size tiny|default|full] [--only engine,store,codec,processor]"
              + " [--dir DIR]");
      }
    }
    Config cfg = Config.named(size);
    Path tmp = tempDir(dir);
    Report report = new Report(out);
    out.println(machine());
    if (parts.contains("engine") && !heapFixedAndTouched()) {
      out.println("note: the heap is not fixed and pre-touched (" + HEAP_FLAGS + "): while it"
          + " grows, a run's first touch of new heap pages costs page faults, and whole runs"
          + " vary 2-5x; see BENCHMARKS.md");
    }
    out.printf(Locale.ROOT, "size %s; temp dir %s; target SQLite: WAL, synchronous=%s on both"
            + " sides; state store: WAL, synchronous=%s%n", cfg.name(), tmp,
        targetSynchronous(tmp), EngineBench.STORE_DURABILITY);
    long start = System.nanoTime();
    try {
      if (parts.contains("engine")) {
        new EngineWorkloads(cfg, tmp, report).run();
      }
      if (parts.contains("store")) {
        StoreBench.run(cfg, tmp, report);
      }
      if (parts.contains("codec")) {
        CodecBench.run(cfg, report);
      }
      if (parts.contains("processor")) {
        ProcessorBench.run(cfg, tmp, report);
      }
    } finally {
      if (dir == null) {
        EngineWorkloads.deleteTree(tmp);
      }
    }
    out.println();
    out.print(report.table());
    out.printf(Locale.ROOT, "(medians; ratios measured side by side in this run; %.0f s)%n",
        (System.nanoTime() - start) / 1e9);
    out.flush();
    return report;
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value");
    }
    return args[i];
  }

  private static Path tempDir(Path dir) {
    try {
      if (dir != null) {
        Files.createDirectories(dir);
        return dir;
      }
      return Files.createTempDirectory("cocoindex-bench-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String targetSynchronous(Path tmp) {
    Path probe = tmp.resolve("probe.sqlite");
    try {
      return EngineBench.synchronous(probe);
    } finally {
      EngineWorkloads.deleteFile(probe);
    }
  }

  /** The JVM flags BENCHMARKS.md runs the harness with. */
  static final String HEAP_FLAGS = "-Xms2g -Xmx2g -XX:+AlwaysPreTouch";

  /**
   * Whether this JVM's heap is fixed in size and touched up front. Otherwise G1 grows it during
   * the first runs, and each run that allocates into pages never touched before pays a page
   * fault per page: measured here as 2-5x the CPU of the same run on a touched heap.
   */
  static boolean heapFixedAndTouched() {
    List<String> flags = ManagementFactory.getRuntimeMXBean().getInputArguments();
    String xms = null;
    String xmx = null;
    boolean touched = false;
    for (String f : flags) {
      if (f.startsWith("-Xms")) {
        xms = f.substring(4);
      } else if (f.startsWith("-Xmx")) {
        xmx = f.substring(4);
      } else if (f.equals("-XX:+AlwaysPreTouch")) {
        touched = true;
      }
    }
    return touched && xms != null && xms.equals(xmx);
  }

  static String machine() {
    Runtime rt = Runtime.getRuntime();
    return String.format(Locale.ROOT, "machine: %d cores, %s %s, %s %s (%s), max heap %d MiB",
        rt.availableProcessors(), System.getProperty("os.name"), System.getProperty("os.arch"),
        System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
        System.getProperty("java.vm.vendor"), rt.maxMemory() >> 20);
  }
}
