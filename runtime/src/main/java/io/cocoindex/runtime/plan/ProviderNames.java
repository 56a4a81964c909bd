package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import java.util.List;

/**
 * How providers are named: a root provider by its registered name, a container's children as
 * {@code parent/containerKey}, an attachment as {@code provider@type}. The engine names its
 * providers with these, and the inspector derives the same names from stored paths.
 */
public final class ProviderNames {
  private ProviderNames() {}

  /** The provider of the children of container {@code containerKey} of provider {@code parent}. */
  static String children(String parent, StableKey containerKey) {
    return parent + "/" + keyText(containerKey);
  }

  /** The provider of attachments of {@code type} of provider {@code provider}. */
  static String attachment(String provider, String type) {
    return provider + "@" + type;
  }

  /**
   * The name of the provider of the state at {@code path} (its keys, provider symbol first).
   *
   * @param path the state's keys from the root down, its own key last
   * @return the root provider's name, then for each container below it {@code /} and the
   *     container's key, and for each attachment type {@code @} and the type
   */
  public static String providerOf(List<StableKey> path) {
    String name = "";
    for (int i = 0; i < path.size() - 1; i++) {
      StableKey k = path.get(i);
      if (i == 0) {
        name = k instanceof StableKey.Symbol s ? s.name() : k.toString();
      } else if (k instanceof StableKey.Symbol s) {
        name = attachment(name, s.name());
      } else {
        name = children(name, k);
      }
    }
    return name;
  }

  /** A key as a provider's name shows it: a string bare, any other key as it prints. */
  private static String keyText(StableKey key) {
    return key instanceof StableKey.Str s ? s.value() : key.toString();
  }
}
