package io.cocoindex.runtime.state;

/** The state store failed (I/O, corruption, incompatible version); the message says which. */
public final class StateStoreException extends RuntimeException {
  /**
   * A failure of the store, with what caused it.
   *
   * @param message what failed, naming the store and how to recover
   * @param cause the I/O or database error
   */
  public StateStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A failure of the store found by the store itself.
   *
   * @param message what failed, naming the store and how to recover
   */
  public StateStoreException(String message) {
    super(message);
  }
}
