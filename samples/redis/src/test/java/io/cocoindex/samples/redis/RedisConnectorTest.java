package io.cocoindex.samples.redis;

import static io.cocoindex.samples.redis.RedisServer.commandStats;
import static io.cocoindex.samples.redis.RedisServer.keys;
import static io.cocoindex.samples.redis.RedisServer.resetCommandStats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.testkit.CocoIndexExtension;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** The Redis connector against a real server, checked with HGETALL, SCAN and commandstats. */
class RedisConnectorTest {
  static final ContextKey<UnifiedJedis> REDIS = ContextKey.of("cache", UnifiedJedis.class);
  static final String INDEX = "cocoindex.io/redis/index";

  UnifiedJedis redis;

  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();

  /** The root of this test's keys: every prefix it uses starts with it. */
  String root;
  /** What the app declares on its next run; tests change it between runs. */
  BiConsumer<Ctx, Indexes> declare = (ctx, indexes) -> {};
  App app;

  @BeforeEach
  void setUp(TestInfo info) {
    redis = RedisServer.require();
    String method = info.getTestMethod().orElseThrow().getName().toLowerCase(Locale.ROOT);
    root = "t:" + method + ":" + Long.toHexString(System.nanoTime() & 0xffffff) + ":";
    app = coco.app(ctx -> declare.accept(ctx, Indexes.register(ctx, new IndexHandler(
        Map.of(REDIS.name(), redis)))));
  }

  @AfterEach
  void cleanUp() {
    if (redis != null) {
      List<String> left = keys(redis, root);
      if (!left.isEmpty()) {
        redis.unlink(left.toArray(String[]::new));
      }
    }
  }

  /** Declares one index of {@code prefix} with these documents (id -> fields). */
  void declareIndex(IndexSpec spec, Map<String, Map<String, String>> documents) {
    declare = (ctx, indexes) -> {
      IndexTarget index = indexes.declareIndex(ctx, spec);
      documents.forEach((id, fields) -> index.declareDocument(ctx, new Document(id, fields)));
    };
  }

