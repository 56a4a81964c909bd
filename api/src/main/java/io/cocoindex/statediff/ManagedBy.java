package io.cocoindex.statediff;

/**
 * Who owns an external state: the system (this engine creates, changes and deletes it) or the
 * user (it exists outside the engine's control, which only observes it).
 *
 * <pre>{@code
 * var table = new MutualTrackingRecord<>(schema, ManagedBy.USER); // never created nor dropped
 * }</pre>
 */
public enum ManagedBy {
  /** Created, changed and deleted by the engine. */
  SYSTEM,
  /** Created and maintained by the user; the engine must leave it alone. */
  USER
}
