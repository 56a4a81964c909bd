package io.cocoindex.samples.sqlite;

import java.util.Locale;
import java.util.Set;

/** The column types the connector declares: SQLite's four storage classes. */
final class ColumnTypes {
  private static final Set<String> TYPES = Set.of("TEXT", "INTEGER", "REAL", "BLOB");

  private ColumnTypes() {}

  static String normalize(String type) {
    return type.trim().toUpperCase(Locale.ROOT);
  }

  static void check(String table, ColumnSpec column) {
    if (column.type() == null || !TYPES.contains(normalize(column.type()))) {
      throw new IllegalArgumentException(
          "column " + table + "." + column.name() + " has type '" + column.type()
              + "': use TEXT, INTEGER, REAL or BLOB");
    }
  }

  /** The SQLite type of a Java record component type. */
  static String forJavaType(Class<?> type) {
    if (type == String.class) {
      return "TEXT";
    }
    if (type == long.class || type == Long.class || type == int.class || type == Integer.class
        || type == short.class || type == Short.class || type == byte.class || type == Byte.class
        || type == boolean.class || type == Boolean.class) {
      return "INTEGER";
    }
    if (type == double.class || type == Double.class || type == float.class
        || type == Float.class) {
      return "REAL";
    }
    if (type == byte[].class) {
      return "BLOB";
    }
    throw new IllegalArgumentException(
        "record component type " + type.getName() + " has no SQLite column type: use String,"
            + " integral or floating numbers, boolean or byte[]");
  }
}
