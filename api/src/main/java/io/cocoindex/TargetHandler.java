package io.cocoindex;

import java.util.List;
import java.util.Map;

/**
 * Reconciles one kind of target state: compares what is desired now with the tracking records
 * of earlier runs and returns the action that makes the external system match.
 *
 * <p>Implement it as a class with concrete type arguments ({@code class RowHandler implements
 * TargetHandler<Row, Fingerprint, RowAction>}): the engine reads {@code V}, {@code R} and {@code
 * A} from them to serialize values, tracking records and actions.
 *
 * <pre>{@code
 * public TargetReconcileOutput<RowAction, String> reconcile(
 *     StableKey key, String desired, List<String> prev, boolean prevMayBeMissing) {
 *   if (desired == null) {
 *     return prev.isEmpty() && !prevMayBeMissing ? null
 *         : TargetReconcileOutput.of(TargetAction.delete(new RowAction(key, null)), sink, null);
 *   }
 *   if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
 *     return null; // unchanged
 *   }
 *   var action = prev.isEmpty() ? TargetAction.create(..) : TargetAction.update(..);
 *   return TargetReconcileOutput.of(action, sink, desired);
 * }
 * }</pre>
 *
 * @param <V> the declared value (specification) type
 * @param <R> the tracking record type
 * @param <A> the action type
 */
public interface TargetHandler<V, R, A> {

  /**
   * Decides the action for one target state. Pure and non-blocking: no I/O here, the sink does
   * it. May be called more than once for the same state; only the committed attempt is applied.
   *
   * @param key the key the state was declared with
   * @param desired the declared value, or {@code null} when it is no longer declared
   * @param prevPossibleRecords every tracking record that may be current (several after an
   *     interrupted run); empty for a new state
   * @param prevMayBeMissing the state may not exist externally even if records say it does
   * @return the action to apply, or {@code null} when nothing needs to change
   */
  TargetReconcileOutput<A, R> reconcile(
      StableKey key, V desired, List<R> prevPossibleRecords, boolean prevMayBeMissing)
      throws Exception;

  /**
   * The attachment handlers of this handler, keyed by attachment type name. Registered eagerly,
   * so an attachment that is no longer declared is deleted.
   */
  default Map<String, ChildTargetDef<?>> attachments() {
    return Map.of();
  }
}
