package io.cocoindex.runtime;

import io.cocoindex.runtime.plan.Run;
import io.cocoindex.runtime.plan.RunMode;
import io.cocoindex.runtime.threads.SharedThreads;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A line at INFO every {@value #DEFAULT_SECONDS} seconds while a run goes on, so that a run of a
 * million components says how far it has come without the application polling {@link
 * App#progress()}: a run shorter than the period logs nothing more than its summary. The period
 * is the system property {@value #PERIOD_PROPERTY}, in seconds (a decimal fraction allowed; 0
 * logs none).
 */
final class RunProgressLog implements AutoCloseable {
  /** The system property that sets the period, in seconds. */
  static final String PERIOD_PROPERTY = "cocoindex.progress.logSeconds";

  /** The period when the property is not set. */
  static final long DEFAULT_SECONDS = 10;

  /** A logger of its own, so that the progress lines can be turned off apart from the rest. */
  private static final Logger log = LoggerFactory.getLogger(RunProgressLog.class);

  private static final RunProgressLog NONE = new RunProgressLog(null);

  private final ScheduledFuture<?> lines;

  private RunProgressLog(ScheduledFuture<?> lines) {
    this.lines = lines;
  }

  /**
   * Starts logging {@code run}'s progress, unless INFO is off for this class's logger or the
   * period is 0.
   *
   * @param app the app's name, for the lines
   * @param mode what the run does, for the lines
   * @param run the run just started
   * @return close it as the run ends
   */
  static RunProgressLog start(String app, RunMode mode, Run run) {
    long periodMillis = periodMillis(System.getProperty(PERIOD_PROPERTY));
    if (periodMillis == 0 || !log.isInfoEnabled()) {
      return NONE;
    }
    String what = mode.name().toLowerCase(Locale.ROOT); // "update", "preview", "drop"
    return new RunProgressLog(SharedThreads.repeat(periodMillis, () -> {
      Duration elapsed = Duration.ofNanos(System.nanoTime() - run.startNanos);
      RunProgress p = run.stats.progress();
      UpdateStats.ProviderStats t = run.stats.snapshot(elapsed).total();
      log.info(String.format(Locale.ROOT, "app '%s': %s under way for %d s: %,d components"
              + " finished of %,d mounted so far (%,d memoized); %,d created, %,d updated,"
              + " %,d deleted, %,d unchanged so far", app, what, elapsed.toSeconds(),
          p.finished(), p.mounted(), p.memoized(), t.created(), t.updated(), t.deleted(),
          t.unchanged()));
    }));
  }

  /**
   * The period {@code property} sets, in milliseconds: the default when it is null, or, with a
   * warning, when it is not a number of seconds (a setting of the logs fails no run).
   */
  static long periodMillis(String property) {
    if (property == null) {
      return DEFAULT_SECONDS * 1000;
    }
    double seconds;
    try {
      seconds = Double.parseDouble(property.trim());
    } catch (NumberFormatException e) {
      seconds = -1;
    }
    if (!(seconds >= 0) || seconds > Long.MAX_VALUE / 1000.0) {
      log.warn("system property {} is '{}', not the seconds between two progress lines of a run"
          + " (0 for none): logging one every {} s", PERIOD_PROPERTY, property, DEFAULT_SECONDS);
      return DEFAULT_SECONDS * 1000;
    }
    return seconds == 0 ? 0 : Math.max(1, Math.round(seconds * 1000));
  }

  @Override
  public void close() {
    if (lines != null) {
      lines.cancel(false);
    }
  }
}
