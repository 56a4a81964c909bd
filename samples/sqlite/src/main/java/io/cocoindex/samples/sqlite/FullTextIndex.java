package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.annotation.TrackingRecord;
import java.util.List;

/**
 * An FTS5 full-text index over text columns of a table: an external-content FTS5 table kept in
 * sync by triggers, searchable with {@code SELECT ... FROM <name> WHERE <name> MATCH ?}.
 *
 * @param name the FTS5 table's name
 * @param columns the indexed text columns
 */
@TargetValue
@TrackingRecord
public record FullTextIndex(@Key String name, List<String> columns) {}
