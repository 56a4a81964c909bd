package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A table whose rows are instances of a Java record: one column per record component (String
 * -> TEXT, integral numbers and boolean -> INTEGER, floating numbers -> REAL, byte[] -> BLOB),
 * and the named components as primary key.
 *
 * <pre>{@code
 * record Chunk(String file, long ordinal, String text) {}
 * TableSchema<Chunk> CHUNKS = TableSchema.of("chunks", Chunk.class, "file", "ordinal");
 * }</pre>
 *
 * @param <T> the row record type
 */
public final class TableSchema<T extends Record> {
  private final String name;
  private final Class<T> type;
  private final List<ColumnSpec> columns;
  private final List<String> primaryKey;
  private final boolean userManaged;
  /**
   * Reads every component of a row into an array of its values, in one call: rows are read for
   * every declaration. A primitive component goes to its value unboxed (boxing each long was 4%
   * of a warm rerun).
   */
  private final ColumnsReader readAll;
  /** The primary key's column indexes, in key order. */
  private final int[] keyColumns;

  private TableSchema(String name, Class<T> type, List<String> primaryKey, boolean userManaged) {
    this.name = SqlIdentifiers.checkObject("table", name);
    this.type = Objects.requireNonNull(type, "type");
    List<ColumnSpec> cols = new ArrayList<>();
    for (RecordComponent c : type.getRecordComponents()) {
      for (ColumnSpec other : cols) {
        if (other.name().equalsIgnoreCase(c.getName())) {
          throw new IllegalArgumentException("components '" + other.name() + "' and '"
              + c.getName() + "' of " + type.getName() + " would be one column: SQLite names"
              + " are case-insensitive");
        }
      }
      cols.add(new ColumnSpec(SqlIdentifiers.check("column", c.getName()),
          ColumnTypes.forJavaType(c.getType())));
    }
    this.columns = List.copyOf(cols);
    if (primaryKey.isEmpty()) {
      throw new IllegalArgumentException("table " + name + " needs a primary key");
    }
    for (String pk : primaryKey) {
      if (cols.stream().noneMatch(c -> c.name().equals(pk))) {
        throw new IllegalArgumentException("primary-key column '" + pk + "' is not a component of "
            + type.getName());
      }
    }
    this.primaryKey = List.copyOf(primaryKey);
    this.userManaged = userManaged;
    this.readAll = READERS.get(type);
    this.keyColumns = new int[primaryKey.size()];
    for (int k = 0; k < keyColumns.length; k++) {
      keyColumns[k] = indexOf(primaryKey.get(k));
    }
  }

  /**
   * A table the app creates, evolves and drops.
   *
   * @param name the table's name
   * @param type the row record type, one column per component
   * @param primaryKey the names of the components forming the primary key, in key order
   * @param <T> the row record type
   * @return the schema of that table
   * @throws IllegalArgumentException when the table's or a component's name is not a valid
   *     identifier or the table's is reserved ({@link SqlIdentifiers#checkObject}), two
   *     components' names differ only in case, a component's type has no SQLite column type,
   *     the primary key is empty or names something that is not a component, or a component's
   *     accessor cannot be reached (its package not open to the connector)
   */
  public static <T extends Record> TableSchema<T> of(
      String name, Class<T> type, String... primaryKey) {
    return new TableSchema<>(name, type, List.of(primaryKey), false);
  }

  /**
   * A table the user owns: the app manages its rows and what it declares on it, but never
   * creates, alters or drops it. No longer declared, it is left with its rows (the "abandon"
   * shape), and the indexes, SQL commands and full-text indexes this app made on it go.
   *
   * @param name the name of the user's table
   * @param type the row record type, one column per component
   * @param primaryKey the names of the components forming the primary key, in key order
   * @param <T> the row record type
   * @return the schema of that table, marked as the user's
   * @throws IllegalArgumentException as {@link #of}
   */
  public static <T extends Record> TableSchema<T> userManaged(
      String name, Class<T> type, String... primaryKey) {
    return new TableSchema<>(name, type, List.of(primaryKey), true);
  }

  /**
   * Each record type's reader, made once: a schema is often made anew on every run, and a new
   * reader class would be compiled anew by the JIT.
   */
  static final ClassValue<ColumnsReader> READERS = new ClassValue<>() {
    @Override
    protected ColumnsReader computeValue(Class<?> type) {
      RecordComponent[] components = type.getRecordComponents();
      MethodHandle[] readers = new MethodHandle[components.length];
      for (int i = 0; i < components.length; i++) {
        readers[i] = valueReader(type, components[i]);
      }
      return ColumnsReader.of(readAll(readers, MAX_COLLECTED));
    }
  };

