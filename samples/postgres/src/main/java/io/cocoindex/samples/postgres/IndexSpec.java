package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import java.util.List;
import java.util.Objects;

/**
 * An index of a table, tracked by this full spec: a changed spec drops and recreates the index
 * under the same name; an identical one does nothing.
 *
 * @param name the index name, unique among its table's indexes, the attachment's key; the
 *     database names the index {@code <table>__<name>} ({@link IndexNames})
 * @param columns the indexed columns, in order
 * @param unique a unique index
 * @param method the access method: {@code btree}, {@code hash}, {@code gin}, {@code gist}, ...
 */
@TargetValue
public record IndexSpec(@Key String name, List<String> columns, boolean unique, String method) {
  /**
   * Checks every name, so a malicious one fails at declaration.
   *
   * @param name the index name, a plain identifier
   * @param columns the indexed columns, in order, at least one; copied
   * @param unique a unique index
   * @param method the access method, a plain identifier; null for {@code btree}
   * @throws IllegalArgumentException naming it when a name or the method is not a plain
   *     identifier, or there is no column
   * @throws NullPointerException when {@code columns} is null or holds a null
   */
  public IndexSpec {
    SqlNames.identifier("index", name);
    columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("index " + name + " has no column");
    }
    columns.forEach(c -> SqlNames.identifier("column of index " + name, c));
    method = SqlNames.identifier("access method of index " + name, method == null ? "btree" : method);
  }

  /**
   * A non-unique B-tree index.
   *
   * @param name the index name, unique among its table's indexes
   * @param columns the indexed columns, in order, at least one
   * @return the spec of that index
   * @throws IllegalArgumentException as the constructor
   */
  public static IndexSpec btree(String name, String... columns) {
    return new IndexSpec(name, List.of(columns), false, "btree");
  }
}
