package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ByteKey;

/**
 * The components mounted in a run, by their encoded paths: what the orphan sweep keeps, and how a
 * parent mounting a key twice is found. Component threads add to it concurrently, so it is split
 * in segments by the path's hash, each a {@link PathTable} under its own lock.
 *
 * <p>It holds each path's bytes and no object per component: as a concurrent set of {@link
 * TargetPath}s it kept a map node and the path with its key (and its parent's path) for every
 * component to the run's end, about 140 bytes apiece beside the bytes.
 */
final class MountedComponents {
  private static final int SEGMENT_BITS = 6;

  private final PathTable[] segments = new PathTable[1 << SEGMENT_BITS];

  MountedComponents() {
    for (int i = 0; i < segments.length; i++) {
      segments[i] = PathTable.set();
    }
  }

  /** Notes {@code component} mounted; returns whether it was not noted before. */
  boolean add(TargetPath component) {
    int hash = component.hashCode();
    PathTable segment = segmentOf(hash);
    synchronized (segment) {
      return segment.putIfAbsent(hash, component.encodedUnsafe(), 0) < 0;
    }
  }

  /** Whether {@code component} was mounted. */
  boolean contains(TargetPath component) {
    return contains(component.hashCode(), component.encodedUnsafe());
  }

  /** Whether the component of this encoded path was mounted. */
  boolean contains(byte[] encoded) {
    return contains(ByteKey.hashOf(encoded), encoded);
  }

  private boolean contains(int hash, byte[] encoded) {
    PathTable segment = segmentOf(hash);
    synchronized (segment) {
      return segment.find(hash, encoded) >= 0;
    }
  }

  /** How many components were mounted. */
  int size() {
    int size = 0;
    for (PathTable segment : segments) {
      synchronized (segment) {
        size += segment.size();
      }
    }
    return size;
  }

  private PathTable segmentOf(int hash) {
    return segments[PathTable.spread(hash) >>> (32 - SEGMENT_BITS)];
  }
}
