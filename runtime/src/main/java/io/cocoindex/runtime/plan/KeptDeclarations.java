package io.cocoindex.runtime.plan;

import java.util.Arrays;
import java.util.List;

/**
 * What each component that kept paths it owned declared in this run, appended in the order they
 * claimed, for {@link Claims} to look up only if a takeover from one of them comes (most runs see
 * none). A component is its path's bytes, then the bytes of every path it declared, each with its
 * length before it in 4 bytes, copied into large chunks: nothing is kept per component but its
 * bytes. Kept as objects (a list slot, the component's {@link TargetPath} with its key, the array
 * of its declared paths and its holder), a million components of one state each held about 100
 * bytes apiece to the run's end beside the bytes.
 *
 * <p>Not thread-safe; {@link Claims} locks.
 */
final class KeptDeclarations {
  private final ByteChunks chunks = new ByteChunks();

  /** What {@link #forEach} hands over: a component and the paths it declared. */
  interface Visitor {
    /**
     * @param component the component's encoded path (a copy)
     * @param declared its declared paths, each as its length in 4 bytes and then its bytes (a
     *     copy)
     */
    void visit(byte[] component, byte[] declared);
  }

  /** Appends {@code component}, which declared {@code declared}. */
  void add(TargetPath component, List<DeclaredTarget> declared) {
    byte[] path = component.encodedUnsafe();
    int size = 2 * Integer.BYTES + path.length;
    for (DeclaredTarget d : declared) {
      size += Integer.BYTES + d.path().encodedUnsafe().length;
    }
    int location = chunks.reserve(size);
    byte[] into = chunks.chunkAt(location);
    int at = ByteChunks.putSized(into, ByteChunks.offsetOf(location), path);
    ByteChunks.putSize(into, at, size - 2 * Integer.BYTES - path.length);
    at += Integer.BYTES;
    for (DeclaredTarget d : declared) {
      at = ByteChunks.putSized(into, at, d.path().encodedUnsafe());
    }
  }

  /** Hands every component appended over, in the order they were appended. */
  void forEach(Visitor visitor) {
    for (int c = 0; c < chunks.chunkCount(); c++) {
      byte[] chunk = chunks.chunk(c);
      for (int at = 0; at < chunks.used(c); ) {
        int length = ByteChunks.sizeAt(chunk, at);
        at += Integer.BYTES;
        byte[] component = Arrays.copyOfRange(chunk, at, at + length);
        at += length;
        int declaredLength = ByteChunks.sizeAt(chunk, at);
        at += Integer.BYTES;
        visitor.visit(component, Arrays.copyOfRange(chunk, at, at + declaredLength));
        at += declaredLength;
      }
    }
  }

  /** Lets go of the chunks, which may have reached the old generation. */
  void clear() {
    chunks.clear();
  }
}
