package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The tables-and-rows set-up of the container tests: root provider "tables" ({@link Tables}) with
 * one table, docs, whose children are {@link #rows}, and, made by {@link #ofIndexedRows}, have the
 * attachment type "index" (rule 9) with entries {@link #indexes}. Docs is declared with children
 * (a directory), or without them once {@link #withChildren} is off (a file): the rows its
 * components declare are then not declared at all.
 */
final class TableDocs {
  /** Docs's value, the same in every run: only whether it has children changes. */
  static final Tables.TableSpec SPEC = new Tables.TableSpec("g1");

  final Rows rows = new Rows();
  /** The entries of the rows' "index" attachment type (none without {@link #ofIndexedRows}). */
  final Rows indexes = new Rows();
  final Tables tables;
  /** Whether docs is declared with children (a directory) or without them (a file). */
  volatile boolean withChildren = true;

  private TableDocs(boolean indexed) {
    tables = indexed
        ? new Tables(rows, () -> ChildTargetDef.of(
            new RowsWithAttachments(rows, Map.of("index", indexes))))
        : new Tables(rows);
  }

  /** Docs's rows plain. */
  static TableDocs ofRows() {
    return new TableDocs(false);
  }

  /** Docs's rows with the attachment type "index", its entries in {@link #indexes}. */
  static TableDocs ofIndexedRows() {
    return new TableDocs(true);
  }

  /** Registers root provider "tables" in the component of {@code ctx}. */
  TargetStateProvider<Tables.TableSpec> register(Ctx ctx) {
    return registerRootTargetStatesProvider(ctx, "tables", tables.handler);
  }

  /** Registers "tables" and declares docs on it: {@link #declareDocs(Ctx, TargetStateProvider)}. */
  TargetStateProvider<String> declareDocs(Ctx ctx) {
    return declareDocs(ctx, register(ctx));
  }

  /**
   * Declares docs on {@code tables}, mounted with children or declared without them.
   *
   * @return the provider of docs's rows, or null while docs has no children
   */
  TargetStateProvider<String> declareDocs(Ctx ctx, TargetStateProvider<Tables.TableSpec> tables) {
    if (withChildren) {
      return mountTarget(ctx, tables.targetState("docs", SPEC));
    }
    declareTargetState(ctx, tables.targetState("docs", SPEC));
    return null;
  }

  /**
   * Mounts a component for each name of {@code owners} (in its order), which declares its rows
   * there, each valued "v1", in docs, and nothing while docs has no children ({@code docs} null).
   */
  static void mountOwners(Ctx ctx, TargetStateProvider<String> docs,
      Map<String, List<String>> owners) {
    owners.forEach((name, own) -> ctx.mount(name, c -> {
      if (docs != null) {
        own.forEach(k -> declareTargetState(c, docs.targetState(k, "v1")));
      }
    }));
  }

  /** A row handler ({@code rows}'s) that has attachment types, each with rows of its own. */
  static final class RowsWithAttachments
      implements TargetHandler<String, String, Rows.RowAction> {
    private final Rows rows;
    private final Map<String, ChildTargetDef<?>> attachments = new TreeMap<>();

    RowsWithAttachments(Rows rows, Map<String, Rows> types) {
      this.rows = rows;
      types.forEach((type, entries) -> attachments.put(type, ChildTargetDef.of(entries.handler)));
    }

    @Override
    public TargetReconcileOutput<Rows.RowAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      return rows.handler.reconcile(key, desired, prev, mayBeMissing);
    }

    @Override
    public Map<String, ChildTargetDef<?>> attachments() {
      return attachments;
    }
  }
}
