package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import io.cocoindex.TargetHandler;
import io.cocoindex.runtime.codec.CodecRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The providers known in one run: root providers registered by name, and every resolved child
 * and attachment provider by path, so the orphan sweep finds the handler of any tracked state.
 */
public final class ProviderRegistry {
  private final CodecRegistry codecs;
  private final Map<String, Provider<?>> roots = new ConcurrentHashMap<>();
  private final Map<TargetPath, Provider<?>> resolved = new ConcurrentHashMap<>();
  private final Map<TargetPath, String> unresolved = new ConcurrentHashMap<>();

  /**
   * An empty registry for one run.
   *
   * @param codecs the codecs the root providers' handlers are resolved with
   */
  public ProviderRegistry(CodecRegistry codecs) {
    this.codecs = codecs;
  }

  /**
   * The codecs of the run.
   *
   * @return the codecs this registry was made with
   */
  public CodecRegistry codecs() {
    return codecs;
  }

  /**
   * Registers a root provider.
   *
   * @param <V> the type of the values its target states hold
   * @param name the provider's name, unique in the app
   * @param handler the handler that applies its target states' actions
   * @return the provider, resolved with {@code handler}
   * @throws IllegalArgumentException if {@code name} is null or empty
   * @throws IllegalStateException naming the provider when the name is taken in this run
   */
  public <V> Provider<V> registerRoot(String name, TargetHandler<V, ?, ?> handler) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a provider name must be a non-empty string");
    }
    Provider<V> p =
        new Provider<>(this, TargetPath.ROOT.child(StableKey.symbol(name)), name, null);
    if (roots.putIfAbsent(name, p) != null) {
      throw new IllegalStateException(
          "provider name '" + name + "' is already registered in this run: provider names must be"
              + " unique in an app. Register each provider once per run (in main, say) and pass"
              + " the TargetStateProvider it returns to the components that declare through it");
    }
    p.resolve(handler, 0, 0, codecs);
    return p;
  }

  /**
   * A new, unresolved child provider for the container state at {@code containerPath}.
   *
   * @param <C> the type of the values its target states hold
   * @param parent the provider of the container state
   * @param containerPath the container state's path, under which the child states live
   * @return the child provider, named after {@code parent} and the container's key
   */
  public <C> Provider<C> newChildProvider(Provider<?> parent, TargetPath containerPath) {
    return new Provider<>(this, containerPath,
        ProviderNames.children(parent.name(), containerPath.last()), containerPath);
  }

  void registerResolved(Provider<?> p) {
    resolved.put(p.path(), p);
  }

  /** Notes a child provider left unresolved in this run, with why (see {@link #unresolved}). */
  void registerUnresolved(Provider<?> p, String reason) {
    unresolved.put(p.path(), reason);
  }

  /**
   * Why the child provider whose states live under {@code path} was left unresolved in this run
   * (its container's handler returned no Create or Update), or null when it was not.
   *
   * @param path the container state's path
   * @return the reason noted, or null
   */
  public String unresolved(TargetPath path) {
    return unresolved.get(path);
  }

  /**
   * Whether {@code p} was made by this run's registry (not kept from another run or app).
   *
   * @param p a provider
   * @return true if {@code p} belongs to this registry
   */
  public boolean owns(Provider<?> p) {
    return p.registry() == this;
  }

  /**
   * The resolved provider whose states live directly under {@code path}, or null.
   *
   * @param path a root provider's path or a container state's
   * @return the provider resolved there in this run, or null
   */
  public Provider<?> lookup(TargetPath path) {
    return resolved.get(path);
  }

  /**
   * Whether a root provider named {@code name} was registered in this run.
   *
   * @param name the provider's name
   * @return true if {@link #registerRoot} took that name
   */
  public boolean isRootRegistered(String name) {
    return roots.containsKey(name);
  }

}
