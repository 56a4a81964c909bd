package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.RecordListEncoding.readVarLong;
import static io.cocoindex.runtime.state.RecordListEncoding.writeVarLong;

import io.cocoindex.runtime.codec.KeyEncoding;
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
    try {
      return decodeOf(bytes, owner, settledRuns);
    } catch (StateStoreException e) {
      // Named by its component, so an operator can find the damaged row.
      throw new StateStoreException(e.getMessage() + ", in the tracking of component "
          + KeyEncoding.describePath(owner), e);
    }
  }

  private static List<TrackedState> decodeOf(
      byte[] bytes, byte[] owner, SettledRuns settledRuns) {
    checkFormat(bytes);
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
      if (shared < 0 || shared > previous.length || rest < 0 || pos[0] + rest > bytes.length) {
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

  /**
   * How many states {@code bytes} holds, read from its header.
   *
   * @throws StateStoreException when the value is not one {@link #encode} wrote
   */
  static long count(byte[] bytes) {
    checkFormat(bytes);
    return readVarLong(bytes, new int[] {1});
  }

  private static void checkFormat(byte[] bytes) {
    if (bytes.length == 0 || bytes[0] != FORMAT) {
      throw new StateStoreException("corrupt tracking of component states: format "
          + (bytes.length == 0 ? "missing" : Integer.toString(bytes[0])));
    }
  }

  /**
   * {@code stored}, a value {@link #encode} wrote, with each state of {@code replacements} in
   * place of the stored state at its path (the last one of a path wins); null when a path is not
   * stored. The states before, between and after them are copied as they are, and the walk stops
   * at the last replaced one: a change to one state of a chunk no longer decodes and encodes
   * every state of it (the state writer's largest Java cost in a change of one row in every
   * component). A state keeps its path, so its neighbours' shared prefixes stay as they were.
   *
   * @throws StateStoreException when {@code stored} is not a value {@link #encode} wrote
   */
  static byte[] replace(byte[] stored, List<TrackedState> replacements) {
    checkFormat(stored);
    TrackedState[] targets = inPathOrder(replacements);
    int room = 0;
    for (TrackedState t : targets) {
      room += 4 * MAX_VARLONG + RecordListEncoding.encodedSize(t.records());
    }
    byte[] out = new byte[stored.length + room];
    int[] pos = {1};
    long count = readVarLong(stored, pos);
    int o = 0;
    int copied = 0; // stored[0, copied) is in out[0, o), as it was or replaced
    byte[] path = new byte[64];
    int pathLength = 0;
    int next = 0;
    for (long i = 0; i < count && next < targets.length; i++) {
      long shared = readVarLong(stored, pos);
      long rest = readVarLong(stored, pos);
      if (shared < 0 || shared > pathLength || rest < 0 || pos[0] + rest > stored.length) {
        throw new StateStoreException("corrupt tracking of component states: bad path");
      }
      pathLength = (int) (shared + rest);
      if (pathLength > path.length) {
        path = Arrays.copyOf(path, Math.max(2 * path.length, pathLength));
      }
      System.arraycopy(stored, pos[0], path, (int) shared, (int) rest);
      pos[0] += (int) rest;
      int recordsAt = pos[0];
      RecordListEncoding.skip(stored, pos);
      for (int k = 0; k < 4; k++) {
        readVarLong(stored, pos);
      }
      byte[] target = targets[next].path();
      int order = Arrays.compareUnsigned(path, 0, pathLength, target, 0, target.length);
      if (order > 0) {
        return null; // passed where the target would be
      }
      if (order == 0) {
        TrackedState t = targets[next++];
        System.arraycopy(stored, copied, out, o, recordsAt - copied);
        o += recordsAt - copied;
        o = RecordListEncoding.write(out, o, t.records());
        o = writeVarLong(out, o, t.childGeneration());
        o = writeVarLong(out, o, t.childEpoch());
        o = writeVarLong(out, o, t.parentGeneration());
        o = writeVarLong(out, o, t.parentEpoch());
        copied = pos[0];
      }
    }
    if (next < targets.length) {
      return null; // past the last stored path
    }
    System.arraycopy(stored, copied, out, o, stored.length - copied);
    return Arrays.copyOf(out, o + stored.length - copied);
  }

  /** {@code states} by path, the last of each path only. */
  private static TrackedState[] inPathOrder(List<TrackedState> states) {
    if (states.size() == 1) {
      return new TrackedState[] {states.get(0)};
    }
    List<TrackedState> sorted = new ArrayList<>(states);
    // Stable: of the states of one path, the last made stays last.
    sorted.sort((a, b) -> Arrays.compareUnsigned(a.path(), b.path()));
    List<TrackedState> out = new ArrayList<>(sorted.size());
    for (int i = 0; i < sorted.size(); i++) {
      if (i + 1 < sorted.size() && Arrays.equals(sorted.get(i).path(), sorted.get(i + 1).path())) {
        continue;
      }
      out.add(sorted.get(i));
    }
    return out.toArray(new TrackedState[0]);
  }

  private static int sharedPrefix(byte[] a, byte[] b) {
    int i = Arrays.mismatch(a, b);
    return i < 0 ? a.length : i;
  }
}
