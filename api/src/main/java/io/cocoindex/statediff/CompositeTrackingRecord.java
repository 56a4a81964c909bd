package io.cocoindex.statediff;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;

/**
 * A tracking record made of a main part and keyed sub-records, e.g. a table (main: its primary
 * key) and its columns (sub: column name to column type); {@link StateDiff#diffComposite} diffs
 * the main part and each sub-record separately.
 *
 * <pre>{@code
 * var table = new CompositeTrackingRecord<>(
 *     List.of("id"), Map.of("id", "bigint", "title", "text"));
 * }</pre>
 *
 * <p>{@code sub} is copied into an unmodifiable map with a reproducible iteration order: the
 * order of a {@link LinkedHashMap} or {@link SortedMap} is kept; any other map (whose order may
 * change from one JVM run to the next, like {@code Map.of}) is sorted by key when the keys are
 * mutually {@link Comparable}, and otherwise kept in its iteration order.
 *
 * @param main the main record (not null)
 * @param sub the sub-records by key (no null keys or values)
 * @param <M> the main record type
 * @param <K> the sub-record key type
 * @param <S> the sub-record type
 */
public record CompositeTrackingRecord<M, K, S>(M main, Map<K, S> sub) {

  /**
   * Copies {@code sub} into an unmodifiable map of reproducible order.
   *
   * @param main the main record
   * @param sub the sub-records by key
   * @throws NullPointerException if {@code main} or {@code sub} is null, or {@code sub} holds a
   *     null key or value
   */
  public CompositeTrackingRecord {
    Objects.requireNonNull(main, "main");
    sub = copyInStableOrder(Objects.requireNonNull(sub, "sub"));
  }

  private static <K, S> Map<K, S> copyInStableOrder(Map<K, S> source) {
    List<Map.Entry<K, S>> entries = new ArrayList<>(source.size());
    for (Map.Entry<K, S> e : source.entrySet()) {
      Objects.requireNonNull(e.getKey(), "sub key");
      Objects.requireNonNull(e.getValue(), () -> "sub value of key " + e.getKey());
      entries.add(Map.entry(e.getKey(), e.getValue()));
    }
    if (!(source instanceof LinkedHashMap) && !(source instanceof SortedMap)) {
      sortIfComparable(entries);
    }
    Map<K, S> copy = new LinkedHashMap<>();
    entries.forEach(e -> copy.put(e.getKey(), e.getValue()));
    return Collections.unmodifiableMap(copy);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static <K, S> void sortIfComparable(List<Map.Entry<K, S>> entries) {
    for (Map.Entry<K, S> e : entries) {
      if (!(e.getKey() instanceof Comparable)) {
        return;
      }
    }
    List<Map.Entry<K, S>> sorted = new ArrayList<>(entries);
    try {
      sorted.sort((a, b) -> ((Comparable) a.getKey()).compareTo(b.getKey()));
    } catch (ClassCastException mixedKeyTypes) {
      return; // keys of different types cannot be ordered: keep the source order
    }
    entries.clear();
    entries.addAll(sorted);
  }
}
