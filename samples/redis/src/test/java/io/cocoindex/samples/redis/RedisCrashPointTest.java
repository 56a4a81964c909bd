package io.cocoindex.samples.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.App;
import io.cocoindex.testkit.CocoIndexExtension;
import io.cocoindex.testkit.CrashPoint;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.UnifiedJedis;

/**
 * The test kit's crash points at every precommit and commit of runs that remove, replace and
 * re-declare indexes, with the source changing between the crash and the rerun; each rerun must
 * leave exactly the declared keys and fields. Needs {@code COCOINDEX_TEST_REDIS_URL}.
 */
class RedisCrashPointTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();
  UnifiedJedis redis;
  String root;

  @BeforeEach
  void setUp() {
    redis = RedisServer.require();
    root = "t:crashpoint:" + Long.toHexString(System.nanoTime() & 0xffffff) + ":";
  }

  @AfterEach
  void cleanUp() {
    if (redis == null) {
      return; // skipped: no server
    }
    List<String> left = RedisServer.keys(redis, root);
    if (!left.isEmpty()) {
      redis.unlink(left.toArray(String[]::new));
    }
  }

  Map<String, Map<String, String>> actual() {
    Map<String, Map<String, String>> out = new TreeMap<>();
    RedisServer.keys(redis, root).forEach(k -> out.put(k, new TreeMap<>(redis.hgetAll(k))));
    return out;
  }

  @Test
  void aCrashAnywhereInARunThenAnotherGenerationConverges() {
    int crashes = 0;
    for (CrashPoint.Kind kind : CrashPoint.Kind.values()) {
      // Schemas are drawn anew at generation 4 (RedisKillWorld): a changed one is replaced in the
      // crashed run (gen 3),
      // or in the rerun (gen 2); indexes also come and go.
      for (int gen = 2; gen <= 3; gen++) {
        for (int n = 1; ; n++) {
          // Each time: a settled run of `gen`, a crash at point n of the run of gen + 1, and a
          // rerun of gen + 2 (what the crashed run wrote and is no longer declared must go).
          App settled = coco.app("redis", RedisKillWorld.of(root, 7, gen).main(redis));
          coco.update(settled);
          settled.close();
          CrashPoint point = new CrashPoint(kind, n);
          App crashing = coco.app("redis", RedisKillWorld.of(root, 7, gen + 1).main(redis));
          boolean crashed = coco.updateCrashing(crashing, point);
          crashing.close();
          RedisKillWorld next = RedisKillWorld.of(root, 7, gen + 2);
          App rerun = coco.app("redis", next.main(redis));
          coco.update(rerun);
          assertThat(actual()).as("generation %d, %s", gen + 1, point).isEqualTo(next.expected());
          assertThat(coco.pending(rerun)).as("generation %d, %s", gen + 1, point).isEmpty();
          rerun.close();
          if (!crashed) {
            break;
          }
          crashes++;
        }
      }
    }
    assertThat(crashes).as("crash points reached").isGreaterThan(30);
  }
}
