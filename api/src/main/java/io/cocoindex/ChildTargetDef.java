package io.cocoindex;

import java.util.Objects;

/**
 * A typed handler for the children (or attachments) of a target state, returned by a container
 * sink's child-handler factory or by {@link TargetHandler#attachments()}.
 *
 * @param <V> the children's value type
 */
public final class ChildTargetDef<V> {
  private final TargetHandler<V, ?, ?> handler;

  private ChildTargetDef(TargetHandler<V, ?, ?> handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /**
   * Wraps the handler of the children.
   *
   * @param handler the handler that reconciles each child (or attachment) target state
   * @param <V> the children's value type
   * @return a definition holding {@code handler}
   * @throws NullPointerException when {@code handler} is null
   */
  public static <V> ChildTargetDef<V> of(TargetHandler<V, ?, ?> handler) {
    return new ChildTargetDef<>(handler);
  }

  /**
   * The handler of the children.
   *
   * @return the handler this definition was made with
   */
  public TargetHandler<V, ?, ?> handler() {
    return handler;
  }

  @Override
  public String toString() {
    return "ChildTargetDef[" + handler.getClass().getName() + "]";
  }
}
