package io.cocoindex.samples.redis;

import io.cocoindex.annotation.TrackingRecord;
import io.cocoindex.statediff.ManagedBy;
import java.util.List;

/**
 * What is remembered of an index: its prefix (to purge it), its fields and its owner.
 *
 * @param prefix the key prefix
 * @param fields the document fields
 * @param managedBy who owns the index
 */
@TrackingRecord
public record IndexRecord(String prefix, List<String> fields, ManagedBy managedBy) {}
