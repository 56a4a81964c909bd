package io.cocoindex.samples.redis;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.testkit.ChildJvm;
import java.nio.file.Path;
import redis.clients.jedis.RedisClient;

/**
 * The child JVM of {@link RedisKillTest}: one update of {@code RedisKillWorld.of(root, seed,
 * generation)} against {@code COCOINDEX_TEST_REDIS_URL}, whose start and end {@link
 * ChildJvm#update} announces to the test.
 *
 * <p>Args: stateDir root seed generation.
 */
public final class RedisKillChild {
  public static void main(String[] args) throws Exception {
    RedisKillWorld world = RedisKillWorld.of(args[1], Long.parseLong(args[2]),
        Integer.parseInt(args[3]));
    try (RedisClient redis = RedisClient.create(java.net.URI.create(System.getenv(RedisServer.URL_VARIABLE)));
        App app = App.create("kill", Environment.builder().dbPath(Path.of(args[0]))
            .provide(RedisKillWorld.REDIS, redis).build(), world.main())) {
      ChildJvm.update(app);
    }
  }
}
