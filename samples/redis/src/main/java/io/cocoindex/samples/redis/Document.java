package io.cocoindex.samples.redis;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A hash document stored at {@code <prefix><id>}.
 *
 * @param id the document id, the key under the index: no {@code :} (see {@link RedisNames})
 * @param fields its fields (at least one: Redis has no empty hash)
 */
@TargetValue
public record Document(@Key String id, Map<String, String> fields) {
  public Document {
    RedisNames.documentId(id);
    fields = new TreeMap<>(Objects.requireNonNull(fields, "fields"));
    if (fields.isEmpty()) {
      throw new IllegalArgumentException(
          "document " + id + " has no field: Redis cannot store an empty hash");
    }
    fields.forEach((name, value) -> Objects.requireNonNull(value, () ->
        "field '" + name + "' of document " + id + " is null"));
  }
}
