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
 */
@ActionValue
public record IndexAction(String database, String prefix, List<String> fields, boolean purge) {}
