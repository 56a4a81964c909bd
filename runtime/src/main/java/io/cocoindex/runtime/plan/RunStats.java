package io.cocoindex.runtime.plan;

import io.cocoindex.TargetAction;
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

  public void componentMounted() {
    mounted.increment();
  }

  public void componentFinished() {
    finished.increment();
  }

  public io.cocoindex.runtime.RunProgress progress() {
    return new io.cocoindex.runtime.RunProgress(
        mounted.sum(), finished.sum(), componentsMemoized.sum());
  }

  private LongAdder[] of(String provider) {
    return counts.computeIfAbsent(
        provider, k -> new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder(),
            new LongAdder()});
  }

  void applied(String provider, TargetAction<?> action) {
    int slot = action instanceof TargetAction.Create ? 0
        : action instanceof TargetAction.Update ? 1 : 2;
    of(provider)[slot].increment();
  }

  /** States left as they were (memoized components' states included). */
  public void unchanged(String provider, long n) {
    of(provider)[3].add(n);
  }

  public void componentRun() {
    componentsRun.increment();
  }

  public void componentMemoized() {
    componentsMemoized.increment();
  }

  public UpdateStats snapshot(Duration duration) {
    Map<String, UpdateStats.ProviderStats> out = new HashMap<>();
    counts.forEach(
        (name, c) ->
            out.put(name, new UpdateStats.ProviderStats(
                c[0].sum(), c[1].sum(), c[2].sum(), c[3].sum())));
    return new UpdateStats(out, componentsRun.sum(), componentsMemoized.sum(), duration);
  }
}
