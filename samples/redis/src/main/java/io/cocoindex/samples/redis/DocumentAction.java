package io.cocoindex.samples.redis;

import io.cocoindex.annotation.ActionValue;
import java.util.Map;

/**
 * Write or delete one hash.
 *
 * @param key the full Redis key ({@code <prefix><id>})
 * @param fields the fields to write (empty for a delete)
 * @param clear delete the hash first, so fields no longer declared go away
 * @param delete delete the hash instead of writing it
 */
@ActionValue
public record DocumentAction(
    String key, Map<String, String> fields, boolean clear, boolean delete) {}
