package io.cocoindex.runtime.plan;

/**
 * Thrown inside a run that was stopped early ({@link Run#abort}): a stage that would apply or
 * commit, or a wait for another component, gives up. The app reports the error that stopped the
 * run, not this.
 */
public final class RunAborted extends RuntimeException {
  /**
   * The stop of a run, thrown where it gives up.
   *
   * @param cause the error that stopped the run ({@link Run#abortedBy})
   */
  public RunAborted(Throwable cause) {
    super("the run was stopped by " + cause, cause, false, false);
  }

  /**
   * The error in {@code error} that leaves the JVM in a state no run should go on in: out of
   * memory, or the VM's internal failures. A {@link StackOverflowError} is not: it unwinds one
   * thread's work (a deep input, a deep recursion in a component), and fails that component
   * alone. Looked for in the causes too (16 deep at most): a sink or a store reports what it was
   * given.
   *
   * @param error what was thrown, or null
   * @return {@code error} or the first of its causes that is fatal, or null if none is
   */
  public static Throwable fatalIn(Throwable error) {
    for (int depth = 0; error != null && depth < 16; depth++, error = error.getCause()) {
      if (error instanceof VirtualMachineError && !(error instanceof StackOverflowError)) {
        return error;
      }
    }
    return null;
  }
}
