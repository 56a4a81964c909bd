package io.cocoindex.samples.localfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at random moments: a child JVM ({@link LocalFsKillChild}) updates a tree of about 200
 * files in 12 subdirectories and is killed ({@code destroyForcibly}, SIGKILL) somewhere in its
 * run; a run in this JVM, on the same generation or the next one (files and directories added,
 * changed, removed since), must then converge: the directory holds exactly the declared files
 * with exactly their contents, no temporary sibling, and a preview plans nothing.
 *
 * <p>{@code -Dlocalfs.kill.trials=N} for more trials, {@code -Dlocalfs.kill.seed=S} to replay.
 */
class LocalFsKillTest {
  @TempDir Path dir;

  @Test
  void everyKilledRunConvergesOnTheNextRun() throws Exception {
    int trials = Integer.getInteger("localfs.kill.trials", 8);
    long seed = Long.getLong("localfs.kill.seed", System.nanoTime());
    Random rnd = new Random(seed);
    Path state = dir.resolve("state");
    Path out = dir.resolve("out");
    int generation = 0;
    long runMillis = runChild(state, out, seed, generation, -1);
    assertThat(runMillis).as("setup run").isNotNegative();
    assertThat(convergenceProblems(state, out, seed, generation)).isEmpty();
    int killed = 0;
    for (int t = 1; t <= trials; t++) {
      generation++;
      long killAfter = (long) (rnd.nextDouble() * runMillis * 1.2);
      long took = runChild(state, out, seed, generation, killAfter);
      boolean done = took >= 0;
      if (done) {
        runMillis = Math.max(50, took);
      } else {
        killed++;
      }
      int clean = rnd.nextBoolean() ? generation : ++generation;
      assertThat(convergenceProblems(state, out, seed, clean))
          .as("trial %d (seed %d): generation %d %s after %d ms, clean run on generation %d",
              t, seed, generation, done ? "completed" : "killed", killAfter, clean)
          .isEmpty();
    }
    System.out.println("localfs kill: seed " + seed + ", " + killed + "/" + trials + " killed");
  }

  /** A clean update in this JVM, then what differs from the declared world. */
  private static List<String> convergenceProblems(Path state, Path out, long seed, int generation)
      throws Exception {
    KillWorld world = KillWorld.of(seed, generation);
    List<String> problems = new ArrayList<>();
    try (App app = App.create("kill", Environment.builder().dbPath(state).build(),
        world.main(out))) {
      app.update();
      Map<String, String> expected = world.expected();
      Map<String, String> actual = DiskTree.of(out);
      for (String p : actual.keySet()) {
        if (!expected.containsKey(p)) {
          problems.add("left over: " + p);
        } else if (!expected.get(p).equals(actual.get(p))) {
          problems.add("wrong content: " + p);
        }
      }
      for (String p : expected.keySet()) {
        if (!actual.containsKey(p)) {
          problems.add("missing: " + p);
        }
      }
      app.preview().changes().forEach(c -> problems.add("still planned: " + c));
    }
    return problems;
  }

  /**
   * Runs the child; kills it {@code killAfterMillis} after it started its update (-1: never).
   * Returns the milliseconds its update took, or -1 when it was killed.
   */
  private static long runChild(Path state, Path out, long seed, int generation,
      long killAfterMillis) throws Exception {
    Process p = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp", System.getProperty("java.class.path"), LocalFsKillChild.class.getName(),
            state.toString(), out.toString(), Long.toString(seed), Integer.toString(generation))
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    CompletableFuture<Void> started = new CompletableFuture<>();
    boolean[] done = new boolean[1];
    long[] times = new long[2];
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          if (line.equals("START")) {
            times[0] = System.nanoTime();
            started.complete(null);
          } else if (line.equals("DONE")) {
            times[1] = System.nanoTime();
            done[0] = true;
          }
        }
      } catch (Exception e) {
        // the child died
      } finally {
        started.complete(null);
      }
    });
    reader.start();
    if (killAfterMillis >= 0) {
      started.get(60, TimeUnit.SECONDS);
      if (!p.waitFor(killAfterMillis, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
      }
    }
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
    reader.join();
    return done[0] && p.exitValue() == 0 ? (times[1] - times[0]) / 1_000_000 : -1;
  }
}
