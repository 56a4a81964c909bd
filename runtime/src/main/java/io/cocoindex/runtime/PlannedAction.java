package io.cocoindex.runtime;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;

/**
 * One action a preview plans: which provider, which key, and the action its handler returned.
 * Whether it is a container's refresh (expected to change nothing) is the preview's to say:
 * {@link Preview#changes()}.
 *
 * @param provider the provider name (a child provider is named {@code parent/containerKey})
 * @param key the target state's key
 * @param action the planned action, deserialized as the sink would get it
 */
public record PlannedAction(String provider, StableKey key, TargetAction<?> action) {
  @Override
  public String toString() {
    return provider + " " + action.verb() + " " + key + " " + action.value();
  }
}
