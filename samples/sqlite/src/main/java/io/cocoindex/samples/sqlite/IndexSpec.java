package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.annotation.TrackingRecord;
import java.util.List;

/**
 * An index on a table, tracked by its full spec: a changed spec recreates it, an identical one
 * does nothing.
 *
 * @param name the index name, unique among its table's indexes; SQLite index names being
 *     database-wide, the database names the index {@code <table>__<name>}, or {@code name} when
 *     it already starts with the table's name and one {@code _} ({@code docs_by_title} on {@code
 *     docs}); longer than 64 characters, the first 55 and 8 hex digits of a fingerprint
 * @param columns the indexed columns, in order
 * @param unique whether it is a UNIQUE index
 */
@TargetValue
@TrackingRecord
public record IndexSpec(@Key String name, List<String> columns, boolean unique) {
  /**
   * A non-unique index {@code name} on {@code columns}, in that order.
   *
   * @param name the index name, unique among its table's indexes; the database name is made from
   *     it and the table's as the record describes
   * @param columns the indexed columns, in index order
   * @return the spec of that index, not {@link #unique}
   */
  public static IndexSpec of(String name, String... columns) {
    return new IndexSpec(name, List.of(columns), false);
  }
}
