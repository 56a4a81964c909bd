package io.cocoindex.samples.redis;

import io.cocoindex.annotation.TrackingRecord;
import io.cocoindex.statediff.ManagedBy;
import java.util.List;

/**
 * What is remembered of an index: its prefix (to purge it), its fields and its owner.
 *
 * @param prefix the key prefix
 * @param fields the document fields, sorted
 * @param managedBy who owns the index
 */
@TrackingRecord
public record IndexRecord(String prefix, List<String> fields, ManagedBy managedBy) {
  /** The record of an index, its fields sorted: their order is no part of the schema. */
  static IndexRecord of(String prefix, List<String> fields, ManagedBy managedBy) {
    return new IndexRecord(prefix, fields.stream().sorted().toList(), managedBy);
  }
}
