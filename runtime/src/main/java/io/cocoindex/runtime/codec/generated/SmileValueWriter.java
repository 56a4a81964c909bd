package io.cocoindex.runtime.codec.generated;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.codec.FieldNames;
import io.cocoindex.codec.GeneratedCodecs;
import io.cocoindex.codec.Utf8;
import io.cocoindex.codec.ValueWriter;
import io.cocoindex.runtime.codec.KeyEncoding;
import java.util.Arrays;
import java.util.UUID;

/**
 * {@link ValueWriter} writing Smile straight into a reusable byte array, byte for byte what
 * Jackson's {@code SmileGenerator} writes with the reflective codec's settings (header, shared
 * names, binary as 7-bit data, no shared string values), so the two codecs stay interchangeable.
 *
 * <p>Why not Jackson's generator: building a generator and its I/O context per value cost more
 * than writing the value, and made the generated codecs no faster than databind. One instance per
 * thread is reused ({@link #acquire}); it holds the shared-name table of the document being
 * written.
 */
final class SmileValueWriter implements ValueWriter {
  /** ":)\n" and version 0 with shared names enabled. */
  private static final byte[] HEADER = {':', ')', '\n', 0x01};
  /** Jackson restarts its shared-name table once this many names were seen. */
  static final int MAX_SHARED_NAMES = 1024;
  /**
   * The size of Jackson's output buffer: a string whose worst-case UTF-8 form does not fit in it
   * is marked Unicode even when it is ASCII. Matched so the bytes stay identical.
   */
  private static final int JACKSON_OUTPUT_BUFFER = 8000;
  private static final int TABLE_SLOTS = 2 * MAX_SHARED_NAMES;

  private static final ThreadLocal<SmileValueWriter> CACHED = new ThreadLocal<>();

  private byte[] buf = new byte[512];
  private int size;

  // Shared names: index -> name. A name some FieldNames holds is found by its number there
  // (FieldNames.nameId): per number, the reference this document gave it, valid only when stamped
  // with the current generation (so a new document clears it in O(1)). Any other name (a map
  // key) is found in an open-addressing table name -> index, stamped the same way. Looking a
  // record's field up by hash, for every field of every document, had cost a sixth of encoding.
  private final String[] seenNames = new String[MAX_SHARED_NAMES];
  private int seenCount;
  private final int[] slotIndex = new int[TABLE_SLOTS];
  private final int[] slotStamp = new int[TABLE_SLOTS];
  /** Names this document put in the hash table: none, and a FieldNames name needs no probe. */
  private int hashedCount;
  private int[] idRef = new int[64];
  private int[] idStamp = new int[64];
  private int generation = 1;

  /** Whether this writer is writing a document (a codec may encode another value meanwhile). */
  private boolean inUse;

  /**
   * A writer for one document: this thread's cached one, or a new one while that is in use. One
   * thread-local read per document: taking the writer out of the cache and putting it back cost
   * two more.
   */
  static SmileValueWriter acquire() {
    SmileValueWriter w = CACHED.get();
    if (w == null) {
      w = new SmileValueWriter();
      CACHED.set(w);
    } else if (w.inUse) {
      w = new SmileValueWriter();
    }
    w.inUse = true;
    w.start();
    return w;
  }

  /** The document written, copied out; the writer is free again. */
  byte[] finish() {
    byte[] out = Arrays.copyOf(buf, size);
    release();
    return out;
  }

  /** Frees the writer without a result (after a failure). */
  void release() {
    if (buf.length > 1 << 16) {
      buf = new byte[512]; // do not pin one huge value's buffer to the thread
    }
    inUse = false;
  }

  private void start() {
    size = 0;
    resetNames();
    put(HEADER);
  }

  private void resetNames() {
    seenCount = 0;
    hashedCount = 0;
    if (++generation == 0) {
      Arrays.fill(slotStamp, 0);
      Arrays.fill(idStamp, 0);
      generation = 1;
    }
  }

  // ---- structure ----

  @Override
  public void beginObject() {
    put(0xFA);
  }

  @Override
  public void field(String name) {
    if (name.isEmpty()) {
      put(0x20);
      return;
    }
    int id = FieldNames.nameId(name); // a map key may also be some record's field name
    int freeSlot = -1;
    if (id >= 0) {
      if (writeKnownRef(id, name)) {
        return;
      }
    } else {
      int found = findName(name);
      if (found >= 0) {
        writeNameRef(found);
        return;
      }
      freeSlot = -1 - found;
    }
    ensure(3 * name.length() + 2);
    int type = size++;
    nameType(type, writeUtf8(name), name.length());
    if (id >= 0) {
      addNumberedName(name, id);
    } else {
      addName(name, freeSlot);
    }
  }

