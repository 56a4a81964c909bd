package io.cocoindex;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Applies batches of actions to an external system.
 *
 * <p>The engine batches actions by sink <em>identity</em>: every action returned with the same
 * instance is applied in one call, across components finishing together. Build the sink once,
 * keep it in the handler, and return it from every {@code reconcile}. Each factory call creates a
 * new identity.
 *
 * @param <A> the action type
 */
public final class TargetActionSink<A> {

  private final Function<List<TargetAction<A>>, CompletionStage<Void>> asyncApply;
  private final ActionApplier<A> syncApply;
  private final ChildHandlerFactory<A> childHandlerFactory;

  private TargetActionSink(
      Function<List<TargetAction<A>>, CompletionStage<Void>> asyncApply,
      ActionApplier<A> syncApply,
      ChildHandlerFactory<A> childHandlerFactory) {
    this.asyncApply = asyncApply;
    this.syncApply = syncApply;
    this.childHandlerFactory = childHandlerFactory;
  }

  /** A sink applying each batch synchronously (the engine calls it off the component threads). */
  public static <A> TargetActionSink<A> of(ActionApplier<A> apply) {
    return new TargetActionSink<>(null, Objects.requireNonNull(apply, "apply"), null);
  }

  /** A sink applying each batch asynchronously; the returned stage completes when it is done. */
  public static <A> TargetActionSink<A> ofAsync(
      Function<List<TargetAction<A>>, CompletionStage<Void>> apply) {
    return new TargetActionSink<>(Objects.requireNonNull(apply, "apply"), null, null);
  }

  /**
   * A container's sink: {@code apply} creates and drops containers; {@code childHandler} builds the
   * handler of a created or updated container's children from its action.
   */
  public static <A> TargetActionSink<A> withChildHandler(
      ActionApplier<A> apply, ChildHandlerFactory<A> childHandler) {
    return new TargetActionSink<>(
        null,
        Objects.requireNonNull(apply, "apply"),
        Objects.requireNonNull(childHandler, "childHandler"));
  }

  /**
   * Applies one batch. For a synchronous sink this runs on the calling thread and returns a
   * completed stage. Engine entry point: connector code does not call it.
   */
  public CompletionStage<Void> applyAsync(List<TargetAction<A>> actions) {
    if (asyncApply != null) {
      try {
        return Objects.requireNonNull(asyncApply.apply(actions), "sink returned a null stage");
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    try {
      syncApply.apply(actions);
      return CompletableFuture.completedFuture(null);
    } catch (Exception e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The child-handler factory of a container sink. */
  public Optional<ChildHandlerFactory<A>> childHandlerFactory() {
    return Optional.ofNullable(childHandlerFactory);
  }

  @Override
  public String toString() {
    return "TargetActionSink@" + Integer.toHexString(System.identityHashCode(this));
  }
}
