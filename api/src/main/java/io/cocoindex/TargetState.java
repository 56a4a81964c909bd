package io.cocoindex;

/**
 * A key and a value to declare through the provider that made it ({@link
 * TargetStateProvider#targetState}).
 *
 * @param <V> the value type
 */
public interface TargetState<V> {
  /**
   * The key under its provider: stable across runs, it is what tracking is matched on.
   *
   * @return the key this state was made with, converted by {@link StableKey#of}
   */
  StableKey key();

  /**
   * The desired value, handed to the handler's {@code reconcile}.
   *
   * @return the value this state was made with
   */
  V value();
}