  @Override
  public void field(FieldNames names, int index) {
    String name = names.name(index);
    if (name.isEmpty()) {
      put(0x20);
      return;
    }
    int id = names.nameId(index);
    if (writeKnownRef(id, name)) {
      return;
    }
    int bytes = names.utf8Length(index);
    ensure(bytes + 2);
    int type = size++;
    size = names.copyUtf8(index, buf, size);
    nameType(type, bytes, name.length());
    addNumberedName(name, id);
  }

  /**
   * Writes a reference to the name numbered {@code id} when this document wrote it before, and
   * says whether it did.
   */
  private boolean writeKnownRef(int id, String name) {
    if (id < idStamp.length && idStamp[id] == generation) {
      writeNameRef(idRef[id]);
      return true;
    }
    if (hashedCount > 0) {
      // Written before it was numbered (a map key, before the first record with that field
      // name was loaded): in the hash table.
      int found = findName(name);
      if (found >= 0) {
        writeNameRef(found);
        return true;
      }
    }
    return false;
  }

  /** Writes a reference to the name this document wrote {@code ref}-th. */
  private void writeNameRef(int ref) {
    if (ref < 64) {
      put(0x40 + ref);
    } else {
      ensure(2);
      buf[size++] = (byte) (0x30 + (ref >> 8));
      buf[size++] = (byte) ref;
    }
  }

  /** Sets the type byte at {@code type} of a new name of {@code len} chars, now written. */
  private void nameType(int type, int bytes, int len) {
    if (bytes == len && bytes <= 64) {
      buf[type] = (byte) (0x80 - 1 + bytes);
    } else if (bytes != len && bytes <= 56 && len <= 64) {
      buf[type] = (byte) (0xC0 - 2 + bytes);
    } else {
      buf[type] = 0x34;
      buf[size++] = (byte) 0xFC;
    }
  }

  @Override
  public void endObject() {
    put(0xFB);
  }

  @Override
  public void beginArray() {
    put(0xF8);
  }

  @Override
  public void endArray() {
    put(0xF9);
  }

  // ---- scalars ----

  @Override
  public void writeNull() {
    put(0x21);
  }

  @Override
  public void writeBoolean(boolean value) {
    put(value ? 0x23 : 0x22);
  }

  @Override
  public void writeInt(int value) {
    int z = (value << 1) ^ (value >> 31);
    ensure(6);
    if (z >= 0 && z <= 0x1F) {
      buf[size++] = (byte) (0xC0 + z);
      return;
    }
    buf[size++] = 0x24;
    writeVInt(z & 0xFFFFFFFFL);
  }

  @Override
  public void writeLong(long value) {
    if (value == (int) value) {
      writeInt((int) value);
      return;
    }
    ensure(11);
    buf[size++] = 0x25;
    writeVInt((value << 1) ^ (value >> 63));
  }

  @Override
  public void writeFloat(float value) {
    int i = Float.floatToRawIntBits(value);
    ensure(6);
    buf[size++] = 0x28;
    buf[size++] = (byte) (i >>> 28);
    buf[size++] = (byte) ((i >> 21) & 0x7F);
    buf[size++] = (byte) ((i >> 14) & 0x7F);
    buf[size++] = (byte) ((i >> 7) & 0x7F);
    buf[size++] = (byte) (i & 0x7F);
  }

  @Override
  public void writeDouble(double value) {
    long l = Double.doubleToRawLongBits(value);
    ensure(11);
    buf[size++] = 0x29;
    for (int shift = 63; shift >= 0; shift -= 7) {
      buf[size++] = (byte) ((l >>> shift) & 0x7F);
    }
  }

  @Override
  public void writeString(String value) {
    if (value == null) {
      writeNull();
      return;
    }
    int len = value.length();
    if (len == 0) {
      put(0x20);
      return;
    }
    ensure(3 * len + 2);
    int type = size++;
    int bytes = writeUtf8(value);
    if (bytes <= 64) {
      buf[type] = (byte) (bytes == len ? 0x40 - 1 + bytes : 0x80 - 2 + bytes);
    } else {
      boolean ascii = bytes == len && (len <= 65 || 3 * len + 2 <= JACKSON_OUTPUT_BUFFER);
      buf[type] = (byte) (ascii ? 0xE0 : 0xE4);
      buf[size++] = (byte) 0xFC;
    }
  }

