package io.cocoindex.spi;

import io.cocoindex.TargetHandler;
import io.cocoindex.TargetState;
import io.cocoindex.TargetStateProvider;

/**
 * Implemented by the runtime's {@link io.cocoindex.Ctx}: the operations behind {@link
 * io.cocoindex.TargetStates}. Not for connector or application code.
 */
public interface DeclarationScope {
  /**
   * Registers the root provider {@code name} of {@code handler}; see {@link
   * io.cocoindex.TargetStates#registerRootTargetStatesProvider}.
   *
   * @param name the provider name, unique in the app
   * @param handler reconciles the provider's target states
   * @param <V> the value type of its target states
   * @return the registered provider
   */
  <V> TargetStateProvider<V> registerRootProvider(String name, TargetHandler<V, ?, ?> handler);

  /**
   * Declares {@code ts} in the current component; see {@link
   * io.cocoindex.TargetStates#declareTargetState}.
   *
   * @param ts the state to declare
   * @param <V> the value type
   */
  <V> void declare(TargetState<V> ts);

  /**
   * Declares the container {@code parent} and returns the provider of its children, without
   * waiting for it to be applied; see {@link
   * io.cocoindex.TargetStates#declareTargetStateWithChild}.
   *
   * @param parent the container state
   * @param <V> the container's value type
   * @param <C> the children's value type
   * @return the provider of the children, resolved when the current component commits
   */
  <V, C> TargetStateProvider<C> declareWithChild(TargetState<V> parent);

  /**
   * Declares the container {@code parent}, applies it now, and returns the provider of its
   * children; see {@link io.cocoindex.TargetStates#mountTarget}.
   *
   * @param parent the container state
   * @param <V> the container's value type
   * @param <C> the children's value type
   * @return the provider of the children, ready at once
   */
  <V, C> TargetStateProvider<C> mountTarget(TargetState<V> parent);
}
