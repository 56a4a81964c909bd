package io.cocoindex.runtime;

/**
 * Options of one {@link App#update(UpdateOptions) update}. Immutable: each {@code with...}
 * returns a copy.
 */
public final class UpdateOptions {
  private static final UpdateOptions DEFAULTS = new UpdateOptions(false, Long.MAX_VALUE);
  private static final UpdateOptions FULL = new UpdateOptions(true, Long.MAX_VALUE);

  private final boolean fullReprocess;
  private final long deletionLimit;

  private UpdateOptions(boolean fullReprocess, long deletionLimit) {
    this.fullReprocess = fullReprocess;
    this.deletionLimit = deletionLimit;
  }

  /**
   * An ordinary incremental update.
   *
   * @return the options of an update that skips unchanged memoized components, with no deletion
   *     limit
   */
  public static UpdateOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Runs every component (ignoring memos and memoized functions) and reconciles every state with
   * {@code prevMayBeMissing = true}, so unchanged states are rewritten once. States no longer
   * declared are deleted as usual, never resurrected.
   *
   * <p>A container handler may take a container that may be missing as having lost its children
   * (LOSSY: the sample PostgreSQL connector's table does). If such a container is written and a
   * component that declares children into it fails, its children, not rewritten, stay possibly
   * missing: {@link App#status()} lists them as unsettled, {@link App#preview()} plans them, and
   * the next ordinary update writes them again, though they did not change.
   *
   * @return the options of a full reprocess, with no deletion limit
   */
  public static UpdateOptions fullReprocess() {
    return FULL;
  }

  /**
   * These options, with the end-of-run deletions capped: when the states no longer declared
   * (those deleted through their handlers, and those that would go with their deleted
   * containers) number more than {@code limit}, none is deleted and their tracking is kept; the
   * update applies its creates and updates as usual, then throws {@link UpdateFailedException}
   * with a {@link DeletionLimitExceededException}. A guard for a nightly job whose source may
   * come up empty, which would otherwise delete everything the app made.
   *
   * @param limit the most states one update may delete, 0 or more
   * @return a copy of these options with that limit
   * @throws IllegalArgumentException when {@code limit} is negative
   */
  public UpdateOptions withDeletionLimit(long limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("a deletion limit cannot be negative: " + limit);
    }
    return new UpdateOptions(fullReprocess, limit);
  }

  /**
   * Whether every component runs and every state is reconciled as possibly missing.
   *
   * @return true for {@link #fullReprocess()}'s options
   */
  public boolean isFullReprocess() {
    return fullReprocess;
  }

  /**
   * The most states the update may delete ({@code Long.MAX_VALUE}: no limit, the default).
   *
   * @return the deletion limit
   */
  public long deletionLimit() {
    return deletionLimit;
  }

  @Override
  public String toString() {
    String kind = fullReprocess ? "fullReprocess" : "defaults";
    return deletionLimit == Long.MAX_VALUE ? "UpdateOptions[" + kind + "]"
        : "UpdateOptions[" + kind + ", deletionLimit=" + deletionLimit + "]";
  }
}
