package io.cocoindex.runtime.codec.generated;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.codec.CodecFormatException;
import io.cocoindex.codec.FieldNames;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.runtime.codec.KeyEncoding;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.UUID;

/**
 * {@link ValueReader} decoding Smile straight from the stored bytes: whatever Jackson's {@code
 * SmileGenerator} writes (shared names and shared string values, 7-bit or raw binary, big
 * numbers), so values written by the reflective codec, or by an earlier version, still read.
 * Lenient where the reflective codec is: numbers convert between kinds, UUIDs and fingerprints
 * may be text. Errors name where the value was found as a JSON pointer.
 */
final class SmileValueReader implements ValueReader {
  private static final int MAX_DEPTH = 1000;

  private static final ThreadLocal<SmileValueReader> CACHED = new ThreadLocal<>();

  private byte[] in;
  private int pos;
  private boolean sharedValues;
  /** Whether this reader is reading a value (a codec may decode another value meanwhile). */
  private boolean inUse;

  private String[] seenNames;
  // Per seen name, the generated codec's field names it matched and its index there, if any.
  private FieldNames[] seenNameOwners;
  private int[] seenNameIndexes;
  private int seenNameCount;
  private String[] seenValues;
  private int seenValueCount;

  // Where the reader is, for error messages: per open object its current field, per open array
  // its current index.
  private String[] fields = new String[8];
  private int[] indexes = new int[8];
  // Per open object, the index of the field last read by nextField(FieldNames), or -1.
  private int[] lastFieldIndexes = new int[8];
  private int depth;

  private SmileValueReader() {}

  /** A reader for tests: not this thread's cached one. */
  SmileValueReader(byte[] in) {
    start(in);
  }

  /**
   * A reader of {@code in}: this thread's cached one, or a new one while that is in use. Its
   * arrays outlive the value (a new reader per value allocated seven, a tenth of decoding a
   * small record); {@link #release} when done.
   *
   * @throws CodecFormatException when {@code in} has no Smile header
   */
  static SmileValueReader acquire(byte[] in) {
    SmileValueReader r = CACHED.get();
    if (r == null) {
      r = new SmileValueReader();
      CACHED.set(r);
    } else if (r.inUse) {
      r = new SmileValueReader();
    }
    r.start(in);
    r.inUse = true;
    return r;
  }

  /** Lets go of the input and of the strings this value shared, for the next value. */
  void release() {
    in = null;
    if (seenValueCount > 0) {
      Arrays.fill(seenValues, 0, seenValueCount, null);
    }
    inUse = false;
  }

  private void start(byte[] input) {
    if (input.length < 4 || input[0] != ':' || input[1] != ')' || input[2] != '\n') {
      throw new CodecFormatException("not a stored value: the Smile header is missing");
    }
    int flags = input[3] & 0xFF;
    if ((flags >> 4) != 0) {
      throw new CodecFormatException("unsupported Smile version " + (flags >> 4));
    }
    this.in = input;
    this.sharedValues = (flags & 0x02) != 0;
    this.pos = 4;
    this.depth = 0;
    this.seenNameCount = 0;
    this.seenValueCount = 0;
  }

  /** Whether the whole input was read (an end-of-content marker may close it). */
  boolean atEnd() {
    return pos == in.length || (pos == in.length - 1 && (in[pos] & 0xFF) == 0xFF);
  }

  // ---- structure ----

  @Override
  public boolean readNull() {
    if (pos < in.length && in[pos] == 0x21) {
      pos++;
      return true;
    }
    return false;
  }

  @Override
  public void beginObject() {
    expect(0xFA, "an object");
    push(null);
  }

  @Override
  public String nextField() {
    int t = peek("a field name");
    if (t == 0xFB) {
      pos++;
      depth--;
      return null;
    }
    String name = readName(t);
    if (name == null) {
      throw mismatch("a field name");
    }
    fields[depth - 1] = name;
    return name;
  }

