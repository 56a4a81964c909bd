package io.cocoindex.bench;

import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** Runs {@link CodecBenchmark} through JMH and reports generated vs Jackson per record. */
final class CodecBench {
  private CodecBench() {}

  static void run(Config cfg, Report report) {
    // Fail fast (and clearly) if a generated codec is missing or a codec does not round-trip,
    // before JMH starts.
    for (String record : new String[] {"Document", "DocumentRecord", "RowAction"}) {
      Class<?> type = CodecBenchmark.type(record);
      Object sample = CodecBenchmark.sample(record);
      for (String codec : new String[] {"generated", "jackson"}) {
        var c = CodecBenchmark.codecFor(codec, type);
        if (!Objects.equals(c.decode(c.encode(sample)), sample)) {
          throw new IllegalStateException("the " + codec + " codec of " + record
              + " does not round-trip its sample");
        }
      }
    }
    Collection<RunResult> results;
    try {
      results = new Runner(new OptionsBuilder()
          .include(CodecBenchmark.class.getName() + ".roundTrip")
          .forks(cfg.jmhForks())
          .warmupIterations(cfg.jmhIterations())
          .warmupTime(TimeValue.milliseconds(cfg.jmhWarmupMillis()))
          .measurementIterations(cfg.jmhIterations())
          .measurementTime(TimeValue.milliseconds(cfg.jmhMeasureMillis()))
          .threads(1)
          .shouldFailOnError(true)
          .verbosity(VerboseMode.SILENT)
          .build()).run();
    } catch (RunnerException e) {
      throw new IllegalStateException("JMH failed", e);
    }
    Map<String, Double> nanos = new HashMap<>();
    for (RunResult r : results) {
      nanos.put(r.getParams().getParam("record") + "/" + r.getParams().getParam("codec"),
          r.getPrimaryResult().getScore());
    }
    for (String record : new String[] {"Document", "DocumentRecord", "RowAction"}) {
      Double gen = nanos.get(record + "/generated");
      Double jackson = nanos.get(record + "/jackson");
      if (gen == null || jackson == null) {
        throw new IllegalStateException("JMH returned no result for " + record + ": " + nanos);
      }
      report.check("8", "codec encode+decode, " + record + " (JMH, ns/op)",
          String.format(Locale.ROOT, "generated %.0f ns, Jackson %.0f ns", gen, jackson),
          jackson / gen, Report.fmtRatio(jackson / gen) + " faster", 2.0, false);
    }
  }
}
