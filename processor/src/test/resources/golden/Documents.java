package test;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.TargetStates;
import java.util.Objects;
import javax.annotation.processing.Generated;

/**
 * Declares Document target states handled by {@link DocumentHandler}. Call {@link #register} once per run (from the app's main component), then declare through the returned instance from any component.
 */
@Generated("io.cocoindex.processor.CocoIndexProcessor")
@SuppressWarnings({"unchecked", "rawtypes", "deprecation", "removal"})
public final class Documents {
  /**
   * The provider name the handler is registered under.
   */
  public static final String PROVIDER = "test/document";

  private final TargetStateProvider<String> provider;

  private Documents(TargetStateProvider<String> provider) {
    this.provider = provider;
  }

  /**
   * Registers {@code handler} as the root provider {@value #PROVIDER} for this run; states it declared in earlier runs and no longer declares are deleted through it.
   *
   * @param ctx the context of the app's main component
   * @param handler the handler of these target states
   * @return the API to declare through in this run
   */
  public static Documents register(Ctx ctx, DocumentHandler handler) {
    return new Documents(TargetStates.registerRootTargetStatesProvider(ctx, PROVIDER, Objects.requireNonNull(handler, "handler")));
  }

  /**
   * Declares {@code document} as a Document in the calling component.
   *
   * <p>{@code key} identifies it, as {@code String} has no {@code @Key} component: a String, a long or int, a UUID, a byte[], a Fingerprint, a StableKey or a List of those ({@code StableKey.of} rejects anything else when it is declared).
   *
   * @param ctx the calling component's context
   * @param key what identifies it among the provider's states
   * @param document the Document to declare
   */
  public void declareDocument(Ctx ctx, Object key, String document) {
    TargetStates.declareTargetState(ctx, provider.targetState(key, document));
  }

  /**
   * The registered root provider, for what this API does not cover.
   *
   * @return the root provider
   */
  public TargetStateProvider<String> provider() {
    return provider;
  }
}
