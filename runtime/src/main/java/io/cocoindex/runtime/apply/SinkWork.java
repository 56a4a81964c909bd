package io.cocoindex.runtime.apply;

/**
 * What one submission asks a sink to apply, in words, for the report of its failure or of the
 * run it stopped: whose sink, and which actions. Kept in two parts so that each report says it
 * its own way ({@link #failed}, {@link #underWay}).
 *
 * @param sink whose sink, e.g. {@code the sink of provider 'rows'}
 * @param actions which actions, e.g. {@code 3 actions (update "k1", "k2"; delete "k3")}
 */
public record SinkWork(String sink, String actions) {
  /**
   * The work as a failure tells it.
   *
   * @return e.g. {@code the sink of provider 'rows' failed applying 3 actions (update "k1")}
   */
  public String failed() {
    return sink + " failed applying " + actions;
  }

  /**
   * The work as the place a run stopped in.
   *
   * @return e.g. {@code the sink of provider 'rows' applying 3 actions (update "k1")}
   */
  public String underWay() {
    return sink + " applying " + actions;
  }
}
