package io.cocoindex.testkit;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;

/**
 * One action an app applied, as the test kit records it.
 *
 * @param provider the provider name
 * @param key the target state's key
 * @param action the applied action
 */
public record AppliedAction(String provider, StableKey key, TargetAction<?> action) {
  /**
   * {@code "<provider> <verb> <key>"}, e.g. {@code tables/docs update "r1"}.
   *
   * @return the one-line summary, which is also {@code toString()}
   */
  public String summary() {
    return provider + " " + action.verb() + " " + key;
  }

  @Override
  public String toString() {
    return summary();
  }
}
