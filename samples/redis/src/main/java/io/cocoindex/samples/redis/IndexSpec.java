package io.cocoindex.samples.redis;

import io.cocoindex.ContextKey;
import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.statediff.ManagedBy;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import redis.clients.jedis.UnifiedJedis;

/**
 * An index: the hash documents stored under a key prefix, with the fields they may have. Keyed
 * by (database, prefix), where {@code database} is the <em>name</em> of the connection's {@code
 * ContextKey}, never a host or a password.
 *
 * @param database the name of the database's {@code ContextKey}
 * @param prefix the key prefix of its documents, ending with {@code :} ({@code doc:} stores
 *     {@code doc:<id>}); a prefix may lie under another ({@code doc:v2:} under {@code doc:}):
 *     ids hold no {@code :}, so their keys never meet
 * @param fields the fields a document may have: its schema; a change purges and rewrites
 * @param managedBy {@code SYSTEM}: purged when replaced or removed; {@code USER}: never purged
 */
@TargetValue
public record IndexSpec(
    @Key String database, @Key String prefix, List<String> fields, ManagedBy managedBy) {
  /**
   * Checks every name, so an invalid one fails at declaration.
   *
   * @param database the name of the database's {@code ContextKey}, not empty
   * @param prefix the key prefix of its documents, ending with {@code :}
   * @param fields the fields a document may have: at least one, no name twice, each 1 to 256
   *     characters without whitespace or control characters; copied
   * @param managedBy who owns the index; null for {@code SYSTEM}
   * @throws IllegalArgumentException when {@code database} is null or empty, the prefix is
   *     invalid ({@link RedisNames#prefix}), or a field name is invalid or given twice, or there
   *     is no field
   * @throws NullPointerException when {@code fields} is null or holds a null
   */
  public IndexSpec {
    if (database == null || database.isEmpty()) {
      throw new IllegalArgumentException("an index needs the name of its database's ContextKey");
    }
    RedisNames.prefix(prefix);
    fields = List.copyOf(Objects.requireNonNull(fields, "fields"));
    if (fields.isEmpty()) {
      throw new IllegalArgumentException("index " + prefix + " has no field");
    }
    fields.forEach(f -> RedisNames.check("field name of index " + prefix, f, 256));
    if (new HashSet<>(fields).size() != fields.size()) {
      throw new IllegalArgumentException("index " + prefix + " names a field twice: " + fields);
    }
    managedBy = managedBy == null ? ManagedBy.SYSTEM : managedBy;
  }

  /**
   * A system-managed index: purged when replaced or no longer declared.
   *
   * @param database the key the Redis client is provided under; only its name goes into the
   *     index's key
   * @param prefix the key prefix of its documents, ending with {@code :}
   * @param fields the fields a document may have, at least one
   * @return the index's spec, owned by the connector
   * @throws IllegalArgumentException as the constructor
   */
  public static IndexSpec of(ContextKey<UnifiedJedis> database, String prefix, String... fields) {
    return new IndexSpec(database.name(), prefix, List.of(fields), ManagedBy.SYSTEM);
  }

  /**
   * A user-managed index: documents are written, the prefix is never purged.
   *
   * @param database the key the Redis client is provided under; only its name goes into the
   *     index's key
   * @param prefix the key prefix of the user's documents, ending with {@code :}
   * @param fields the fields a document may have, at least one
   * @return the index's spec, owned by the user
   * @throws IllegalArgumentException as the constructor
   */
  public static IndexSpec userManaged(
      ContextKey<UnifiedJedis> database, String prefix, String... fields) {
    return new IndexSpec(database.name(), prefix, List.of(fields), ManagedBy.USER);
  }
}
