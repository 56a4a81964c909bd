package io.cocoindex;

/**
 * A key and a value to declare through the provider that made it ({@link
 * TargetStateProvider#targetState}).
 *
 * @param <V> the value type
 */
public interface TargetState<V> {
  StableKey key();

  V value();
}