  @Override
  public int nextField(FieldNames names) {
    int t = peek("a field name");
    if (t == 0xFB) {
      pos++;
      depth--;
      return FieldNames.END;
    }
    if (t >= 0x40 && t <= 0x7F) { // a name seen before in this value: its index was kept
      int ref = t & 0x3F;
      if (ref < seenNameCount && seenNameOwners[ref] == names) {
        pos++;
        fields[depth - 1] = seenNames[ref];
        return lastFieldIndexes[depth - 1] = seenNameIndexes[ref];
      }
    } else if (t >= 0x80 && t <= 0xBF) { // a new short ASCII name: matched by its bytes
      int len = (t & 0x3F) + 1;
      int index = pos + 1 + len <= in.length
          ? names.match(in, pos + 1, len, lastFieldIndexes[depth - 1] + 1) : -1;
      if (index >= 0) {
        pos += 1 + len;
        String name = names.name(index);
        addName(name, names, index);
        fields[depth - 1] = name;
        return lastFieldIndexes[depth - 1] = index;
      }
    }
    String name = readName(t);
    if (name == null) {
      throw mismatch("a field name");
    }
    fields[depth - 1] = name;
    int index = names.indexOf(name);
    if (index < 0) {
      throw CodecFormatException.unknownField(names.type(), name);
    }
    return lastFieldIndexes[depth - 1] = index;
  }

  @Override
  public void beginArray() {
    expect(0xF8, "an array");
    push(null);
    indexes[depth - 1] = -1;
  }

  @Override
  public boolean nextElement() {
    if (peek("an array element") == 0xF9) {
      pos++;
      depth--;
      return false;
    }
    indexes[depth - 1]++;
    return true;
  }

  @Override
  public void skipValue() {
    int t = peek("a value");
    if (t == 0xFA) {
      beginObject();
      while (nextField() != null) {
        skipValue();
      }
    } else if (t == 0xF8) {
      beginArray();
      while (nextElement()) {
        skipValue();
      }
    } else if (isString(t)) {
      readString();
    } else if (isBinary(t)) {
      readBytes();
    } else if (t >= 0x21 && t <= 0x23) {
      pos++;
    } else if (isNumber(t)) {
      number();
    } else {
      throw mismatch("a value");
    }
  }

  // ---- scalars ----

  @Override
  public boolean readBoolean() {
    int t = peek("a boolean");
    if (t == 0x21) {
      pos++;
      return false;
    }
    if (t != 0x22 && t != 0x23) {
      throw mismatch("a boolean");
    }
    pos++;
    return t == 0x23;
  }

  @Override
  public int readInt() {
    return (int) readLong();
  }

  @Override
  public long readLong() {
    if (pos < in.length) {
      int t = in[pos] & 0xFF;
      if (t >= 0xC0 && t <= 0xDF) { // the common case, without boxing
        pos++;
        return zigzag(t & 0x1F);
      }
      if (t == 0x24 || t == 0x25) {
        pos++;
        return zigzag(readVInt());
      }
    }
    return number().longValue();
  }

  @Override
  public float readFloat() {
    return number().floatValue();
  }

  @Override
  public double readDouble() {
    if (pos < in.length && (in[pos] & 0xFF) == 0x29) { // the common case, without boxing
      pos++;
      return Double.longBitsToDouble(readFixed7Bit(10));
    }
    return number().doubleValue();
  }

  /** A number of any kind, boxed as Long, Float, Double, BigInteger or BigDecimal; null is 0. */
  private Number number() {
    int t = peek("a number");
    if (t == 0x21) {
      pos++;
      return 0L;
    }
    if (t >= 0xC0 && t <= 0xDF) {
      pos++;
      return zigzag(t & 0x1F);
    }
    switch (t) {
      case 0x24:
      case 0x25:
        pos++;
        return zigzag(readVInt());
      case 0x26:
        pos++;
        return new BigInteger(read7BitBinary());
      case 0x28: {
        pos++;
        long bits = readFixed7Bit(5);
        return Float.intBitsToFloat((int) bits);
      }
      case 0x29:
        pos++;
        return Double.longBitsToDouble(readFixed7Bit(10));
      case 0x2A: {
        pos++;
        int scale = (int) zigzag(readVInt());
        return new BigDecimal(new BigInteger(read7BitBinary()), scale);
      }
      default:
        throw mismatch("a number");
    }
  }

  @Override
  public String readString() {
    int t = peek("a string");
    if (t == 0x21) {
      pos++;
      return null;
    }
    if (t == 0x20) {
      pos++;
      return "";
    }
    if (t >= 0x40 && t <= 0x7F) { // tiny and short ASCII
      pos++;
      return shared(ascii((t & 0x3F) + 1));
    }
    if (t >= 0x80 && t <= 0xBF) { // tiny and short Unicode
      pos++;
      return shared(utf8((t & 0x3F) + 2));
    }
    if (t == 0xE0 || t == 0xE4) { // long text, up to the end-of-string marker
      pos++;
      int end = endOfString();
      String s = t == 0xE0 ? ascii(end - pos) : utf8(end - pos);
      pos++;
      return s;
    }
    if (sharedValues && t >= 0x01 && t <= 0x1F) {
      pos++;
      return seenValue(t - 1);
    }
    if (sharedValues && t >= 0xEC && t <= 0xEF) {
      need(2);
      int ref = ((t & 0x03) << 8) | (in[pos + 1] & 0xFF);
      pos += 2;
      return seenValue(ref);
    }
    throw mismatch("a string");
  }

