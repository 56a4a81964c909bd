package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.TargetValue;

/**
 * A column of a table: its name and SQL type.
 *
 * @param name the column name, a plain identifier
 * @param type its SQL type, normalized (lower case, single spaces): {@code bigint}, {@code text}
 */
@TargetValue
public record ColumnDef(String name, String type) {
  /** Checks the name and normalizes the type, so equal columns compare equal. */
  public ColumnDef {
    SqlNames.identifier("column", name);
    type = SqlNames.type("column '" + name + "'", type);
  }
}
