package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.codec.KeyEncoding;
import java.util.Arrays;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * A set of subtrees, and the question asked of a path: does one of them cover it (the path itself
 * or an ancestor)? A run keeps the subtrees whose tracking must be left alone (memo hits, failed
 * bodies), asked about every unvisited component; the orphan sweep keeps the containers it
 * deleted or failed to delete, asked about every later candidate.
 *
 * <p>A memoized rerun protects every memoized component, and the sweep asks about each of their
 * unvisited descendants, so the answer is neither a scan of the subtrees (with 8,000 memoized
 * parents of 5 children each, that made a rerun about 3 s) nor a look-up per ancestor (each
 * one's path built anew made it cubic in a chain of memoized components: 30 s for 1,600).
 * Paths sort by their encoding, in which an ancestor's is a prefix (keys encode self-delimited).
 * The greatest added path at or before the asked one is its ancestor if any added one sorts
 * below that point; when it is not, every added ancestor is a prefix of both, and the search
 * goes on from their longest common whole-key prefix, which shortens each time: one or two
 * look-ups in practice. Subtrees may nest.
 */
final class Subtrees {
  private final ConcurrentSkipListSet<byte[]> roots =
      new ConcurrentSkipListSet<>(Arrays::compareUnsigned);

  /** Adds {@code subtree}: it and everything below it are covered. */
  void add(TargetPath subtree) {
    add(subtree.encodedUnsafe());
  }

  /** Adds the subtree at the encoded path {@code subtree}. */
  void add(byte[] subtree) {
    roots.add(subtree);
  }

  boolean isEmpty() {
    return roots.isEmpty();
  }

  /** Whether {@code path} or one of its ancestors was added. */
  boolean covers(TargetPath path) {
    if (roots.isEmpty()) {
      return false;
    }
    byte[] encoded = path.encodedUnsafe();
    byte[] bound = encoded;
    int[] keyEnds = null;
    while (true) {
      byte[] floor = roots.floor(bound);
      if (floor == null) {
        return false;
      }
      int common = Arrays.mismatch(floor, encoded);
      if (common < 0 || common == floor.length) {
        return true; // the path itself, or a prefix of it: an ancestor
      }
      if (keyEnds == null) {
        keyEnds = KeyEncoding.keyEnds(encoded);
      }
      int cut = 0;
      for (int end : keyEnds) {
        if (end > common) {
          break;
        }
        cut = end;
      }
      bound = Arrays.copyOf(encoded, cut);
    }
  }
}
