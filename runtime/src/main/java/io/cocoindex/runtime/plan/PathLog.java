package io.cocoindex.runtime.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Component paths noted during a run, in the order noted, as their bytes in {@link ByteChunks}:
 * a list the run keeps to its end, which holds no object per path (a cold run notes every
 * component in one, a memoized cold run in another). Thread-safe.
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

  /** Whether no path was noted. */
  synchronized boolean isEmpty() {
    return size == 0;
  }

  /**
   * Hands the paths noted before this call over in the order noted, {@code batch} at a time,
   * decoded. What {@code each} does runs outside this log's lock: a note made meanwhile (by a
   * stopped run's task still under way) does not wait for it.
   */
  void forEachBatch(int batch, Consumer<List<TargetPath>> each) {
    byte[][] noted;
    int[] used;
    synchronized (this) {
      // Chunks are only appended to: what they hold now stays as it is.
      noted = new byte[chunks.chunkCount()][];
      used = new int[noted.length];
      for (int c = 0; c < noted.length; c++) {
        noted[c] = chunks.chunk(c);
        used[c] = chunks.used(c);
      }
    }
    List<TargetPath> paths = new ArrayList<>();
    for (int c = 0; c < noted.length; c++) {
      byte[] chunk = noted[c];
      for (int at = 0; at < used[c]; ) {
        int length = ByteChunks.sizeAt(chunk, at);
        at += Integer.BYTES;
        paths.add(TargetPath.decode(Arrays.copyOfRange(chunk, at, at + length)));
        at += length;
        if (paths.size() == batch) {
          each.accept(paths);
          paths = new ArrayList<>();
        }
      }
    }
    if (!paths.isEmpty()) {
      each.accept(paths);
    }
  }
}