  @Override
  public byte[] readBytes() {
    int t = peek("binary data");
    if (t == 0x21) {
      pos++;
      return null;
    }
    if (t == 0xE8) {
      pos++;
      return read7BitBinary();
    }
    if (t == 0xFD) {
      pos++;
      int len = lengthVInt();
      need(len);
      byte[] b = Arrays.copyOfRange(in, pos, pos + len);
      pos += len;
      return b;
    }
    if (isString(t)) { // the text form Jackson accepts: base64
      String text = readString();
      try {
        return Base64.getMimeDecoder().decode(text);
      } catch (IllegalArgumentException e) {
        throw new CodecFormatException("expected base64 binary data at " + where() + ": " + e);
      }
    }
    throw mismatch("binary data");
  }

  @Override
  public UUID readUuid() {
    if (isString(peek("a UUID"))) {
      return UUID.fromString(readString());
    }
    byte[] b = readBytes();
    if (b == null) {
      return null;
    }
    if (b.length != 16) {
      throw new CodecFormatException("a stored UUID has " + b.length + " bytes, not 16");
    }
    long hi = 0;
    long lo = 0;
    for (int k = 0; k < 8; k++) {
      hi = (hi << 8) | (b[k] & 0xFF);
      lo = (lo << 8) | (b[8 + k] & 0xFF);
    }
    return new UUID(hi, lo);
  }

  @Override
  public Fingerprint readFingerprint() {
    int t = peek("a fingerprint");
    if (t != 0x20 && isString(t)) {
      String text = readString();
      try {
        return text.startsWith("#")
            ? Fingerprint.parse(text) : new Fingerprint(Base64.getDecoder().decode(text));
      } catch (IllegalArgumentException e) {
        // What a String component that became a Fingerprint reads: say so, not base64's words.
        throw new CodecFormatException("expected a fingerprint at " + where()
            + ", found a string that is not one");
      }
    }
    byte[] b = readBytes();
    if (b != null && b.length != Fingerprint.LENGTH) {
      throw new CodecFormatException("expected a fingerprint (" + Fingerprint.LENGTH
          + " bytes) at " + where() + ", found " + b.length + " bytes of binary data");
    }
    return b == null ? null : new Fingerprint(b);
  }

  @Override
  public StableKey readStableKey() {
    byte[] b = readBytes();
    return b == null ? null : KeyEncoding.decode(b);
  }

  // ---- decoding ----

  /** A field name token, or null when {@code t} is not one. */
  private String readName(int t) {
    if (t == 0x20) {
      pos++;
      return "";
    }
    if (t >= 0x40 && t <= 0x7F) {
      pos++;
      return seenName(t & 0x3F);
    }
    if (t >= 0x30 && t <= 0x33) {
      need(2);
      int ref = ((t & 0x03) << 8) | (in[pos + 1] & 0xFF);
      pos += 2;
      return seenName(ref);
    }
    String name;
    if (t >= 0x80 && t <= 0xBF) {
      pos++;
      name = asciiName((t & 0x3F) + 1);
    } else if (t >= 0xC0 && t <= 0xF7) {
      pos++;
      name = utf8((t & 0x3F) + 2);
    } else if (t == 0x34) {
      pos++;
      int end = endOfString();
      name = utf8(end - pos);
      pos++;
    } else {
      return null;
    }
    addName(name, null, 0);
    return name;
  }

  /** Records a new name; {@code owner} and {@code index} say which generated field it is. */
  private void addName(String name, FieldNames owner, int index) {
    if (seenNames == null) {
      seenNames = new String[16];
      seenNameOwners = new FieldNames[16];
      seenNameIndexes = new int[16];
    }
    if (seenNameCount == SmileValueWriter.MAX_SHARED_NAMES) {
      seenNameCount = 0; // the writer restarts its table here too
    }
    if (seenNameCount == seenNames.length) {
      int grown = Math.min(seenNames.length * 4, SmileValueWriter.MAX_SHARED_NAMES);
      seenNames = Arrays.copyOf(seenNames, grown);
      seenNameOwners = Arrays.copyOf(seenNameOwners, grown);
      seenNameIndexes = Arrays.copyOf(seenNameIndexes, grown);
    }
    seenNameOwners[seenNameCount] = owner;
    seenNameIndexes[seenNameCount] = index;
    seenNames[seenNameCount++] = name;
  }

