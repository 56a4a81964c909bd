package io.cocoindex.samples.localfs;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.testkit.ChildJvm;
import io.cocoindex.testkit.KillTrials;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at random moments: a child JVM ({@link LocalFsKillChild}) updates a tree of about 200
 * files in 12 subdirectories and is killed ({@code destroyForcibly}, SIGKILL) somewhere in its
 * run; a run in this JVM, on the same generation or the next one (files and directories added,
 * changed, removed since), must then converge: the directory holds exactly the declared files
 * with exactly their contents, no temporary sibling, and a preview plans nothing. The child JVM
 * and the trials are the test kit's ({@link ChildJvm}, {@link KillTrials}).
 *
 * <p>{@code -Dlocalfs.kill.trials=N} for more trials, {@code -Dlocalfs.kill.seed=S} to replay.
 */
class LocalFsKillTest {
  @TempDir Path dir;

  @Test
  void everyKilledRunConvergesOnTheNextRun() throws Exception {
    KillTrials trials = KillTrials.fromSystemProperties("localfs.kill", 8);
    Path state = dir.resolve("state");
    Path out = dir.resolve("out");
    trials.runGenerations(
        generation -> child(state, out, trials.seed(), generation),
        generation -> convergenceProblems(state, out, trials.seed(), generation));
  }

  /** The child JVM's update of {@code generation}. */
  private static ChildJvm child(Path state, Path out, long seed, int generation) {
    return ChildJvm.of(LocalFsKillChild.class, state, out, seed, generation);
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
}
