package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.RecordListEncoding.readVarLong;
import static io.cocoindex.runtime.state.RecordListEncoding.writeVarLong;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The stored form of every target state one component owns, as one value ({@link
 * ComponentStateTables}): a format byte, the number of states, then per state in path order the
 * length of the prefix its path shares with the path before it, the rest of the path, its
 * possible records ({@link RecordListEncoding}) and its four lineage numbers. Every number is an
 * unsigned varint. A component's paths share their connector's prefix, so most of each path is
 * written once.
 */
final class ComponentStates {
  private ComponentStates() {}

  /** The only format so far; a value in another is refused rather than misread. */
  private static final int FORMAT = 1;

  /** The most bytes a varint of a long takes. */
  private static final int MAX_VARLONG = 10;

  /**
   * The encoded value of {@code states}, which must be in path order with distinct paths. One
   * pass into a buffer that grows as needed, then a copy at the exact size: a first pass that
   * only sized the value compared every path with the one before it twice (the state writer's
   * largest Java cost in a cold run, 1.8% of all samples).
   */
  static byte[] encode(Collection<TrackedState> states) {
    // About what a row's state takes; a component of very many states grows the buffer instead
    // of taking a large one up front.
    byte[] out = new byte[64 + 48 * Math.min(states.size(), 1 << 16)];
    out[0] = FORMAT;
    int p = writeVarLong(out, 1, states.size());
    byte[] previous = new byte[0];
    for (TrackedState s : states) {
      int shared = sharedPrefix(previous, s.path());
      int rest = s.path().length - shared;
      int most = 6 * MAX_VARLONG + rest + RecordListEncoding.encodedSize(s.records());
      if (p + most > out.length) {
        out = Arrays.copyOf(out, Math.max(2 * out.length, p + most));
      }
      p = writeVarLong(out, p, shared);
      p = writeVarLong(out, p, rest);
      System.arraycopy(s.path(), shared, out, p, rest);
      p += rest;
      p = RecordListEncoding.write(out, p, s.records());
      p = writeVarLong(out, p, s.childGeneration());
      p = writeVarLong(out, p, s.childEpoch());
      p = writeVarLong(out, p, s.parentGeneration());
      p = writeVarLong(out, p, s.parentEpoch());
      previous = s.path();
    }
    return Arrays.copyOf(out, p);
  }

  /**
   * The states of {@code owner} in {@code bytes}, in path order, each with its possible records
   * resolved against {@code settledRuns}. The states share {@code owner}'s array.
   *
   * @throws StateStoreException when the value is not one {@link #encode} wrote
   */
  static List<TrackedState> decode(byte[] bytes, byte[] owner, SettledRuns settledRuns) {
    if (bytes.length == 0 || bytes[0] != FORMAT) {
      throw new StateStoreException("corrupt tracking of component states: format "
          + (bytes.length == 0 ? "missing" : Integer.toString(bytes[0])));
    }
    int[] pos = {1};
    long count = readVarLong(bytes, pos);
    if (count < 0 || count > bytes.length) {
      throw new StateStoreException("corrupt tracking of component states: " + count + " states");
    }
    List<TrackedState> out = new ArrayList<>((int) count);
    byte[] previous = new byte[0];
    for (long i = 0; i < count; i++) {
      long shared = readVarLong(bytes, pos);
      long rest = readVarLong(bytes, pos);
      if (shared > previous.length || rest < 0 || pos[0] + rest > bytes.length) {
        throw new StateStoreException("corrupt tracking of component states: bad path");
      }
      byte[] path = Arrays.copyOf(previous, (int) (shared + rest));
      System.arraycopy(bytes, pos[0], path, (int) shared, (int) rest);
      pos[0] += (int) rest;
      List<PossibleRecord> records = RecordListEncoding.readResolved(bytes, pos, settledRuns);
      out.add(new TrackedState(path, owner, records, readVarLong(bytes, pos),
          readVarLong(bytes, pos), readVarLong(bytes, pos), readVarLong(bytes, pos)));
      previous = path;
    }
    if (pos[0] != bytes.length) {
      throw new StateStoreException("corrupt tracking of component states: trailing bytes");
    }
    return out;
  }

  private static int sharedPrefix(byte[] a, byte[] b) {
    int i = Arrays.mismatch(a, b);
    return i < 0 ? a.length : i;
  }
}
