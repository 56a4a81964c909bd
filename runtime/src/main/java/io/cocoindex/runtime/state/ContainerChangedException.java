package io.cocoindex.runtime.state;

import io.cocoindex.runtime.codec.KeyEncoding;

/**
 * A write batch was refused: the children it writes were resolved in a child generation of
 * their container that another worker's run has since moved past ({@link
 * StateWrite.ContainerUnchanged}). Nothing of the batch was written; the component runs again in
 * a later run, against the container as it is then.
 */
public final class ContainerChangedException extends RuntimeException {
  /**
   * The refusal of a batch writing below {@code container}.
   *
   * @param container the encoded path of the container
   * @param resolved the child generation and epoch the children were resolved in
   * @param stored the container's tracking as found, or null when it is gone
   */
  public ContainerChangedException(byte[] container, long[] resolved, TrackedState stored) {
    super("the children of " + KeyEncoding.decodePath(container) + " were resolved in its child"
        + " generation " + resolved[0] + " (epoch " + resolved[1] + "), and another worker's run "
        + (stored == null ? "has since deleted it"
            : "has since changed it (generation " + stored.childGeneration() + ", epoch "
                + stored.childEpoch() + "): declared without children, or its children"
                + " destroyed")
        + "; nothing was written below it, and the component runs again in a later run");
  }
}
