package io.cocoindex.runtime.state;

/** Another process (or App) holds the update lock of the app's state store. */
public final class StoreLockedException extends RuntimeException {
  /**
   * An update lock held elsewhere.
   *
   * @param message which app's lock, and who may hold it
   */
  public StoreLockedException(String message) {
    super(message);
  }
}