  private String seenName(int ref) {
    if (ref >= seenNameCount) {
      throw new CodecFormatException("corrupt stored value: field name reference " + ref
          + " at " + where() + " but only " + seenNameCount + " names were seen");
    }
    return seenNames[ref];
  }

  /** Records a short string value when the writer shared them (Smile header flag). */
  private String shared(String s) {
    if (sharedValues) {
      if (seenValues == null) {
        seenValues = new String[SmileValueWriter.MAX_SHARED_NAMES];
      }
      if (seenValueCount == SmileValueWriter.MAX_SHARED_NAMES) {
        seenValueCount = 0;
      }
      seenValues[seenValueCount++] = s;
    }
    return s;
  }

  private String seenValue(int ref) {
    if (ref >= seenValueCount) {
      throw new CodecFormatException("corrupt stored value: string reference " + ref + " at "
          + where() + " but only " + seenValueCount + " strings were seen");
    }
    return seenValues[ref];
  }

  private String ascii(int len) {
    need(len);
    String s = new String(in, pos, len, StandardCharsets.ISO_8859_1);
    pos += len;
    return s;
  }

  /**
   * Field names recur in every value of a type: keep the strings, so reading a name neither
   * allocates nor hashes a new string. (Not values: distinct short values would evict the
   * names.) An entry is compared by its bytes, which the JDK compares vectorized; slots are
   * replaced racily, and an entry is immutable, so it is safely published either way.
   */
  private static final CachedName[] NAME_CACHE = new CachedName[1024];

  private record CachedName(String name, byte[] ascii) {}

  private String asciiName(int len) {
    need(len);
    int h = len * 0x9E3779B1
        ^ in[pos]
        ^ (in[pos + (len >> 2)] << 8)
        ^ (in[pos + (len >> 1)] << 16)
        ^ (in[pos + len - 1] << 24);
    int slot = (h ^ (h >>> 15)) & (NAME_CACHE.length - 1);
    CachedName cached = NAME_CACHE[slot];
    if (cached != null && sameBytes(cached.ascii, len)) {
      pos += len;
      return cached.name;
    }
    byte[] ascii = Arrays.copyOfRange(in, pos, pos + len);
    String name = ascii(len);
    NAME_CACHE[slot] = new CachedName(name, ascii);
    return name;
  }

  /** Whether the next {@code len} input bytes are {@code name}'s (checked to be there). */
  private boolean sameBytes(byte[] name, int len) {
    if (name.length != len) {
      return false;
    }
    if (len > 16) {
      return Arrays.equals(name, 0, len, in, pos, pos + len);
    }
    for (int k = 0; k < len; k++) { // short: cheaper than the vectorized compare's setup
      if (name[k] != in[pos + k]) {
        return false;
      }
    }
    return true;
  }

  private String utf8(int len) {
    need(len);
    String s = new String(in, pos, len, StandardCharsets.UTF_8);
    pos += len;
    return s;
  }

  private int endOfString() {
    for (int i = pos; i < in.length; i++) {
      if ((in[i] & 0xFF) == 0xFC) {
        return i;
      }
    }
    throw truncated();
  }

  /** Smile's variable-length unsigned integer (see {@link SmileValueWriter}). */
  private long readVInt() {
    long v = 0;
    for (int n = 0; n < 10; n++) {
      need(1);
      int b = in[pos++] & 0xFF;
      if ((b & 0x80) != 0) {
        return (v << 6) | (b & 0x3F);
      }
      v = (v << 7) | b;
    }
    throw new CodecFormatException("corrupt stored value: a number at " + where()
        + " is longer than 10 bytes");
  }

  private int lengthVInt() {
    long len = readVInt();
    if (len < 0 || len > Integer.MAX_VALUE - 16) {
      throw new CodecFormatException("corrupt stored value: length " + len + " at " + where());
    }
    return (int) len;
  }

  /** {@code count} 7-bit groups, most significant first. */
  private long readFixed7Bit(int count) {
    need(count);
    long v = 0;
    for (int k = 0; k < count; k++) {
      v = (v << 7) | (in[pos++] & 0x7F);
    }
    return v;
  }

