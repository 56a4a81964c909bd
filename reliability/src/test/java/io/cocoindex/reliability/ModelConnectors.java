package io.cocoindex.reliability;

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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * In-memory connectors over a model external system ({@link External}): tables (containers
 * with a generation whose change is DESTRUCTIVE, LOSSY or harmless, as the declared spec says),
 * rows in tables, index attachments of tables, and flat key-value entries. The sinks behave
 * like real systems: a DESTRUCTIVE table change drops the table's rows and indexes, a LOSSY one
 * damages every row, a dropped table takes its rows and indexes with it. Sink failures are
 * injected by predicate, either before anything is applied or after a part of the batch was.
 * The sinks log every action they apply ({@link #applied}), and the handlers, when asked, every
 * reconciliation with what they were told of the state's past ({@link #reconciled}).
 */
final class ModelConnectors {
  /** The external system the sinks write to. */
  static final class External {
    final Map<String, Integer> tables = new TreeMap<>(); // name -> generation
    final Map<String, String> rows = new TreeMap<>(); // "table/key" -> value
    final Map<String, String> indexes = new TreeMap<>(); // "table@name" -> spec
    final Map<String, String> kv = new TreeMap<>(); // key -> value

    synchronized void dropTable(String table) {
      tables.remove(table);
      rows.keySet().removeIf(k -> k.startsWith(table + "/"));
      indexes.keySet().removeIf(k -> k.startsWith(table + "@"));
    }
  }

  /** How a sink fails this run: which actions, and whether the batch applies partly first. */
  static final class Faults {
    volatile Predicate<String> failOn = k -> false; // "kind:id", e.g. "row:t0/k3"
    volatile boolean partial;
    /** A kill the sink calls count toward: once it struck, a sink applies nothing. */
    volatile SimulatedKill kill;

    void check(List<String> batch, Runnable applyHealthy) {
      SimulatedKill k = kill;
      if (k != null && !k.lands()) {
        throw new IllegalStateException("the process died before this sink call");
      }
      boolean any = batch.stream().anyMatch(failOn);
      if (any && partial) {
        applyHealthy.run();
      }
      if (any) {
        throw new IllegalStateException("injected sink failure on "
            + batch.stream().filter(failOn).findFirst().orElseThrow());
      }
    }
  }

  record TableSpec(int generation, String change) {} // change: DESTRUCTIVE, LOSSY, NONE, LEAF

  /** The change of a table declared without children: a leaf, which holds no rows or indexes. */
  static final String LEAF = "LEAF";

  record TableAction(String table, int generation, String change, boolean drop) {}

  record RowAction(String path, String value) {} // value null: delete

  record IndexAction(String path, String spec) {} // spec null: drop

  record KvAction(String key, String value) {}

  static final String LOST = "<lost>";

  final External ext = new External();
  final Faults faults = new Faults();
  /** Every action a sink applied, as {@code "<verb> <value>"}, in the order applied. */
  final List<String> applied = Collections.synchronizedList(new ArrayList<>());
  /** Every handler call while not null (the engine calls handlers concurrently). */
  volatile List<Reconciled> reconciled;

  /**
   * One handler call: the state (its provider as the engine names it, and key), how many
   * possible records it was given, whether it was told the state may be missing, whether it is
   * declared (else it is to be deleted), and the invalidation of its children it returned (a
   * table's; else null).
   */
  record Reconciled(String provider, StableKey key, int prev, boolean mayBeMissing,
      boolean declared, TargetChildInvalidation invalidation) {
    /** The state as {@code status()} names it: its provider and key. */
    String state() {
      return provider + " " + key;
    }

    /** The provider of the state's container ("tables/t0" for an index of t0), or its own. */
    String containerProvider() {
      return provider.contains("@") ? provider.substring(0, provider.indexOf('@')) : provider;
    }
  }

  private void note(String provider, StableKey key, Object desired, List<?> prev,
      boolean mayBeMissing, TargetChildInvalidation invalidation) {
    List<Reconciled> log = reconciled;
    if (log != null) {
      log.add(new Reconciled(
          provider, key, prev.size(), mayBeMissing, desired != null, invalidation));
    }
  }

  private void logApplied(TargetAction<?> a) {
    applied.add(a.verb() + " " + a.value());
  }

  final TargetActionSink<RowAction> rowSink = TargetActionSink.of(actions -> {
    List<String> ids = actions.stream().map(a -> "row:" + a.value().path()).toList();
    faults.check(ids, () -> applyRows(actions, true));
    applyRows(actions, false);
  });

  private void applyRows(List<TargetAction<RowAction>> actions, boolean healthyOnly) {
    synchronized (ext) {
      for (TargetAction<RowAction> a : actions) {
        RowAction r = a.value();
        if (healthyOnly && faults.failOn.test("row:" + r.path())) {
          continue;
        }
        String table = r.path().substring(0, r.path().indexOf('/'));
        if (r.value() == null) {
          ext.rows.remove(r.path());
        } else if (ext.tables.containsKey(table)) {
          ext.rows.put(r.path(), r.value());
        } else {
          throw new IllegalStateException("no such table " + table + " writing " + r.path());
        }
        logApplied(a);
      }
    }
  }

  final TargetActionSink<IndexAction> indexSink = TargetActionSink.of(actions -> {
    List<String> ids = actions.stream().map(a -> "index:" + a.value().path()).toList();
    faults.check(ids, () -> applyIndexes(actions, true));
    applyIndexes(actions, false);
  });

  private void applyIndexes(List<TargetAction<IndexAction>> actions, boolean healthyOnly) {
    synchronized (ext) {
      for (TargetAction<IndexAction> a : actions) {
        IndexAction i = a.value();
        if (healthyOnly && faults.failOn.test("index:" + i.path())) {
          continue;
        }
        if (i.spec() == null) {
          ext.indexes.remove(i.path());
        } else {
          ext.indexes.put(i.path(), i.spec());
        }
        logApplied(a);
      }
    }
  }

  final TargetActionSink<TableAction> tableSink = TargetActionSink.withChildHandler(actions -> {
    List<String> ids = actions.stream().map(a -> "table:" + a.value().table()).toList();
    faults.check(ids, () -> applyTables(actions, true));
    applyTables(actions, false);
  }, action -> ChildTargetDef.of(new RowHandler(action.table())));

  private void applyTables(List<TargetAction<TableAction>> actions, boolean healthyOnly) {
    synchronized (ext) {
      for (TargetAction<TableAction> a : actions) {
        TableAction t = a.value();
        if (healthyOnly && faults.failOn.test("table:" + t.table())) {
          continue;
        }
        logApplied(a);
        if (t.drop()) {
          ext.dropTable(t.table());
          continue;
        }
        if (t.change().equals(LEAF)) { // declared without children: they go with this action
          ext.dropTable(t.table());
          ext.tables.put(t.table(), t.generation());
          continue;
        }
        // The change is the one the handler's invalidation announced, carried out whatever
        // generation the table has (a failed run may have left either): a real sink does what
        // the invalidation it returned says.
        if (!ext.tables.containsKey(t.table()) || a instanceof TargetAction.Create<TableAction>
            || t.change().equals("DESTRUCTIVE")) {
          ext.dropTable(t.table()); // a created or destroyed table starts empty
        } else if (t.change().equals("LOSSY")) {
          ext.rows.replaceAll((k, v) -> k.startsWith(t.table() + "/") ? LOST : v);
        }
        ext.tables.put(t.table(), t.generation());
      }
    }
  }

  final TargetActionSink<KvAction> kvSink = TargetActionSink.of(actions -> {
    List<String> ids = actions.stream().map(a -> "kv:" + a.value().key()).toList();
    faults.check(ids, () -> applyKv(actions, true));
    applyKv(actions, false);
  });

  private void applyKv(List<TargetAction<KvAction>> actions, boolean healthyOnly) {
    synchronized (ext) {
      for (TargetAction<KvAction> a : actions) {
        KvAction kv = a.value();
        if (healthyOnly && faults.failOn.test("kv:" + kv.key())) {
          continue;
        }
        if (kv.value() == null) {
          ext.kv.remove(kv.key());
        } else {
          ext.kv.put(kv.key(), kv.value());
        }
        logApplied(a);
      }
    }
  }

  static String str(StableKey key) {
    return ((StableKey.Str) key).value();
  }

  /** Tables: a container whose spec change invalidates its rows as the spec says. */
  final class TableHandler implements TargetHandler<TableSpec, TableSpec, TableAction> {
    @Override
    public TargetReconcileOutput<TableAction, TableSpec> reconcile(
        StableKey key, TableSpec desired, List<TableSpec> prev, boolean mayBeMissing) {
      String name = str(key);
      if (desired == null) {
        note("tables", key, desired, prev, mayBeMissing, null);
        return TargetReconcileOutput.of(
            TargetAction.delete(new TableAction(name, 0, "NONE", true)), tableSink, null);
      }
      if (desired.change().equals(LEAF)) {
        // Declared without children: its action takes them along (rule 8), on every run it
        // may not have applied.
        note("tables", key, desired, prev, mayBeMissing, null);
        if (!mayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
          return null;
        }
        TableAction leaf = new TableAction(name, desired.generation(), LEAF, false);
        return TargetReconcileOutput.of(
            prev.isEmpty() ? TargetAction.create(leaf) : TargetAction.update(leaf), tableSink,
            desired);
      }
      boolean changed = prev.stream().anyMatch(p -> p.generation() != desired.generation()
          && !p.change().equals(LEAF));
      TargetChildInvalidation inv = !changed || desired.change().equals("NONE") ? null
          : TargetChildInvalidation.valueOf(desired.change());
      if (inv == null && mayBeMissing && !prev.isEmpty()) {
        // Its drop (or create) may have been applied by a run that was killed before it knew:
        // created again now, the table has lost its rows, which their records still name.
        inv = TargetChildInvalidation.LOSSY;
      }
      note("tables", key, desired, prev, mayBeMissing, inv);
      TableAction action =
          new TableAction(name, desired.generation(), inv == null ? "NONE" : inv.name(), false);
      return new TargetReconcileOutput<>(
          prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action),
          tableSink, desired, inv);
    }
  }

  /** Rows of one table, with an "index" attachment type. */
  final class RowHandler implements TargetHandler<String, String, RowAction> {
    private final String table;

    RowHandler(String table) {
      this.table = table;
    }

    @Override
    public Map<String, ChildTargetDef<?>> attachments() {
      return Map.of("index", ChildTargetDef.of(new IndexHandler(table)));
    }

    @Override
    public TargetReconcileOutput<RowAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      note("tables/" + table, key, desired, prev, mayBeMissing, null);
      String path = table + "/" + str(key);
      if (desired == null) {
        if (prev.isEmpty() && !mayBeMissing) {
          return null;
        }
        return TargetReconcileOutput.of(TargetAction.delete(new RowAction(path, null)), rowSink,
            null);
      }
      if (!mayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      RowAction a = new RowAction(path, desired);
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(a) : TargetAction.update(a), rowSink, desired);
    }
  }

  /** Index attachments of one table; the tracking record is the spec (needed to drop it). */
  final class IndexHandler implements TargetHandler<String, String, IndexAction> {
    private final String table;

    IndexHandler(String table) {
      this.table = table;
    }

    @Override
    public TargetReconcileOutput<IndexAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      note("tables/" + table + "@index", key, desired, prev, mayBeMissing, null);
      String path = table + "@" + str(key);
      if (desired == null) {
        if (prev.isEmpty() && !mayBeMissing) {
          return null;
        }
        return TargetReconcileOutput.of(TargetAction.delete(new IndexAction(path, null)),
            indexSink, null);
      }
      if (!mayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      IndexAction a = new IndexAction(path, desired);
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(a) : TargetAction.update(a), indexSink, desired);
    }
  }

  /** Flat key-value entries, the tracking record is the value. */
  final class KvHandler implements TargetHandler<String, String, KvAction> {
    @Override
    public TargetReconcileOutput<KvAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      note("kv", key, desired, prev, mayBeMissing, null);
      String k = str(key);
      if (desired == null) {
        if (prev.isEmpty() && !mayBeMissing) {
          return null;
        }
        return TargetReconcileOutput.of(TargetAction.delete(new KvAction(k, null)), kvSink, null);
      }
      if (!mayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      KvAction a = new KvAction(k, desired);
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(a) : TargetAction.update(a), kvSink, desired);
    }
  }

  static Set<String> none() {
    return Set.of();
  }
}
