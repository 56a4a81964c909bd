package io.cocoindex.runtime.state;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The stored form of a possible-records list: count, then (version, length+1, bytes) each. */
final class RecordListEncoding {
  private RecordListEncoding() {}

  static byte[] encode(List<PossibleRecord> records) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writeVarLong(out, records.size());
    for (PossibleRecord r : records) {
      writeVarLong(out, r.version());
      if (r.record() == null) {
        writeVarLong(out, 0);
      } else {
        writeVarLong(out, r.record().length + 1L);
        out.writeBytes(r.record());
      }
    }
    return out.toByteArray();
  }

  static List<PossibleRecord> decode(byte[] bytes) {
    int[] pos = {0};
    int count = (int) readVarLong(bytes, pos);
    List<PossibleRecord> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long version = readVarLong(bytes, pos);
      long len = readVarLong(bytes, pos);
      byte[] record = null;
      if (len > 0) {
        int n = (int) (len - 1);
        if (pos[0] + n > bytes.length) {
          throw new StateStoreException("corrupt tracking record list: truncated");
        }
        record = Arrays.copyOfRange(bytes, pos[0], pos[0] + n);
        pos[0] += n;
      }
      records.add(new PossibleRecord(version, record));
    }
    return records;
  }

  static void writeVarLong(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  static long readVarLong(byte[] bytes, int[] pos) {
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
