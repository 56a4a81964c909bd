package io.cocoindex.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

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

  private final String type;
  private final String[] names;
  private final byte[][] utf8;
  private final Map<String, Integer> index;

  /**
   * @param type the record's canonical name, for error messages
   * @param names the record's field names, in component order; distinct and valid Unicode
   */
  public FieldNames(String type, String... names) {
    this.type = type;
    this.names = names.clone();
    this.utf8 = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      String name = names[i];
      if (name == null || !Utf8.isWellFormed(name)) {
        throw new IllegalArgumentException(type + ": field name " + i + " is "
            + (name == null ? "null" : "not valid Unicode"));
      }
      utf8[i] = name.getBytes(StandardCharsets.UTF_8);
      for (int k = 0; k < i; k++) {
        if (names[k].equals(name)) {
          throw new IllegalArgumentException(type + ": field name '" + name + "' is repeated");
        }
      }
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

  /** The record's canonical name. */
  public String type() {
    return type;
  }

  public int size() {
    return names.length;
  }

  /** The name of field {@code i}. */
  public String name(int i) {
    return names[i];
  }

  /** The length of field {@code i}'s name in UTF-8 bytes. */
  public int utf8Length(int i) {
    return utf8[i].length;
  }

  /** Copies field {@code i}'s name in UTF-8 into {@code out} at {@code pos}; returns the end. */
  public int copyUtf8(int i, byte[] out, int pos) {
    byte[] b = utf8[i];
    System.arraycopy(b, 0, out, pos, b.length);
    return pos + b.length;
  }

  /** The index of the field called {@code name}, or -1 when the record has no such field. */
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
   */
  public int match(byte[] in, int from, int len, int expected) {
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
