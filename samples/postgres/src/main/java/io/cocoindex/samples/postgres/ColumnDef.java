package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.TargetValue;
import java.util.Set;

/**
 * A column of a table: its name and SQL type.
 *
 * @param name the column name, a plain identifier
 * @param type its SQL type, normalized (lower case, single spaces): {@code bigint}, {@code text}
 */
@TargetValue
public record ColumnDef(String name, String type) {
  /** Names every table has already: PostgreSQL's system columns. */
  private static final Set<String> SYSTEM_COLUMNS =
      Set.of("tableoid", "xmin", "cmin", "xmax", "cmax", "ctid");

  /**
   * Checks the name and normalizes the type, so equal columns compare equal.
   *
   * @param name the column name, a plain identifier other than a system column's
   * @param type its SQL type as written; kept normalized, a synonym under one name ({@code int}
   *     as {@code integer}), see {@link SqlNames#type}
   * @throws IllegalArgumentException naming the column when its name is not a plain identifier
   *     or is a system column's ({@code ctid}, {@code xmin}, ...), or its type is not a plain type
   *     name
   */
  public ColumnDef {
    SqlNames.identifier("column", name);
    if (SYSTEM_COLUMNS.contains(name)) {
      throw new IllegalArgumentException("invalid column name '" + name + "': every PostgreSQL"
          + " table has a system column of that name; name the column otherwise");
    }
    type = SqlNames.type("column '" + name + "'", type);
  }
}
