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

  /**
   * A sink applying each batch synchronously (the engine calls it off the component threads).
   *
   * @param apply applies one batch; throwing fails it
   * @param <A> the action type
   * @return a sink of a new identity
   * @throws NullPointerException when {@code apply} is null
   */
  public static <A> TargetActionSink<A> of(ActionApplier<A> apply) {
    return new TargetActionSink<>(null, Objects.requireNonNull(apply, "apply"), null);
  }

  /**
   * A sink applying each batch asynchronously; the returned stage completes when it is done.
   *
   * @param apply starts applying one batch and returns the stage that completes when it is
   *     applied, or completes exceptionally when it failed; never a null stage
   * @param <A> the action type
   * @return a sink of a new identity
   * @throws NullPointerException when {@code apply} is null
   */
  public static <A> TargetActionSink<A> ofAsync(
      Function<List<TargetAction<A>>, CompletionStage<Void>> apply) {
    return new TargetActionSink<>(Objects.requireNonNull(apply, "apply"), null, null);
  }

  /**
   * A container's sink: {@code apply} creates and drops containers; {@code childHandler} builds the
   * handler of a created or updated container's children from its action.
   *
   * @param apply applies one batch of container actions; throwing fails it
   * @param childHandler builds the children's handler from a Create or Update action; called
   *     before the apply, and in a preview instead of it
   * @param <A> the container's action type
   * @return a container sink of a new identity
   * @throws NullPointerException when {@code apply} or {@code childHandler} is null
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
   *
   * @param actions the batch to apply
   * @return a stage that completes when the batch is applied, or exceptionally with what the
   *     sink threw
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

  /**
   * The child-handler factory of a container sink.
   *
   * @return the factory given to {@link #withChildHandler}, or empty for any other sink
   */
  public Optional<ChildHandlerFactory<A>> childHandlerFactory() {
    return Optional.ofNullable(childHandlerFactory);
  }

  @Override
  public String toString() {
    return "TargetActionSink@" + Integer.toHexString(System.identityHashCode(this));
  }
}
