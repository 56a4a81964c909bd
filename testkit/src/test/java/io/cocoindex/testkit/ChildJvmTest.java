package io.cocoindex.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.App;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real child JVMs ({@link FileWritingChild}): completed, killed, and the failures' messages. */
class ChildJvmTest {
  @TempDir Path dir;

  ChildJvm writing(int files, long millisPerFile) {
    return ChildJvm.of(FileWritingChild.class, "write", dir.resolve("state"), dir.resolve("out"),
        files, millisPerFile);
  }

  @Test
  void aChildLeftAloneCompletesAndReportsHowLongItsUpdateTook() {
    ChildJvm.Completed completed = writing(5, 100).run();

    assertThat(completed.update()).isBetween(Duration.ofMillis(500), Duration.ofSeconds(60));
    assertThat(completed.toString()).matches("completed its update in \\d+ ms");
    assertThat(FileWritingChild.contents(dir.resolve("out")))
        .isEqualTo(FileWritingChild.expected(5));
  }

  @Test
  void aChildKilledDuringItsUpdateReportsKilledAndTheNextRunConverges() throws Exception {
    ChildJvm.Outcome outcome = writing(40, 100).runAndKill(Duration.ofMillis(300));

    assertThat(outcome).isInstanceOf(ChildJvm.Killed.class);
    Duration afterStart = ((ChildJvm.Killed) outcome).afterStart();
    assertThat(afterStart).isBetween(Duration.ofMillis(300), Duration.ofSeconds(4));
    assertThat(outcome.toString()).matches("killed \\d+ ms into its update");
    int written = FileWritingChild.contents(dir.resolve("out")).size();
    assertThat(written).as("files written before the kill").isLessThan(40);
    Thread.sleep(300);
    assertThat(FileWritingChild.contents(dir.resolve("out"))).as("the child is dead").hasSize(written);

    try (App app = FileWritingChild.app(dir.resolve("state"), dir.resolve("out"), 40, 0)) {
      app.update();
      assertThat(FileWritingChild.contents(dir.resolve("out")))
          .isEqualTo(FileWritingChild.expected(40));
      assertThat(app.preview().changes()).isEmpty();
    }
  }

  @Test
  void aKillDueAfterTheUpdateEndedFindsItCompleted() {
    long before = System.nanoTime();
    ChildJvm.Outcome outcome = writing(2, 10).runAndKill(Duration.ofSeconds(30));

    assertThat(outcome).isInstanceOf(ChildJvm.Completed.class);
    assertThat(Duration.ofNanos(System.nanoTime() - before))
        .as("no wait for a kill once the update ended").isLessThan(Duration.ofSeconds(30));
    assertThat(FileWritingChild.contents(dir.resolve("out")))
        .isEqualTo(FileWritingChild.expected(2));
  }

  @Test
  void aChildThatNeverAnnouncesItsStartFailsNamingItsClassAndArguments() {
    ChildJvm child = ChildJvm.of(FileWritingChild.class, "silent")
        .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(60));

    assertThatThrownBy(child::run).isInstanceOf(AssertionError.class)
        .hasMessage("the child JVM io.cocoindex.testkit.FileWritingChild [silent] did not announce"
            + " the start of its update within 1 s (its main must pass its app to"
            + " ChildJvm.update, or call ChildJvm.announceStart); killed");
  }

  @Test
  void aChildThatExitsBeforeItsStartFailsWithItsExitCode() {
    ChildJvm child = ChildJvm.of(FileWritingChild.class, "quit");

    assertThatThrownBy(() -> child.runAndKill(Duration.ZERO)).isInstanceOf(AssertionError.class)
        .hasMessage("the child JVM io.cocoindex.testkit.FileWritingChild [quit] exited with code 3"
            + " before announcing the start of its update (its main must pass its app to"
            + " ChildJvm.update, or call ChildJvm.announceStart)");
  }

  @Test
  void aChildWhoseUpdateFailsFailsTheRun() {
    ChildJvm child = ChildJvm.of(FileWritingChild.class, "fail", dir.resolve("state"),
        dir.resolve("out"));

    assertThatThrownBy(child::run).isInstanceOf(AssertionError.class)
        .hasMessage("the child JVM " + child + " exited with code 1 without announcing the end of"
            + " its update (its update failed: see its standard error)");
  }

  @Test
  void aChildThatDoesNotExitIsKilledAfterItsTimeout() throws Exception {
    Path heartbeat = dir.resolve("heartbeat");
    ChildJvm child = ChildJvm.of(FileWritingChild.class, "hang", heartbeat)
        .withTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(1));

    assertThatThrownBy(child::run).isInstanceOf(AssertionError.class)
        .hasMessage("the child JVM io.cocoindex.testkit.FileWritingChild [hang, " + heartbeat
            + "] did not exit within 1 s of the start of its update; killed");
    String beat = Files.readString(heartbeat);
    Thread.sleep(200);
    assertThat(Files.readString(heartbeat)).as("the child is dead").isEqualTo(beat);
  }

  @Test
  void argumentsAndTimeoutsAreChecked() {
    assertThatThrownBy(() -> ChildJvm.of(FileWritingChild.class, "write", null))
        .isInstanceOf(NullPointerException.class).hasMessage("args[1]");
    assertThatThrownBy(() -> writing(1, 0).withTimeouts(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("toStart must be positive, not PT0S");
    assertThatThrownBy(() -> writing(1, 0).runAndKill(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("afterStart must not be negative, not PT-0.001S");
  }
}
