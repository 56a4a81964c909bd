package io.cocoindex;

/**
 * Builds the handler of a container's children from the container's Create/Update action.
 * Synchronous and side-effect free: it is called before the apply, and in a preview instead of
 * it.
 *
 * @param <A> the container's action type
 */
@FunctionalInterface
public interface ChildHandlerFactory<A> {
  /**
   * The handler of the children of the container that {@code action} creates or updates.
   *
   * @param action the container's Create or Update action value, as its handler returned it
   * @return the definition wrapping the handler of that container's children
   */
  ChildTargetDef<?> childHandler(A action);
}
