package io.cocoindex.runtime.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Component paths noted during a run, in the order noted, as their bytes in {@link ByteChunks}:
 * a list the run keeps to its end for a question rarely asked (a failed run's), which holds no
 * object per path. Thread-safe.
 */
final class PathLog {
  private final ByteChunks chunks = new ByteChunks();
  private int size;

  /** Notes {@code path}. */
  synchronized void add(TargetPath path) {
    chunks.appendSized(path.encodedUnsafe());
    size++;
  }

  /** How many paths were noted (a path noted twice counts twice). */
  synchronized int size() {
    return size;
  }

  /**
   * Hands the paths over in the order noted, {@code batch} at a time, decoded: once the run's
   * components have ended (a note made meanwhile waits for the last batch).
   */
  synchronized void forEachBatch(int batch, Consumer<List<TargetPath>> each) {
    List<TargetPath> paths = new ArrayList<>(Math.min(batch, size));
    for (int c = 0; c < chunks.chunkCount(); c++) {
      byte[] chunk = chunks.chunk(c);
      for (int at = 0; at < chunks.used(c); ) {
        int length = ByteChunks.sizeAt(chunk, at);
        at += Integer.BYTES;
        paths.add(TargetPath.decode(Arrays.copyOfRange(chunk, at, at + length)));
        at += length;
        if (paths.size() == batch) {
          each.accept(paths);
          paths = new ArrayList<>(batch);
        }
      }
    }
    if (!paths.isEmpty()) {
      each.accept(paths);
    }
  }
}
