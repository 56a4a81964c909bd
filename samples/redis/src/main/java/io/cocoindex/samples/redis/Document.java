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
  /**
   * Checks the id and the fields, copying the fields into a map sorted by name.
   *
   * @param id the document id: 1 to 512 characters, no whitespace, control character or {@code
   *     :}
   * @param fields its fields by name, at least one, no value null; copied
   * @throws IllegalArgumentException naming the document when the id is invalid ({@link
   *     RedisNames#documentId}) or there is no field
   * @throws NullPointerException when {@code fields} is null or a field's value is null, naming
   *     the field
   */
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
