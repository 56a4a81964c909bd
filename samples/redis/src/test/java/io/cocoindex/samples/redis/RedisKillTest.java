package io.cocoindex.samples.redis;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.testkit.ChildJvm;
import io.cocoindex.testkit.KillTrials;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * kill -9 at random moments: a child JVM ({@link RedisKillChild}) updates about 500 hashes in up
 * to 6 indexes and is killed ({@code destroyForcibly}, SIGKILL) somewhere in its run; a run in
 * this JVM, on the same generation or the next one (indexes added, removed and replaced,
 * documents added, changed and removed since), must then converge: the root prefix holds
 * exactly the declared keys, each hash exactly the declared fields, and a preview plans nothing.
 * The child JVM and the trials are the test kit's ({@link ChildJvm}, {@link KillTrials}). Needs
 * {@code COCOINDEX_TEST_REDIS_URL} (skipped without it, like the other Redis tests).
 *
 * <p>{@code -Dredis.kill.trials=N} for more trials, {@code -Dredis.kill.seed=S} to replay.
 */
class RedisKillTest {
  @TempDir Path dir;
  UnifiedJedis redis;
  String root;

  @AfterEach
  void cleanUp() {
    if (redis != null && root != null) {
      List<String> left = RedisServer.keys(redis, root);
      if (!left.isEmpty()) {
        redis.unlink(left.toArray(String[]::new));
      }
    }
  }

  @Test
  void everyKilledRunConvergesOnTheNextRun() throws Exception {
    redis = RedisServer.require();
    KillTrials trials = KillTrials.fromSystemProperties("redis.kill", 8);
    long seed = trials.seed();
    root = "t:kill:" + Long.toHexString(seed & 0xffffffffL) + ":";
    Path state = dir.resolve("state");
    trials.runGenerations(
        generation -> child(state, seed, generation),
        generation -> convergenceProblems(state, seed, generation));
  }

  /** The child JVM's update of {@code generation} under {@link #root}. */
  private ChildJvm child(Path state, long seed, int generation) {
    return ChildJvm.of(RedisKillChild.class, state, root, seed, generation);
  }

  /** A clean update in this JVM, then what differs from the declared world. */
  private List<String> convergenceProblems(Path state, long seed, int generation) {
    RedisKillWorld world = RedisKillWorld.of(root, seed, generation);
    List<String> problems = new ArrayList<>();
    try (App app = App.create("kill", Environment.builder().dbPath(state)
        .provide(RedisKillWorld.REDIS, redis).build(), world.main())) {
      app.update();
      Map<String, Map<String, String>> expected = world.expected();
      Map<String, Map<String, String>> actual = new TreeMap<>();
      for (String key : RedisServer.keys(redis, root)) {
        actual.put(key, new TreeMap<>(redis.hgetAll(key)));
      }
      actual.forEach((k, v) -> {
        if (!expected.containsKey(k)) {
          problems.add("left over: " + k + " " + v);
        } else if (!expected.get(k).equals(v)) {
          problems.add("wrong fields: " + k + " " + v + ", declared " + expected.get(k));
        }
      });
      expected.keySet().stream().filter(k -> !actual.containsKey(k))
          .forEach(k -> problems.add("missing: " + k));
      app.preview().changes().forEach(c -> problems.add("still planned: " + c));
    }
    return problems;
  }
}
