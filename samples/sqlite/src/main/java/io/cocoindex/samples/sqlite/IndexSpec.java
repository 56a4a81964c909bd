package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.annotation.TrackingRecord;
import java.util.List;

/**
 * An index on a table, tracked by its full spec: a changed spec recreates it under the same name,
 * an identical one does nothing.
 *
 * @param name the index name
 * @param columns the indexed columns, in order
 * @param unique whether it is a UNIQUE index
 */
@TargetValue
@TrackingRecord
public record IndexSpec(@Key String name, List<String> columns, boolean unique) {
  public static IndexSpec of(String name, String... columns) {
    return new IndexSpec(name, List.of(columns), false);
  }
}
