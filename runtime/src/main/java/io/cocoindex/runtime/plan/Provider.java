package io.cocoindex.runtime.plan;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetState;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.codec.CodecRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The engine's target-state provider: a root provider ({@code /@name}), the child provider of a
 * container state (its path is the container's), or an attachment provider ({@code .../@type}).
 *
 * <p>A child provider starts unresolved and is resolved when its container reconciles, by the
 * handler the container sink's child-handler factory builds; it then carries the container's
 * child generation and epoch, against which the children's stored records are judged.
 *
 * @param <V> the type of the values its target states hold
 */
public final class Provider<V> implements TargetStateProvider<V> {
  private final ProviderRegistry registry;
  private final TargetPath path;
  private final String name;
  private final TargetPath container;
  private volatile HandlerBinding binding;
  private volatile long generation;
  private volatile long epoch;
  private volatile String unresolvedReason;
  private volatile Map<String, Provider<?>> attachments = Map.of();
  /** Attachment providers handed out before this provider resolved. */
  private final Map<String, Provider<?>> pendingAttachments = new LinkedHashMap<>();

  Provider(ProviderRegistry registry, TargetPath path, String name, TargetPath container) {
    this.registry = registry;
    this.path = path;
    this.name = name;
    this.container = container;
  }

  @Override
  public TargetState<V> targetState(Object key, V value) {
    return new DeclaredValue<>(this, StableKey.of(key), value);
  }

  /**
   * Rejects a symbol key that names one of this provider's attachment types: in a target path
   * the attachment's states live below that symbol, so a state keyed by it would share their
   * path (and its deletion take them along). Called once the provider is resolved.
   */
  void checkKeyBesideAttachments(StableKey key) {
    if (key instanceof StableKey.Symbol s && attachments.containsKey(s.name())) {
      throw new IllegalArgumentException(
          "the key " + key + " of a target state of provider '" + name + "' is the symbol of its"
              + " attachment type '" + s.name() + "', whose states live under that path: use"
              + " another key");
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <W> TargetStateProvider<W> attachment(Ctx ctx, String type) {
    Objects.requireNonNull(type, "type");
    if (binding == null) {
      // Unresolved (a container declared in this component): the attachment provider resolves
      // with it, when the container reconciles; declaring on it is checked like on children.
      synchronized (this) {
        if (binding == null) {
          return (Provider<W>) pendingAttachments.computeIfAbsent(type, t -> {
            Provider<W> att = newAttachment(t);
            if (unresolvedReason != null) {
              att.markUnresolved(unresolvedReason); // it will not resolve in this run either
            }
            return att;
          });
        }
      }
    }
    Provider<?> p = attachments.get(type);
    if (p == null) {
      throw new IllegalArgumentException(
          noAttachmentType(type, binding.handler(), attachments.keySet()));
    }
    return (Provider<W>) p;
  }

  /** Why an attachment type is unknown, and how a handler declares its types. */
  private String noAttachmentType(String type, Object handler, java.util.Set<String> declared) {
    Class<?> c = handler.getClass();
    // The processor names a handler's generated class after its simple names joined by '_'.
    String generated = c.isAnonymousClass() || c.isSynthetic() ? "<Handler>"
        : c.getName().substring(c.getPackageName().isEmpty() ? 0
            : c.getPackageName().length() + 1).replace('$', '_');
    return "provider '" + name + "' has no attachment type '" + type + "'; its handler "
        + c.getName() + " declares " + declared + ": a handler's attachment types are the keys"
        + " of the map its attachments() returns (a handler with @Attachment methods returns "
        + generated + "_Attachments.of(this) from it)";
  }

  @Override
  public String name() {
    return name;
  }

  ProviderRegistry registry() {
    return registry;
  }

  /**
   * The path under which this provider's states live.
   *
   * @return {@code /@name} for a root provider, the container's path for a child provider, or
   *     the owner's path and {@code @type} for an attachment provider
   */
  public TargetPath path() {
    return path;
  }

  /**
   * The container state whose child generation applies to this provider's states, or null.
   *
   * @return the container's path, or null for a root provider and its attachments
   */
  public TargetPath container() {
    return container;
  }

  /**
   * The handler this provider resolved with, and its codecs.
   *
   * @return the binding, or null while the provider is unresolved
   */
  public HandlerBinding binding() {
    return binding;
  }

  /**
   * Whether the provider has its handler: a root provider always, a child provider once its
   * container reconciled.
   *
   * @return true once resolved
   */
  public boolean isResolved() {
    return binding != null;
  }

  /**
   * The container's child generation this provider resolved with.
   *
   * @return the generation; 0 for a root provider and while unresolved
   */
  public long generation() {
    return generation;
  }

  /**
   * The container's child epoch this provider resolved with.
   *
   * @return the epoch; 0 for a root provider and while unresolved
   */
  public long epoch() {
    return epoch;
  }

  /**
   * The attachment providers of the handler's attachment types, resolved with this provider.
   *
   * @return an unmodifiable map by attachment type; empty while unresolved
   */
  public Map<String, Provider<?>> attachments() {
    return attachments;
  }

  /**
   * Why declaring on this unresolved provider fails.
   *
   * @return the reason noted when it was left unresolved, or that its container has not been
   *     reconciled yet
   */
  public String unresolvedMessage() {
    String reason = unresolvedReason;
    return reason != null
        ? reason
        : "its container has not been reconciled yet, as it is when the component that"
            + " declared it commits: declare the children in that component, or mount the"
            + " container (TargetStates.mountTarget, or the generated mount<Name> of its API"
            + " class) so that it is committed first and any component may declare into it";
  }

  synchronized void markUnresolved(String reason) {
    this.unresolvedReason = reason;
    registry.registerUnresolved(this, reason);
    pendingAttachments.values().forEach(p -> p.markUnresolved(reason));
  }

  /** The provider of this provider's attachments of {@code type}, unresolved. */
  private <W> Provider<W> newAttachment(String type) {
    return new Provider<>(registry, path.child(StableKey.symbol(type)),
        ProviderNames.attachment(name, type), container);
  }

  /** Binds the handler and registers its attachment types eagerly. */
  synchronized void resolve(
      TargetHandler<?, ?, ?> handler, long generation, long epoch, CodecRegistry codecs) {
    HandlerBinding b = HandlerBinding.of(handler, codecs);
    Map<String, ChildTargetDef<?>> defs = handler.attachments();
    Map<String, Provider<?>> atts = new LinkedHashMap<>();
    for (Map.Entry<String, ChildTargetDef<?>> e : defs.entrySet()) {
      Provider<?> att = pendingAttachments.remove(e.getKey());
      if (att == null) {
        att = newAttachment(e.getKey());
      }
      att.resolve(e.getValue().handler(), generation, epoch, codecs);
      atts.put(e.getKey(), att);
    }
    for (Map.Entry<String, Provider<?>> unknown : pendingAttachments.entrySet()) {
      unknown.getValue().markUnresolved(
          noAttachmentType(unknown.getKey(), handler, defs.keySet()));
    }
    pendingAttachments.clear();
    this.generation = generation;
    this.epoch = epoch;
    this.attachments = Map.copyOf(atts);
    this.binding = b;
    registry.registerResolved(this);
  }

  @Override
  public String toString() {
    return "Provider[" + name + " at " + path + "]";
  }

  /**
   * A declared key and value, before it is serialized by the declaring component.
   *
   * @param <V> the type of the value
   * @param provider the provider it is declared on
   * @param key its key under the provider
   * @param value the declared value
   */
  public record DeclaredValue<V>(Provider<V> provider, StableKey key, V value)
      implements TargetState<V> {}
}
