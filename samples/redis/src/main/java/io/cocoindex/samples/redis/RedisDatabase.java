package io.cocoindex.samples.redis;

import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * One Redis database of the connector: its client and one sink per kind of action, so each
 * batch of a database's documents is one {@code MULTI/EXEC} transaction.
 */
final class RedisDatabase {
  private static final Logger log = LoggerFactory.getLogger(RedisDatabase.class);
  /** Keys a purge asks for per {@code SCAN} and deletes per {@code UNLINK}: bounded work per call. */
  static final int PURGE_BATCH = 500;
  /**
   * The hash of the apps that made the system-managed indexes of the database, by prefix.
   * Several apps may write one database; one app's index is never taken over, replaced or
   * purged by another. No document key can be it: a document's key holds its prefix's
   * {@value RedisNames#SEPARATOR}, and this one none.
   */
  static final String MAKERS = "cocoindex-index-makers";

  final String name;
  final UnifiedJedis redis;
  /** The app's name, recorded in {@link #MAKERS}; null records and checks none. */
  private final String app;
  final TargetActionSink<IndexAction> indexes;
  final TargetActionSink<DocumentAction> documents;

  /** The client of another database key of the handler, by its name. */
  private final Function<String, UnifiedJedis> others;
  /**
   * The prefixes of this run's indexes whose maker's record was found gone when their documents'
   * handler was built (their keys lost behind the app's back): the app is recorded again.
   */
  private final Set<String> foundMissing = ConcurrentHashMap.newKeySet();

  RedisDatabase(String name, UnifiedJedis redis, ChildHandlerFactory<IndexAction> documentHandlers,
      String app, Function<String, UnifiedJedis> others) {
    this.name = name;
    this.redis = redis;
    this.app = app;
    this.others = others;
    this.indexes = TargetActionSink.withChildHandler(this::applyIndexes, documentHandlers);
    this.documents = TargetActionSink.of(this::applyDocuments);
  }

  /** Whether this database records the app that made each system-managed index. */
  boolean recordsMakers() {
    return app != null;
  }

  /** The app recorded as the maker of the index of {@code prefix}, or null. */
  String makerOf(String prefix) {
    try {
      return redis.hget(MAKERS, prefix);
    } catch (JedisException e) {
      throw new IllegalStateException("could not look up index " + prefix + " in Redis database '"
          + name + "' (HGET " + MAKERS + "): " + e.getMessage(), e);
    }
  }

  /** Records that the index of {@code prefix} was found lost: its app is recorded again. */
  void foundMissing(String prefix) {
    foundMissing.add(prefix);
  }

  /** Applies a batch of index actions, naming the index and the database when one fails. */
  private void applyIndexes(List<TargetAction<IndexAction>> actions) {
    for (TargetAction<IndexAction> a : actions) {
      try {
        applyIndex(a);
      } catch (JedisException e) {
        throw new IllegalStateException("applying the " + verb(a) + " of index "
            + a.value().prefix() + " to Redis database '" + name + "' failed: " + e.getMessage(),
            e);
      }
    }
  }

  private static String verb(TargetAction<IndexAction> a) {
    return a instanceof TargetAction.Delete<IndexAction> ? "removal"
        : a instanceof TargetAction.Create<IndexAction> ? "creation" : "update";
  }

  /**
   * Purges what a replace or removal purges, and records the app of an index it creates or
   * replaces. An index another app made is an error when created or replaced, and left alone
   * when removed. Refreshing an unchanged index sends no command (its documents' handler looked
   * its maker up when it was built: {@link IndexHandler#documents}); one whose keys were found
   * lost has its app recorded again.
   */
  private void applyIndex(TargetAction<IndexAction> a) {
    String prefix = a.value().prefix();
    boolean removal = a instanceof TargetAction.Delete<IndexAction>;
    if (removal) {
      String under = sameDatabaseKey(a.value().declaredUnder());
      if (under != null) {
        log.info("index {} is declared under database key {}, which reaches the database of"
            + " key {}: handed over, not purged", prefix, under, name);
        return;
      }
    }
    boolean made = a instanceof TargetAction.Create<IndexAction> || a.value().purge()
        || (!removal && foundMissing.contains(prefix));
    if (app == null || !made || !a.value().system()) {
      if (a.value().purge()) {
        purge(prefix);
      }
      return;
    }
    String maker = redis.hget(MAKERS, prefix);
    if (maker == null && !removal) {
      // Recorded before anything is purged; of two apps making one index at once, one wins.
      maker = redis.hsetnx(MAKERS, prefix, app) == 1 ? app : redis.hget(MAKERS, prefix);
    }
    if (maker != null && !maker.equals(app)) {
      if (removal) {
        log.warn("index {} of Redis database '{}' is not purged: app '{}' made it, and app '{}'"
            + " no longer declares it", prefix, name, maker, app);
        return;
      }
      throw new IllegalStateException("index " + prefix + " of Redis database '" + name
          + "' cannot be managed by app '" + app + "': app '" + maker + "' made it, and two"
          + " apps cannot both replace and purge one prefix; give this app's index another"
          + " prefix, or declare it with IndexSpec.userManaged to write documents there");
    }
    if (a.value().purge()) {
      purge(prefix);
    }
    if (removal) {
      redis.hdel(MAKERS, prefix);
    }
  }

