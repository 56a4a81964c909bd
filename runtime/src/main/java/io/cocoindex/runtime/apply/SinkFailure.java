package io.cocoindex.runtime.apply;

/**
 * A sink's exception on its way from {@link SinkBatcher} to the component that submitted the
 * actions, with what the sink was applying for that component. The engine takes it apart where
 * it records the failure: the component's error is the sink's own exception ({@link #getCause}),
 * as the sink threw it, and {@link #work} says which provider's sink and what actions.
 */
public final class SinkFailure extends RuntimeException {
  private final SinkWork work;

  SinkFailure(SinkWork work, Throwable sinkError) {
    // No stack trace of its own: it is made on the sink's thread, and says nothing the sink's
    // exception does not.
    super(work.failed() + ": " + messageOf(sinkError), sinkError, false, false);
    this.work = work;
  }

  /**
   * What the sink was applying, in parts.
   *
   * @return the sink and its actions
   */
  public SinkWork work() {
    return work;
  }

  /**
   * What the sink was applying, e.g. {@code the sink of provider 'rows' failed applying 3
   * actions (update "k1", "k2"; delete "k3")}.
   *
   * @return the context, without the sink's message
   */
  public String context() {
    return work.failed();
  }

  /** The sink's message, or its exception's name when it gave none. */
  static String messageOf(Throwable sinkError) {
    String own = sinkError.getMessage();
    return own == null ? sinkError.toString() : own;
  }
}
