package io.cocoindex.runtime;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;

/**
 * Told about every action a sink applied successfully, after its component committed it: for
 * audit logs, metrics and connector tests. Called from engine threads; keep it fast.
 */
@FunctionalInterface
public interface ActionListener {
  /**
   * Called once for each action applied and committed.
   *
   * @param provider the provider name (e.g. {@code tables/docs})
   * @param key the target state's key
   * @param action the applied action
   */
  void applied(String provider, StableKey key, TargetAction<?> action);
}
