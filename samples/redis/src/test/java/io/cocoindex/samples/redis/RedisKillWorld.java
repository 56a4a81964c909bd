package io.cocoindex.samples.redis;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import redis.clients.jedis.UnifiedJedis;

/**
 * The declared indexes of one generation of {@link RedisKillTest}, under one root prefix:
 * indexes come and go, their fields change (a replace: purge and rewrite), documents are added,
 * changed (fields dropped too) and removed. Documents are declared in components of 20.
 */
record RedisKillWorld(String root, Map<String, List<String>> fields,
    Map<String, Map<String, Map<String, String>>> docs) {
  static final ContextKey<UnifiedJedis> REDIS = ContextKey.of("kill", UnifiedJedis.class);

  static RedisKillWorld of(String root, long seed, int generation) {
    Map<String, List<String>> fields = new TreeMap<>();
    Map<String, Map<String, Map<String, String>>> docs = new TreeMap<>();
    for (int i = 0; i < 6; i++) {
      Random r = new Random(seed * 131 + i * 1_000_003L + generation);
      if (new Random(seed + i * 7919L + generation).nextInt(4) == 0) {
        continue; // not declared in this generation
      }
      String prefix = root + "i" + i + ":";
      // The schema changes in about one generation of four: the index is replaced.
      boolean wide = new Random(seed + i * 31L + generation / 4).nextBoolean();
      List<String> f = new ArrayList<>(List.of("title", "body"));
      if (wide) {
        f.add("extra");
      }
      fields.put(prefix, f);
      Map<String, Map<String, String>> d = new TreeMap<>();
      for (int n = 0; n < 120; n++) {
        if (r.nextInt(5) == 0) {
          continue;
        }
        Map<String, String> values = new TreeMap<>();
        int version = r.nextInt(3) == 0 ? generation : 0;
        values.put("title", "t" + n + "-" + version);
        if (r.nextInt(4) != 0) {
          values.put("body", ("b" + n + "-" + version + " ").repeat(1 + r.nextInt(50)));
        }
        if (wide && r.nextBoolean()) {
          values.put("extra", "x" + version);
        }
        d.put("d" + n, values);
      }
      docs.put(prefix, d);
    }
    return new RedisKillWorld(root, fields, docs);
  }

  /** Every key the root prefix must hold, with its hash: exactly these. */
  Map<String, Map<String, String>> expected() {
    Map<String, Map<String, String>> out = new TreeMap<>();
    docs.forEach((prefix, d) -> d.forEach((id, values) -> out.put(prefix + id, values)));
    return out;
  }

  /** Declares the world; the client comes from the context's {@link #REDIS}. */
  Consumer<Ctx> main() {
    return main(null);
  }

  /** Declares the world on {@code client} (null: the context's {@link #REDIS}). */
  Consumer<Ctx> main(UnifiedJedis client) {
    return ctx -> {
      Indexes indexes = Indexes.register(ctx, client == null ? IndexHandler.of(ctx, REDIS)
          : new IndexHandler(Map.of(REDIS.name(), client)));
      fields.forEach((prefix, f) -> {
        IndexTarget index = indexes.mountIndex(ctx, IndexSpec.of(REDIS, prefix,
            f.toArray(String[]::new)));
        List<Map.Entry<String, Map<String, String>>> all = new ArrayList<>(docs.get(prefix).entrySet());
        for (int from = 0; from < all.size(); from += 20) {
          List<Map.Entry<String, Map<String, String>>> part =
              all.subList(from, Math.min(all.size(), from + 20));
          ctx.mount(List.of(prefix, from), c -> part.forEach(
              e -> index.declareDocument(c, new Document(e.getKey(), e.getValue()))));
        }
      });
    };
  }
}
