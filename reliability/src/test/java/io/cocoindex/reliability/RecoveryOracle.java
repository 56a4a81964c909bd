package io.cocoindex.reliability;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.runtime.ActionListener;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.Preview;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.inspect.StatusReport;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The oracle of the run that follows a killed one (the recovery): before it, {@code status()}
 * and a preview; then the update, whose actions, as the engine reports them applied (an {@link
 * ActionListener}) and as the sinks received them, must be exactly those the preview planned,
 * as multisets of (provider, key, verb, value), container refreshes included; its created,
 * updated and deleted counts per provider the preview's changes, and {@code hasChanges()} whether
 * it changed anything. A kill does not weaken this: the preview and the update read the same
 * store, so the preview hands the handlers the same possible records (the killed run's
 * precommits among them, which a handler may apply again), and a memo the killed run recorded
 * is a hit in both (the update takes it up, settling its states, with no handler call).
 *
 * <p>And {@code status()} lists as unsettled what the recovery finds unsettled: every tracked
 * state the update reconciles against several possible records, or as possibly missing, is
 * listed (unless its container was invalidated in this run: its own records do not say so), and
 * none it reconciles as settled (one record, not missing) is. The converse is weaker after a
 * kill: a listed state may not be reconciled at all, as a memo the killed run recorded is taken
 * up and settles its component's states unreconciled (see {@link #unreachedListed}).
 *
 * <p>States are named by connector ({@code sqlite}, {@code localfs}) and printed key, which the
 * crash app keeps unique within a connector.
 */
final class RecoveryOracle {
  /** One reconcile of the update, as a wrapped handler saw it. */
  record Reconciled(String state, boolean declared, int prev, boolean mayBeMissing,
      boolean invalidatesChildren) {}

  private final List<PlannedAction> applied = Collections.synchronizedList(new ArrayList<>());
  private final List<String> toSinks = Collections.synchronizedList(new ArrayList<>());
  private final List<Reconciled> reconciled = Collections.synchronizedList(new ArrayList<>());
  private final Interposer interposer = new Interposer(new Interposer.SinkHook() {
    @Override
    public <A> void apply(Interposer.RealSink<A> real, List<TargetAction<A>> actions)
        throws Exception {
      actions.forEach(a -> toSinks.add(a.verb() + " " + render(a.value())));
      real.apply(actions);
    }
  }, this::noteReconcile);

  /** The listener to give the recovery's environment. */
  ActionListener listener() {
    return (provider, key, action) -> applied.add(new PlannedAction(provider, key, action));
  }

  /** An action as the comparisons read it: its value rendered by content (byte arrays too). */
  static String render(PlannedAction a) {
    return a.provider() + " " + a.action().verb() + " " + a.key() + " " + render(a.action().value());
  }

  /**
   * A value by content: a record's components, recursively, and a byte array as text (the
   * connectors' actions carry file contents as bytes, whose {@code toString} is an identity).
   */
  static String render(Object value) {
    if (value instanceof byte[] b) {
      return "bytes'" + new String(b, StandardCharsets.UTF_8) + "'";
    }
    if (value instanceof List<?> l) {
      List<String> items = new ArrayList<>();
      l.forEach(x -> items.add(render(x)));
      return items.toString();
    }
    if (value != null && value.getClass().isRecord()) {
      StringBuilder sb = new StringBuilder(value.getClass().getSimpleName()).append('[');
      RecordComponent[] parts = value.getClass().getRecordComponents();
      for (int i = 0; i < parts.length; i++) {
        try {
          sb.append(i == 0 ? "" : ", ").append(parts[i].getName()).append('=')
              .append(render(parts[i].getAccessor().invoke(value)));
        } catch (ReflectiveOperationException e) {
          return String.valueOf(value); // a record this package cannot read: as it prints
        }
      }
      return sb.append(']').toString();
    }
    return String.valueOf(value);
  }

  /** The interposer to give the recovery's app: it logs what handlers and sinks see. */
  Interposer interposer() {
    return interposer;
  }

  private void noteReconcile(String connector, StableKey key, boolean declared, int prev,
      boolean prevMayBeMissing, TargetReconcileOutput<?, ?> out) {
    reconciled.add(new Reconciled(connector + " " + key, declared, prev, prevMayBeMissing,
        out != null && out.childInvalidation() != null));
  }

  /**
   * Takes the status and a preview, runs the update and returns what differs from the promises
   * above (empty when kept), or the update's failure.
   */
  List<String> previewThenUpdate(App app) {
    StatusReport status = app.status();
    clearLogs();
    Preview preview = app.preview();
    List<String> problems = new ArrayList<>();
    if (!toSinks.isEmpty() || !applied.isEmpty()) {
      problems.add("the preview applied " + toSinks);
    }
    clearLogs();
    UpdateStats stats;
    try {
      stats = app.update();
    } catch (RuntimeException e) {
      problems.add("the recovery failed: " + e);
      return problems;
    }
    List<PlannedAction> appliedNow;
    List<String> sunk;
    List<Reconciled> calls;
    synchronized (applied) {
      appliedNow = List.copyOf(applied);
    }
    synchronized (toSinks) {
      sunk = List.copyOf(toSinks);
    }
    synchronized (reconciled) {
      calls = List.copyOf(reconciled);
    }
    comparePreview(preview, stats, appliedNow, sunk, problems);
    compareStatus(status, calls, problems);
    return problems;
  }

