package io.cocoindex.samples.redis;

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
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * Needs {@code COCOINDEX_TEST_REDIS_URL} (skipped without it, like the other Redis tests).
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
    int trials = Integer.getInteger("redis.kill.trials", 8);
    long seed = Long.getLong("redis.kill.seed", System.nanoTime());
    root = "t:kill:" + Long.toHexString(seed & 0xffffffffL) + ":";
    Random rnd = new Random(seed);
    Path state = dir.resolve("state");
    int generation = 0;
    long runMillis = runChild(state, seed, generation, -1);
    assertThat(runMillis).as("setup run").isNotNegative();
    assertThat(convergenceProblems(state, seed, generation)).isEmpty();
    int killed = 0;
    for (int t = 1; t <= trials; t++) {
      generation++;
      long killAfter = (long) (rnd.nextDouble() * runMillis * 1.2);
      long took = runChild(state, seed, generation, killAfter);
      boolean done = took >= 0;
      if (done) {
        runMillis = Math.max(50, took);
      } else {
        killed++;
      }
      int clean = rnd.nextBoolean() ? generation : ++generation;
      assertThat(convergenceProblems(state, seed, clean))
          .as("trial %d (seed %d): generation %d %s after %d ms, clean run on generation %d",
              t, seed, generation, done ? "completed" : "killed", killAfter, clean)
          .isEmpty();
    }
    System.out.println("redis kill: seed " + seed + ", " + killed + "/" + trials + " killed");
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

  /**
   * Runs the child; kills it {@code killAfterMillis} after it started its update (-1: never).
   * Returns the milliseconds its update took, or -1 when it was killed.
   */
  private long runChild(Path state, long seed, int generation, long killAfterMillis)
      throws Exception {
    Process p = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp", System.getProperty("java.class.path"), RedisKillChild.class.getName(),
            state.toString(), root, Long.toString(seed), Integer.toString(generation))
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    CompletableFuture<Void> started = new CompletableFuture<>();
    long[] times = new long[2];
    boolean[] done = new boolean[1];
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
