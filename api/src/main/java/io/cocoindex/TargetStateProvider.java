package io.cocoindex;

/**
 * A factory of target states bound to one handler: a registered root provider, the child
 * provider of a container, or an attachment provider.
 *
 * @param <V> the value type of its target states
 */
public interface TargetStateProvider<V> {

  /** A target state of this provider; {@code key} is converted with {@link StableKey#of}. */
  TargetState<V> targetState(Object key, V value);

  /**
   * The provider of attachments of type {@code type} (as named by the handler's {@link
   * TargetHandler#attachments()}). The same instance is returned for the same type.
   *
   * @throws IllegalArgumentException naming the type when the handler declares no such type
   */
  <W> TargetStateProvider<W> attachment(Ctx ctx, String type);

  /**
   * A readable name of this provider, used in errors, previews and statistics; the runtime's
   * providers give their registered name.
   */
  default String name() {
    return toString();
  }
}
