package io.cocoindex.spi;

import io.cocoindex.TargetHandler;
import io.cocoindex.TargetState;
import io.cocoindex.TargetStateProvider;

/**
 * Implemented by the runtime's {@link io.cocoindex.Ctx}: the operations behind {@link
 * io.cocoindex.TargetStates}. Not for connector or application code.
 */
public interface DeclarationScope {
  <V> TargetStateProvider<V> registerRootProvider(String name, TargetHandler<V, ?, ?> handler);

  <V> void declare(TargetState<V> ts);

  <V, C> TargetStateProvider<C> declareWithChild(TargetState<V> parent);

  <V, C> TargetStateProvider<C> mountTarget(TargetState<V> parent);
}
