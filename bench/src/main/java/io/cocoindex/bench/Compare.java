package io.cocoindex.bench;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Two builds of the benchmark side by side in one JVM: each jar gets its own class loader, and
 * their engine runs alternate (A B, B A, ...), so whatever else loads the machine loads both
 * alike. This is how before/after figures are taken on a shared machine, where two separate
 * runs minutes apart can differ by more than the change being measured.
 *
 * <pre>
 * java -cp bench/target/cocoindex-bench.jar io.cocoindex.bench.Compare BEFORE.jar AFTER.jar
 *     [--rows N] [--rounds N] [--both-orders]
 * </pre>
 *
 * <p>Each round runs, per build, a cold update of a fresh site, a warm rerun of a site kept
 * across rounds (not memoized), a warm rerun of one memoized on its rows, a rerun of another
 * such site after 1% of its rows changed, one in each component (so every memo misses), and,
 * when both builds have it, a warm rerun of one memoized on the source's revisions and a rerun
 * of another after 1% of its rows changed in 1% of the components (each a data set of its own).
 * The first two rounds are warm-up. Prints min and median per state, and after/before of the
 * medians.
 *
 * <p>The build loaded second can run faster or slower than the first by itself, by a fifth or
 * more on some runs here (the two share the JDK's compiled code and its type profiles). {@code
 * --both-orders} therefore compares in two fresh JVMs, one after the other, one per loading
 * order, with this JVM's flags (not its agents or recordings; this JVM only waits, holding its
 * heap), and prints both ratios and their geometric mean, in which that effect cancels. BEFORE
 * and AFTER may each be a class path rather than one jar.
 */
public final class Compare {
  private static final List<String> RUNS =
      List.of("cold", "warm", "memo warm", "scattered 1%", "revision memo", "revision 1%");
  /** Starts each line of unrounded figures (min and median, before then after), per run. */
  private static final String EXACT = "# exact ";

  private Compare() {}

  /** One build, loaded on its own; its package-private harness is called reflectively. */
  private static final class Build {
    final String name;
    final Object data;
    final Method update;
    final Method siteIn;
    final Method nanos;
    /** Updates with a given {@code EngineBench.Mounting}; null in builds older than it. */
    final Method updateMounted;
    final Object byRevision;
    /** The data set of the 1%-changed reruns, and what changes it. */
    final Object changing;
    final Method change;
    /** The data set of the reruns with 1% of rows changed one per component, and its change. */
    final Object scattering;
    final Method scatter;

    Build(String name, List<Path> classpath, int rows)
        throws ReflectiveOperationException, IOException {
      this.name = name;
      URL[] urls = new URL[classpath.size()];
      for (int i = 0; i < urls.length; i++) {
        urls[i] = classpath.get(i).toUri().toURL();
      }
      ClassLoader loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
      // DriverManager hands a connection only to code that sees the registering driver class.
      Class.forName("org.sqlite.JDBC", true, loader);
      Class<?> dataset = loader.loadClass(Dataset.class.getName());
      Constructor<?> make = dataset.getDeclaredConstructor(int.class, int.class);
      make.setAccessible(true);
      this.data = make.newInstance(rows, 100);
      this.changing = make.newInstance(rows, 100);
      this.change = dataset.getDeclaredMethod("changeConcentrated");
      change.setAccessible(true);
      this.scattering = make.newInstance(rows, 100);
      this.scatter = dataset.getDeclaredMethod("changeScattered");
      scatter.setAccessible(true);
      Class<?> bench = loader.loadClass(EngineBench.class.getName());
      Class<?> site = loader.loadClass(EngineBench.Site.class.getName());
      this.update = bench.getDeclaredMethod("update", site, dataset, boolean.class);
      this.siteIn = site.getDeclaredMethod("in", Path.class, String.class);
      this.nanos = loader.loadClass(EngineBench.Timed.class.getName()).getDeclaredMethod("nanos");
      update.setAccessible(true);
      siteIn.setAccessible(true);
      nanos.setAccessible(true);
      Method mounted = null;
      Object revision = null;
      try {
        Class<?> mounting = loader.loadClass(EngineBench.Mounting.class.getName());
        mounted = bench.getDeclaredMethod("update", site, dataset, mounting);
        mounted.setAccessible(true);
        revision = Arrays.stream(mounting.getEnumConstants())
            .filter(c -> ((Enum<?>) c).name().equals("MEMO_ON_REVISION")).findFirst()
            .orElseThrow(() -> new NoSuchMethodException("MEMO_ON_REVISION"));
      } catch (ClassNotFoundException | NoSuchMethodException e) {
        mounted = null; // an older build: it is compared on the other runs
      }
      this.updateMounted = mounted;
      this.byRevision = revision;
    }

    Object site(Path dir, String siteName) throws ReflectiveOperationException {
      return siteIn.invoke(null, dir, name + "-" + siteName);
    }

    long update(Object site, boolean memo) throws ReflectiveOperationException {
      return update(site, data, memo);
    }