  /**
   * The first of {@code keys} whose client reaches this database, or null. Told by a token, not
   * by addresses (a proxy, a replica's name): a short-lived key set through this client, looked
   * for through the other's.
   */
  private String sameDatabaseKey(List<String> keys) {
    if (keys.isEmpty()) {
      return null;
    }
    String token = "cocoindex-probe:" + UUID.randomUUID();
    redis.psetex(token, 60_000, "1");
    try {
      for (String key : keys) {
        if (others.apply(key).exists(token)) {
          return key;
        }
      }
      return null;
    } finally {
      redis.del(token);
    }
  }

  /**
   * Deletes every key of the prefix, a bounded SCAN page and UNLINK at a time: every key under it
   * but those of a nested prefix ({@code doc:v2:1} under {@code doc:}), which another index owns.
   */
  private void purge(String prefix) {
    ScanParams params = new ScanParams().match(RedisNames.prefixPattern(prefix)).count(PURGE_BATCH);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = redis.scan(cursor, params);
      List<String> keys =
          page.getResult().stream().filter(k -> RedisNames.ownedBy(prefix, k)).toList();
      for (int from = 0; from < keys.size(); from += PURGE_BATCH) {
        List<String> chunk = keys.subList(from, Math.min(keys.size(), from + PURGE_BATCH));
        redis.unlink(chunk.toArray(String[]::new));
      }
      cursor = page.getCursor();
    } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
  }

  /**
   * Writes a batch of documents in one {@code MULTI/EXEC}. Redis runs every queued command even
   * when one fails (a key holding a string: WRONGTYPE) and reports the failure in EXEC's reply
   * instead of raising it, so each reply is checked and the first failure fails the batch, naming
   * the key; the engine then retries it split by component, and the writes are idempotent.
   */
  private void applyDocuments(List<TargetAction<DocumentAction>> actions) {
    List<String> commands = new ArrayList<>(actions.size() * 2);
    List<Object> replies;
    try {
      replies = writeDocuments(actions, commands);
    } catch (JedisException e) {
      throw new IllegalStateException(describe(actions) + " to Redis database '" + name
          + "' failed (" + firstKeys(actions) + "): " + e.getMessage(), e);
    }
    checkReplies(replies, commands);
  }

  /** "writing 3 documents of index doc:" (every index the batch writes into named). */
  private static String describe(List<TargetAction<DocumentAction>> actions) {
    Set<String> prefixes = new TreeSet<>();
    for (TargetAction<DocumentAction> a : actions) {
      String key = a.value().key();
      prefixes.add(key.substring(0, key.lastIndexOf(RedisNames.SEPARATOR) + 1));
    }
    return "writing " + actions.size() + (actions.size() == 1 ? " document" : " documents")
        + (prefixes.size() == 1 ? " of index " : " of indexes ") + String.join(", ", prefixes);
  }

  /** The keys of the first few actions, for an error message. */
  private static String firstKeys(List<TargetAction<DocumentAction>> actions) {
    StringBuilder keys = new StringBuilder();
    for (int i = 0; i < Math.min(3, actions.size()); i++) {
      keys.append(i == 0 ? "" : ", ").append(actions.get(i).value().key());
    }
    return actions.size() > 3 ? keys.append(", ...").toString() : keys.toString();
  }

  private List<Object> writeDocuments(
      List<TargetAction<DocumentAction>> actions, List<String> commands) {
    List<Object> replies;
    try (AbstractTransaction tx = redis.multi()) {
      for (TargetAction<DocumentAction> a : actions) {
        DocumentAction d = a.value();
        if (d.delete() || d.clear()) {
          tx.del(d.key());
          commands.add("DEL " + d.key());
        }
        if (!d.delete()) {
          tx.hset(d.key(), d.fields());
          commands.add("HSET " + d.key());
        }
      }
      replies = tx.exec();
    }
    return replies;
  }

  private void checkReplies(List<Object> replies, List<String> commands) {
    if (replies == null || replies.size() != commands.size()) {
      throw new IllegalStateException(
          "Redis database '" + name + "' answered " + (replies == null ? "no reply" : replies.size()
              + " replies") + " to a transaction of " + commands.size() + " document commands");
    }
    for (int i = 0; i < replies.size(); i++) {
      if (replies.get(i) instanceof Exception e) {
        throw new IllegalStateException(
            "Redis database '" + name + "' refused " + commands.get(i) + ": " + e.getMessage(), e);
      }
    }
  }
}
