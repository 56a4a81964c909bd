package io.cocoindex.runtime.state;

import java.util.ArrayList;
import java.util.List;

/**
 * The tracked states of one component as a read returned them, decoded by whoever first asks
 * ({@link #get}). A read ahead then costs the thread that makes it only the reading: each
 * component decodes its own states, on its own thread, while the next read goes on (a window of
 * 64 components decoded under the read-ahead's lock kept the other component thread waiting
 * for about a tenth of a rerun).
 */
public final class OwnedStates {
  private static final OwnedStates NONE = new OwnedStates(List.of());

  private final byte[] owner;
  private final List<byte[]> chunks;
  private final SettledRuns settledRuns;
  private List<TrackedState> decoded;

  private OwnedStates(List<TrackedState> decoded) {
    this.owner = null;
    this.chunks = List.of();
    this.settledRuns = null;
    this.decoded = decoded;
  }

  private OwnedStates(byte[] owner, SettledRuns settledRuns) {
    this.owner = owner;
    this.chunks = new ArrayList<>(1);
    this.settledRuns = settledRuns;
  }

  /**
   * States already decoded.
   *
   * @param states the states, in path order
   * @return the states as owned states (a shared empty instance for none)
   */
  public static OwnedStates of(List<TrackedState> states) {
    return states.isEmpty() ? NONE : new OwnedStates(states);
  }

  /** The encoded chunks of {@code owner}, added in path order by {@link #add}. */
  static OwnedStates encoded(byte[] owner, SettledRuns settledRuns) {
    return new OwnedStates(owner, settledRuns);
  }

  void add(byte[] chunk) {
    chunks.add(chunk);
  }

  /**
   * The states, in path order.
   *
   * @return the states, decoded at the first call and kept
   * @throws StateStoreException when a chunk is corrupt
   */
  public synchronized List<TrackedState> get() {
    if (decoded == null) {
      if (chunks.size() == 1) {
        decoded = ComponentStates.decode(chunks.get(0), owner, settledRuns);
      } else {
        List<TrackedState> all = new ArrayList<>();
        for (byte[] chunk : chunks) {
          all.addAll(ComponentStates.decode(chunk, owner, settledRuns));
        }
        decoded = all;
      }
    }
    return decoded;
  }
}
