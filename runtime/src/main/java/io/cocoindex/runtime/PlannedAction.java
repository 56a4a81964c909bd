package io.cocoindex.runtime;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;

/**
 * One action a preview plans: which provider, which key, and the action its handler returned.
 *
 * @param provider the provider name (a child provider is named {@code parent/containerKey})
 * @param key the target state's key
 * @param action the planned action, deserialized as the sink would get it
 * @param refresh an Update whose tracking record equals the one settled record of the last run:
 *     a container re-ensured on every run it is declared, expected to change nothing
 */
public record PlannedAction(
    String provider, StableKey key, TargetAction<?> action, boolean refresh) {
  @Override
  public String toString() {
    return provider + " " + action.verb() + " " + key + " " + action.value();
  }
}
