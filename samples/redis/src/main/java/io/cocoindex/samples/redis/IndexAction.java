package io.cocoindex.samples.redis;

import io.cocoindex.annotation.ActionValue;
import java.util.List;

/**
 * Purge an index's prefix (replaced or removed), or nothing; documents are built from it.
 *
 * @param database the name of the database's {@code ContextKey}
 * @param prefix the key prefix
 * @param fields the declared fields (empty when removed)
 * @param purge delete every key under the prefix
 * @param system the index is system-managed: its app is recorded when it is created or replaced,
 *     and another app's is not taken (false in actions of an earlier version: nothing recorded)
 */
@ActionValue
public record IndexAction(
    String database, String prefix, List<String> fields, boolean purge, boolean system) {}
