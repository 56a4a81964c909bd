package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetStateProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run that goes on past the period logs where it stands, at INFO on a logger of its own
 * ({@link RunProgressLog}), every period until it ends; a shorter run, or a period of 0, logs
 * no such line.
 */
class RunProgressLogTest {
  @TempDir Path dir;
  private String periodBefore;
  private final PrintStream err = System.err;
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();

  @BeforeEach
  void captureTheLog() {
    periodBefore = System.getProperty(RunProgressLog.PERIOD_PROPERTY);
    System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restore() {
    System.setErr(err);
    if (periodBefore == null) {
      System.clearProperty(RunProgressLog.PERIOD_PROPERTY);
    } else {
      System.setProperty(RunProgressLog.PERIOD_PROPERTY, periodBefore);
    }
  }

  @Test
  void aRunLongerThanThePeriodSaysHowFarItHasCome() throws Exception {
    System.setProperty(RunProgressLog.PERIOD_PROPERTY, "0.05");
    Rows rows = new Rows();
    CountDownLatch mainMayGoOn = new CountDownLatch(1);
    try (App app = App.create("progress", Environment.builder().dbPath(dir.resolve("s")).build(),
        ctx -> {
          TargetStateProvider<String> p =
              registerRootTargetStatesProvider(ctx, "rows", rows.handler);
          // Two children committed (a foreground mount returns once its child has), then main
          // waits: where the run stands is known while it does.
          for (String key : List.of("a", "b")) {
            ctx.useMount(key, c -> {
              declareTargetState(c, p.targetState(key, "v"));
              return null;
            });
          }
          try {
            mainMayGoOn.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          ctx.mount("c", c -> declareTargetState(c, p.targetState("c", "v")));
        })) {
      Thread run = new Thread(app::update);
      run.start();
      try {
        awaitLine("INFO io\\.cocoindex\\.runtime\\.RunProgressLog - app 'progress': update under"
            + " way for \\d+ s: 2 components finished of 3 mounted so far \\(0 memoized\\); 2 created,"
            + " 0 updated, 0 deleted, 0 unchanged so far");
      } finally {
        mainMayGoOn.countDown();
      }
      run.join(10_000);

      assertThat(progressLines()).allSatisfy(line -> assertThat(line).matches(
          "INFO io\\.cocoindex\\.runtime\\.RunProgressLog - app 'progress': update under way"
              + " for \\d+ s: [0-4] components finished of [0-4] mounted so far \\(0 memoized\\);"
              + " [0-3] created, 0 updated, 0 deleted, 0 unchanged so far"));
      int atTheEnd = progressLines().size();
      Thread.sleep(200); // four periods
      assertThat(progressLines()).as("lines after the run ended").hasSize(atTheEnd);
    }
  }

  @Test
  void aRunShorterThanThePeriodOrAPeriodOfZeroLogsNoProgress() throws Exception {
    Rows rows = new Rows();
    try (App app = App.create("quiet", Environment.builder().dbPath(dir.resolve("q")).build(),
        ctx -> {
          TargetStateProvider<String> p =
              registerRootTargetStatesProvider(ctx, "rows", rows.handler);
          ctx.mount("a", c -> declareTargetState(c, p.targetState("a", "v")));
        })) {
      app.update(); // the default period, 10 s
      System.setProperty(RunProgressLog.PERIOD_PROPERTY, "0");
      app.update();
    }
    assertThat(progressLines()).isEmpty();
  }

  @Test
  void aPeriodThatIsNoNumberOfSecondsIsTheDefaultWithAWarning() {
    assertThat(RunProgressLog.periodMillis(null)).isEqualTo(10_000);
    assertThat(RunProgressLog.periodMillis("2.5")).isEqualTo(2_500);
    assertThat(RunProgressLog.periodMillis("0")).isZero();

    assertThat(RunProgressLog.periodMillis("ten")).isEqualTo(10_000);
    assertThat(RunProgressLog.periodMillis("-1")).isEqualTo(10_000);

    assertThat(lines()).containsExactly(
        "WARN io.cocoindex.runtime.RunProgressLog - system property cocoindex.progress.logSeconds"
            + " is 'ten', not the seconds between two progress lines of a run (0 for none):"
            + " logging one every 10 s",
        "WARN io.cocoindex.runtime.RunProgressLog - system property cocoindex.progress.logSeconds"
            + " is '-1', not the seconds between two progress lines of a run (0 for none):"
            + " logging one every 10 s");
  }

  private void awaitLine(String regex) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (progressLines().stream().noneMatch(l -> l.matches(regex))) {
      assertThat(System.nanoTime()).as("a progress line matching " + regex + " in "
          + progressLines()).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private List<String> progressLines() {
    List<String> out = new ArrayList<>();
    for (String line : lines()) {
      if (line.contains("RunProgressLog")) {
        out.add(line);
      }
    }
    return out;
  }

  /** The lines logged, each without the thread's name that starts it. */
  private List<String> lines() {
    String text = logged.toString(StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>();
    for (String line : text.isEmpty() ? List.<String>of() : Arrays.asList(text.split("\\R"))) {
      out.add(line.replaceFirst("^\\[[^\\]]*\\] ", ""));
    }
    return out;
  }
}
