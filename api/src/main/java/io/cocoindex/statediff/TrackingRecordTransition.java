package io.cocoindex.statediff;

import java.util.List;
import java.util.Objects;

/**
 * A desired tracking record next to every record that may currently describe the external state,
 * the input of {@link StateDiff#diff}.
 *
 * <pre>{@code
 * // declared "v2"; last run may have left "v1" or "v2"; the store may not know of every write
 * var t = new TrackingRecordTransition<>("v2", List.of("v1", "v2"), true);
 * StateDiff.diff(t); // REPLACE
 * }</pre>
 *
 * @param desired the record that should hold after the write, or {@code null} when the state is
 *     no longer declared
 * @param prev every record that may currently hold (copied into an immutable list; no nulls)
 * @param prevMayBeMissing whether the actual current state may be absent from {@code prev} (a
 *     brand-new state, a full reprocess, a lossy invalidation, ...)
 * @param <R> the tracking record type; compared with {@link Object#equals}
 */
public record TrackingRecordTransition<R>(R desired, List<R> prev, boolean prevMayBeMissing) {

  /**
   * Copies {@code prev} into an immutable list.
   *
   * @param desired the desired record, or {@code null}
   * @param prev every record that may currently hold
   * @param prevMayBeMissing whether the current state may be absent from {@code prev}
   * @throws NullPointerException if {@code prev} is null or holds a null
   */
  public TrackingRecordTransition {
    prev = List.copyOf(Objects.requireNonNull(prev, "prev"));
  }
}
