package io.cocoindex.samples.postgres;

import io.cocoindex.ContextKey;
import io.cocoindex.statediff.ManagedBy;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A table schema derived from a Java record: one column per record component (named after it,
 * typed from its Java type unless declared), and the primary-key columns you name.
 *
 * <pre>{@code
 * record Doc(long id, String title, String meta) {}
 * TableSchema<Doc> schema = TableSchema.of(Doc.class).primaryKey("id").columnType("meta", "jsonb").build();
 * TableTarget docs = tables.mountTable(ctx, schema.table(DB, "public", "docs"));
 * docs.declareRow(ctx, schema.row(new Doc(1, "hello", "{}")));
 * }</pre>
 *
 * <p>Derived types: {@code String} text, {@code long} bigint, {@code int} integer, {@code short}
 * smallint, {@code double} double precision, {@code float} real, {@code boolean} boolean, {@code
 * byte[]} bytea, {@code BigDecimal} numeric, {@code UUID} uuid, {@code LocalDate} date, {@code
 * LocalTime} time, {@code LocalDateTime} timestamp, {@code Instant}/{@code OffsetDateTime}
 * timestamptz, enums text. Anything else needs {@link Builder#columnType}.
 *
 * @param <T> the row record type
 */
public final class TableSchema<T extends Record> {
  private final Class<T> type;
  private final List<ColumnDef> columns;
  private final List<String> primaryKey;
  private final List<Method> accessors;

  private TableSchema(Class<T> type, List<ColumnDef> columns, List<String> primaryKey,
      List<Method> accessors) {
    this.type = type;
    this.columns = List.copyOf(columns);
    this.primaryKey = List.copyOf(primaryKey);
    this.accessors = List.copyOf(accessors);
  }

  /**
   * Starts a schema for rows of {@code type}.
   *
   * @param type the row record type, one column per component
   * @param <T> the row record type
   * @return a builder, to name the primary key (required) and declare column types
   * @throws NullPointerException when {@code type} is null
   */
  public static <T extends Record> Builder<T> of(Class<T> type) {
    return new Builder<>(type);
  }

  /**
   * The columns, in the record's order.
   *
   * @return each component's column, named after it, with its declared or derived type
   */
  public List<ColumnDef> columns() {
    return columns;
  }

  /**
   * The primary key's columns, in order.
   *
   * @return the primary-key column names, in key order
   */
  public List<String> primaryKey() {
    return primaryKey;
  }

  /**
   * A system-managed table of this schema: created, evolved and dropped by the connector.
   *
   * @param database the key the database's {@code DataSource} is provided under; only its name
   *     goes into the table's key
   * @param schema the PostgreSQL schema
   * @param table the table name
   * @return the table's spec, owned by the connector
   * @throws IllegalArgumentException when the schema's or table's name is not a plain identifier
   */
  public TableSpec table(ContextKey<DataSource> database, String schema, String table) {
    return new TableSpec(database.name(), schema, table, columns, primaryKey, ManagedBy.SYSTEM);
  }

  /**
   * A user-managed table of this schema: the connector writes its rows, never its DDL.
   *
   * @param database the key the database's {@code DataSource} is provided under; only its name
   *     goes into the table's key
   * @param schema the PostgreSQL schema of the user's table
   * @param table the user's table's name
   * @return the table's spec, owned by the user
   * @throws IllegalArgumentException when the schema's or table's name is not a plain identifier
   */
  public TableSpec userTable(ContextKey<DataSource> database, String schema, String table) {
    return new TableSpec(database.name(), schema, table, columns, primaryKey, ManagedBy.USER);
  }

  /**
   * The row of a record; fails naming the column when a primary-key value is null.
   *
   * @param value the record, one column value per component
   * @return the row, keyed by its primary-key values in the form the column types compare them
   * @throws IllegalArgumentException when a primary-key component is null, or a component's
   *     value has no SQL value ({@link SqlValue#of}: a component whose type was declared with
   *     {@link Builder#columnType} must still hold a value {@code SqlValue.of} converts)
   * @throws IllegalStateException when a component's accessor cannot be called or throws
   */
  public Row row(T value) {
    Objects.requireNonNull(value, "row");
    Map<String, SqlValue> values = new LinkedHashMap<>();
    for (int i = 0; i < columns.size(); i++) {
      Object v;
      try {
        v = accessors.get(i).invoke(value);
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new IllegalStateException(
            "cannot read component " + columns.get(i).name() + " of " + type.getName(), e);
      }
      values.put(columns.get(i).name(), SqlValue.of(v));
    }
    return new Row(
        CanonicalKeys.key("record " + type.getSimpleName(), columns, primaryKey, values), values);
  }

  /**
   * Builds a {@link TableSchema}.
   *
   * @param <T> the row record type
   */
  public static final class Builder<T extends Record> {
    private final Class<T> type;
    private final List<String> primaryKey = new ArrayList<>();
    private final Map<String, String> declaredTypes = new LinkedHashMap<>();

    private Builder(Class<T> type) {
      this.type = Objects.requireNonNull(type, "type");
    }

    /**
     * The primary-key columns, in key order; a second call adds to the first's.
     *
     * @param columns names of record components, checked by {@link #build}
     * @return this builder
     */
    public Builder<T> primaryKey(String... columns) {
      primaryKey.addAll(List.of(columns));
      return this;
    }

    /**
     * Declares the SQL type of a column instead of deriving it ({@code jsonb}, {@code
     * numeric(10,2)}).
     *
     * @param column the name of a record component, checked by {@link #build}
     * @param sqlType the column's SQL type, checked by {@link #build} ({@link SqlNames#type});
     *     replaces one declared before for the same column
     * @return this builder
     */
    public Builder<T> columnType(String column, String sqlType) {
      declaredTypes.put(column, sqlType);
      return this;
    }

    /**
     * The schema; the record's components become its columns.
     *
     * @return the schema of the record type, with the primary key and column types given
     * @throws IllegalArgumentException when there is no primary key, the primary key or {@link
     *     #columnType} names something that is not a component, a component's type has no
     *     derived SQL type and none was declared, or a component's name or a declared type is
     *     invalid ({@link ColumnDef})
     */
    public TableSchema<T> build() {
      List<ColumnDef> columns = new ArrayList<>();
      List<Method> accessors = new ArrayList<>();
      for (RecordComponent c : type.getRecordComponents()) {
        String declared = declaredTypes.get(c.getName());
        String sqlType = declared != null ? declared : derivedType(c);
        columns.add(new ColumnDef(c.getName(), sqlType));
        Method accessor = c.getAccessor();
        accessor.setAccessible(true); // records nested in non-public classes
        accessors.add(accessor);
      }
      for (String name : declaredTypes.keySet()) {
        if (columns.stream().noneMatch(col -> col.name().equals(name))) {
          throw new IllegalArgumentException(
              "columnType names '" + name + "', which is not a component of " + type.getName());
        }
      }
      if (primaryKey.isEmpty()) {
        throw new IllegalArgumentException(
            "the table schema of " + type.getName() + " has no primary key: call primaryKey(...)");
      }
      for (String pk : primaryKey) {
        if (columns.stream().noneMatch(col -> col.name().equals(pk))) {
          throw new IllegalArgumentException(
              "primary key column '" + pk + "' is not a component of " + type.getName());
        }
      }
      return new TableSchema<>(type, columns, primaryKey, accessors);
    }

    private String derivedType(RecordComponent c) {
      Class<?> t = c.getType();
      if (t == String.class || t.isEnum()) {
        return "text";
      }
      if (t == long.class || t == Long.class) {
        return "bigint";
      }
      if (t == int.class || t == Integer.class) {
        return "integer";
      }
      if (t == short.class || t == Short.class || t == byte.class || t == Byte.class) {
        return "smallint";
      }
      if (t == double.class || t == Double.class) {
        return "double precision";
      }
      if (t == float.class || t == Float.class) {
        return "real";
      }
      if (t == boolean.class || t == Boolean.class) {
        return "boolean";
      }
      if (t == byte[].class) {
        return "bytea";
      }
      if (t == BigDecimal.class) {
        return "numeric";
      }
      if (t == UUID.class) {
        return "uuid";
      }
      if (t == LocalDate.class) {
        return "date";
      }
      if (t == LocalTime.class) {
        return "time";
      }
      if (t == LocalDateTime.class) {
        return "timestamp";
      }
      if (t == Instant.class || t == OffsetDateTime.class) {
        return "timestamptz";
      }
      throw new IllegalArgumentException(
          "no SQL type is derived for component " + c.getName() + " of " + type.getName()
              + " (" + t.getName() + "): declare one with columnType(\"" + c.getName()
              + "\", \"<sql type>\")");
    }
  }
}
