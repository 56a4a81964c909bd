package io.cocoindex.reliability;

import static io.cocoindex.reliability.ActionText.first;
import static io.cocoindex.reliability.ActionText.minus;
import static io.cocoindex.reliability.ActionText.sameMultiset;
import static io.cocoindex.reliability.ActionText.states;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.runtime.ActionListener;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.Preview;
import io.cocoindex.runtime.UpdateOptions;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.inspect.StatusReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

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
 * <p>The preview changes nothing (rule 12): no sink call, and the status after it is the status
 * before it. And {@code status()} lists as unsettled what the recovery finds unsettled: every
 * tracked state the update reconciles against several possible records, or as possibly missing,
 * is listed (unless its container, or one around it, was invalidated in this run: its own
 * records do not say so), and
 * none it reconciles as settled (one record, not missing) is. The converse is weaker after a
 * kill: a listed state may not be reconciled at all, as a memo the killed run recorded is taken
 * up and settles its component's states unreconciled (see {@link #compareStatus}).
 *
 * <p>States are named by connector ({@code sqlite}, {@code localfs}) and printed key, which the
 * crash app keeps unique within a connector.
 */
final class RecoveryOracle {
  /**
   * One reconcile of the update, as a wrapped handler saw it: {@code container} the container
   * of the state (null at a root provider), {@code invalidatesChildren} whether the handler
   * invalidated the state's own children.
   */
  record Reconciled(String state, String container, boolean declared, int prev,
      boolean mayBeMissing, boolean invalidatesChildren) {}

  /**
   * What the recovery did, and what it did against the oracle's promises.
   *
   * @param problems what differs from the promises (empty when kept), or the update's failure
   * @param planned the actions the preview planned
   * @param listed the states the status listed as unsettled
   * @param reconciledUnsettled those the update reconciled as unsettled
   * @param settledByMemos listed states a memo hit settled with no handler call
   * @param invalidations containers whose handler invalidated their children in the recovery
   */
  record Result(List<String> problems, int planned, int listed, int reconciledUnsettled,
      int settledByMemos, int invalidations, long previewMillis) {
    @Override
    public String toString() {
      return planned + " planned, " + listed + " unsettled (" + reconciledUnsettled
          + " reconciled, " + settledByMemos + " settled by memos)"
          + (invalidations > 0 ? ", " + invalidations + " containers invalidated" : "")
          + "; status and preview " + previewMillis + " ms";
    }
  }

  private final Map<String, String> declaringComponents;
  private final Set<String> directories;
  private final Path outDir;
  private long previewMillis;
  private final Set<String> ran = ConcurrentHashMap.newKeySet();
  private final List<PlannedAction> applied = Collections.synchronizedList(new ArrayList<>());
  private final List<String> toSinks = Collections.synchronizedList(new ArrayList<>());
  private final List<Reconciled> reconciled = Collections.synchronizedList(new ArrayList<>());
  private final Interposer interposer = new Interposer(new Interposer.SinkHook() {
    @Override
    public <A> void apply(Interposer.RealSink<A> real, List<TargetAction<A>> actions)
        throws Exception {
      actions.forEach(a -> toSinks.add(a.verb() + " " + ActionText.of(a.value())));
      real.apply(actions);
    }
  }, new Interposer.ReconcileHook() {
    @Override
    public void reconciled(String connector, String container, StableKey key, boolean declared,
        int prev, boolean prevMayBeMissing, TargetReconcileOutput<?, ?> out) {
      noteReconcile(connector, container, key, declared, prev, prevMayBeMissing, out);
    }

    @Override
    public void invalidationFound(String container) {
      if (container != null) {
        invalidated.add(container);
      }
    }
  });
  /** The containers whose children were invalidated in this update. */
  private final Set<String> invalidated = ConcurrentHashMap.newKeySet();
  /** Each container reconciled in this update, to the one enclosing it ("" for none). */
  private final Map<String, String> enclosing = new ConcurrentHashMap<>();

  /**
   * @param declaringComponents the component that declares each state in the recovery's world
   *     ("connector key" to component name)
   * @param directories the names of the subdirectories of the output directory that both the
   *     recovery's world and the killed runs' declare as directories (the entries of any other
   *     may go with its directory's action, unreconciled)
   * @param outDir the app's output directory
   */
  RecoveryOracle(Map<String, String> declaringComponents, Set<String> directories,
      Path outDir) {
    this.declaringComponents = declaringComponents;
    this.directories = directories;
    this.outDir = outDir;
  }

  /** Where the recovery's app notes every component and group whose body runs. */
  Set<String> ran() {
    return ran;
  }

  /** The listener to give the recovery's environment. */
  ActionListener listener() {
    return (provider, key, action) -> applied.add(new PlannedAction(provider, key, action));
  }

  /** The interposer to give the recovery's app: it logs what handlers and sinks see. */
  Interposer interposer() {
    return interposer;
  }

