package io.cocoindex;

import java.util.List;

/**
 * Applies a batch of actions to an external system, synchronously.
 *
 * @param <A> the action type
 */
@FunctionalInterface
public interface ActionApplier<A> {
  /**
   * Applies all actions; throwing fails the whole batch (the engine may retry it split).
   *
   * @param actions the batch, in the order the engine collected it
   * @throws Exception when any action of the batch could not be applied
   */
  void apply(List<TargetAction<A>> actions) throws Exception;
}
