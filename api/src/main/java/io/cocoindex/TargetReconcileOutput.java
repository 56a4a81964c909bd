package io.cocoindex;

import java.util.Objects;

/**
 * What {@link TargetHandler#reconcile} returns when an action is needed.
 *
 * @param action the operation to apply
 * @param sink the sink that applies it; actions of the same sink instance are batched together
 * @param trackingRecord what to remember for the next run; {@code null} records non-existence,
 *     so a Delete returns {@code null} (for a state no longer declared, a Delete with a record
 *     fails its component: kept, the record would leave the state tracked as existing, and it
 *     would be deleted again on every run)
 * @param childInvalidation for containers: how this change affects the children, or {@code null}
 * @param <A> the action type
 * @param <R> the tracking record type
 */
public record TargetReconcileOutput<A, R>(
    TargetAction<A> action,
    TargetActionSink<A> sink,
    R trackingRecord,
    TargetChildInvalidation childInvalidation) {

  public TargetReconcileOutput {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(sink, "sink");
  }

  /** An output without child invalidation. */
  public static <A, R> TargetReconcileOutput<A, R> of(
      TargetAction<A> action, TargetActionSink<A> sink, R trackingRecord) {
    return new TargetReconcileOutput<>(action, sink, trackingRecord, null);
  }

  /** A copy of this output with the given child invalidation. */
  public TargetReconcileOutput<A, R> withChildInvalidation(TargetChildInvalidation invalidation) {
    return new TargetReconcileOutput<>(action, sink, trackingRecord, invalidation);
  }
}