  private void clearLogs() {
    applied.clear();
    toSinks.clear();
    reconciled.clear();
  }

  /** The preview planned exactly what the update applied, counted as it counted. */
  static void comparePreview(Preview preview, UpdateStats stats, List<PlannedAction> applied,
      List<String> toSinks, List<String> problems) {
    List<String> reported = new ArrayList<>();
    applied.forEach(a -> reported.add(a.action().verb() + " " + render(a.action().value())));
    if (!sorted(reported).equals(sorted(toSinks))) {
      problems.add("the engine reports applied " + first(minus(reported, toSinks))
          + ", which no sink received, and the sinks received " + first(minus(toSinks, reported))
          + " unreported");
    }
    List<String> planned = new ArrayList<>();
    preview.actions().forEach(a -> planned.add(render(a)));
    List<String> done = new ArrayList<>();
    applied.forEach(a -> done.add(render(a)));
    if (!sorted(planned).equals(sorted(done))) {
      problems.add("the preview planned " + planned.size() + " actions, the recovery applied "
          + done.size() + ": planned but not applied " + first(minus(planned, done))
          + ", applied but not planned " + first(minus(done, planned)));
    }
    Map<String, List<Long>> plannedCounts = new TreeMap<>();
    for (PlannedAction a : preview.changes()) {
      List<Long> c = plannedCounts.computeIfAbsent(a.provider(),
          p -> new ArrayList<>(List.of(0L, 0L, 0L)));
      int i = switch (a.action().verb()) {
        case "create" -> 0;
        case "update" -> 1;
        default -> 2;
      };
      c.set(i, c.get(i) + 1);
    }
    Map<String, List<Long>> counted = new TreeMap<>();
    stats.providers().forEach((provider, s) -> {
      if (s.changed() > 0) {
        counted.put(provider, List.of(s.created(), s.updated(), s.deleted()));
      }
    });
    if (!plannedCounts.equals(counted)) {
      problems.add("planned changes (created, updated, deleted) " + plannedCounts
          + " but the recovery counted " + counted);
    }
    if (preview.hasChanges() != (stats.total().changed() > 0)) {
      problems.add("hasChanges() " + preview.hasChanges() + " but the recovery changed "
          + stats.total().changed());
    }
  }

  /**
   * The status before the recovery listed every tracked state it reconciled as unsettled, and
   * none it reconciled as settled. A state below a container the recovery invalidates is
   * possibly missing for that reason alone (its records may say nothing of it).
   */
  static void compareStatus(StatusReport status, List<Reconciled> calls, List<String> problems) {
    Set<String> tracked = tracked(status);
    Set<String> listed = listed(status);
    boolean anyInvalidation = calls.stream().anyMatch(Reconciled::invalidatesChildren);
    List<String> notListed = new ArrayList<>();
    List<String> foundSettled = new ArrayList<>();
    for (Reconciled c : calls) {
      boolean unsettled = c.prev() > 1 || c.mayBeMissing();
      if (unsettled && tracked.contains(c.state()) && !listed.contains(c.state())
          && !(c.prev() <= 1 && anyInvalidation)) {
        notListed.add(c.toString());
      } else if (!unsettled && listed.contains(c.state())) {
        foundSettled.add(c.toString());
      }
    }
    if (!notListed.isEmpty() || !foundSettled.isEmpty()) {
      problems.add("the recovery reconciled as unsettled " + first(notListed) + ", which the"
          + " status before it did not list, and as settled " + first(foundSettled)
          + ", which it listed as unsettled (" + listed.size() + " listed)");
    }
  }

  /** Every tracked state, as "connector key". */
  static Set<String> tracked(StatusReport status) {
    Set<String> out = new TreeSet<>();
    status.providers().forEach((provider, keys) -> keys.forEach(
        k -> out.add(connector(provider) + " " + k)));
    return out;
  }

  /**
   * Every state the status lists as unsettled, as "connector key": the tracked key its path ends
   * with (a key may hold a '/', as a directory's path does).
   */
  static Set<String> listed(StatusReport status) {
    Map<String, Set<String>> keysByProvider = new TreeMap<>();
    status.providers().forEach((provider, keys) -> {
      Set<String> printed = new TreeSet<>();
      keys.forEach(k -> printed.add(k.toString()));
      keysByProvider.put(provider, printed);
    });
    Set<String> out = new TreeSet<>();
    for (StatusReport.UnsettledState u : status.unsettled()) {
      Set<String> keys = keysByProvider.getOrDefault(u.provider(), Set.of());
      String path = u.path();
      for (int i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
        if (keys.contains(path.substring(i + 1))) {
          out.add(connector(u.provider()) + " " + path.substring(i + 1));
          break;
        }
      }
    }
    return out;
  }

  private static String connector(String provider) {
    return provider.startsWith("cocoindex/sqlite") ? "sqlite"
        : provider.startsWith("cocoindex/localfs") ? "localfs" : provider;
  }

  private static List<String> sorted(List<String> l) {
    List<String> out = new ArrayList<>(l);
    Collections.sort(out);
    return out;
  }

  /** {@code a} without {@code b}, as multisets, sorted. */
  private static List<String> minus(List<String> a, List<String> b) {
    List<String> out = sorted(a);
    b.forEach(out::remove);
    return out;
  }

  private static String first(List<String> l) {
    return l.size() <= 5 ? l.toString() : l.subList(0, 5) + " and " + (l.size() - 5) + " more";
  }
}
