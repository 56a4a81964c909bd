package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.TrackingRecord;
import java.util.List;

/**
 * What is remembered of an index: its spec and the name it has in the database, so removal knows
 * what to drop.
 *
 * @param name the declared name, the attachment's key
 * @param columns the indexed columns, in order
 * @param unique a unique index
 * @param method the access method
 * @param physicalName the index's name in the schema ({@link IndexNames#of}); null in records
 *     of versions that named the index by {@code name} alone
 */
@TrackingRecord
public record IndexRecord(
    String name, List<String> columns, boolean unique, String method, String physicalName) {

  static IndexRecord of(IndexSpec spec, String table) {
    return new IndexRecord(spec.name(), spec.columns(), spec.unique(), spec.method(),
        IndexNames.of(table, spec.name()));
  }

  /** This record with its physical name filled in (an older record's is its declared name). */
  IndexRecord withPhysicalName() {
    return physicalName != null ? this
        : new IndexRecord(name, columns, unique, method, name);
  }
}
