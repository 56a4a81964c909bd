package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.codec.KeyEncoding;
import java.util.Arrays;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The subtrees of a run whose tracking must be left alone (memo hits, failed bodies), and the
 * question the sweep asks of every unvisited component: does one of them cover it?
 *
 * <p>A memoized rerun protects every memoized component, and the sweep asks about each of their
 * unvisited descendants, so the answer is neither a scan of the subtrees (with 8,000 memoized
 * parents of 5 children each, that made a rerun about 3 s) nor a look-up per ancestor (each
 * one's path built anew made it cubic in a chain of memoized components: 30 s for 1,600).
 * Paths sort by their encoding, in which an ancestor's is a prefix (keys encode self-delimited).
 * The greatest protected path at or before a component is its ancestor if any protected one sorts
 * below that point; when it is not, every protected ancestor is a prefix of both, and the search
 * goes on from their longest common whole-key prefix, which shortens each time: one or two
 * look-ups in practice.
 */
final class ProtectedSubtrees {
  private final ConcurrentSkipListSet<byte[]> roots =
      new ConcurrentSkipListSet<>(Arrays::compareUnsigned);

  /** Protects {@code subtree} and everything below it. */
  void add(TargetPath subtree) {
    roots.add(subtree.encodedUnsafe());
  }

  boolean isEmpty() {
    return roots.isEmpty();
  }

  /** Whether {@code component} or one of its ancestors was added. */
  boolean covers(TargetPath component) {
    if (roots.isEmpty()) {
      return false;
    }
    byte[] path = component.encodedUnsafe();
    byte[] bound = path;
    int[] keyEnds = null;
    while (true) {
      byte[] floor = roots.floor(bound);
      if (floor == null) {
        return false;
      }
      int common = Arrays.mismatch(floor, path);
      if (common < 0 || common == floor.length) {
        return true; // the component itself, or a prefix of its path: an ancestor
      }
      if (keyEnds == null) {
        keyEnds = KeyEncoding.keyEnds(path);
      }
      int cut = 0;
      for (int end : keyEnds) {
        if (end > common) {
          break;
        }
        cut = end;
      }
      bound = Arrays.copyOf(path, cut);
    }
  }
}
