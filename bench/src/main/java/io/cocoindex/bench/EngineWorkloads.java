package io.cocoindex.bench;

import static io.cocoindex.bench.EngineBench.Mounting.MEMO_ON_REVISION;

import io.cocoindex.bench.EngineBench.Site;
import io.cocoindex.bench.EngineBench.Timed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** Workloads 1-6: whole updates through the engine, side by side with raw JDBC. */
final class EngineWorkloads {
  private final Config cfg;
  private final Path tmp;
  private final Report report;

  EngineWorkloads(Config cfg, Path tmp, Report report) {
    this.cfg = cfg;
    this.tmp = tmp;
    this.report = report;
  }

  /** The per-size figures of the scaling workload, nanoseconds (medians). */
  record SizeFigures(int rows, double rawCold, double cold, double warm, double memoWarm) {}

  void run() {
    int n = cfg.rows();
    Dataset data = new Dataset(n, cfg.rowsPerComponent());
    Path dir = tmp.resolve("main-" + n);
    String nText = String.format(Locale.ROOT, "N=%,d in %,d components", n, data.components);

    warmUp(data, tmp.resolve("warmup-" + n), cfg.warmupRounds(), cfg.maxWarmupRounds());

    // 1. cold: raw JDBC and cocoindex alternate, each on fresh files.
    List<Long> raw = new ArrayList<>();
    List<Long> cold = new ArrayList<>();
    Site site = null;
    Path rawFile = null;
    for (int i = 0; i < cfg.coldIterations(); i++) {
      if (site != null) {
        deleteTree(site.state());
        deleteFile(site.db());
        deleteFile(rawFile);
      }
      site = Site.in(dir, "cold" + i);
      rawFile = dir.resolve("raw" + i + ".sqlite");
      Site s = site;
      Path r = rawFile;
      Supplier<Timed> rawRun = () -> expect("raw cold", EngineBench.rawCold(r, data), n);
      Supplier<Timed> engineRun = () -> expectAtLeast("cold",
          EngineBench.update(s, data, false), n);
      if (i % 2 == 0) {
        raw.add(rawRun.get().nanos());
        cold.add(engineRun.get().nanos());
      } else {
        cold.add(engineRun.get().nanos());
        raw.add(rawRun.get().nanos());
      }
    }
    String rawContent = EngineBench.content(rawFile);
    String engineContent = EngineBench.content(site.db());
    if (!rawContent.equals(engineContent)) {
      throw new IllegalStateException("raw JDBC and cocoindex wrote different tables: "
          + rawContent + " vs " + engineContent);
    }
    double rawMed = Stats.median(raw);
    double coldMed = Stats.median(cold);
    // The pairs' ratios (each pair ran back to back) show how far the host moved within the
    // run; the verdict stays the ratio of the medians.
    double[] paired = new double[cold.size()];
    for (int i = 0; i < paired.length; i++) {
      paired[i] = (double) cold.get(i) / raw.get(i);
    }
    Arrays.sort(paired);
    report.info("1", "cold, raw JDBC (batches, 1 tx per 1,000 rows), " + nText,
        Report.ms(rawMed) + "  " + Report.usPerState(rawMed, n), "");
    report.check("1", "cold, cocoindex (SQLite connector), " + nText,
        Report.ms(coldMed) + "  " + Report.usPerState(coldMed, n), coldMed / rawMed,
        Report.fmtRatio(coldMed / rawMed) + " raw (the " + paired.length + " pairs: "
            + Report.fmtRatio(paired[0]) + "-" + Report.fmtRatio(paired[paired.length - 1]) + ")",
        1.5, true);

    // 2, 3 and 5: reruns with nothing changed (not memoized, memoized two ways) and the naive
    // sync on the raw table (same content), in turns whose order rotates: the machine's load then
    // falls on all alike, and the ratios between them are measured side by side. Memoized on the
    // rows, each rerun reads every row and fingerprints them all; memoized on the source's
    // revision of each part, as CocoIndex memoizes a file on its path and modification time, a
    // rerun reads the rows of the parts that changed only.
    Site memo = Site.in(dir, "memo");
    long memoCold = expectAtLeast("memo cold", EngineBench.update(memo, data, true), n).nanos();
    Site byRevision = Site.in(dir, "revision");
    expectAtLeast("revision memo cold", EngineBench.update(byRevision, data, MEMO_ON_REVISION), n);
    List<Long> warm = new ArrayList<>();
    List<Long> memoWarm = new ArrayList<>();
    List<Long> revisionWarm = new ArrayList<>();
    List<Long> naive = new ArrayList<>();
    Site warmSite = site;
    Path naiveFile = rawFile;
    List<Runnable> turn = List.of(
        () -> warm.add(expect("warm", EngineBench.update(warmSite, data, false), 0).nanos()),
        () -> memoWarm.add(expect("memo warm", EngineBench.update(memo, data, true), 0).nanos()),
        () -> revisionWarm.add(expect("revision memo warm",
            EngineBench.update(byRevision, data, MEMO_ON_REVISION), 0).nanos()),
        () -> naive.add(expect("naive", EngineBench.naiveSync(naiveFile, data), 0).nanos()));
    for (int i = 0; i < cfg.warmIterations(); i++) {
      for (int k = 0; k < turn.size(); k++) {
        turn.get((i + k) % turn.size()).run();
      }
    }
    double warmMed = Stats.median(warm);
    report.check("2", "warm rerun, nothing changed, not memoized",
        Report.ms(warmMed) + "  " + Report.usPerState(warmMed, n), warmMed / coldMed,
        Report.fmtRatio(warmMed / coldMed) + " cold", 0.15, true);
    double memoWarmMed = Stats.median(memoWarm);
    double revisionWarmMed = Stats.median(revisionWarm);
    report.info("3", "cold, memoized components (for reference)", Report.ms(memoCold),
        Report.fmtRatio(memoCold / coldMed) + " cold");
    report.check("3", "warm rerun, memoized on each part's rows (all read and fingerprinted)",
        Report.ms(memoWarmMed) + "  " + Report.usPerState(memoWarmMed, n),
        memoWarmMed / coldMed, Report.fmtRatio(memoWarmMed / coldMed) + " cold", 0.03, true);
    report.check("3", "warm rerun, memoized on each part's revision (rows not read)",
        Report.ms(revisionWarmMed) + "  " + Report.usPerState(revisionWarmMed, n),
        revisionWarmMed / coldMed, Report.fmtRatio(revisionWarmMed / coldMed) + " cold", 0.03,
        true);
    double naiveMed = Stats.median(naive);

    // 4. 1% of rows changed, in 1% of the components (memoized both ways); the naive sync sees
    // the same change.
    List<Long> pct = new ArrayList<>();
    List<Long> revisionPct = new ArrayList<>();
    List<Long> naivePct = new ArrayList<>();
    for (int i = 0; i < cfg.warmIterations(); i++) {
      int changed = data.changeConcentrated();
      Runnable byRows = () -> pct.add(
          expect("1% change", EngineBench.update(memo, data, true), changed).nanos());
      Runnable byRev = () -> revisionPct.add(expect("1% change, memoized on revisions",
          EngineBench.update(byRevision, data, MEMO_ON_REVISION), changed).nanos());
      if (i % 2 == 0) {
        byRows.run();
        byRev.run();
      } else {
        byRev.run();
        byRows.run();
      }
      naivePct.add(expect("naive 1% change", EngineBench.naiveSync(rawFile, data), changed)
          .nanos());
    }
    double pctMed = Stats.median(pct);
    double revisionPctMed = Stats.median(revisionPct);
    double naivePctMed = Stats.median(naivePct);
    report.check("4", "1% of rows changed (in 1% of components), memoized on rows",
        Report.ms(pctMed), pctMed / coldMed, Report.fmtRatio(pctMed / coldMed) + " cold", 0.05,
        true);
    report.check("4", "1% of rows changed (in 1% of components), memoized on revisions",
        Report.ms(revisionPctMed), revisionPctMed / coldMed,
        Report.fmtRatio(revisionPctMed / coldMed) + " cold", 0.05, true);
    report.info("5", "naive sync (read table, diff in memory, write), nothing changed",
        Report.ms(naiveMed), Report.fmtRatio(naiveMed / coldMed) + " cold");
    report.check("5", "warm rerun (not memoized) vs naive sync", Report.ms(warmMed),
        warmMed / naiveMed, Report.fmtRatio(warmMed / naiveMed) + " naive", 1.0, true);
    report.check("5", "warm rerun (memoized on rows) vs naive sync", Report.ms(memoWarmMed),
        memoWarmMed / naiveMed, Report.fmtRatio(memoWarmMed / naiveMed) + " naive", 1.0, true);
    report.check("5", "1% changed (memoized on rows) vs naive sync of the same change",
        Report.ms(pctMed) + " vs " + Report.ms(naivePctMed), pctMed / naivePctMed,
        Report.fmtRatio(pctMed / naivePctMed) + " naive", 1.0, true);
    if (!EngineBench.content(byRevision.db()).equals(EngineBench.content(memo.db()))) {
      throw new IllegalStateException(
          "the apps memoized on rows and on revisions wrote different tables");
    }
    deleteTree(byRevision.state());
    deleteFile(byRevision.db());

    // 1% of rows scattered over every component: every memo misses (no target; for honesty).
    List<Long> scattered = new ArrayList<>();
    List<Long> naiveScattered = new ArrayList<>();
    for (int i = 0; i < Math.max(1, cfg.warmIterations() / 2); i++) {
      int changed = data.changeScattered();
      scattered.add(expect("scattered change", EngineBench.update(memo, data, true), changed)
          .nanos());
      naiveScattered.add(expect("naive scattered change", EngineBench.naiveSync(rawFile, data),
          changed).nanos());
    }
    double scatteredMed = Stats.median(scattered);
    report.info("4", "1% of rows changed, one per component (all memos miss)",
        Report.ms(scatteredMed) + " vs naive " + Report.ms(Stats.median(naiveScattered)),
        Report.fmtRatio(scatteredMed / coldMed) + " cold");

    // 1% of the components removed: their rows are deleted by the end-of-run sweep.
    List<Long> removal = new ArrayList<>();
    List<Long> naiveRemoval = new ArrayList<>();
    for (int i = 0; i < Math.max(1, cfg.warmIterations() / 2); i++) {
      int removed = data.removeLast();
      removal.add(expect("removal", EngineBench.update(memo, data, true), removed).nanos());
      naiveRemoval.add(expect("naive removal", EngineBench.naiveSync(rawFile, data), removed)
          .nanos());
    }
    double removalMed = Stats.median(removal);
    report.info("4", "1% of components removed (their rows deleted), memoized",
        Report.ms(removalMed) + " vs naive " + Report.ms(Stats.median(naiveRemoval)),
        Report.fmtRatio(removalMed / coldMed) + " cold");
    if (!EngineBench.content(rawFile).equals(EngineBench.content(memo.db()))) {
      throw new IllegalStateException("the naive sync and cocoindex diverged after the changes");
    }
    deleteTree(dir);

    // 6. scaling.
    List<SizeFigures> sizes = new ArrayList<>();
    for (int size : cfg.scaling()) {
      if (size == n) {
        sizes.add(new SizeFigures(n, rawMed, coldMed, warmMed, memoWarmMed));
      } else {
        sizes.add(measureSize(tmp, size, cfg.rowsPerComponent(), cfg.coldIterations(),
            cfg.warmIterations()));
      }
    }
    for (SizeFigures f : sizes) {
      reportSize(f, "");
    }
    if (cfg.childRows() > 0) {
      ScalingChild.Figures child =
          ScalingChild.run(cfg.childRows(), cfg.rowsPerComponent(), cfg.childHeap());
      String where = ", child JVM -Xmx" + cfg.childHeap();
      reportSize(child.small(), where);
      reportSize(child.large(), where);
      SizeFigures large = child.large();
      report.info("6", String.format(Locale.ROOT,
              "N=%,d%s: cold as the child's first run (a fresh JVM, its JIT compiling)",
              large.rows(), where),
          String.format(Locale.ROOT, "%.2f us/state", child.firstCold() / 1e3 / large.rows()),
          Report.fmtRatio(child.firstCold() / large.cold()) + " its compiled cold");
      // Both sizes on the child's heap: against the main JVM's, the heap would be compared too.
      SizeFigures small = child.small();
      report.info("6", String.format(Locale.ROOT,
              "cold per-state cost, N=%,d vs N=%,d, both in the child JVM", large.rows(),
              small.rows()),
          "", Report.fmtRatio((large.cold() / large.rows()) / (small.cold() / small.rows())));
      report.info("6", String.format(Locale.ROOT,
              "warm per-state cost, N=%,d vs N=%,d, both in the child JVM", large.rows(),
              small.rows()),
          "", Report.fmtRatio((large.warm() / large.rows()) / (small.warm() / small.rows())));
    }
  }

