package io.cocoindex.testkit;

/**
 * Where {@link CocoIndexExtension#updateCrashing} makes an update die, as {@code kill -9} would
 * there: in the engine's write-ahead protocol, each component's changes are first
 * <em>precommitted</em> to the state store (the new tracking records appended beside the old
 * ones), then <em>applied</em> by the sinks, then <em>committed</em> (the records settled to one).
 * A connector whose actions are idempotent converges on the next run whichever of these windows
 * a crash hits.
 *
 * <p>Occurrences count from the start of the crashing update, 1 being the first. A precommit is
 * a store write that appends possible records; every other write is a commit: a component's
 * commit after its apply (its record, its memo, the settles of its states), the end-of-run
 * sweep's, and the record of a completed run as settled. (The embedded store settles the states
 * of a run that applied everything with that last write, so until it, every state the run
 * touched still reads as possibly unapplied.)
 *
 * @param kind the window
 * @param occurrence which occurrence of it, from 1
 */
public record CrashPoint(Kind kind, int occurrence) {
  /** The windows of the write-ahead protocol a crash can hit. */
  public enum Kind {
    /**
     * The precommit is durable, and the process dies before its actions are applied: the next run
     * gets the new record among the {@code prevPossibleRecords} of states the sink never touched.
     */
    AFTER_PRECOMMIT,
    /**
     * The actions are applied, and the process dies before the commit is written: the next run
     * reconciles states whose sink work is done against records that say it may not be.
     */
    BEFORE_COMMIT,
    /** The commit is durable, and the process dies right after it. */
    AFTER_COMMIT
  }

  /**
   * Checks the window and the occurrence.
   *
   * @param kind the window
   * @param occurrence which occurrence of it, from 1
   * @throws NullPointerException when {@code kind} is null
   * @throws IllegalArgumentException when {@code occurrence} is below 1
   */
  public CrashPoint {
    java.util.Objects.requireNonNull(kind, "kind");
    if (occurrence < 1) {
      throw new IllegalArgumentException("occurrence must be at least 1, not " + occurrence);
    }
  }

  /**
   * Dies once the {@code n}th precommit of the update is durable, before its apply.
   *
   * @param n which precommit, from 1
   * @return the crash point {@link Kind#AFTER_PRECOMMIT} #{@code n}
   * @throws IllegalArgumentException when {@code n} is below 1
   */
  public static CrashPoint afterPrecommit(int n) {
    return new CrashPoint(Kind.AFTER_PRECOMMIT, n);
  }

  /**
   * Dies at the {@code n}th commit of the update, before it is written (after its apply).
   *
   * @param n which commit, from 1
   * @return the crash point {@link Kind#BEFORE_COMMIT} #{@code n}
   * @throws IllegalArgumentException when {@code n} is below 1
   */
  public static CrashPoint beforeCommit(int n) {
    return new CrashPoint(Kind.BEFORE_COMMIT, n);
  }

  /**
   * Dies once the {@code n}th commit of the update is durable.
   *
   * @param n which commit, from 1
   * @return the crash point {@link Kind#AFTER_COMMIT} #{@code n}
   * @throws IllegalArgumentException when {@code n} is below 1
   */
  public static CrashPoint afterCommit(int n) {
    return new CrashPoint(Kind.AFTER_COMMIT, n);
  }

  /** E.g. {@code after precommit #2}. */
  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " #" + occurrence;
  }
}
