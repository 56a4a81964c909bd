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

  /** Checks the name and normalizes the type, so equal columns compare equal. */
  public ColumnDef {
    SqlNames.identifier("column", name);
    if (SYSTEM_COLUMNS.contains(name)) {
      throw new IllegalArgumentException("invalid column name '" + name + "': every PostgreSQL"
          + " table has a system column of that name; name the column otherwise");
    }
    type = SqlNames.type("column '" + name + "'", type);
  }
}