  private void reportSize(SizeFigures f, String where) {
    report.info("6", String.format(Locale.ROOT, "scaling N=%,d%s: cold / warm / memo warm",
            f.rows(), where),
        String.format(Locale.ROOT, "%.2f / %.2f / %.3f us/state", f.cold() / 1e3 / f.rows(),
            f.warm() / 1e3 / f.rows(), f.memoWarm() / 1e3 / f.rows()),
        String.format(Locale.ROOT, "raw %.2f us/state", f.rawCold() / 1e3 / f.rows()));
  }

  /**
   * Untimed rounds of every kind of run measured next (raw, cold, warm, memoized, the reruns
   * after a change, and the naive sync of each), so the figures are those of compiled code on
   * both sides. Raw JDBC is little code and compiles in a run or two; the engine's hot paths are
   * many large methods, which C2 compiles one after another on one compiler thread (2 cores),
   * taking a core from the run while it does. On this machine that took about twenty 100k cold
   * runs (BENCHMARKS.md, sixteenth session): a fixed two rounds left the cold medians measuring
   * the JIT, on one side only. So rounds go on, past {@code minRounds}, until one spends at most
   * 5% of its time compiling ({@link JitClock}), or {@code maxRounds} ran; the line
   * printed says how long that took. A memoized rerun is short (1,000 memo checks), so each
   * round runs it {@value #MEMO_RUNS_PER_ROUND} times. A fresh JVM's first run is printed on
   * its own by workload 6 ({@link ScalingChild}).
   */
  private static final int WARM_RUNS_PER_ROUND = 3;
  private static final int MEMO_RUNS_PER_ROUND = 12;

