package io.cocoindex;

/**
 * Builds the handler of a container's children from the container's Create/Update action.
 * Synchronous and side-effect free: it is called before the apply, and in a preview instead of
 * it.
 *
 * <p>The engine calls {@link #childHandler(TargetHandler, Object)} with the handler that returned
 * the action; by default it asks {@link #childHandler(Object)}. A factory of a sink shared by
 * several container handlers (one per folder, all their actions in one batch) overrides it to ask
 * the container's own handler, which knows its container; the processor's generated factories
 * do.
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

  /**
   * The handler of the children of the container that {@code action} creates or updates, asked
   * of {@code containerHandler}, the handler that reconciled the container and returned {@code
   * action}. The engine calls this method; by default it is {@link #childHandler(Object)}.
   *
   * @param containerHandler the container's own handler (with a shared sink, not necessarily the
   *     one the factory was built from)
   * @param action the container's Create or Update action value, as its handler returned it
   * @return the definition wrapping the handler of that container's children
   */
  default ChildTargetDef<?> childHandler(TargetHandler<?, ?, ?> containerHandler, A action) {
    return childHandler(action);
  }
}
