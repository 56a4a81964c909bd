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
   */
  public static <V, C> TargetStateProvider<C> declareTargetStateWithChild(
      Ctx ctx, TargetState<V> parent) {
    return scope(ctx).declareWithChild(parent);
  }

  /**
   * Declares and commits a container target state in a foreground child component and returns
   * the provider of its children, ready at once: any component may declare into it.
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