  private void warmUp(Dataset data, Path dir, int minRounds, int maxRounds) {
    JitClock jit = new JitClock();
    long jitBefore = jit.compilingMillis();
    long start = System.nanoTime();
    int rounds = 0;
    double lastShare = Double.NaN;
    while (rounds < maxRounds) {
      int round = rounds;
      lastShare = jit.shareWhile(() -> warmUpRound(data, dir, round));
      rounds++;
      if (rounds >= minRounds && (!jit.measurable() || jit.settled(lastShare))) {
        break;
      }
    }
    if (rounds > 0) {
      double seconds = (System.nanoTime() - start) / 1e9;
      String jitText = jit.measurable() ? String.format(Locale.ROOT,
          "JIT compilers busy %.1f s in %.1f s; last round %.0f%% of its time",
          (jit.compilingMillis() - jitBefore) / 1e3, seconds, lastShare * 100)
          : String.format(Locale.ROOT, "%.1f s (JIT time not measurable here)", seconds);
      report.progress(String.format(Locale.ROOT, "warmed up: %d untimed round(s) of every run, %s",
          rounds, jitText));
      report.info("1", "untimed warm-up before the timed runs (until the JIT settles)",
          rounds + " rounds", jitText);
    }
  }

  /** One untimed round of every run, on fresh files under {@code dir}. */
  private static void warmUpRound(Dataset data, Path dir, int round) {
    Site site = Site.in(dir, "w" + round);
    Path rawFile = dir.resolve("raw" + round + ".sqlite");
    EngineBench.rawCold(rawFile, data);
    EngineBench.naiveSync(rawFile, data);
    for (int k = 0; k < WARM_RUNS_PER_ROUND; k++) {
      EngineBench.update(site, data, false);
    }
    // The reruns after a change (workload 4) run code of their own: they warm up too, on a
    // dataset of their own, as the naive sync does beside them.
    Dataset changing = new Dataset(data.rows, data.perComponent);
    Site memo = Site.in(dir, "m" + round);
    for (int k = 0; k < MEMO_RUNS_PER_ROUND; k++) {
      EngineBench.update(memo, changing, true);
    }
    Site byRevision = Site.in(dir, "r" + round);
    for (int k = 0; k < MEMO_RUNS_PER_ROUND; k++) {
      EngineBench.update(byRevision, changing, MEMO_ON_REVISION);
    }
    changing.changeConcentrated();
    EngineBench.update(memo, changing, true);
    EngineBench.update(byRevision, changing, MEMO_ON_REVISION);
    EngineBench.naiveSync(rawFile, changing);
    changing.changeScattered();
    EngineBench.update(memo, changing, true);
    EngineBench.naiveSync(rawFile, changing);
    changing.removeLast();
    EngineBench.update(memo, changing, true);
    EngineBench.naiveSync(rawFile, changing);
    deleteTree(dir);
  }

