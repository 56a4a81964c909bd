package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Indexes of one table, tracked by their full spec: a changed spec drops and recreates the index
 * under the same name; an identical spec does nothing; a removed one is dropped.
 */
final class IndexHandler implements TargetHandler<IndexSpec, IndexSpec, AttachmentAction> {
  private final TableSpec table;
  private final TargetActionSink<AttachmentAction> sink;
  /** The names declared in this run, case-folded: see {@link #reconcile}. */
  private final Set<String> declared = ConcurrentHashMap.newKeySet();

  IndexHandler(TableSpec table, TargetActionSink<AttachmentAction> sink) {
    this.table = table;
    this.sink = sink;
  }

  @Override
  public TargetReconcileOutput<AttachmentAction, IndexSpec> reconcile(
      StableKey key, IndexSpec desired, List<IndexSpec> prev, boolean prevMayBeMissing) {
    String name = ((StableKey.Str) key).value();
    String drop = "DROP INDEX IF EXISTS " + SqlIdentifiers.quote("index", name);
    if (desired == null) {
      if ((prev.isEmpty() && !prevMayBeMissing) || declared.contains(SqlIdentifiers.fold(name))) {
        // Nothing to drop, or the index is declared under its case-folded name (its key before
        // keys were folded): dropping it would drop the declared index.
        return null;
      }
      return TargetReconcileOutput.of(
          TargetAction.delete(AttachmentAction.of(table.name(), List.of(drop), List.of())), sink,
          null);
    }
    declared.add(SqlIdentifiers.fold(name));
    boolean changed = prev.stream().anyMatch(p -> !p.equals(desired));
    if (!changed && !prevMayBeMissing && !prev.isEmpty()) {
      return null;
    }
    AttachmentAction action = AttachmentAction.of(
        table.name(), changed ? List.of(drop) : List.of(), List.of(createSql(desired)));
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, desired);
  }

  private String createSql(IndexSpec spec) {
    if (spec.columns().isEmpty()) {
      throw new IllegalArgumentException("index " + spec.name() + " has no columns");
    }
    StringBuilder cols = new StringBuilder();
    for (String col : spec.columns()) {
      if (table.columns().stream().noneMatch(c -> c.name().equalsIgnoreCase(col))) {
        throw new IllegalArgumentException(
            "index " + spec.name() + " names column '" + col + "', which table " + table.name()
                + " does not have");
      }
      cols.append(cols.length() == 0 ? "" : ", ").append(SqlIdentifiers.quote("column", col));
    }
    return "CREATE " + (spec.unique() ? "UNIQUE " : "") + "INDEX IF NOT EXISTS "
        + SqlIdentifiers.quote("index", spec.name()) + " ON "
        + SqlIdentifiers.quote("table", table.name()) + " (" + cols + ")";
  }
}
