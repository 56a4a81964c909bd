package io.cocoindex;

/**
 * How a change to a container target affects the children tracked under it; set on {@link
 * TargetReconcileOutput#childInvalidation()} by a container handler.
 */
public enum TargetChildInvalidation {
  /**
   * The change destroyed every child (e.g. a table dropped and recreated). Children's previous
   * tracking records are ignored: each declared child is reconciled as new ({@code prev = []},
   * {@code prevMayBeMissing = true}), and no delete is sent for children not declared any more.
   * Cascades to grandchildren.
   */
  DESTRUCTIVE,
  /**
   * The change may have lost data of children (e.g. a column dropped). Children keep their
   * previous records but are reconciled once with {@code prevMayBeMissing = true}, forcing an
   * upsert. Cascades to grandchildren.
   */
  LOSSY
}
