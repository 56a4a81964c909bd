package io.cocoindex.samples.redis;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The test server from {@code COCOINDEX_TEST_REDIS_URL}: tests are skipped without it, and fail
 * when {@code CI=true} (CI must run them).
 */
final class RedisServer {
  static final String URL_VARIABLE = "COCOINDEX_TEST_REDIS_URL";
  private static UnifiedJedis client;

  private RedisServer() {}

  /** The shared client; skips the test (or fails it under CI) when no server is configured. */
  static synchronized UnifiedJedis require() {
    String url = System.getenv(URL_VARIABLE);
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail(URL_VARIABLE + " is not set but CI=true: Redis tests must run in CI (start a server"
            + " with .ci/services start DIR and source DIR/env)");
      }
      Assumptions.abort(URL_VARIABLE + " is not set: Redis tests skipped");
    }
    if (client == null) {
      // The default pool pings its idle connections every 30 seconds, which a test counting the
      // commands an update sent (commandStats) would count: no idle checks here.
      ConnectionPoolConfig pool = new ConnectionPoolConfig();
      pool.setTestWhileIdle(false);
      pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
      client = RedisClient.builder().fromURI(url).poolConfig(pool).build();
    }
    return client;
  }

  /** Every key under a prefix, sorted. */
  static List<String> keys(UnifiedJedis redis, String prefix) {
    TreeSet<String> keys = new TreeSet<>();
    ScanParams params = new ScanParams().match(RedisNames.prefixPattern(prefix)).count(1000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = redis.scan(cursor, params);
      keys.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
    return new ArrayList<>(keys);
  }

  /**
   * Commands the server ran since the last {@link #resetCommandStats}, by name, read from {@code
   * INFO commandstats}; the test's own {@code INFO} and {@code CONFIG} are left out.
   */
  static Map<String, Long> commandStats(UnifiedJedis redis) {
    Map<String, Long> calls = new TreeMap<>();
    for (String line : redis.info("commandstats").split("\r?\n")) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      String name = line.substring("cmdstat_".length(), line.indexOf(':'));
      if (name.equals("info") || name.startsWith("config")) {
        continue;
      }
      String stats = line.substring(line.indexOf(':') + 1);
      for (String part : stats.split(",")) {
        if (part.startsWith("calls=")) {
          calls.put(name, Long.parseLong(part.substring("calls=".length())));
        }
      }
    }
    return calls;
  }

  static void resetCommandStats(UnifiedJedis redis) {
    redis.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
  }
}
