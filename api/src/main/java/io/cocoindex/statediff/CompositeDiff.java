package io.cocoindex.statediff;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The result of {@link StateDiff#diffComposite}: the action for the main record and one
 * transition per sub-record key (diff each with {@link StateDiff#diff}).
 *
 * <pre>{@code
 * CompositeDiff<String, String> d = StateDiff.diffComposite(t);
 * if (d.main() == DiffAction.REPLACE) { recreateTable(); }
 * d.subs().forEach((column, ct) -> alterColumn(column, StateDiff.diff(ct)));
 * }</pre>
 *
 * @param main the action for the main record, or {@code null} when it needs none
 * @param subs a transition per sub-record key, in a reproducible order (kept as given; copied
 *     into an unmodifiable map)
 * @param <K> the sub-record key type
 * @param <S> the sub-record type
 */
public record CompositeDiff<K, S>(DiffAction main, Map<K, TrackingRecordTransition<S>> subs) {

  /**
   * Copies {@code subs}, keeping its iteration order.
   *
   * @param main the main action, or {@code null}
   * @param subs a transition per sub-record key
   * @throws NullPointerException if {@code subs} is null or holds a null key or value
   */
  public CompositeDiff {
    Map<K, TrackingRecordTransition<S>> copy = new LinkedHashMap<>();
    Objects.requireNonNull(subs, "subs")
        .forEach((k, v) -> copy.put(Objects.requireNonNull(k, "sub key"),
            Objects.requireNonNull(v, "sub transition")));
    subs = Collections.unmodifiableMap(copy);
  }

  /**
   * Nothing to do: no main action and no sub-records.
   *
   * @param <K> the sub-record key type
   * @param <S> the sub-record type
   * @return the empty diff
   */
  public static <K, S> CompositeDiff<K, S> none() {
    return new CompositeDiff<>(null, Map.of());
  }
}
