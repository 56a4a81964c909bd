package io.cocoindex.runtime.plan;

import java.util.Arrays;

/**
 * An encoded target-state path as a hash key, hashed once: a component looks each of its paths
 * up several times (claimed, loaded, reconciled), and a declared path reuses the hash its
 * {@link TargetPath} already holds. Stored rows are matched by these bytes, never decoded.
 */
final class PathKey {
  private final byte[] encoded;
  private final int hash;

  private PathKey(byte[] encoded, int hash) {
    this.encoded = encoded;
    this.hash = hash;
  }

  static PathKey of(TargetPath path) {
    return new PathKey(path.encodedUnsafe(), path.hashCode());
  }

  /** The key of a stored path; its bytes are not copied and must not change. */
  static PathKey ofEncoded(byte[] encoded) {
    return new PathKey(encoded, TargetPath.hashOf(encoded));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathKey k && hash == k.hash && Arrays.equals(encoded, k.encoded);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