    private long update(Object site, Object dataset, boolean memo)
        throws ReflectiveOperationException {
      try {
        return (long) nanos.invoke(update.invoke(null, site, dataset, memo));
      } catch (InvocationTargetException e) {
        throw new IllegalStateException(name + ": the run failed: " + e.getCause(), e.getCause());
      }
    }

    long updateByRevision(Object site) throws ReflectiveOperationException {
      return updateByRevision(site, data);
    }

    /**
     * Changes 1% of the rows of its own data set, one in each component, then reruns {@code
     * site} memoized on rows: every memo misses.
     */
    long updateAfterScatter(Object site) throws ReflectiveOperationException {
      scatter.invoke(scattering);
      return update(site, scattering, true);
    }

    /** Changes 1% of the rows of its own data set, then reruns {@code site} on it. */
    long updateAfterChange(Object site) throws ReflectiveOperationException {
      change.invoke(changing);
      return updateByRevision(site, changing);
    }

    private long updateByRevision(Object site, Object dataset)
        throws ReflectiveOperationException {
      try {
        return (long) nanos.invoke(updateMounted.invoke(null, site, dataset, byRevision));
      } catch (InvocationTargetException e) {
        throw new IllegalStateException(name + ": the run failed: " + e.getCause(), e.getCause());
      }
    }
  }

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    if (args.length < 2) {
      throw new IllegalArgumentException(
          "usage: Compare BEFORE.jar AFTER.jar [--rows N] [--rounds N] [--both-orders]");
    }
    int rows = 100_000;
    int rounds = 12;
    boolean bothOrders = false;
    for (int i = 2; i < args.length; i++) {
      switch (args[i]) {
        case "--rows" -> rows = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--both-orders" -> bothOrders = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    List<Path> before = classPath(args[0]);
    List<Path> after = classPath(args[1]);
    if (bothOrders) {
      bothOrders(before, after, rows, rounds, System.out);
      return;
    }
    Path tmp = Files.createTempDirectory("cocoindex-compare");
    try {
      compare(before, after, rows, rounds, tmp, System.out);
    } finally {
      EngineWorkloads.deleteTree(tmp);
    }
  }

  /**
   * Compares the builds on {@code before} and {@code after} (each a class path holding the bench
   * and its dependencies, such as the one shaded jar).
   */
  static void compare(List<Path> before, List<Path> after, int rows, int rounds, Path tmp,
      PrintStream out) throws ReflectiveOperationException, IOException {
    if (rounds < 3) {
      throw new IllegalArgumentException("--rounds must be at least 3 (two are warm-up)");
    }
    Build[] builds = {new Build("before", before, rows), new Build("after", after, rows)};
    boolean revisions = builds[0].updateMounted != null && builds[1].updateMounted != null;
    List<String> runs = revisions ? RUNS : RUNS.subList(0, 4);
    Object[] warmSites = new Object[2];
    Object[] memoSites = new Object[2];
    Object[] revisionSites = new Object[2];
    Object[] changeSites = new Object[2];
    Object[] scatterSites = new Object[2];
    for (int b = 0; b < 2; b++) {
      warmSites[b] = builds[b].site(tmp, "warm");
      memoSites[b] = builds[b].site(tmp, "memo");
      scatterSites[b] = builds[b].site(tmp, "scatter");
      builds[b].update(warmSites[b], false);
      builds[b].update(memoSites[b], true);
      builds[b].updateAfterScatter(scatterSites[b]);
      if (revisions) {
        revisionSites[b] = builds[b].site(tmp, "revision");
        builds[b].updateByRevision(revisionSites[b]);
        changeSites[b] = builds[b].site(tmp, "change");
        builds[b].updateAfterChange(changeSites[b]);
      }
    }
    // per build, per run kind: microseconds per state of each measured round
    Map<String, List<Double>> perState = new LinkedHashMap<>();
    for (int round = 0; round < rounds; round++) {
      for (int k = 0; k < 2; k++) {
        int b = round % 2 == 0 ? k : 1 - k;
        Build build = builds[b];
        long[] nanos = {
            build.update(build.site(tmp, "cold" + round), false),
            build.update(warmSites[b], false),
            build.update(memoSites[b], true),
            build.updateAfterScatter(scatterSites[b]),
            revisions ? build.updateByRevision(revisionSites[b]) : 0,
            revisions ? build.updateAfterChange(changeSites[b]) : 0};
        if (round >= 2) {
          for (int r = 0; r < runs.size(); r++) {
            perState.computeIfAbsent(build.name + "/" + runs.get(r), x -> new ArrayList<>())
                .add(nanos[r] / 1e3 / rows);
          }
        }
      }
      deleteQuietly(tmp, "before-cold" + round, "after-cold" + round);
      out.printf(Locale.ROOT, "  .. round %d of %d%n", round + 1, rounds);
    }
    out.printf(Locale.ROOT, "%nN=%,d, %d measured rounds, alternating builds (us per state)%n",
        rows, rounds - 2);
    out.printf(Locale.ROOT, "%-13s %-18s %-18s %s%n", "run", "before min / med",
        "after min / med", "after/before (med)");
    List<String> exact = new ArrayList<>();
    for (String run : runs) {
      double[] b = minMedian(perState.get("before/" + run));
      double[] a = minMedian(perState.get("after/" + run));
      out.printf(Locale.ROOT, "%-13s %-18s %-18s %.2fx%n", run,
          perState(b[0]) + " / " + perState(b[1]),
          perState(a[0]) + " / " + perState(a[1]), a[1] / b[1]);
      // Unrounded, for --both-orders: a ratio of two-decimal medians of 0.27 us can be 4% off.
      exact.add(EXACT + run + " " + b[0] + " " + b[1] + " " + a[0] + " " + a[1]);
    }
    exact.forEach(out::println);
  }

  /**
   * Compares in two fresh JVMs, {@code before} loaded first in one and {@code after} in the
   * other, and prints after/before of the medians for each order and their geometric mean.
   */
  static void bothOrders(List<Path> before, List<Path> after, int rows, int rounds,
      PrintStream out) throws IOException, InterruptedException {
    Map<String, double[]> first = inChildJvm(before, after, rows, rounds, "before first", out);
    Map<String, double[]> second = inChildJvm(after, before, rows, rounds, "after first", out);
    out.printf(Locale.ROOT, "%nBoth orders, a fresh JVM each (after/before of the medians)%n");
    out.printf(Locale.ROOT, "%-13s %-13s %-13s %s%n", "run", "before first", "after first",
        "geometric mean");
    for (String run : RUNS) {
      double[] a = first.get(run);
      double[] b = second.get(run);
      if (a == null || b == null) {
        continue; // a build older than the run
      }
      // Columns: before min, before median, after min, after median, as each child printed
      // them; the second child's "before" is the after build.
      double beforeFirst = a[3] / a[1];
      double afterFirst = b[1] / b[3];
      out.printf(Locale.ROOT, "%-13s %-13s %-13s %.2fx%n", run,
          String.format(Locale.ROOT, "%.2fx", beforeFirst),
          String.format(Locale.ROOT, "%.2fx", afterFirst), Math.sqrt(beforeFirst * afterFirst));
    }
  }

  /** Microseconds per state: a third decimal below 1 (a memoized rerun's 0.04 said little). */
  private static String perState(double us) {
    return String.format(Locale.ROOT, us < 1 ? "%.3f" : "%.2f", us);
  }

  /** Runs one comparison in a child JVM with this JVM's flags; returns its table, by run. */
  private static Map<String, double[]> inChildJvm(List<Path> first, List<Path> second, int rows,
      int rounds, String label, PrintStream out) throws IOException, InterruptedException {
    List<String> flags = new ArrayList<>();
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      // The heap and JIT flags, not a debugger's port or a recording's file, which two JVMs
      // cannot share.
      if (!flag.startsWith("-agentlib") && !flag.startsWith("-agentpath")
          && !flag.startsWith("-javaagent") && !flag.startsWith("-Xrunjdwp")
          && !flag.startsWith("-XX:StartFlightRecording")) {
        flags.add(flag);
      }
    }
    Map<String, double[]> table = new LinkedHashMap<>();
    Pattern row = Pattern.compile(Pattern.quote(EXACT) + "("
        + RUNS.stream().map(Pattern::quote).collect(Collectors.joining("|"))
        + ") (\\S+) (\\S+) (\\S+) (\\S+)$");
    int exit = ChildJvm.run(flags, Compare.class, List.of(joined(first), joined(second),
        "--rows", String.valueOf(rows), "--rounds", String.valueOf(rounds)), line -> {
          Matcher m = row.matcher(line);
          if (m.matches()) {
            table.put(m.group(1), new double[] {Double.parseDouble(m.group(2)),
                Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)),
                Double.parseDouble(m.group(5))});
          } else {
            out.println("[" + label + "] " + line);
          }
        });
    if (exit != 0 || table.size() < 4) {
      throw new IllegalStateException("the comparison with the " + label.replace(" first", "")
          + " build loaded first failed (exit " + exit + "); its output is above");
    }
    return table;
  }

  private static List<Path> classPath(String arg) {
    return Arrays.stream(arg.split(File.pathSeparator)).map(Path::of).toList();
  }

  private static String joined(List<Path> classPath) {
    return String.join(File.pathSeparator, classPath.stream().map(Path::toString).toList());
  }

  private static double[] minMedian(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return new double[] {sorted.get(0), sorted.get(sorted.size() / 2)};
  }

  /** Deletes the sites of one cold round, so that a long comparison does not fill the disk. */
  private static void deleteQuietly(Path tmp, String... siteNames) {
    for (String name : siteNames) {
      for (Path p : new Path[] {tmp.resolve(name + "-state"), tmp.resolve(name + ".sqlite")}) {
        try {
          EngineWorkloads.deleteTree(p);
        } catch (UncheckedIOException e) {
          // a leftover temp file is not worth failing the comparison
        }
      }
    }
  }
}
