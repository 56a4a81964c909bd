package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.TrackingRecord;
import java.util.Map;

/**
 * What is remembered of a table: the primary-key signature and each column's type.
 *
 * @param primaryKey the primary key's columns with their types, e.g. {@code "file TEXT,ord INTEGER"}
 * @param columns column name to type
 * @param userManaged whether the user owns the table
 */
@TrackingRecord
public record TableRecord(String primaryKey, Map<String, String> columns, boolean userManaged) {}
