package io.cocoindex.runtime.inspect;

import io.cocoindex.StableKey;
import java.util.List;

/**
 * Provider names derived from a target-state path, the same way the engine names providers: a
 * root provider by its registered name, a container's children as {@code parent/containerKey},
 * an attachment as {@code provider@type}.
 */
public final class ProviderNames {
  private ProviderNames() {}

  /** The name of the provider of the state at {@code path} (its keys, provider symbol first). */
  public static String providerOf(List<StableKey> path) {
    StringBuilder name = new StringBuilder();
    for (int i = 0; i < path.size() - 1; i++) {
      StableKey k = path.get(i);
      if (i == 0) {
        name.append(k instanceof StableKey.Symbol s ? s.name() : k.toString());
      } else if (k instanceof StableKey.Symbol s) {
        name.append('@').append(s.name());
      } else {
        name.append('/').append(k instanceof StableKey.Str s ? s.value() : k.toString());
      }
    }
    return name.toString();
  }
}
