package io.cocoindex.runtime;

/**
 * One processing component that failed in a run, or, as {@code /}, the run's end-of-run
 * deletions refused ({@link DeletionLimitExceededException}).
 *
 * @param component the component path, e.g. {@code /"files"/"a.md"}
 * @param error what went wrong: for a sink that threw, the sink's own exception, as it threw it
 * @param context what the component was doing when {@code error} was thrown, where its message
 *     alone would not tell (a sink: {@code the sink of provider 'rows' failed applying 3 actions
 *     (update "k1", "k2"; delete "k3")}), or null
 */
public record ComponentFailure(String component, Throwable error, String context) {
  /**
   * A failure whose error says what failed.
   *
   * @param component the component path
   * @param error what went wrong
   */
  public ComponentFailure(String component, Throwable error) {
    this(component, error, null);
  }

  /**
   * The failure as a user reads it: its {@link #context}, if any, then the error's message.
   *
   * @return e.g. {@code the sink of provider 'rows' failed applying 1 action (create "k1"): disk
   *     full}
   */
  public String message() {
    if (context == null) {
      return String.valueOf(error.getMessage());
    }
    String own = error.getMessage();
    return context + ": " + (own == null ? error.toString() : own);
  }

  @Override
  public String toString() {
    return component + ": " + (context == null ? error.toString() : context + ": " + error);
  }
}
