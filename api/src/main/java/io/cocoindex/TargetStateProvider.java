package io.cocoindex;

/**
 * A factory of target states bound to one handler: a registered root provider, the child
 * provider of a container, or an attachment provider.
 *
 * @param <V> the value type of its target states
 */
public interface TargetStateProvider<V> {

  /**
   * A target state of this provider; {@code key} is converted with {@link StableKey#of}.
   *
   * @param key the state's key under this provider, of a type {@link StableKey#of} accepts
   * @param value the desired value of the state
   * @return a state to declare with {@link TargetStates#declareTargetState}
   * @throws IllegalArgumentException naming the type when {@code key} is of a type {@link
   *     StableKey#of} refuses
   */
  TargetState<V> targetState(Object key, V value);

  /**
   * The provider of attachments of type {@code type} (as named by the handler's {@link
   * TargetHandler#attachments()}). The same instance is returned for the same type.
   *
   * @param ctx the context of the component declaring the attachments
   * @param type the attachment type name, a key of the handler's {@code attachments()}
   * @param <W> the value type of the attachments
   * @return the provider of this provider's attachments of that type
   * @throws IllegalArgumentException naming the type when the handler declares no such type
   */
  <W> TargetStateProvider<W> attachment(Ctx ctx, String type);

  /**
   * A readable name of this provider, used in errors, previews and statistics; the runtime's
   * providers give their registered name.
   *
   * @return the provider's name; by default its {@code toString()}
   */
  default String name() {
    return toString();
  }
}
