package io.cocoindex.runtime.state;

import java.util.Arrays;
import java.util.List;

/** The stored form of a possible-records list: count, then (version, length+1, bytes) each. */
final class RecordListEncoding {
  private RecordListEncoding() {}

  static byte[] encode(List<PossibleRecord> records) {
    byte[] out = new byte[encodedSize(records)];
    write(out, 0, records);
    return out;
  }

  /** How many bytes {@link #write} takes for {@code records}. */
  static int encodedSize(List<PossibleRecord> records) {
    int size = varLongSize(records.size());
    for (PossibleRecord r : records) {
      size += varLongSize(r.version());
      if (r.record() == null) {
        size += 1;
      } else {
        size += varLongSize(r.record().length + 1L) + r.record().length;
      }
    }
    return size;
  }

  /** Writes {@code records} into {@code out} from {@code p}; returns the position after them. */
  static int write(byte[] out, int p, List<PossibleRecord> records) {
    p = writeVarLong(out, p, records.size());
    for (PossibleRecord r : records) {
      p = writeVarLong(out, p, r.version());
      if (r.record() == null) {
        p = writeVarLong(out, p, 0);
      } else {
        p = writeVarLong(out, p, r.record().length + 1L);
        System.arraycopy(r.record(), 0, out, p, r.record().length);
        p += r.record().length;
      }
    }
    return p;
  }

  /** The records, as an unmodifiable list (which {@code TrackedState} then keeps as it is). */
  static List<PossibleRecord> decode(byte[] bytes) {
    return read(bytes, new int[] {0});
  }

  /**
   * Reads a list as {@link #read} does, resolved against {@code runs} as {@link
   * SettledRuns#resolve} would: when the newest record's run is settled, the records before it
   * are skipped rather than copied (after a first run, every state holds two).
   */
  static List<PossibleRecord> readResolved(byte[] bytes, int[] pos, SettledRuns runs) {
    int start = pos[0];
    long count = readVarLong(bytes, pos);
    if (count <= 1 || count > bytes.length || runs.isEmpty()) {
      pos[0] = start;
      return read(bytes, pos);
    }
    for (long i = 0; i < count - 1; i++) {
      skipOne(bytes, pos);
    }
    int newest = pos[0];
    long version = readVarLong(bytes, pos);
    if (!runs.contains(version)) {
      pos[0] = start;
      return read(bytes, pos);
    }
    pos[0] = newest;
    return List.of(readOne(bytes, pos));
  }

  private static PossibleRecord readOne(byte[] bytes, int[] pos) {
    long version = readVarLong(bytes, pos);
    long len = readVarLong(bytes, pos);
    byte[] record = null;
    if (len > 0) {
      int n = (int) (len - 1);
      if (len - 1 > bytes.length - pos[0]) {
        throw new StateStoreException("corrupt tracking record list: truncated");
      }
      record = Arrays.copyOfRange(bytes, pos[0], pos[0] + n);
      pos[0] += n;
    }
    return new PossibleRecord(version, record);
  }

  /** Advances {@code pos[0]} past a list {@link #write} wrote there, without reading it. */
  static void skip(byte[] bytes, int[] pos) {
    long count = readVarLong(bytes, pos);
    if (count < 0 || count > bytes.length) {
      throw new StateStoreException("corrupt tracking record list: " + count + " records");
    }
    for (long i = 0; i < count; i++) {
      skipOne(bytes, pos);
    }
  }

  /** Advances {@code pos[0]} past one record of a list (its version, length and bytes). */
  private static void skipOne(byte[] bytes, int[] pos) {
    readVarLong(bytes, pos);
    long len = readVarLong(bytes, pos);
    if (len > 0) {
      if (len - 1 > bytes.length - pos[0]) {
        throw new StateStoreException("corrupt tracking record list: truncated");
      }
      pos[0] += (int) (len - 1);
    }
  }

  /** Reads a list {@link #write} wrote at {@code pos[0]}, advancing it past the list. */
  static List<PossibleRecord> read(byte[] bytes, int[] pos) {
    int count = (int) readVarLong(bytes, pos);
    if (count < 0 || count > bytes.length) {
      throw new StateStoreException("corrupt tracking record list: " + count + " records");
    }
    PossibleRecord[] records = new PossibleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] = readOne(bytes, pos);
    }
    return count == 1 ? List.of(records[0]) : List.of(records);
  }

  static int varLongSize(long v) {
    int n = 1;
    while ((v & ~0x7FL) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  static int writeVarLong(byte[] out, int p, long v) {
    while ((v & ~0x7FL) != 0) {
      out[p++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[p++] = (byte) v;
    return p;
  }

  static long readVarLong(byte[] bytes, int[] pos) {
    int p = pos[0];
    if (p < bytes.length && bytes[p] >= 0) { // one byte, as most are: small enough to inline
      pos[0] = p + 1;
      return bytes[p];
    }
    return readLongerVarLong(bytes, pos);
  }

  private static long readLongerVarLong(byte[] bytes, int[] pos) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos[0] >= bytes.length) {
        throw new StateStoreException("corrupt tracking record list: truncated varint");
      }
      int b = bytes[pos[0]++] & 0xFF;
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new StateStoreException("corrupt tracking record list: varint too long");
  }
}
