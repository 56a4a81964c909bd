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

  /**
   * Checks that the action and its sink are given.
   *
   * @param action the operation to apply
   * @param sink the sink that applies it
   * @param trackingRecord what to remember for the next run; {@code null} records non-existence
   * @param childInvalidation for containers: how this change affects the children, or {@code
   *     null}
   * @throws NullPointerException when {@code action} or {@code sink} is null
   */
  public TargetReconcileOutput {
    // A handler with nothing to do returns null from reconcile, not an output without action;
    // a null sink is usually a field read before its initializer ran.
    Objects.requireNonNull(action, "a TargetReconcileOutput needs an action: when there is"
        + " nothing to do, reconcile returns null instead of an output");
    Objects.requireNonNull(sink, "a TargetReconcileOutput needs the sink that applies its action"
        + " (was the handler's sink field read before it was initialized?)");
  }

  /**
   * An output without child invalidation.
   *
   * @param action the operation to apply
   * @param sink the sink that applies it; return the same instance from every {@code reconcile}
   *     of the handler, so its actions are batched together
   * @param trackingRecord what to remember for the next run; {@code null} records non-existence
   * @param <A> the action type
   * @param <R> the tracking record type
   * @return the output, with {@link #childInvalidation()} null
   * @throws NullPointerException when {@code action} or {@code sink} is null
   */
  public static <A, R> TargetReconcileOutput<A, R> of(
      TargetAction<A> action, TargetActionSink<A> sink, R trackingRecord) {
    return new TargetReconcileOutput<>(action, sink, trackingRecord, null);
  }

  /**
   * A copy of this output with the given child invalidation.
   *
   * @param invalidation how this change affects the container's children, or {@code null} for
   *     not at all
   * @return a new output with the same action, sink and tracking record
   */
  public TargetReconcileOutput<A, R> withChildInvalidation(TargetChildInvalidation invalidation) {
    return new TargetReconcileOutput<>(action, sink, trackingRecord, invalidation);
  }
}