  private byte[] read7BitBinary() {
    int len = lengthVInt();
    byte[] out = new byte[len];
    int full = len / 7;
    int rest = len % 7;
    need(full * 8 + (rest == 0 ? 0 : rest + 1));
    int o = 0;
    for (int c = 0; c < full; c++) {
      long v = sevenBitGroups(in, pos);
      pos += 8;
      for (int shift = 48; shift >= 0; shift -= 8) {
        out[o++] = (byte) (v >>> shift);
      }
    }
    if (rest > 0) {
      long v = readFixed7Bit(rest);
      v = (v << rest) | (in[pos++] & ((1 << rest) - 1));
      for (int shift = 8 * (rest - 1); shift >= 0; shift -= 8) {
        out[o++] = (byte) (v >>> shift);
      }
    }
    return out;
  }

  /**
   * The 56 bits of the eight 7-bit groups at {@code at}, most significant first: as {@code
   * readFixed7Bit(8)}, read as one word and joined pairwise (a fingerprint is two such words and
   * is read for every tracked state of a rerun).
   */
  static long sevenBitGroups(byte[] bytes, int at) {
    long x = (long) BIG_ENDIAN_LONGS.get(bytes, at) & 0x7F7F7F7F7F7F7F7FL;
    x = (x & 0x007F007F007F007FL) | ((x & 0x7F007F007F007F00L) >>> 1);
    x = (x & 0x00003FFF00003FFFL) | ((x & 0x3FFF00003FFF0000L) >>> 2);
    return (x & 0x000000000FFFFFFFL) | ((x & 0x0FFFFFFF00000000L) >>> 4);
  }

  private static final VarHandle BIG_ENDIAN_LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private static long zigzag(long v) {
    return (v >>> 1) ^ -(v & 1);
  }

  private static boolean isString(int t) {
    return t == 0x20 || (t >= 0x40 && t <= 0xBF) || t == 0xE0 || t == 0xE4
        || (t >= 0x01 && t <= 0x1F) || (t >= 0xEC && t <= 0xEF);
  }

  private static boolean isBinary(int t) {
    return t == 0xE8 || t == 0xFD;
  }

  private static boolean isNumber(int t) {
    return (t >= 0xC0 && t <= 0xDF) || (t >= 0x24 && t <= 0x2A && t != 0x27);
  }

  // ---- position and errors ----

  private int peek(String expected) {
    if (pos >= in.length) {
      throw mismatch(expected);
    }
    return in[pos] & 0xFF;
  }

  private void expect(int token, String expected) {
    if (peek(expected) != token) {
      throw mismatch(expected);
    }
    pos++;
  }

  private void need(int n) {
    if (n < 0 || pos + n > in.length) {
      throw truncated();
    }
  }

  private void push(String field) {
    if (depth == MAX_DEPTH) {
      throw new CodecFormatException("stored value nests deeper than " + MAX_DEPTH + " levels");
    }
    if (depth == fields.length) {
      fields = Arrays.copyOf(fields, depth * 2);
      indexes = Arrays.copyOf(indexes, depth * 2);
      lastFieldIndexes = Arrays.copyOf(lastFieldIndexes, depth * 2);
    }
    fields[depth] = field;
    indexes[depth] = Integer.MIN_VALUE; // an object, until beginArray says otherwise
    lastFieldIndexes[depth] = -1;
    depth++;
  }

  private CodecFormatException truncated() {
    return new CodecFormatException("corrupt stored value: truncated at " + where());
  }

  private CodecFormatException mismatch(String expected) {
    return new CodecFormatException("expected " + expected + " at " + where() + ", found "
        + found());
  }

  /** The JSON pointer of the current position, or "the top level". */
  private String where() {
    StringBuilder p = new StringBuilder();
    for (int d = 0; d < depth; d++) {
      if (indexes[d] != Integer.MIN_VALUE) {
        if (indexes[d] >= 0) {
          p.append('/').append(indexes[d]);
        }
      } else if (fields[d] != null) {
        p.append('/').append(fields[d].replace("~", "~0").replace("/", "~1"));
      }
    }
    return p.length() == 0 ? "the top level" : p.toString();
  }

  private String found() {
    if (pos >= in.length) {
      return "the end of the input";
    }
    int t = in[pos] & 0xFF;
    if (t == 0x21) {
      return "null";
    }
    if (t == 0x22 || t == 0x23) {
      return "a boolean";
    }
    if (t == 0xFA) {
      return "an object";
    }
    if (t == 0xF8) {
      return "an array";
    }
    if (t == 0xFB) {
      return "the end of an object";
    }
    if (t == 0xF9) {
      return "the end of an array";
    }
    if (isBinary(t)) {
      return "binary data";
    }
    if (isNumber(t)) {
      return "a number";
    }
    if (isString(t)) {
      return "a string";
    }
    return "the byte 0x" + Integer.toHexString(t);
  }
}
