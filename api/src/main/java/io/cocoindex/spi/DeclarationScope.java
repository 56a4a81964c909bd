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
   */
  <V> TargetStateProvider<V> registerRootProvider(String name, TargetHandler<V, ?, ?> handler);

  /**
   * Declares {@code ts} in the current component; see {@link
   * io.cocoindex.TargetStates#declareTargetState}.
   */
  <V> void declare(TargetState<V> ts);

  /**
   * Declares the container {@code parent} and returns the provider of its children, without
   * waiting for it to be applied; see {@link
   * io.cocoindex.TargetStates#declareTargetStateWithChild}.
   */
  <V, C> TargetStateProvider<C> declareWithChild(TargetState<V> parent);

  /**
   * Declares the container {@code parent}, applies it now, and returns the provider of its
   * children; see {@link io.cocoindex.TargetStates#mountTarget}.
   */
  <V, C> TargetStateProvider<C> mountTarget(TargetState<V> parent);
}
