package io.cocoindex.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.App;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  /** Generation g declares 10, 20 or 5 files, in turn: files are added, then some deleted. */
  static int filesOf(int generation) {
    return new int[] {10, 20, 5}[generation % 3];
  }

  /** A clean update of generation {@code g} here, then the files that differ. */
  List<String> problems(int generation) throws Exception {
    try (App app = FileWritingChild.app(dir.resolve("state"), dir.resolve("out"),
        filesOf(generation), 0)) {
      app.update();
    }
    Map<String, String> expected = FileWritingChild.expected(filesOf(generation));
    Map<String, String> actual = FileWritingChild.contents(dir.resolve("out"));
    List<String> problems = new ArrayList<>();
    actual.forEach((name, text) -> {
      if (!text.equals(expected.get(name))) {
        problems.add((expected.containsKey(name) ? "wrong content: " : "left over: ") + name);
      }
    });
    expected.keySet().stream().filter(n -> !actual.containsKey(n))
        .forEach(n -> problems.add("missing: " + n));
    return problems;
  }

  @Test
  void runGenerationsKillsEachNextGenerationAndChecksACleanRunOnItOrTheOneAfter()
      throws Exception {
    KillTrials trials = KillTrials.seeded("files.kill", 3, 11);
    Random replay = new Random(11);
    List<Integer> children = new ArrayList<>();
    List<Integer> checked = new ArrayList<>();

    trials.runGenerations(
        generation -> {
          children.add(generation);
          return writing(filesOf(generation), 15);
        },
        generation -> {
          checked.add(generation);
          return problems(generation);
        });

    // The calibration's child and check, then per trial: the next generation's child is
    // killed, and the clean run takes it or the one after, as the seed's draws say (each kill
    // time is one draw, the choice the next).
    List<Integer> expectedChildren = new ArrayList<>(List.of(0));
    List<Integer> expectedChecks = new ArrayList<>(List.of(0));
    int generation = 0;
    for (int t = 0; t < 3; t++) {
      generation++;
      expectedChildren.add(generation);
      replay.nextDouble();
      generation = replay.nextBoolean() ? generation : generation + 1;
      expectedChecks.add(generation);
    }
    assertThat(children).isEqualTo(expectedChildren);
    assertThat(checked).isEqualTo(expectedChecks);
    assertThat(FileWritingChild.contents(dir.resolve("out")))
        .isEqualTo(FileWritingChild.expected(filesOf(generation)));
  }

  @Test
  void aCleanRunThatDoesNotConvergeFailsNamingTheSeedTheTrialAndEveryDifference() {
    KillTrials trials = KillTrials.seeded("files.kill", 2, 5);

    assertThatThrownBy(() -> trials.runGenerations(
        generation -> writing(filesOf(generation), 15),
        generation -> generation == 0 ? problems(0)
            : List.of("left over: f99.txt", "missing: f00.txt")))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("files.kill seed 5 (replay with -Dfiles.kill.seed=5), trial 1,"
            + " kill due at ")
        .hasMessageContaining("; clean run on generation ")
        .hasMessageEndingWith(": did not converge, 2 differences:\n  left over: f99.txt\n"
            + "  missing: f00.txt");
  }

  @Test
  void aFirstRunThatDoesNotConvergeFailsBeforeAnyKill() {
    KillTrials trials = KillTrials.seeded("files.kill", 2, 5);
    List<Integer> children = new ArrayList<>();

    assertThatThrownBy(() -> trials.runGenerations(
        generation -> {
          children.add(generation);
          return writing(1, 0);
        },
        generation -> List.of("missing: f00.txt")))
        .isInstanceOf(AssertionError.class)
        .hasMessage("files.kill seed 5 (replay with -Dfiles.kill.seed=5), the first run, on"
            + " generation 0: did not converge, 1 difference:\n  missing: f00.txt");
    assertThat(children).containsExactly(0);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
