package io.cocoindex.runtime;

/** Options of one {@link App#update(UpdateOptions) update}. */
public final class UpdateOptions {
  private static final UpdateOptions DEFAULTS = new UpdateOptions(false);
  private static final UpdateOptions FULL = new UpdateOptions(true);

  private final boolean fullReprocess;

  private UpdateOptions(boolean fullReprocess) {
    this.fullReprocess = fullReprocess;
  }

  /** An ordinary incremental update. */
  public static UpdateOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Runs every component (ignoring memos and memoized functions) and reconciles every state with
   * {@code prevMayBeMissing = true}, so unchanged states are rewritten once. States no longer
   * declared are deleted as usual, never resurrected.
   */
  public static UpdateOptions fullReprocess() {
    return FULL;
  }

  /** Whether every component runs and every state is reconciled as possibly missing. */
  public boolean isFullReprocess() {
    return fullReprocess;
  }

  @Override
  public String toString() {
    return fullReprocess ? "UpdateOptions[fullReprocess]" : "UpdateOptions[defaults]";
  }
}
