package io.cocoindex.runtime.inspect;

import io.cocoindex.StableKey;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an app tracks, per provider: readable inspection of the state store ({@code status}).
 *
 * @param app the app name
 * @param providers per provider name, the keys of its tracked target states (in path order); the
 *     providers in the order given ({@link StateInspector}'s: by name), so that a listing reads
 *     the same on every run
 * @param unsettled states left with several possible records (or a possible non-existence) by
 *     an interrupted or failed run, or left behind their container's invalidation by a component
 *     that failed; the next update reconciles them against all, as possibly missing, but for
 *     those of a memoized component that a killed run finished: the update that reaches its memo
 *     takes it up and settles them as that run applied them, with no handler call
 * @param components number of processing components with a stored record
 */
public record StatusReport(
    String app,
    Map<String, List<StableKey>> providers,
    List<UnsettledState> unsettled,
    long components) {

  /**
   * Takes unmodifiable copies, keeping the order of the providers.
   *
   * @param app the app name
   * @param providers per provider name, the keys of its tracked target states
   * @param unsettled states whose current form is not known for sure
   * @param components number of processing components with a stored record
   * @throws NullPointerException when {@code providers}, a provider name, a key list or {@code
   *     unsettled} is null
   */
  public StatusReport {
    // Not Map.copyOf: its iteration order changes from one JVM to the next.
    Map<String, List<StableKey>> copy = new LinkedHashMap<>();
    Objects.requireNonNull(providers, "providers").forEach((name, keys) -> copy.put(
        Objects.requireNonNull(name, "provider name"), List.copyOf(keys)));
    providers = Collections.unmodifiableMap(copy);
    unsettled = List.copyOf(unsettled);
  }

  /**
   * Total number of tracked target states.
   *
   * @return the number of keys over all providers
   */
  public long total() {
    return providers.values().stream().mapToLong(List::size).sum();
  }

  /** How many unsettled states {@link #toTable} lists before it only counts the rest. */
  static final int UNSETTLED_LISTED = 20;

  /**
   * A table with one line per provider and the count of its tracked states, then the count of
   * components and of unsettled states, the first {@value #UNSETTLED_LISTED} of those on a line
   * of their own (a run killed half-way leaves thousands; {@link #unsettled()} has them all):
   *
   * <pre>
   * provider        states
   * tables/docs        120
   * 121 target states, 13 components, all settled
   * </pre>
   *
   * @return the table, for a terminal or a log
   */
  public String toTable() {
    int width = 8;
    for (String name : providers.keySet()) {
      width = Math.max(width, name.length());
    }
    String fmt = "%-" + width + "s %8s%n";
    StringBuilder sb = new StringBuilder(String.format(fmt, "provider", "states"));
    providers.forEach((name, keys) -> sb.append(String.format(fmt, name, keys.size())));
    sb.append(String.format("%d target states, %d components, %s%n", total(), components,
        unsettled.isEmpty() ? "all settled"
            : unsettled.size() + " unsettled (left by an interrupted or failed run)"));
    for (UnsettledState u : unsettled.subList(0, Math.min(UNSETTLED_LISTED, unsettled.size()))) {
      sb.append(String.format("  unsettled %s: %d possible record%s%s%n", u.path(),
          u.possibleRecords(), u.possibleRecords() == 1 ? "" : "s", u.containerInvalidated()
              ? ", may be missing (its container was invalidated since it was written)"
              : u.mayBeMissing() ? ", may be missing" : ""));
    }
    if (unsettled.size() > UNSETTLED_LISTED) {
      sb.append(String.format("  ... and %d more unsettled; the next update reconciles them%n",
          unsettled.size() - UNSETTLED_LISTED));
    }
    return sb.toString();
  }

  /**
   * A target state whose current form is not known for sure.
   *
   * @param provider its provider name
   * @param path its path, e.g. {@code /@tables/"docs"/"r1"}
   * @param possibleRecords how many records may be current
   * @param mayBeMissing whether "does not exist" is among the possibilities
   * @param containerInvalidated whether it was written before its container's last DESTRUCTIVE or
   *     LOSSY invalidation (its container's, or an enclosing one's) and not confirmed since: its
   *     component failed in the run that invalidated the container (a full reprocess makes a
   *     container that may be missing invalidate its children, as the PostgreSQL table does), or
   *     the run stopped before it. It may be missing, whatever its records say, and the next
   *     update writes it again
   */
  public record UnsettledState(
      String provider, String path, int possibleRecords, boolean mayBeMissing,
      boolean containerInvalidated) {
    /**
     * A state left with several possible records, or a possible non-existence.
     *
     * @param provider its provider name
     * @param path its path, e.g. {@code /@tables/"docs"/"r1"}
     * @param possibleRecords how many records may be current
     * @param mayBeMissing whether "does not exist" is among the possibilities
     */
    public UnsettledState(String provider, String path, int possibleRecords, boolean mayBeMissing) {
      this(provider, path, possibleRecords, mayBeMissing, false);
    }
  }
}