  @Override
  public void writeBytes(byte[] value) {
    if (value == null) {
      writeNull();
      return;
    }
    int len = value.length;
    ensure(6 + len + len / 7 + 1);
    buf[size++] = (byte) 0xE8;
    writeVInt(len);
    int i = 0;
    for (; i + 7 <= len; i += 7) {
      long v = 0;
      for (int k = 0; k < 7; k++) {
        v = (v << 8) | (value[i + k] & 0xFF);
      }
      for (int shift = 49; shift >= 0; shift -= 7) {
        buf[size++] = (byte) ((v >>> shift) & 0x7F);
      }
    }
    int rest = len - i;
    if (rest > 0) {
      // rest bytes as rest groups of 7 bits, then a last group of the remaining rest bits.
      long v = 0;
      for (int k = 0; k < rest; k++) {
        v = (v << 8) | (value[i + k] & 0xFF);
      }
      for (int shift = 8 * rest - 7; shift >= rest; shift -= 7) {
        buf[size++] = (byte) ((v >>> shift) & 0x7F);
      }
      buf[size++] = (byte) (v & ((1 << rest) - 1));
    }
  }

  @Override
  public void writeUuid(UUID value) {
    if (value == null) {
      writeNull();
      return;
    }
    byte[] b = new byte[16];
    long hi = value.getMostSignificantBits();
    long lo = value.getLeastSignificantBits();
    for (int k = 0; k < 8; k++) {
      b[k] = (byte) (hi >>> (56 - 8 * k));
      b[8 + k] = (byte) (lo >>> (56 - 8 * k));
    }
    writeBytes(b);
  }

  @Override
  public void writeFingerprint(Fingerprint value) {
    writeBytes(value == null ? null : value.bytes());
  }

  @Override
  public void writeStableKey(StableKey value) {
    writeBytes(value == null ? null : KeyEncoding.encode(value));
  }

  // ---- encoding ----

  /**
   * Smile's variable-length unsigned integer: 7-bit groups, most significant first, the last
   * group holding 6 bits and marked by the high bit.
   */
  private void writeVInt(long v) {
    int groups = 0;
    for (long rest = v >>> 6; rest != 0; rest >>>= 7) {
      groups++;
    }
    for (int g = groups; g > 0; g--) {
      buf[size++] = (byte) ((v >>> (6 + 7 * (g - 1))) & 0x7F);
    }
    buf[size++] = (byte) (0x80 | (v & 0x3F));
  }

  static final String UNPAIRED_SURROGATE = GeneratedCodecs.UNPAIRED_SURROGATE;

  /** Writes the UTF-8 form of {@code s} at the end; returns its length in bytes. */
  private int writeUtf8(String s) {
    int end = Utf8.encode(s, buf, size);
    if (end < 0) {
      throw new IllegalArgumentException(UNPAIRED_SURROGATE);
    }
    int written = end - size;
    size = end;
    return written;
  }

  /**
   * The reference of {@code name} if this document wrote it before; otherwise {@code -1 - slot},
   * the free slot of the table where {@link #addName} puts it.
   */
  private int findName(String name) {
    int slot = name.hashCode() & (TABLE_SLOTS - 1);
    while (slotStamp[slot] == generation) {
      String seen = seenNames[slotIndex[slot]];
      if (seen == name || seen.equals(name)) {
        return slotIndex[slot];
      }
      slot = (slot + 1) & (TABLE_SLOTS - 1);
    }
    return -1 - slot;
  }

  /** Records a new name at {@code freeSlot}, which {@link #findName} returned. */
  private void addName(String name, int freeSlot) {
    if (seenCount == MAX_SHARED_NAMES) {
      resetNames();
      freeSlot = name.hashCode() & (TABLE_SLOTS - 1); // the table is empty again
    }
    int ref = seenCount++;
    seenNames[ref] = name;
    if (shareable(ref)) {
      slotStamp[freeSlot] = generation;
      slotIndex[freeSlot] = ref;
      hashedCount++;
    }
  }

  /** Records a new name that is numbered {@code id} (see {@link FieldNames#nameId(int)}). */
  private void addNumberedName(String name, int id) {
    if (seenCount == MAX_SHARED_NAMES) {
      resetNames();
    }
    int ref = seenCount++;
    seenNames[ref] = name;
    if (shareable(ref)) {
      if (id >= idStamp.length) {
        int grown = Math.max(2 * idStamp.length, id + 1);
        idStamp = Arrays.copyOf(idStamp, grown);
        idRef = Arrays.copyOf(idRef, grown);
      }
      idStamp[id] = generation;
      idRef[id] = ref;
    }
  }

  /** A reference whose second byte would be 0xFE or 0xFF is never written: Smile reserves them. */
  private static boolean shareable(int ref) {
    return (ref & 0xFF) < 0xFE;
  }

  private void put(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  private void put(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, size, bytes.length);
    size += bytes.length;
  }

  private void ensure(int n) {
    if (size + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
    }
  }
}
