package io.cocoindex.runtime;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A container target for engine tests: tables whose children are {@link Rows}; the table sink logs
 * {@code "ensure docs"} / {@code "drop docs"}, and its factory gives every table the same row
 * target (so one row log covers all tables).
 */
final class Tables {
  record TableSpec(String generation) {}

  record TableAction(String name, boolean drop) {}

  final List<String> log = Collections.synchronizedList(new ArrayList<>());
  final Rows rows;
  final AtomicInteger factoryCalls = new AtomicInteger();
  volatile TargetChildInvalidation invalidation;
  volatile boolean failCreate;
  volatile boolean failDrop;
  volatile boolean returnNothing;
  /** No longer declared, the handler abandons the table (returns nothing) instead of dropping it. */
  volatile boolean abandonWhenUndeclared;
  /** Declared, the handler returns a Create whatever it tracked ("create if not exists"). */
  volatile boolean alwaysCreate;
  /** The handler throws while reconciling a declared table. */
  volatile boolean throwInReconcile;
  final TargetActionSink<TableAction> sink;
  final Handler handler = new Handler();

  Tables(Rows rows) {
    this(rows, () -> ChildTargetDef.of(rows.handler));
  }

  /** Tables whose children are built by {@code children} (e.g. partitions, themselves tables). */
  Tables(Rows rows, java.util.function.Supplier<ChildTargetDef<?>> children) {
    this.rows = rows;
    this.sink = TargetActionSink.withChildHandler(actions -> {
      for (TargetAction<TableAction> a : actions) {
        if (failCreate && !a.value().drop()) {
          throw new IllegalStateException("scripted failure creating table " + a.value().name());
        }
        if (failDrop && a.value().drop()) {
          throw new IllegalStateException("scripted failure dropping table " + a.value().name());
        }
      }
      for (TargetAction<TableAction> a : actions) {
        log.add((a.value().drop() ? "drop " : "ensure ") + a.value().name());
      }
    }, action -> {
      factoryCalls.incrementAndGet();
      return children.get();
    });
  }

  List<String> takeLog() {
    synchronized (log) {
      List<String> out = new ArrayList<>(log);
      log.clear();
      return out;
    }
  }

  /** The container handler: an action on every run it is declared, as a container must. */
  final class Handler implements TargetHandler<TableSpec, TableSpec, TableAction> {
    @Override
    public TargetReconcileOutput<TableAction, TableSpec> reconcile(
        StableKey key, TableSpec desired, List<TableSpec> prev, boolean mayBeMissing) {
      String name = Rows.keyText(key);
      if (desired == null) {
        return abandonWhenUndeclared ? null : TargetReconcileOutput.of(
            TargetAction.delete(new TableAction(name, true)), sink, null);
      }
      if (returnNothing) {
        return null;
      }
      if (throwInReconcile) {
        throw new IllegalStateException("scripted failure reconciling table " + name);
      }
      boolean changed = !prev.isEmpty() && !prev.contains(desired);
      TableAction action = new TableAction(name, false);
      return new TargetReconcileOutput<>(
          prev.isEmpty() || alwaysCreate
              ? TargetAction.create(action) : TargetAction.update(action),
          sink, desired, changed ? invalidation : null);
    }
  }
}
