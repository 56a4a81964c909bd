package io.cocoindex.samples.redis;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.ManagedBy;
import io.cocoindex.statediff.MutualTrackingRecord;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Redis indexes (containers): key prefixes of hash documents (children).
 *
 * <pre>{@code
 * Indexes indexes = Indexes.register(ctx, IndexHandler.of(ctx, REDIS));
 * IndexTarget docs = indexes.mountIndex(ctx, IndexSpec.of(REDIS, "doc:", "title", "body"));
 * docs.declareDocument(ctx, new Document("1", Map.of("title", "hello")));
 * }</pre>
 *
 * <p>A system-managed index whose fields change is replaced: its prefix is purged and its
 * documents are written anew (DESTRUCTIVE). One no longer declared is purged (the destroy
 * shape); a user-managed one is never purged (the abandon shape).
 *
 * <p>A handler serves one run: it remembers the indexes declared in it, so that an index no
 * longer declared under one database key but declared under another reaching the same database
 * (a key renamed, the old one still passed) is handed over to it instead of purged. {@link #of}
 * in {@code main} makes one per run.
 */
@ContainerTarget(
    provider = "cocoindex.io/redis/index",
    name = "Index",
    child = "Document",
    childValue = Document.class,
    api = "Indexes")
public final class IndexHandler implements TargetHandler<IndexSpec, IndexRecord, IndexAction> {
  private static final Logger log = LoggerFactory.getLogger(IndexHandler.class);
  private final Map<String, RedisDatabase> databases = new LinkedHashMap<>();
  /**
   * The indexes declared in this run, as (database key, prefix): an index no longer declared
   * under one key but declared under another reaching the same database (a key renamed, the old
   * one still passed) is the same index, handed over, not purged under the new key's documents.
   */
  private final Set<List<String>> declared = ConcurrentHashMap.newKeySet();

  /**
   * A handler for these clients, by the names of their {@code ContextKey}s, that records no app
   * beside its indexes (prefer {@link #of}, which records the run's).
   *
   * @param clients the Redis client of each database, by the name of its {@code ContextKey}
   * @throws NullPointerException naming the database when its client is null
   */
  public IndexHandler(Map<String, UnifiedJedis> clients) {
    this(clients, null);
  }

  /**
   * A handler for these clients, by the names of their {@code ContextKey}s.
   *
   * @param clients the Redis client of each database, by the name of its {@code ContextKey}
   * @param app the app's name, recorded beside each index it makes so that another app never
   *     replaces or purges it ({@link Ctx#appName()}); null records none and checks none
   * @throws NullPointerException naming the database when its client is null
   */
  public IndexHandler(Map<String, UnifiedJedis> clients, String app) {
    IndexHandler_ChildHandlerFactory documents = new IndexHandler_ChildHandlerFactory(this);
    clients.forEach((name, client) -> databases.put(
        name, new RedisDatabase(name, Objects.requireNonNull(client, name), documents, app,
            other -> databases.get(other).redis)));
  }

  /**
   * A handler for the databases of these keys, resolved from the context of this run.
   *
   * @param ctx the context of the app's main component, whose environment provides the clients
   *     and which names the app
   * @param keys the keys the Redis clients are provided under; each key's name identifies its
   *     database in the indexes' keys
   * @return a handler for those databases, recording the app's name beside each index it makes
   * @throws IllegalStateException naming the key when the environment provides no client under
   *     one of {@code keys}
   */
  @SafeVarargs
  public static IndexHandler of(Ctx ctx, ContextKey<UnifiedJedis>... keys) {
    Map<String, UnifiedJedis> clients = new LinkedHashMap<>();
    for (ContextKey<UnifiedJedis> key : keys) {
      clients.put(key.name(), ctx.get(key));
    }
    return new IndexHandler(clients, ctx.appName());
  }

  /**
   * The documents' handler of an index, built when the index's action resolves its children
   * (before the action is applied, and in a preview instead of it). A system-managed index this
   * handler records its app for ({@link #of}), tracked before and not replaced in this run, is
   * looked up (one {@code HGET} of its maker's record): a record gone says that its keys went
   * with it (a {@code FLUSHALL}, a Redis restarted without persistence; a prefix purged by hand
   * leaves the record, a key of its own), and every document is then written again ({@link
   * DocumentHandler#childInvalidationFound}), memoized components' included, and the app
   * recorded again. A record never written (an index made before apps were recorded, by a
   * handler that recorded none, or user-managed then) looks the same, and costs that rewrite
   * once. Keys found beside an absent record would not tell it apart: a run that looked before a
   * flush writes its changed documents after it, and the next run, taking those for a sign that
   * nothing was lost, would record the app and leave the others lost for good.
   */
  @ChildHandler
  DocumentHandler documents(IndexAction index) {
    RedisDatabase db = database(index.database());
    if (!index.tracked() || !index.system() || index.purge() || !db.recordsMakers()) {
      return new DocumentHandler(db, index, null);
    }
    if (db.makerOf(index.prefix()) != null) {
      return new DocumentHandler(db, index, null);
    }
    log.warn("index {} of Redis database '{}' has no maker's record (the database flushed or"
        + " restarted without persistence, or the index was made before its app was recorded):"
        + " its documents are written again", index.prefix(), index.database());
    db.foundMissing(index.prefix());
    return new DocumentHandler(db, index, TargetChildInvalidation.LOSSY);
  }

  @Override
  public TargetReconcileOutput<IndexAction, IndexRecord> reconcile(
      StableKey key, IndexSpec desired, List<IndexRecord> prev, boolean prevMayBeMissing) {
    String databaseName = key.part(0).asString();
    RedisDatabase db = desired != null ? database(databaseName, desired.prefix(), true)
        : database(databaseName, prev.isEmpty() ? null : prev.get(0).prefix(), false);
    IndexRecord record = desired == null ? null
        : IndexRecord.of(desired.prefix(), desired.fields(), desired.managedBy());
    // The fields are a set (a hash has no field order): records written with them in declared
    // order compare as sets too, so reordering them is not a schema change.
    TrackingRecordTransition<IndexRecord> system =
        StateDiff.resolveSystemTransition(
            record == null ? null : new MutualTrackingRecord<>(record, record.managedBy()),
            prev.stream()
                .map(p -> IndexRecord.of(p.prefix(), p.fields(), p.managedBy()))
                .map(p -> new MutualTrackingRecord<>(p, p.managedBy()))
                .toList(),
            prevMayBeMissing);
    DiffAction diff = StateDiff.diff(system);
    if (desired == null) {
      if (diff != DiffAction.DELETE) {
        return null; // nothing known, or the user's index: abandon it untouched
      }
      String prefix = prev.get(0).prefix();
      // Orphans are reconciled at the end of the run, after every declaration.
      List<String> declaredUnder = databases.keySet().stream()
          .filter(other -> !other.equals(databaseName)
              && declared.contains(List.of(other, prefix)))
          .toList();
      for (String other : declaredUnder) {
        if (databases.get(other).redis == db.redis) {
          // One client under two keys: the same index, which the other key now owns.
          log.info("index {} is declared under database key {}, the same client as key {}:"
              + " handed over, not purged", prefix, other, databaseName);
          return null;
        }
      }
      IndexAction purge =
          new IndexAction(databaseName, prefix, List.of(), true, true, declaredUnder);
      return new TargetReconcileOutput<>(
          TargetAction.delete(purge), db.indexes, null, TargetChildInvalidation.DESTRUCTIVE);
    }
    declared.add(List.of(databaseName, desired.prefix()));
    // Only a changed schema of a system-managed index is replaced; creating needs no command.
    boolean replace = diff == DiffAction.REPLACE && desired.managedBy() == ManagedBy.SYSTEM;
    IndexAction action = new IndexAction(databaseName, desired.prefix(), desired.fields(), replace,
        desired.managedBy() == ManagedBy.SYSTEM, List.of(), !prev.isEmpty());
    return new TargetReconcileOutput<>(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action),
        db.indexes,
        record,
        replace ? TargetChildInvalidation.DESTRUCTIVE : null);
  }

  private RedisDatabase database(String name) {
    return database(name, null, false);
  }

  /**
   * The database of this key name, or an error naming the index and what to do: pass the key,
   * and, for an index tracked under a key renamed since, the old key beside the new one.
   */
  private RedisDatabase database(String name, String prefix, boolean declared) {
    RedisDatabase db = databases.get(name);
    if (db != null) {
      return db;
    }
    String known = " (known: " + databases.keySet() + ")";
    if (prefix == null) {
      throw new IllegalStateException("no Redis client for database '" + name + "'" + known
          + ": pass its ContextKey to IndexHandler.of(ctx, ...)");
    }
    if (declared) {
      throw new IllegalStateException("no Redis client for database '" + name + "'" + known
          + ": index " + prefix + " is declared in it; pass its ContextKey to IndexHandler.of(ctx,"
          + " ...), and provide it to the Environment");
    }
    throw new IllegalStateException("no Redis client for database '" + name + "'" + known
        + ": the app tracks index " + prefix + " under it, and no longer declares it there. If"
        + " that ContextKey was renamed, pass the old key beside the new one for a run"
        + " (IndexHandler.of(ctx, OLD, NEW), both provided to the Environment): the index is"
        + " handed over to the new key if declared there, and purged otherwise. Until then it"
        + " and its documents are left as they are");
  }
}
