package io.cocoindex.statediff;

import java.util.Objects;

/**
 * A tracking record tagged with who manages the state it describes; resolve a transition of
 * these with {@link StateDiff#resolveSystemTransition} before diffing it.
 *
 * <pre>{@code
 * var desired = new MutualTrackingRecord<>("CREATE TABLE t (...)", ManagedBy.SYSTEM);
 * }</pre>
 *
 * @param record the tracking record (not null)
 * @param managedBy who owns the state (not null)
 * @param <R> the tracking record type
 */
public record MutualTrackingRecord<R>(R record, ManagedBy managedBy) {

  /**
   * Checks that both components are present.
   *
   * @param record the tracking record
   * @param managedBy who owns the state
   * @throws NullPointerException if {@code record} or {@code managedBy} is null
   */
  public MutualTrackingRecord {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(managedBy, "managedBy");
  }

  /**
   * A record of a state the engine owns.
   *
   * @param record the tracking record
   * @param <R> the tracking record type
   * @return {@code (record, SYSTEM)}
   */
  public static <R> MutualTrackingRecord<R> system(R record) {
    return new MutualTrackingRecord<>(record, ManagedBy.SYSTEM);
  }

  /**
   * A record of a state the user owns.
   *
   * @param record the tracking record
   * @param <R> the tracking record type
   * @return {@code (record, USER)}
   */
  public static <R> MutualTrackingRecord<R> user(R record) {
    return new MutualTrackingRecord<>(record, ManagedBy.USER);
  }
}
