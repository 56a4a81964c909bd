package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.TrackingRecord;
import io.cocoindex.statediff.CompositeTrackingRecord;
import io.cocoindex.statediff.ManagedBy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What is remembered of a table: its place, its owner, its primary-key signature (names and
 * types: a change recreates the table) and its other columns (each diffed on its own).
 *
 * @param schema the schema
 * @param table the table name
 * @param managedBy who owns the table
 * @param primaryKey the primary-key columns with their types, in key order
 * @param columns the other columns with their types, in table order
 */
@TrackingRecord
public record TableRecord(
    String schema,
    String table,
    ManagedBy managedBy,
    List<ColumnDef> primaryKey,
    List<ColumnDef> columns) {

  static TableRecord of(TableSpec spec) {
    List<ColumnDef> pk = spec.primaryKey().stream().map(spec::column).toList();
    List<ColumnDef> others =
        spec.columns().stream().filter(c -> !spec.primaryKey().contains(c.name())).toList();
    return new TableRecord(spec.schema(), spec.table(), spec.managedBy(), pk, others);
  }

  /** The composite form {@code StateDiff.diffComposite} works on: main = key signature, sub = column types. */
  CompositeTrackingRecord<List<ColumnDef>, String, String> composite() {
    Map<String, String> types = new LinkedHashMap<>();
    columns.forEach(c -> types.put(c.name(), c.type()));
    return new CompositeTrackingRecord<>(primaryKey, types);
  }
}
