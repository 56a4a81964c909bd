package io.cocoindex.runtime.state;

/**
 * A run's sessions with a store shared by workers were lost, or could not be confirmed held
 * recently enough, while its process lives on: the other workers may take the run for dead once
 * their grace has passed ({@link PostgresStateStore#DEAD_RUN_GRACE_PROPERTY}), and take over or
 * change what it was writing. The run stops, starting no further sink call; a sink call it had
 * already started goes on. The store's sessions are not opened again: close it and open another.
 */
public final class SessionsLostException extends RuntimeException {
  /**
   * A run's sessions lost.
   *
   * @param message which run, which store, and what the other workers may do now
   * @param cause the database's error, or null when the sessions were not confirmed in time
   */
  public SessionsLostException(String message, Throwable cause) {
    super(message, cause);
  }
}
