package io.cocoindex.samples.redis;

import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * One Redis database of the connector: its client and one sink per kind of action, so each
 * batch of a database's documents is one {@code MULTI/EXEC} transaction.
 */
final class RedisDatabase {
  /** Keys a purge asks for per {@code SCAN} and deletes per {@code UNLINK}: bounded work per call. */
  static final int PURGE_BATCH = 500;

  final String name;
  final UnifiedJedis redis;
  final TargetActionSink<IndexAction> indexes;
  final TargetActionSink<DocumentAction> documents;

  RedisDatabase(String name, UnifiedJedis redis, ChildHandlerFactory<IndexAction> documentHandlers) {
    this.name = name;
    this.redis = redis;
    this.indexes = TargetActionSink.withChildHandler(this::applyIndexes, documentHandlers);
    this.documents = TargetActionSink.of(this::applyDocuments);
  }

  private void applyIndexes(List<TargetAction<IndexAction>> actions) {
    for (TargetAction<IndexAction> a : actions) {
      if (a.value().purge()) {
        purge(a.value().prefix());
      }
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
