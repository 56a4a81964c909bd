package io.cocoindex.statediff;

/**
 * The write a connector has to perform so that an external state converges to the desired one;
 * computed by {@link StateDiff#diff}, where {@code null} means "nothing to do".
 *
 * <pre>{@code
 * DiffAction a = StateDiff.diff(new TrackingRecordTransition<>("v2", List.of("v1"), false));
 * // a == DiffAction.REPLACE: overwrite, the state known to exist differs from "v2"
 * }</pre>
 */
public enum DiffAction {
  /** Nothing was ever observed and the previous state may be missing: create it. */
  INSERT,
  /**
   * Every observed previous state equals the desired one, but one may be missing: write it
   * idempotently so that the external state converges anyway.
   */
  UPSERT,
  /** At least one observed previous state differs from the desired one: overwrite it. */
  REPLACE,
  /** The state is no longer declared and some previous state was observed: remove it. */
  DELETE
}
