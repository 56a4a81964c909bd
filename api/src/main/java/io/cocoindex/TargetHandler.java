package io.cocoindex;

import java.util.List;
import java.util.Map;

/**
 * Reconciles one kind of target state: compares what is desired now with the tracking records
 * of earlier runs and returns the action that makes the external system match.
 *
 * <p>Implement it as a class with concrete type arguments ({@code class RowHandler implements
 * TargetHandler<Row, Fingerprint, RowAction>}): the engine reads {@code V}, {@code R} and {@code
 * A} from them to serialize values, tracking records and actions with their codecs (generated
 * ones included). A lambda, a method reference, or a generic class instantiated with type
 * arguments works too: what the class does not fix is erased, and those values are then written
 * with their runtime classes, through reflection (slower than a codec chosen by type).
 *
 * <pre>{@code
 * record RowAction(String id, String text) {}          // text null: delete the row
 *
 * final class RowHandler implements TargetHandler<String, String, RowAction> {
 *   private final TargetActionSink<RowAction> sink = TargetActionSink.of(this::apply);
 *
 *   public TargetReconcileOutput<RowAction, String> reconcile(
 *       StableKey key, String desired, List<String> prev, boolean prevMayBeMissing) {
 *     String id = ((StableKey.Str) key).value();        // declared as targetState("r1", text)
 *     if (desired == null) {                             // no longer declared: delete by key
 *       return prev.isEmpty() && !prevMayBeMissing ? null
 *           : TargetReconcileOutput.of(TargetAction.delete(new RowAction(id, null)), sink, null);
 *     }
 *     if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
 *       return null;                                     // unchanged
 *     }
 *     RowAction row = new RowAction(id, desired);
 *     var action = prev.isEmpty() ? TargetAction.create(row) : TargetAction.update(row);
 *     return TargetReconcileOutput.of(action, sink, desired); // desired is the tracking record
 *   }
 *
 *   private void apply(List<TargetAction<RowAction>> actions) { ... }  // the I/O
 * }
 * }</pre>
 *
 * <p><b>The key, for deletes.</b> {@code reconcile} gets the key the state was declared with,
 * converted by {@link StableKey#of}: a {@code String} arrives as {@link StableKey.Str}, an
 * {@code int} or {@code long} as {@link StableKey.Int}, a {@code UUID} as {@link StableKey.Uuid},
 * a {@code List} (or a value with several {@code @Key} components, in declaration order) as
 * {@link StableKey.Array} of those. When the state is no longer declared ({@code desired ==
 * null}) the key is all that names it, so build the Delete from the key; when removing it needs
 * more than the key (an index's definition, a file's folder), keep that in the tracking record
 * and read it from {@code prevPossibleRecords}.
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
   * @param key the key the state was declared with, as {@link StableKey#of} made it; given for
   *     a state no longer declared too, so a Delete can be built from it
   * @param desired the declared value, or {@code null} when it is no longer declared
   * @param prevPossibleRecords every tracking record that may be current (several after an
   *     interrupted run); empty for a new state
   * @param prevMayBeMissing the state may not exist externally even if records say it does
   * @return the action to apply, or {@code null} when nothing needs to change
   * @throws Exception when no action can be decided (a declared value it refuses): the
   *     component that owns the state fails, with an error naming the handler, provider and key
   */
  TargetReconcileOutput<A, R> reconcile(
      StableKey key, V desired, List<R> prevPossibleRecords, boolean prevMayBeMissing)
      throws Exception;

  /**
   * For the handler of a container's children, as its child-handler factory builds it: how it
   * found the container's children, which {@link #reconcile} (no I/O) cannot see. {@link
   * TargetChildInvalidation#DESTRUCTIVE} when the container was not there (removed by hand
   * since the last run, its children with it), {@link TargetChildInvalidation#LOSSY} when some
   * children may be missing, {@code null} (the default) when nothing was found amiss.
   *
   * <p>The engine takes it as the container handler's own {@link
   * TargetReconcileOutput#childInvalidation()} (the stronger of the two counts) before any
   * component below is run or its memo checked: the children are declared again and written in
   * the run that creates the container again, memoized components included. A factory that
   * looks, say with one {@code stat}, makes a container removed by hand come back whole without
   * a full reprocess. Asked once per container per run, right after the factory built the
   * handler; ignored on root and attachment handlers.
   *
   * @return the invalidation the factory found, or {@code null} for none
   */
  default TargetChildInvalidation childInvalidationFound() {
    return null;
  }

  /**
   * The attachment handlers of this handler, keyed by attachment type name. Registered eagerly,
   * so an attachment that is no longer declared is deleted.
   *
   * @return the handler of each attachment type, by type name; empty (the default) for none
   */
  default Map<String, ChildTargetDef<?>> attachments() {
    return Map.of();
  }
}
