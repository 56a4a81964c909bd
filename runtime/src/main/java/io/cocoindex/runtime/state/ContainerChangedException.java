package io.cocoindex.runtime.state;

import io.cocoindex.runtime.codec.KeyEncoding;
import java.util.Collection;

/**
 * Two workers of one round, reading the source at different moments, disagreed about a
 * container on a store shared by workers: one changed its child generation (declared it without
 * children, destroyed its children, or deleted it) while the other wrote children in the
 * generation before. The component that failed with it applied nothing, and runs again in a
 * later run, against the container as it is then.
 */
public final class ContainerChangedException extends RuntimeException {
  /** The encoded path of the container whose condition refused a write, or null. */
  private final byte[] refusedBy;

  private ContainerChangedException(String message, byte[] refusedBy) {
    super(message);
    this.refusedBy = refusedBy;
  }

  /**
   * A write batch refused: the children it writes were resolved in a child generation of their
   * container that another worker's run has since moved past ({@link
   * StateWrite.ContainerUnchanged}). Nothing of the batch was written.
   *
   * @param container the encoded path of the container
   * @param resolved the child generation and epoch the children were resolved in
   * @param stored the container's tracking as found, or null when it is gone
   * @return the exception
   */
  public static ContainerChangedException refused(
      byte[] container, long[] resolved, TrackedState stored) {
    return new ContainerChangedException("the children of " + KeyEncoding.decodePath(container)
        + " were resolved in its child generation " + resolved[0] + " (epoch " + resolved[1]
        + "), and another worker's run "
        + (stored == null ? "has since deleted it"
            : "has since changed it (generation " + stored.childGeneration() + ", epoch "
                + stored.childEpoch() + "): declared without children, its children"
                + " destroyed, or its deletion under way")
        + "; nothing was written below it, and the component runs again in a later run",
        container.clone());
  }

  /**
   * A container's change of child generation held back: children below it were precommitted,
   * and not settled, by other runs still going, whose writes may land after its action.
   *
   * @param container the container's path, as shown to a user
   * @param runs the versions of those runs
   * @return the exception
   */
  public static ContainerChangedException childrenInFlight(
      String container, Collection<Long> runs) {
    return new ContainerChangedException("the children of " + container + " are being written"
        + " by another worker's run (version " + runs.stream().sorted().toList() + ") in their"
        + " current generation: its change (declared without children, its children destroyed,"
        + " or its deletion) is not applied, and a later run makes it", null);
  }

  /**
   * The container whose condition refused a write batch ({@link #refused}): only the writes
   * below it had to go, the rest may be written again without them.
   *
   * @return its encoded path, a copy; null for a change held back ({@link #childrenInFlight})
   */
  public byte[] refusedBy() {
    return refusedBy == null ? null : refusedBy.clone();
  }
}
