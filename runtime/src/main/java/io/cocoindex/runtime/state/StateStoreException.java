package io.cocoindex.runtime.state;

/** The state store failed (I/O, corruption, incompatible version); the message says which. */
public final class StateStoreException extends RuntimeException {
  public StateStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StateStoreException(String message) {
    super(message);
  }
}
