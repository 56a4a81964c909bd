package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.TargetValue;

/**
 * A column: its name and SQLite type ({@code TEXT}, {@code INTEGER}, {@code REAL}, {@code BLOB}).
 *
 * @param name the column name
 * @param type the declared type
 */
@TargetValue
public record ColumnSpec(String name, String type) {}
