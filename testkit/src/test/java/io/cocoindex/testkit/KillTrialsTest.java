package io.cocoindex.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trial loop of {@link KillTrials}, with real child JVMs ({@link FileWritingChild}). */
class KillTrialsTest {
  @TempDir Path dir;

  ChildJvm writing(int files, long millisPerFile) {
    return ChildJvm.of(FileWritingChild.class, "write", dir.resolve("state"), dir.resolve("out"),
        files, millisPerFile);
  }

  @Test
  void killTimesAreTheSeedsFractionsOfOnePointTwoFullRuns() {
    KillTrials trials = KillTrials.seeded("files.kill", 3, 7);
    Random replay = new Random(7);

    ChildJvm.Completed calibration = trials.calibrate(writing(20, 25));
    Duration window = max(calibration.update(), KillTrials.MIN_WINDOW);
    int killed = 0;
    for (int t = 1; t <= trials.count(); t++) {
      KillTrials.Trial trial = trials.kill(writing(20, 25));

      assertThat(trial.number()).isEqualTo(t);
      assertThat(trial.killAfter())
          .isEqualTo(Duration.ofNanos((long) (replay.nextDouble() * window.toNanos() * 1.2)));
      if (trial.outcome() instanceof ChildJvm.Killed k) {
        killed++;
        assertThat(k.afterStart()).isGreaterThanOrEqualTo(trial.killAfter());
      } else {
        window = max(((ChildJvm.Completed) trial.outcome()).update(), KillTrials.MIN_WINDOW);
      }
      assertThat(trial.toString()).startsWith("trial " + t + ", kill due at "
          + trial.killAfter().toMillis() + " ms: " + trial.outcome());
    }

    assertThat(trials.random().nextLong()).as("the test's own draws replay too")
        .isEqualTo(replay.nextLong());
    assertThat(trials.summary()).isEqualTo("files.kill: seed 7, " + killed + "/3 trials killed"
        + " (replay with -Dfiles.kill.seed=7)");
  }

  @Test
  void countAndSeedComeFromTheNamedSystemProperties() {
    System.setProperty("files.kill.trials", "5");
    System.setProperty("files.kill.seed", "42");
    try {
      KillTrials trials = KillTrials.fromSystemProperties("files.kill", 8);

      assertThat(trials.count()).isEqualTo(5);
      assertThat(trials.seed()).isEqualTo(42);
      assertThat(trials.random().nextLong()).isEqualTo(new Random(42).nextLong());
      assertThat(trials).hasToString("files.kill seed 42 (replay with -Dfiles.kill.seed=42)");
    } finally {
      System.clearProperty("files.kill.trials");
      System.clearProperty("files.kill.seed");
    }
  }

  @Test
  void withoutThePropertiesTheDefaultCountAndANewSeedApply() {
    KillTrials trials = KillTrials.fromSystemProperties("files.kill.unset", 8);

    assertThat(trials.count()).isEqualTo(8);
    assertThat(trials.summary()).isEqualTo("files.kill.unset: seed " + trials.seed()
        + ", 0/0 trials killed (replay with -Dfiles.kill.unset.seed=" + trials.seed() + ")");
  }

  @Test
  void aKillBeforeCalibrationFails() {
    KillTrials trials = KillTrials.seeded("files.kill", 1, 1);

    assertThatThrownBy(() -> trials.kill(writing(1, 0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("calibrate(child) first: kill times are drawn from the length of a full run");
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
