package io.cocoindex.runtime.state;

import java.util.concurrent.ForkJoinPool;

/**
 * Blocking store I/O as a fork-join managed block: on the engine's component pool, which has a
 * thread per core, the pool may add a thread while a round trip to a shared store is in flight
 * instead of stalling every component behind it. Elsewhere the call simply runs.
 */
public final class ManagedBlocking {
  private ManagedBlocking() {}

  /** Work that may throw a checked exception. */
  @FunctionalInterface
  public interface Call<T, E extends Exception> {
    T call() throws E;
  }

  /**
   * Runs {@code call} as a managed block and returns its result, rethrowing what it threw.
   *
   * @param what what the call does, for the error when the wait is interrupted
   */
  public static <T, E extends Exception> T run(Call<T, E> call, String what) throws E {
    Object[] result = new Object[1];
    Exception[] failure = new Exception[1];
    try {
      ForkJoinPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
        private boolean done;

        @Override
        public boolean block() {
          try {
            result[0] = call.call();
          } catch (Exception e) {
            failure[0] = e;
          }
          done = true;
          return true;
        }

        @Override
        public boolean isReleasable() {
          return done;
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateStoreException("interrupted while " + what);
    }
    if (failure[0] instanceof RuntimeException r) {
      throw r;
    }
    if (failure[0] != null) {
      @SuppressWarnings("unchecked")
      E e = (E) failure[0];
      throw e;
    }
    @SuppressWarnings("unchecked")
    T t = (T) result[0];
    return t;
  }
}
