package io.cocoindex.runtime;

/**
 * An update would have deleted more states than its {@link UpdateOptions#withDeletionLimit
 * deletion limit} allows, so it deleted none: their tracking is kept, and the next update
 * considers them again. Found among the {@link UpdateFailedException#failures()} of the update,
 * as the failure of the root component ({@code /}).
 */
public final class DeletionLimitExceededException extends RuntimeException {
  /** The states the update would have deleted. */
  private final long deletions;
  /** The limit the update was given. */
  private final long limit;

  /**
   * The refusal of an update's deletions, with a message telling how to go on.
   *
   * @param deletions the states the update would have deleted
   * @param withContainers how many of those would have gone with their deleted containers
   * @param limit the limit the update was given
   */
  public DeletionLimitExceededException(long deletions, long withContainers, long limit) {
    super("the update would delete " + deletions + " target states (" + (deletions - withContainers)
        + " through their handlers, " + withContainers + " with their containers), more than its"
        + " deletion limit of " + limit + ": none was deleted, and their tracking is kept. If the"
        + " source came up short, fix it; if the deletions are meant, preview them and update"
        + " with a higher limit (UpdateOptions.withDeletionLimit) or none");
    this.deletions = deletions;
    this.limit = limit;
  }

  /**
   * The states the update would have deleted.
   *
   * @return how many states the update would have deleted, those with their containers included
   */
  public long deletions() {
    return deletions;
  }

  /**
   * The limit the update was given.
   *
   * @return the deletion limit of the update's options
   */
  public long limit() {
    return limit;
  }
}