  private void noteReconcile(String connector, String container, StableKey key,
      boolean declared, int prev, boolean prevMayBeMissing, TargetReconcileOutput<?, ?> out) {
    reconciled.add(new Reconciled(connector + " " + key, container, declared, prev,
        prevMayBeMissing, out != null && out.childInvalidation() != null));
    if (out != null) {
      String self = Interposer.containerOf(out.action().value());
      enclosing.put(self, container == null ? "" : container);
      if (out.childInvalidation() != null) {
        invalidated.add(self);
      }
    }
  }

  /**
   * Whether {@code container} (null: none), or one enclosing it, had its children invalidated in
   * this update: its children are possibly missing then, whatever their records say.
   */
  private boolean invalidatedAround(String container) {
    for (int depth = 0; container != null && !container.isEmpty() && depth < 16; depth++) {
      if (invalidated.contains(container)) {
        return true;
      }
      container = enclosing.get(container);
    }
    return false;
  }

  /**
   * Takes the status and a preview, runs the update (a full reprocess if {@code full}) and
   * returns what it did, with what differs from the promises above, or the update's failure.
   * A full reprocess is more than a preview plans (a preview has no options), as in the
   * model-based tests: it reconciles every state as possibly missing, rewrites what is unchanged
   * and runs every memoized component, so it must act on every state the preview planned an
   * action for and delete exactly those it planned to delete; it finds every state unsettled,
   * so only the status's listed states are checked: each must be reconciled.
   */
  Result previewThenUpdate(App app, boolean full) {
    long t0 = System.nanoTime();
    StatusReport status = app.status();
    clearLogs();
    Preview preview = app.preview();
    previewMillis = (System.nanoTime() - t0) / 1_000_000;
    List<String> problems = new ArrayList<>();
    if (!toSinks.isEmpty() || !applied.isEmpty()) {
      problems.add("the preview applied " + toSinks);
    }
    // Rule 12 after a kill too: the preview takes up no memo (it reads one as a hit).
    StatusReport afterPreview = app.status();
    if (!afterPreview.equals(status)) {
      problems.add("the preview changed the store: " + status.unsettled().size()
          + " unsettled states and " + status.components() + " components before it, "
          + afterPreview.unsettled().size() + " and " + afterPreview.components() + " after");
    }
    clearLogs();
    UpdateStats stats;
    try {
      stats = app.update(full ? UpdateOptions.fullReprocess() : UpdateOptions.defaults());
    } catch (RuntimeException e) {
      problems.add("the recovery failed: " + e);
      return new Result(problems, preview.actions().size(), status.unsettled().size(), 0, 0, 0,
          previewMillis);
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
    if (full) {
      compareFullReprocess(preview, appliedNow, sunk, problems);
    } else {
      comparePreview(preview, stats, appliedNow, sunk, problems);
    }
    return compareStatus(status, calls, full, preview.actions().size(), problems);
  }

  /**
   * A full reprocess acted on every state the preview planned an action for and deleted exactly
   * those the preview planned to delete; its sinks received what the engine reports applied.
   */
  static void compareFullReprocess(Preview preview, List<PlannedAction> applied,
      List<String> toSinks, List<String> problems) {
    compareSinks(applied, toSinks, problems);
    List<String> planned = states(preview.actions(), false);
    List<String> actedOn = states(applied, false);
    List<String> plannedDeletions = states(preview.actions(), true);
    List<String> deleted = states(applied, true);
    if (!new TreeSet<>(actedOn).containsAll(planned) || !plannedDeletions.equals(deleted)) {
      problems.add("the preview planned actions for " + first(minus(planned, actedOn))
          + ", which the full reprocess did not act on, and deletions " + first(plannedDeletions)
          + " where it deleted " + first(deleted));
    }
  }

  /** The sinks received exactly what the engine reports applied. */
  private static void compareSinks(List<PlannedAction> applied, List<String> toSinks,
      List<String> problems) {
    List<String> reported = new ArrayList<>();
    applied.forEach(a -> reported.add(a.action().verb() + " " + ActionText.of(a.action().value())));
    if (!sameMultiset(reported, toSinks)) {
      problems.add("the engine reports applied " + first(minus(reported, toSinks))
          + ", which no sink received, and the sinks received " + first(minus(toSinks, reported))
          + " unreported");
    }
  }

  private void clearLogs() {
    applied.clear();
    toSinks.clear();
    reconciled.clear();
    invalidated.clear();
    enclosing.clear();
  }

  /** The preview planned exactly what the update applied, counted as it counted. */
  static void comparePreview(Preview preview, UpdateStats stats, List<PlannedAction> applied,
      List<String> toSinks, List<String> problems) {
    compareSinks(applied, toSinks, problems);
    List<String> planned = new ArrayList<>();
    preview.actions().forEach(a -> planned.add(ActionText.of(a)));
    List<String> done = new ArrayList<>();
    applied.forEach(a -> done.add(ActionText.of(a)));
    if (!sameMultiset(planned, done)) {
      problems.add("the preview planned " + planned.size() + " actions, the recovery applied "
          + done.size() + ": planned but not applied " + first(minus(planned, done))
          + ", applied but not planned " + first(minus(done, planned)));
    }
    problems.addAll(ActionText.countsDisagreeing(preview, stats, "the recovery"));
  }

  /**
   * The status before the recovery listed every tracked state it reconciled as unsettled, and
   * none it reconciled as settled (a state below a container the recovery invalidates is
   * possibly missing for that reason alone: its records may say nothing of it). A listed state
   * it did not reconcile is one that a memo hit settled, its component's body not running (a
   * memo the killed run recorded, which the update takes up: {@code KilledRunMemos}), or an
   * entry of a subdirectory that the recovery or the killed run declares no longer as one (the
   * directory's Delete, the action of the file declared in its place, or the directory's action
   * after a file was precommitted there, takes its entries along, and their tracking is dropped
   * without a handler call).
   */
  private Result compareStatus(StatusReport status, List<Reconciled> calls, boolean full,
      int planned, List<String> problems) {
    Set<String> tracked = tracked(status);
    Map<String, String> listed = listed(status);
    List<String> notListed = new ArrayList<>();
    List<String> foundSettled = new ArrayList<>();
    Set<String> unreached = new TreeSet<>(listed.keySet());
    int reconciledUnsettled = 0;
    for (Reconciled c : calls) {
      unreached.remove(c.state());
      boolean unsettled = c.prev() > 1 || c.mayBeMissing();
      if (unsettled && listed.containsKey(c.state())) {
        reconciledUnsettled++;
      }
      if (full) {
        continue; // a full reprocess reconciles every state as possibly missing
      }
      if (unsettled && tracked.contains(c.state()) && !listed.containsKey(c.state())
          && !(c.prev() <= 1 && invalidatedAround(c.container()))) {
        notListed.add(c.toString());
      } else if (!unsettled && listed.containsKey(c.state())) {
        foundSettled.add(c.toString());
      }
    }
    int settledByMemos = 0;
    List<String> unexplained = new ArrayList<>();
    for (String state : unreached) {
      String owner = declaringComponents.get(state);
      if (owner != null && !ran.contains(owner)) {
        settledByMemos++;
      } else if (owner != null || !ofAnUndeclaredDirectory(listed.get(state))) {
        unexplained.add(state + " (" + listed.get(state) + (owner == null ? ", declared by none"
            : ", declared by " + owner + ", which ran") + ")");
      }
    }
    if (!notListed.isEmpty() || !foundSettled.isEmpty() || !unexplained.isEmpty()) {
      problems.add("the recovery reconciled as unsettled " + first(notListed) + ", which the"
          + " status before it did not list, as settled " + first(foundSettled)
          + ", which it listed as unsettled, and not at all " + first(unexplained)
          + ", which it listed (" + listed.size() + " listed)");
    }
    return new Result(problems, planned, listed.size(), reconciledUnsettled, settledByMemos,
        invalidated.size(), previewMillis);
  }

  /**
   * Whether {@code provider} holds the entries of a subdirectory of the output directory that
   * the recovery's world or the killed runs' does not declare as a directory: the directory's
   * Delete, or the file's action in its place, takes them along (rule 8).
   */
  private boolean ofAnUndeclaredDirectory(String provider) {
    String below = "cocoindex/localfs/" + outDir + "/";
    return provider.startsWith(below)
        && !directories.contains(provider.substring(below.length()));
  }

  /** Every tracked state, as "connector key". */
  static Set<String> tracked(StatusReport status) {
    Set<String> out = new TreeSet<>();
    status.providers().forEach((provider, keys) -> keys.forEach(
        k -> out.add(connector(provider) + " " + k)));
    return out;
  }

  /**
   * Every state the status lists as unsettled, as "connector key" (the tracked key its path ends
   * with: a key may hold a '/', as a directory's path does), to its provider.
   */
  static Map<String, String> listed(StatusReport status) {
    Map<String, Set<String>> keysByProvider = new TreeMap<>();
    status.providers().forEach((provider, keys) -> {
      Set<String> printed = new TreeSet<>();
      keys.forEach(k -> printed.add(k.toString()));
      keysByProvider.put(provider, printed);
    });
    Map<String, String> out = new TreeMap<>();
    for (StatusReport.UnsettledState u : status.unsettled()) {
      Set<String> keys = keysByProvider.getOrDefault(u.provider(), Set.of());
      String path = u.path();
      for (int i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
        if (keys.contains(path.substring(i + 1))) {
          out.put(connector(u.provider()) + " " + path.substring(i + 1), u.provider());
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
}
