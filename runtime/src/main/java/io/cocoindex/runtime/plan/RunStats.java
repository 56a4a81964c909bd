package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.UpdateStats;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Thread-safe counters of one run, per provider. */
public final class RunStats {
  private final Map<String, LongAdder[]> counts = new ConcurrentHashMap<>();
  final LongAdder componentsRun = new LongAdder();
  final LongAdder componentsMemoized = new LongAdder();
  private final LongAdder mounted = new LongAdder();
  private final LongAdder finished = new LongAdder();

  /** Counters at zero, for a run about to start. */
  public RunStats() {}

  /** Counts a component mounted in the run. */
  public void componentMounted() {
    mounted.increment();
  }
  /**
   * Counts a mounted component that is done, however it ended (committed, memoized, failed, left
   * to another worker).
   */

  public void componentFinished() {
    finished.increment();
  }

  /**
   * How far the run has come, for a progress report while it runs.
   *
   * @return the components mounted, finished and memoized so far
   */
  public io.cocoindex.runtime.RunProgress progress() {
    return new io.cocoindex.runtime.RunProgress(
        mounted.sum(), finished.sum(), componentsMemoized.sum());
  }

  private LongAdder[] of(String provider) {
    return counts.computeIfAbsent(
        provider, k -> new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder(),
            new LongAdder()});
  }

  /**
   * Counts a component's committed actions at once: one update of shared counters per component
   * rather than per state, on the store's writer thread.
   */
  void applied(String provider, long created, long updated, long deleted, long unchanged) {
    LongAdder[] c = of(provider);
    long[] n = {created, updated, deleted, unchanged};
    for (int i = 0; i < n.length; i++) {
      if (n[i] != 0) {
        c[i].add(n[i]);
      }
    }
  }

  /**
   * States left as they were (memoized components' states included).
   *
   * @param provider the provider's name
   * @param n how many of its states were left unchanged
   */
  public void unchanged(String provider, long n) {
    of(provider)[3].add(n);
  }

  /** Counts a component whose body ran. */
  public void componentRun() {
    componentsRun.increment();
  }

  /** Counts a component skipped because its memo held. */
  public void componentMemoized() {
    componentsMemoized.increment();
  }

  /**
   * The counts so far, as an update reports them.
   *
   * @param duration how long the run took
   * @return the per-provider counts of the providers that counted any, and the components run
   *     and memoized
   */
  public UpdateStats snapshot(Duration duration) {
    Map<String, UpdateStats.ProviderStats> out = new HashMap<>();
    counts.forEach(
        (name, c) ->
            out.put(name, new UpdateStats.ProviderStats(
                c[0].sum(), c[1].sum(), c[2].sum(), c[3].sum())));
    return new UpdateStats(out, componentsRun.sum(), componentsMemoized.sum(), duration);
  }
}
