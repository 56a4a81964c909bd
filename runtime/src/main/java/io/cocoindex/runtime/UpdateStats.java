package io.cocoindex.runtime;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one {@code update} (or {@code dropState}) did, per provider.
 *
 * @param providers counts per provider name
 * @param componentsRun processing components whose body ran
 * @param componentsMemoized memoized components skipped because their input was unchanged
 * @param duration wall-clock time of the run
 */
public record UpdateStats(
    Map<String, ProviderStats> providers,
    long componentsRun,
    long componentsMemoized,
    Duration duration) {

  /**
   * Takes an unmodifiable copy of the counts.
   *
   * @param providers counts per provider name
   * @param componentsRun processing components whose body ran
   * @param componentsMemoized memoized components skipped because their input was unchanged
   * @param duration wall-clock time of the run
   */
  public UpdateStats {
    providers = Map.copyOf(providers);
  }

  /**
   * Counts of one provider's target states.
   *
   * @param created states created
   * @param updated states updated
   * @param deleted states deleted through their handlers
   * @param unchanged states left as they were: needing no action, carried forward by a memo, or
   *     a container's refresh
   */
  public record ProviderStats(long created, long updated, long deleted, long unchanged) {
    /**
     * The states created, updated or deleted.
     *
     * @return the sum of {@code created}, {@code updated} and {@code deleted}
     */
    public long changed() {
      return created + updated + deleted;
    }
  }

  /**
   * The counts of {@code provider}, zero when it had none.
   *
   * @param provider the provider's registered name
   * @return its counts, all zero for a provider this run did not touch
   */
  public ProviderStats of(String provider) {
    return providers.getOrDefault(provider, new ProviderStats(0, 0, 0, 0));
  }

  /**
   * The sums over all providers.
   *
   * @return each count summed over the providers
   */
  public ProviderStats total() {
    long c = 0, u = 0, d = 0, n = 0;
    for (ProviderStats s : providers.values()) {
      c += s.created;
      u += s.updated;
      d += s.deleted;
      n += s.unchanged;
    }
    return new ProviderStats(c, u, d, n);
  }

  /**
   * One line for a log: the totals over all providers, the components and the time, e.g. {@code
   * "3 created, 1 updated, 0 deleted, 120 unchanged; 13 components run, 10 memoized; 42 ms"}.
   *
   * @return the one-line summary
   */
  public String summary() {
    ProviderStats t = total();
    return String.format("%d created, %d updated, %d deleted, %d unchanged; %d components run,"
        + " %d memoized; %d ms", t.created, t.updated, t.deleted, t.unchanged, componentsRun,
        componentsMemoized, duration.toMillis());
  }

  /**
   * A table with one line per provider: created / updated / deleted / unchanged.
   *
   * @return the table, with a header line, providers sorted by name, one line each
   */
  public String toTable() {
    StringBuilder sb = new StringBuilder();
    int width = 8;
    for (String name : providers.keySet()) {
      width = Math.max(width, name.length());
    }
    String fmt = "%-" + width + "s %8s %8s %8s %9s%n";
    sb.append(String.format(fmt, "provider", "created", "updated", "deleted", "unchanged"));
    for (Map.Entry<String, ProviderStats> e : new TreeMap<>(providers).entrySet()) {
      ProviderStats s = e.getValue();
      sb.append(String.format(fmt, e.getKey(), s.created, s.updated, s.deleted, s.unchanged));
    }
    sb.append(String.format("%d components run, %d memoized, %d ms%n", componentsRun,
        componentsMemoized, duration.toMillis()));
    return sb.toString();
  }
}