  @Test
  void writesDocumentsAsHashesUnderThePrefix() {
    String prefix = root + "doc:";
    declareIndex(IndexSpec.of(REDIS, prefix, "title", "body"), Map.of(
        "1", Map.of("title", "alpha", "body", "first"),
        "2", Map.of("title", "beta")));
    assertThat(coco.update(app)).hasSize(3);
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "2");
    assertThat(redis.hgetAll(prefix + "1")).isEqualTo(Map.of("title", "alpha", "body", "first"));
    assertThat(redis.hgetAll(prefix + "2")).isEqualTo(Map.of("title", "beta"));
  }

  @Test
  void updatesReplaceTheWholeHashAndDeletesRemoveIt() {
    String prefix = root + "doc:";
    IndexSpec spec = IndexSpec.of(REDIS, prefix, "title", "body");
    Map<String, Map<String, String>> docs = new LinkedHashMap<>();
    docs.put("1", Map.of("title", "alpha", "body", "first"));
    docs.put("2", Map.of("title", "beta"));
    declareIndex(spec, docs);
    coco.update(app);

    docs.put("1", Map.of("title", "alpha v2")); // body no longer declared
    docs.remove("2");
    docs.put("3", Map.of("body", "third"));
    List<String> applied = coco.update(app);
    assertThat(applied).filteredOn(a -> !a.startsWith(INDEX + " ")).containsExactlyInAnyOrder(
        INDEX + "/[\"cache\", \"" + prefix + "\"] update \"1\"",
        INDEX + "/[\"cache\", \"" + prefix + "\"] delete \"2\"",
        INDEX + "/[\"cache\", \"" + prefix + "\"] create \"3\"");
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "3");
    assertThat(redis.hgetAll(prefix + "1")).isEqualTo(Map.of("title", "alpha v2"));
    assertThat(redis.hgetAll(prefix + "3")).isEqualTo(Map.of("body", "third"));
  }

  @Test
  void unchangedRerunSendsNoCommand() {
    String prefix = root + "doc:";
    declareIndex(IndexSpec.of(REDIS, prefix, "title"), Map.of(
        "1", Map.of("title", "alpha"), "2", Map.of("title", "beta")));
    coco.update(app);
    resetCommandStats(redis);

    assertThat(coco.update(app))
        .containsExactly(INDEX + " update [\"cache\", \"" + prefix + "\"]");
    assertThat(commandStats(redis)).isEmpty();
    assertThat(redis.hgetAll(prefix + "1")).isEqualTo(Map.of("title", "alpha"));
    assertThat(redis.hgetAll(prefix + "2")).isEqualTo(Map.of("title", "beta"));
  }

  @Test
  void indexNoLongerDeclaredIsPurgedAndItsNeighbourKept() {
    String docs = root + "doc:";
    String notes = root + "note:";
    declare = (ctx, indexes) -> {
      indexes.declareIndex(ctx, IndexSpec.of(REDIS, docs, "title"))
          .declareDocument(ctx, new Document("1", Map.of("title", "alpha")));
      indexes.declareIndex(ctx, IndexSpec.of(REDIS, notes, "text"))
          .declareDocument(ctx, new Document("1", Map.of("text", "kept")));
    };
    coco.update(app);
    redis.hset(docs + "stray", Map.of("title", "written by someone else under the prefix"));

    declare = (ctx, indexes) -> indexes.declareIndex(ctx, IndexSpec.of(REDIS, notes, "text"))
        .declareDocument(ctx, new Document("1", Map.of("text", "kept")));
    assertThat(coco.update(app)).contains(INDEX + " delete [\"cache\", \"" + docs + "\"]");
    assertThat(keys(redis, docs)).isEmpty();
    assertThat(keys(redis, notes)).containsExactly(notes + "1");
    assertThat(redis.hgetAll(notes + "1")).isEqualTo(Map.of("text", "kept"));
  }

  /** App {@code name}, its handler recording that name, declaring one index of one document. */
  App indexApp(String name, IndexSpec spec, String id, String title) {
    return coco.app(name, ctx -> Indexes.register(ctx,
            new IndexHandler(Map.of(REDIS.name(), redis), name))
        .declareIndex(ctx, spec)
        .declareDocument(ctx, new Document(id, Map.of("title", title))));
  }

  @Test
  void anIndexAnotherAppMadeIsAClearErrorAndKeepsItsDocuments() {
    String prefix = root + "doc:";
    App first = indexApp("first", IndexSpec.of(REDIS, prefix, "title"), "1", "alpha");
    App second = indexApp("second", IndexSpec.of(REDIS, prefix, "title", "body"), "2", "beta");
    coco.update(first);
    assertThat(redis.hget(RedisDatabase.MAKERS, prefix)).isEqualTo("first");

    assertThatThrownBy(() -> coco.update(second)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("index " + prefix + " of Redis database 'cache' cannot be managed"
            + " by app 'second': app 'first' made it, and two apps cannot both replace and purge"
            + " one prefix");
    second.dropState();
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1");

    // Declared as a user's index, another app writes its documents there, and purges nothing.
    App writer = indexApp("writer",
        IndexSpec.userManaged(REDIS, prefix, "title"), "3", "gamma");
    coco.update(writer);
    writer.dropState();
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "3");

    // Its maker's removal purges it, and forgets the maker.
    first.dropState();
    assertThat(keys(redis, prefix)).isEmpty();
    assertThat(redis.hget(RedisDatabase.MAKERS, prefix)).isNull();
  }

  /**
   * A prefix holding SCAN's glob characters ({@code * ? [ ] \ ^}) is matched as written: the
   * purge of each leaves alone the keys its unescaped pattern would match ({@code gx:1} for
   * {@code g*:}, {@code a^z:1} for the other).
   */
  @Test
  void aPrefixWithGlobCharactersIsPurgedAsWrittenAndItsLookAlikesKept() {
    List<String> globs = List.of(root + "g*:", root + "[ab]\\^?:");
    List<String> lookAlikes = List.of(root + "gx:1", root + "a^z:1");
    declare = (ctx, indexes) -> globs.forEach(prefix -> indexes
        .declareIndex(ctx, IndexSpec.of(REDIS, prefix, "title"))
        .declareDocument(ctx, new Document("1", Map.of("title", "under " + prefix))));
    coco.update(app);
    lookAlikes.forEach(k -> redis.hset(k, Map.of("title", "someone else's")));
    assertThat(redis.exists(globs.get(0) + "1")).isTrue();
    assertThat(redis.exists(globs.get(1) + "1")).isTrue();

    declare = (ctx, indexes) -> {};
    assertThat(coco.update(app)).containsExactlyInAnyOrder(
        INDEX + " delete [\"cache\", \"" + globs.get(0) + "\"]",
        INDEX + " delete [\"cache\", \"" + globs.get(1).replace("\\", "\\\\") + "\"]");
    assertThat(redis.exists(globs.get(0) + "1")).isFalse();
    assertThat(redis.exists(globs.get(1) + "1")).isFalse();
    assertThat(lookAlikes).allSatisfy(k ->
        assertThat(redis.hgetAll(k)).isEqualTo(Map.of("title", "someone else's")));
  }

  @Test
  void schemaChangePurgesThePrefixAndRecreatesTheDocuments() {
    String prefix = root + "doc:";
    declareIndex(IndexSpec.of(REDIS, prefix, "title", "body"), Map.of(
        "1", Map.of("title", "alpha", "body", "first"), "2", Map.of("title", "beta")));
    coco.update(app);
    redis.hset(prefix + "stray", Map.of("title", "not declared"));

    declareIndex(IndexSpec.of(REDIS, prefix, "title"), Map.of(
        "1", Map.of("title", "alpha"), "2", Map.of("title", "beta")));
    List<String> applied = coco.update(app);
    // DESTRUCTIVE: every document is created anew; no delete is sent for the old ones.
    assertThat(applied).containsExactlyInAnyOrder(
        INDEX + " update [\"cache\", \"" + prefix + "\"]",
        INDEX + "/[\"cache\", \"" + prefix + "\"] create \"1\"",
        INDEX + "/[\"cache\", \"" + prefix + "\"] create \"2\"");
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "2");
    assertThat(redis.hgetAll(prefix + "1")).isEqualTo(Map.of("title", "alpha"));
  }

  @Test
  void reorderingTheFieldsIsNoSchemaChange() {
    String prefix = root + "doc:";
    declareIndex(IndexSpec.of(REDIS, prefix, "title", "body"), Map.of(
        "1", Map.of("title", "alpha", "body", "first")));
    coco.update(app);
    redis.hset(prefix + "stray", Map.of("title", "a purge would remove it"));
    resetCommandStats(redis);

    declareIndex(IndexSpec.of(REDIS, prefix, "body", "title"), Map.of(
        "1", Map.of("title", "alpha", "body", "first")));
    assertThat(coco.update(app))
        .containsExactly(INDEX + " update [\"cache\", \"" + prefix + "\"]");
    assertThat(commandStats(redis)).isEmpty();
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "stray");
    assertThat(redis.hgetAll(prefix + "1")).isEqualTo(Map.of("title", "alpha", "body", "first"));
  }

  @Test
  void prefixChangePurgesTheOldPrefixAndWritesUnderTheNewOne() {
    String v1 = root + "v1:";
    String v2 = root + "v2:";
    Map<String, Map<String, String>> docs = Map.of("1", Map.of("title", "alpha"));
    declareIndex(IndexSpec.of(REDIS, v1, "title"), docs);
    coco.update(app);

    declareIndex(IndexSpec.of(REDIS, v2, "title"), docs);
    assertThat(coco.update(app)).containsExactlyInAnyOrder(
        INDEX + " delete [\"cache\", \"" + v1 + "\"]",
        INDEX + " create [\"cache\", \"" + v2 + "\"]",
        INDEX + "/[\"cache\", \"" + v2 + "\"] create \"1\"");
    assertThat(keys(redis, v1)).isEmpty();
    assertThat(redis.hgetAll(v2 + "1")).isEqualTo(Map.of("title", "alpha"));
  }

  @Test
  void migratingToANestedPrefixPurgesTheOldDocumentsOnly() {
    String v1 = root + "doc:";
    String v2 = root + "doc:v2:";
    Map<String, Map<String, String>> docs = Map.of("1", Map.of("title", "alpha"));
    declareIndex(IndexSpec.of(REDIS, v1, "title"), docs);
    coco.update(app);
    redis.hset(v1 + "stray", Map.of("title", "not declared"));

    // doc:v2:1 is written first; the purge of doc:, at the end of the run, must leave it.
    declareIndex(IndexSpec.of(REDIS, v2, "title"), docs);
    assertThat(coco.update(app)).containsExactlyInAnyOrder(
        INDEX + " delete [\"cache\", \"" + v1 + "\"]",
        INDEX + " create [\"cache\", \"" + v2 + "\"]",
        INDEX + "/[\"cache\", \"" + v2 + "\"] create \"1\"");
    assertThat(keys(redis, root)).containsExactly(v2 + "1");
    assertThat(redis.hgetAll(v2 + "1")).isEqualTo(Map.of("title", "alpha"));
  }

  @Test
  void aSchemaChangePurgesItsPrefixButNotAnIndexNestedUnderIt() {
    String outer = root + "doc:";
    String inner = root + "doc:v2:";
    declare = (ctx, indexes) -> {
      indexes.declareIndex(ctx, IndexSpec.of(REDIS, outer, "title"))
          .declareDocument(ctx, new Document("1", Map.of("title", "outer")));
      indexes.declareIndex(ctx, IndexSpec.of(REDIS, inner, "title"))
          .declareDocument(ctx, new Document("1", Map.of("title", "inner")));
    };
    coco.update(app);

    declare = (ctx, indexes) -> {
      indexes.declareIndex(ctx, IndexSpec.of(REDIS, outer, "body"))
          .declareDocument(ctx, new Document("1", Map.of("body", "outer")));
      indexes.declareIndex(ctx, IndexSpec.of(REDIS, inner, "title"))
          .declareDocument(ctx, new Document("1", Map.of("title", "inner")));
    };
    coco.update(app);
    assertThat(keys(redis, root)).containsExactly(outer + "1", inner + "1");
    assertThat(redis.hgetAll(outer + "1")).isEqualTo(Map.of("body", "outer"));
    assertThat(redis.hgetAll(inner + "1")).isEqualTo(Map.of("title", "inner"));
  }

  @Test
  void prefixesAndIdsThatWouldLetTwoIndexesShareAKeyAreRejected() {
    // Index a with document b1 and index ab with document 1 would both be the key ab1.
    assertThatThrownBy(() -> IndexSpec.of(REDIS, root + "a", "f"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid key prefix '" + root + "a': it must end with ':' (use '" + root
            + "a:'), so that no key is under two indexes' prefixes");
    assertThatThrownBy(() -> new Document("v2:1", Map.of("f", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid document id 'v2:1': it must not contain ':'");
  }

  @Test
  void purgeWorksInBoundedScanAndUnlinkBatches() {
    String prefix = root + "bulk:";
    Map<String, Map<String, String>> docs = new LinkedHashMap<>();
    for (int i = 0; i < 1_200; i++) {
      docs.put("d" + i, Map.of("n", Integer.toString(i)));
    }
    declareIndex(IndexSpec.of(REDIS, prefix, "n"), docs);
    coco.update(app);
    assertThat(keys(redis, prefix)).hasSize(1_200);
    resetCommandStats(redis);

    declare = (ctx, indexes) -> {};
    coco.update(app);
    Map<String, Long> stats = commandStats(redis);
    assertThat(stats.get("scan")).isGreaterThan(1L);
    assertThat(stats.get("unlink")).isGreaterThanOrEqualTo((1_200L + RedisDatabase.PURGE_BATCH - 1)
        / RedisDatabase.PURGE_BATCH);
    assertThat(stats).doesNotContainKey("del").doesNotContainKey("keys");
    assertThat(keys(redis, prefix)).isEmpty();
  }

  @Test
  void userManagedIndexIsNeverPurged() {
    String prefix = root + "user:";
    redis.hset(prefix + "existing", Map.of("title", "the user's own document"));
    IndexSpec[] spec = {IndexSpec.userManaged(REDIS, prefix, "title", "body")};
    declare = (ctx, indexes) -> indexes.declareIndex(ctx, spec[0])
        .declareDocument(ctx, new Document("1", Map.of("title", "written by the app")));
    coco.update(app);
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "existing");

    spec[0] = IndexSpec.userManaged(REDIS, prefix, "title"); // a schema change: no purge either
    coco.update(app);
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "existing");

    declare = (ctx, indexes) -> {};
    resetCommandStats(redis);
    assertThat(coco.update(app)).isEmpty();
    assertThat(commandStats(redis)).isEmpty();
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "existing");
    assertThat(redis.hgetAll(prefix + "1")).isEqualTo(Map.of("title", "written by the app"));
  }

  @Test
  void badNamesAndUndeclaredFieldsAreRejectedBeforeAnyCommand() {
    assertThatThrownBy(() -> IndexSpec.of(REDIS, root + "bad prefix:", "title"))
        .hasMessageContaining("invalid key prefix '" + root + "bad prefix:'");
    assertThatThrownBy(() -> new Document("a\nb", Map.of("title", "x")))
        .hasMessageContaining("invalid document id");
    assertThatThrownBy(() -> new Document("1", Map.of()))
        .hasMessageContaining("document 1 has no field");

    String prefix = root + "doc:";
    declareIndex(IndexSpec.of(REDIS, prefix, "title"), Map.of(
        "1", Map.of("title", "ok"), "2", Map.of("title", "x", "secret", "not in the schema")));
    resetCommandStats(redis);
    assertThatThrownBy(() -> coco.update(app))
        .hasMessageContaining("document 2 of index " + prefix + " has field 'secret', which the"
            + " index does not declare [title]: add it to the index's fields (IndexSpec.of(key,"
            + " prefix, ..., \"secret\"), which replaces a system-managed index) or leave it out"
            + " of the document");
    assertThat(commandStats(redis)).isEmpty();
    assertThat(keys(redis, prefix)).isEmpty();
  }

  @Test
  void globCharactersInAPrefixMatchOnlyThemselves() {
    String prefix = root + "a*:";
    String neighbour = root + "ab:1";
    redis.hset(neighbour, Map.of("title", "must survive"));
    declareIndex(IndexSpec.of(REDIS, prefix, "title"), Map.of("1", Map.of("title", "x")));
    coco.update(app);
    assertThat(redis.exists(prefix + "1")).isTrue();

    declare = (ctx, indexes) -> {};
    coco.update(app);
    assertThat(redis.exists(prefix + "1")).isFalse();
    assertThat(redis.hgetAll(neighbour)).isEqualTo(Map.of("title", "must survive"));
  }

  @Test
  void aWriteRedisRefusesInsideTheTransactionFailsTheUpdateNamingTheKey() {
    String prefix = root + "doc:";
    redis.set(prefix + "2", "a string, not a hash");
    declareIndex(IndexSpec.of(REDIS, prefix, "title"), Map.of(
        "1", Map.of("title", "one"), "2", Map.of("title", "two")));
    // EXEC reports the WRONGTYPE of HSET in its reply instead of raising it.
    assertThatThrownBy(() -> coco.update(app))
        .hasMessageContaining("Redis database 'cache' refused HSET " + prefix + "2: WRONGTYPE");
    assertThat(redis.type(prefix + "2")).isEqualTo("string");
    assertThat(redis.get(prefix + "2")).isEqualTo("a string, not a hash");

    redis.del(prefix + "2"); // nothing was remembered as written: a rerun writes both
    coco.update(app);
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "2");
    assertThat(redis.hgetAll(prefix + "1")).isEqualTo(Map.of("title", "one"));
    assertThat(redis.hgetAll(prefix + "2")).isEqualTo(Map.of("title", "two"));
  }

  @Test
  void dropStatePurgesEveryIndexTheAppWrote() {
    String prefix = root + "doc:";
    declareIndex(IndexSpec.of(REDIS, prefix, "title"), Map.of("1", Map.of("title", "alpha")));
    coco.update(app);
    app.dropState();
    assertThat(keys(redis, prefix)).isEmpty();
  }

  static final ContextKey<UnifiedJedis> RENAMED = ContextKey.of("cache2", UnifiedJedis.class);

  /**
   * An index whose ContextKey is renamed in the app's code, both keys passed and reaching one
   * server, is the same index: handed over to the new key, not purged at the end of the run
   * under the documents the new key just wrote. Both a client shared by the two keys and two
   * clients of one server (told apart by a probe key) are one database.
   */
  @Test
  void anIndexMovedToARenamedKeyOfTheSameServerKeepsItsDocuments() {
    for (boolean oneClient : new boolean[] {true, false}) {
      String prefix = root + (oneClient ? "shared:" : "two:");
      try (UnifiedJedis second = oneClient ? null
          : RedisClient.builder().fromURI(System.getenv("COCOINDEX_TEST_REDIS_URL")).build()) {
        UnifiedJedis other = oneClient ? redis : second;
        boolean[] renamed = {false};
        App moved = coco.app(ctx -> {
          Indexes indexes = Indexes.register(ctx, new IndexHandler(
              Map.of(REDIS.name(), redis, RENAMED.name(), other)));
          IndexTarget docs = indexes.mountIndex(ctx,
              IndexSpec.of(renamed[0] ? RENAMED : REDIS, prefix, "title"));
          docs.declareDocument(ctx, new Document("1", Map.of("title", "one")));
          docs.declareDocument(ctx, new Document("2", Map.of("title", "two")));
        });
        coco.update(moved);

        renamed[0] = true;
        coco.update(moved);

        assertThat(keys(redis, prefix)).as("one client: %s", oneClient)
            .containsExactly(prefix + "1", prefix + "2");
        assertThat(keys(redis, "cocoindex-probe:")).isEmpty();
        assertThat(moved.preview().changes()).isEmpty();
      }
    }
  }

  /**
   * The keys of an index lost behind the app's back (a Redis restarted without persistence, a
   * FLUSHALL, the prefix purged by hand) take its record in {@code cocoindex-index-makers} with
   * them: the next run finds the record gone when it builds the documents' handler and writes
   * every document again, memoized components' included, and records the app again. Without
   * the look, every run counted them unchanged and wrote nothing until a full reprocess, which
   * did not record the app again either.
   */
  @Test
  void anIndexWhoseKeysWereFlushedIsWrittenAgainWholeInTheNextRun() {
    String prefix = root + "doc:";
    App memoized = coco.app("flushed", ctx -> {
      IndexTarget docs = Indexes.register(ctx,
              new IndexHandler(Map.of(REDIS.name(), redis), "flushed"))
          .mountIndex(ctx, IndexSpec.of(REDIS, prefix, "title"));
      for (String id : List.of("1", "2")) {
        ctx.mountMemo(id, id, c -> docs.declareDocument(c, new Document(id, Map.of("title", id))));
      }
    });
    coco.update(memoized);
    assertThat(redis.hget(RedisDatabase.MAKERS, prefix)).isEqualTo("flushed");

    redis.unlink(keys(redis, prefix).toArray(String[]::new)); // what FLUSHALL does to the index
    redis.hdel(RedisDatabase.MAKERS, prefix);
    assertThat(memoized.preview().changes()).hasSize(2);
    coco.update(memoized);

    assertThat(keys(redis, prefix)).containsExactly(prefix + "1", prefix + "2");
    assertThat(redis.hgetAll(prefix + "2")).isEqualTo(Map.of("title", "2"));
    assertThat(redis.hget(RedisDatabase.MAKERS, prefix)).isEqualTo("flushed");
    resetCommandStats(redis);
    assertThat(memoized.preview().changes()).isEmpty();
    coco.update(memoized);
    assertThat(commandStats(redis)).as("an unchanged run looks the maker up, and sends no more")
        .isEqualTo(Map.of("hget", 2L));
    memoized.dropState();
    assertThat(keys(redis, prefix)).isEmpty();
  }

  /**
   * A write the server cannot take (here: no server at all) fails naming the Redis database's
   * key and the documents' keys, not only the client's "Failed to connect".
   */
  @Test
  void aWriteThatCannotReachTheServerNamesTheDatabaseAndTheKeys() {
    String prefix = root + "doc:";
    try (UnifiedJedis nowhere = RedisClient.builder().fromURI("redis://127.0.0.1:1").build()) {
      App unreachable = coco.app(ctx -> Indexes.register(ctx,
              new IndexHandler(Map.of(REDIS.name(), nowhere)))
          .declareIndex(ctx, IndexSpec.of(REDIS, prefix, "title"))
          .declareDocument(ctx, new Document("1", Map.of("title", "alpha"))));
      assertThatThrownBy(() -> coco.update(unreachable)).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("writing 1 document of index " + prefix + " to Redis database"
              + " 'cache' failed (" + prefix + "1)")
          .hasMessageContaining("Failed to connect");
    }
  }

  /**
   * The database key an index is tracked under, renamed in the app's code and no longer passed,
   * fails naming the index and both ways out, rather than a bare "no Redis client".
   */
  @Test
  void anIndexTrackedUnderAKeyNoLongerPassedNamesTheWaysOut() {
    String prefix = root + "doc:";
    boolean[] renamed = {false};
    App moved = coco.app(ctx -> {
      ContextKey<UnifiedJedis> key = renamed[0] ? RENAMED : REDIS;
      Indexes.register(ctx, new IndexHandler(Map.of(key.name(), redis)))
          .declareIndex(ctx, IndexSpec.of(key, prefix, "title"))
          .declareDocument(ctx, new Document("1", Map.of("title", "alpha")));
    });
    coco.update(moved);
    renamed[0] = true;
    assertThatThrownBy(() -> coco.update(moved)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("no Redis client for database 'cache' (known: [cache2]): the app"
            + " tracks index " + prefix + " under it")
        .hasMessageContaining("IndexHandler.of(ctx, OLD, NEW)");
    assertThat(keys(redis, prefix)).containsExactly(prefix + "1");
  }
}
