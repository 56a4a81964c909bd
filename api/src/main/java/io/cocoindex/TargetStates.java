package io.cocoindex;

import io.cocoindex.spi.DeclarationScope;
import java.util.Objects;

/**
 * Declaring target states from a processing component. Connector authors wrap these in fluent
 * APIs ({@code declareTable(ctx, ..)}); application code rarely calls them directly.
 */
public final class TargetStates {
  private TargetStates() {}

  /**
   * Registers a root handler under a provider name unique in the app, for the current run. Call
   * it on every run (typically from the app's main component) so states it no longer declares,
   * and {@code App.dropState}, reach the handler.
   *
   * @param ctx the context of the declaring component
   * @param name the provider name, stable across runs: tracking is kept under it
   * @param handler reconciles the provider's target states
   * @param <V> the value type of its target states
   * @return the provider to make the handler's target states with
   * @throws IllegalStateException naming the provider when the name is already registered
   */
  public static <V> TargetStateProvider<V> registerRootTargetStatesProvider(
      Ctx ctx, String name, TargetHandler<V, ?, ?> handler) {
    return scope(ctx).registerRootProvider(name, handler);
  }

  /**
   * Declares a target state in this component. Its value is serialized now: later mutation of the
   * object changes nothing.
   *
   * @param ctx the context of the declaring component
   * @param ts the state, made by its provider's {@link TargetStateProvider#targetState}
   * @param <V> the value type
   * @throws IllegalStateException naming the key when it is declared twice in one component, or
   *     when its provider is an unresolved container provider
   */
  public static <V> void declareTargetState(Ctx ctx, TargetState<V> ts) {
    scope(ctx).declare(ts);
  }

  /**
   * Declares a container target state and returns the provider of its children, unresolved until
   * the container reconciles when this component commits; declare its children from this same
   * component.
   *
   * @param ctx the context of the declaring component
   * @param parent the container state, made by a provider whose sink has a child-handler factory
   * @param <V> the container's value type
   * @param <C> the children's value type
   * @return the provider of the container's children, resolved when this component commits
   */
  public static <V, C> TargetStateProvider<C> declareTargetStateWithChild(
      Ctx ctx, TargetState<V> parent) {
    return scope(ctx).declareWithChild(parent);
  }

  /**
   * Declares and commits a container target state in a foreground child component and returns
   * the provider of its children, ready at once: any component may declare into it.
   *
   * @param ctx the context of the declaring component
   * @param parent the container state, made by a provider whose sink has a child-handler factory
   * @param <V> the container's value type
   * @param <C> the children's value type
   * @return the provider of the container's children, ready when this returns
   */
  public static <V, C> TargetStateProvider<C> mountTarget(Ctx ctx, TargetState<V> parent) {
    return scope(ctx).mountTarget(parent);
  }

  private static DeclarationScope scope(Ctx ctx) {
    Objects.requireNonNull(ctx, "ctx");
    if (ctx instanceof DeclarationScope scope) {
      return scope;
    }
    throw new IllegalArgumentException(
        "ctx " + ctx.getClass().getName() + " was not created by the cocoindex runtime");
  }
}