  /** Cold (beside raw), warm and memoized warm at one size, on fresh files. */
  static SizeFigures measureSize(Path tmp, int rows, int perComponent, int coldIterations,
      int warmIterations) {
    Dataset data = new Dataset(rows, perComponent);
    Path dir = tmp.resolve("size-" + rows);
    List<Long> raw = new ArrayList<>();
    List<Long> cold = new ArrayList<>();
    Site site = null;
    for (int i = 0; i < coldIterations; i++) {
      if (site != null) {
        deleteTree(site.state());
        deleteFile(site.db());
      }
      site = Site.in(dir, "cold" + i);
      Path rawFile = dir.resolve("raw" + i + ".sqlite");
      raw.add(expect("raw cold", EngineBench.rawCold(rawFile, data), rows).nanos());
      deleteFile(rawFile);
      cold.add(expectAtLeast("cold", EngineBench.update(site, data, false), rows).nanos());
    }
    List<Long> warm = new ArrayList<>();
    for (int i = 0; i < warmIterations; i++) {
      warm.add(expect("warm", EngineBench.update(site, data, false), 0).nanos());
    }
    // The same state, now through memoized components: the first run records the memos (every
    // component runs, nothing changes), the next ones are memo hits.
    expect("memo conversion", EngineBench.update(site, data, true), 0);
    List<Long> memoWarm = new ArrayList<>();
    for (int i = 0; i < warmIterations; i++) {
      memoWarm.add(expect("memo warm", EngineBench.update(site, data, true), 0).nanos());
    }
    deleteTree(dir);
    return new SizeFigures(rows, Stats.median(raw), Stats.median(cold), Stats.median(warm),
        Stats.median(memoWarm));
  }

  /** {@code t}, checked to have changed exactly {@code changed} states. */
  static Timed expect(String what, Timed t, long changed) {
    if (t.changed() != changed) {
      throw new IllegalStateException(what + " changed " + t.changed() + " states, expected "
          + changed);
    }
    return t;
  }

  /** {@code t}, checked to have changed at least {@code changed} states. */
  static Timed expectAtLeast(String what, Timed t, long changed) {
    if (t.changed() < changed) {
      throw new IllegalStateException(what + " changed " + t.changed() + " states, expected at"
          + " least " + changed);
    }
    return t;
  }

  static void deleteFile(Path file) {
    for (String suffix : new String[] {"", "-wal", "-shm"}) {
      try {
        Files.deleteIfExists(Path.of(file + suffix));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
