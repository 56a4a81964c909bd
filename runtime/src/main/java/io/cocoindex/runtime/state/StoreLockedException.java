package io.cocoindex.runtime.state;

/** Another process (or App) holds the update lock of the app's state store. */
public final class StoreLockedException extends RuntimeException {
  public StoreLockedException(String message) {
    super(message);
  }
}
