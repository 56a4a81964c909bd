package io.cocoindex.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The field names of one generated record codec, in component order, encoded once. A reader
 * matches a stored name against them by its bytes and hands the codec the field's index, so
 * reading a field neither builds nor hashes a string; a writer copies a name's bytes instead of
 * encoding it. Each generated codec holds one instance in a constant.
 */
public final class FieldNames {
  /** What {@link ValueReader#nextField(FieldNames)} returns at the end of an object. */
  public static final int END = -1;

  /** Above this many names, {@link #indexOf} looks a name up in a hash map. */
  private static final int LINEAR_MAX = 8;

  /** Every name of every instance so far, numbered from 0 in the order they first came. */
  private static final Map<String, Integer> NAME_IDS = new ConcurrentHashMap<>();
  private static final AtomicInteger NEXT_NAME_ID = new AtomicInteger();

  private final String type;
  private final String[] names;
  private final byte[][] utf8;
  /** Per name, its UTF-8 length, and for one of up to 8 bytes those bytes as one word. */
  private final int[] lengths;
  private final long[] words;
  private final Map<String, Integer> index;
  /** Per name, its number in {@link #NAME_IDS}. */
  private final int[] ids;

  /**
   * Encodes the field names of one record.
   *
   * @param type the record's canonical name, for error messages
   * @param names the record's field names, in component order; distinct and valid Unicode
   * @throws IllegalArgumentException naming the record when a name is null, repeated or not
   *     valid Unicode
   */
  public FieldNames(String type, String... names) {
    this.type = type;
    this.names = names.clone();
    this.utf8 = new byte[names.length][];
    this.lengths = new int[names.length];
    this.words = new long[names.length];
    this.ids = new int[names.length];
    for (int i = 0; i < names.length; i++) {
      String name = names[i];
      if (name == null || !Utf8.isWellFormed(name)) {
        throw new IllegalArgumentException(type + ": field name " + i + " is "
            + (name == null ? "null" : "not valid Unicode"));
      }
      utf8[i] = name.getBytes(StandardCharsets.UTF_8);
      lengths[i] = utf8[i].length;
      words[i] = lengths[i] <= Long.BYTES ? word(utf8[i], 0, lengths[i]) : 0;
      for (int k = 0; k < i; k++) {
        if (names[k].equals(name)) {
          throw new IllegalArgumentException(type + ": field name '" + name + "' is repeated");
        }
      }
      ids[i] = NAME_IDS.computeIfAbsent(name, n -> NEXT_NAME_ID.getAndIncrement());
    }
    if (names.length > LINEAR_MAX) {
      Map<String, Integer> map = new HashMap<>();
      for (int i = 0; i < names.length; i++) {
        map.put(names[i], i);
      }
      this.index = map;
    } else {
      this.index = null;
    }
  }

  /**
   * The record's canonical name.
   *
   * @return the name given to the constructor, for error messages
   */
  public String type() {
    return type;
  }

  /**
   * The number of fields.
   *
   * @return how many names this instance holds
   */
  public int size() {
    return names.length;
  }

  /**
   * The name of field {@code i}.
   *
   * @param i the field's index, in component order
   * @return the field's name
   */
  public String name(int i) {
    return names[i];
  }

  /**
   * The number of the name of field {@code i}: small, and the same for an equal name in any
   * instance, so a writer can find the names a document already holds by number, not by hash.
   *
   * @param i the field's index, in component order
   * @return the name's number, from 0
   */
  public int nameId(int i) {
    return ids[i];
  }

  /**
   * The number {@link #nameId(int)} gives {@code name}, or -1 when no instance has it.
   *
   * @param name a field name
   * @return the name's number, or -1
   */
  public static int nameId(String name) {
    Integer id = NAME_IDS.get(name);
    return id == null ? -1 : id;
  }

  /**
   * The length of field {@code i}'s name in UTF-8 bytes.
   *
   * @param i the field's index, in component order
   * @return the byte length of the encoded name
   */
  public int utf8Length(int i) {
    return utf8[i].length;
  }

  /**
   * Copies field {@code i}'s name in UTF-8 into {@code out} at {@code pos}; returns the end.
   *
   * @param i the field's index, in component order
   * @param out the buffer, with room for {@link #utf8Length(int)} bytes at {@code pos}
   * @param pos where the name's first byte goes
   * @return the position after the name's last byte
   */
  public int copyUtf8(int i, byte[] out, int pos) {
    byte[] b = utf8[i];
    System.arraycopy(b, 0, out, pos, b.length);
    return pos + b.length;
  }

  /**
   * The index of the field called {@code name}, or -1 when the record has no such field.
   *
   * @param name a stored field's name
   * @return the field's index in component order, or -1
   */
  public int indexOf(String name) {
    if (index != null) {
      Integer i = index.get(name);
      return i == null ? -1 : i;
    }
    for (int i = 0; i < names.length; i++) {
      if (names[i] == name) {
        return i;
      }
    }
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The index of the field whose UTF-8 name is {@code in[from, from + len)}, or -1 when none is.
   * Field {@code expected} is tried first (fields are stored in component order, so the one after
   * the last field read is usually the next; any other value is only a missed guess), then every
   * field, told apart by length first, which most are.
   *
   * @param in the buffer holding the stored name
   * @param from the position of the name's first byte
   * @param len the name's length in bytes
   * @param expected the index to try first, usually the one after the last field read
   * @return the field's index in component order, or -1
   */
  public int match(byte[] in, int from, int len, int expected) {
    if (len <= Long.BYTES && from + Long.BYTES <= in.length) {
      // Most names are short: one word compare each. Byte by byte, matching names took an
      // eighth of a Document round trip's samples; as words, its decode got about 8% faster.
      long w = (long) WORDS.get(in, from) & mask(len);
      if (expected >= 0 && expected < words.length && lengths[expected] == len
          && words[expected] == w) {
        return expected;
      }
      for (int i = 0; i < words.length; i++) {
        if (lengths[i] == len && words[i] == w) {
          return i;
        }
      }
      return -1;
    }
    if (expected >= 0 && expected < utf8.length) {
      byte[] b = utf8[expected];
      if (b.length == len && sameBytes(b, in, from)) {
        return expected;
      }
    }
    for (int i = 0; i < utf8.length; i++) {
      byte[] b = utf8[i];
      if (b.length == len && sameBytes(b, in, from)) {
        return i;
      }
    }
    return -1;
  }

  private static final VarHandle WORDS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** The low {@code len} bytes of a little-endian word (len from 0 to 8). */
  private static long mask(int len) {
    return len == Long.BYTES ? -1L : (1L << (Byte.SIZE * len)) - 1;
  }

  /** {@code len} (at most 8) bytes from {@code from} as the low bytes of a little-endian word. */
  private static long word(byte[] b, int from, int len) {
    long w = 0;
    for (int k = len - 1; k >= 0; k--) {
      w = (w << Byte.SIZE) | (b[from + k] & 0xFF);
    }
    return w;
  }

  private static boolean sameBytes(byte[] name, byte[] in, int from) {
    if (name.length > 16) {
      return Arrays.equals(name, 0, name.length, in, from, from + name.length);
    }
    for (int k = 0; k < name.length; k++) { // short: cheaper than the vectorized compare's setup
      if (name[k] != in[from + k]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return type + Arrays.toString(names);
  }
}