  /** {@code (Object row) -> SqlValue} of component {@code c}, unboxed where it is primitive. */
  static MethodHandle valueReader(Class<?> type, RecordComponent c) {
    Method m = c.getAccessor();
    MethodHandle read;
    try {
      m.setAccessible(true);
      read = MethodHandles.lookup().unreflect(m);
    } catch (IllegalAccessException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read component " + c.getName() + " of "
          + type.getName() + " (is its package open to cocoindex?): " + e.getMessage(), e);
    }
    Class<?> t = c.getType();
    MethodHandle convert;
    if (t == long.class || t == int.class || t == short.class || t == byte.class) {
      convert = OF_LONG;
    } else if (t == double.class || t == float.class) {
      convert = OF_DOUBLE;
    } else if (t == boolean.class) {
      convert = OF_BOOLEAN;
    } else {
      convert = OF_OBJECT;
    }
    MethodHandle toValue = MethodHandles.filterReturnValue(
        read, convert.asType(MethodType.methodType(SqlValue.class, t)));
    return toValue.asType(MethodType.methodType(SqlValue.class, Object.class));
  }

  /**
   * {@code (Object row) -> SqlValue[]} of the readers' values, in component order. Past {@code
   * maxCollected} components (a method handle takes at most 255 arguments), one call each.
   */
  static MethodHandle readAll(MethodHandle[] readers, int maxCollected) {
    int n = readers.length;
    if (n > maxCollected) {
      MethodHandle eachInTurn = MethodHandles.insertArguments(
          READ_IN_TURN, 0, (Object) readers);
      return eachInTurn.asType(MethodType.methodType(SqlValue[].class, Object.class));
    }
    MethodHandle collect =
        MethodHandles.identity(SqlValue[].class).asCollector(SqlValue[].class, n);
    MethodHandle each = MethodHandles.filterArguments(collect, 0, readers);
    return MethodHandles.permuteArguments(
        each, MethodType.methodType(SqlValue[].class, Object.class), new int[n]);
  }

  private static final int MAX_COLLECTED = 200;
  private static final MethodHandle READ_IN_TURN;
  private static final MethodHandle OF_LONG;
  private static final MethodHandle OF_DOUBLE;
  private static final MethodHandle OF_BOOLEAN;
  private static final MethodHandle OF_OBJECT;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      READ_IN_TURN = lookup.findStatic(TableSchema.class, "readInTurn",
          MethodType.methodType(SqlValue[].class, MethodHandle[].class, Object.class));
      OF_LONG = lookup.findStatic(SqlValue.class, "of",
          MethodType.methodType(SqlValue.class, long.class));
      OF_DOUBLE = lookup.findStatic(SqlValue.class, "of",
          MethodType.methodType(SqlValue.class, double.class));
      OF_BOOLEAN = lookup.findStatic(SqlValue.class, "of",
          MethodType.methodType(SqlValue.class, boolean.class));
      OF_OBJECT = lookup.findStatic(SqlValue.class, "of",
          MethodType.methodType(SqlValue.class, Object.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static SqlValue[] readInTurn(MethodHandle[] readers, Object row) throws Throwable {
    SqlValue[] out = new SqlValue[readers.length];
    for (int i = 0; i < readers.length; i++) {
      out[i] = (SqlValue) readers[i].invokeExact(row);
    }
    return out;
  }

  /**
   * The table's name.
   *
   * @return the name as given, not case-folded
   */
  public String name() {
    return name;
  }

  /**
   * The columns, in the record's order.
   *
   * @return each component's name and SQLite type, unmodifiable
   */
  public List<ColumnSpec> columns() {
    return columns;
  }

  TableSpec spec(String database) {
    return new TableSpec(database, name, columns, primaryKey, userManaged);
  }

  /**
   * The row of {@code value}.
   *
   * @throws IllegalArgumentException naming the column when a primary-key value is null or NaN
   */
  Row row(T value) {
    Objects.requireNonNull(value, "row");
    SqlValue[] read;
    try {
      read = readAll.read(value);
    } catch (Throwable e) {
      throw new IllegalStateException("cannot read the components of " + type.getName(), e);
    }
    if (keyColumns.length == 1) {
      return new Row(keyPart(value, read, 0), List.of(read));
    }
    List<StableKey> key = new ArrayList<>(keyColumns.length);
    for (int k = 0; k < keyColumns.length; k++) {
      key.add(keyPart(value, read, k));
    }
    return new Row(new StableKey.Array(key), List.of(read));
  }

  /**
   * The key of the {@code k}th primary-key column of a row read as {@code read}.
   *
   * @throws IllegalArgumentException naming the column when the value is null or NaN: SQLite
   *     stores a NaN as NULL, so such a row could never be found again by its key
   */
  private StableKey keyPart(T value, SqlValue[] read, int k) {
    SqlValue v = read[keyColumns[k]];
    if (v.isNull() || v.isNaN()) {
      throw new IllegalArgumentException("row " + value + " of table " + name + " has a "
          + (v.isNull() ? "null" : "NaN") + " primary-key column '" + primaryKey.get(k) + "'");
    }
    return v.toKey();
  }

  private int indexOf(String column) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(column)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no column " + column);
  }
}
