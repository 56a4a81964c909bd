package io.cocoindex.runtime;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;

/**
 * Told about every action a sink applied successfully, after its component committed it: for
 * audit logs, metrics and connector tests. Called from engine threads; keep it fast.
 *
 * <p>A listener observes and cannot veto: an exception it throws leaves the action applied and
 * committed and the update's outcome as it was. The engine logs it at WARN (the first in a run
 * with its stack trace, then how many there were at the run's end), and tells this and the other
 * listeners of every other action all the same.
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
