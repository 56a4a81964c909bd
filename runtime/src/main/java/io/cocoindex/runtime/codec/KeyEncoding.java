package io.cocoindex.runtime.codec;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * An order-preserving, self-delimiting byte encoding of {@link StableKey}s and key paths: a path's
 * encoding is the concatenation of its keys' encodings, so every descendant of a path starts with
 * the path's bytes and a prefix range scan finds a container's children.
 *
 * <p>Every key starts with a tag byte in {@code 0x01..0x0A}; variable-length payloads escape
 * {@code 0x00} as {@code 0x00 0xFF} and end with {@code 0x00 0x00}.
 */
public final class KeyEncoding {
  private static final int NULL = 0x01, FALSE = 0x02, TRUE = 0x03, INT = 0x04, STR = 0x05,
      BYTES = 0x06, UUID_TAG = 0x07, SYMBOL = 0x08, ARRAY = 0x09, FP = 0x0A;

  private static final VarHandle BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private KeyEncoding() {}

  /**
   * The encoding of one key.
   *
   * @param key the key
   * @return its tag byte and payload
   * @throws IllegalArgumentException if a string in the key holds an unpaired surrogate
   */
  public static byte[] encode(StableKey key) {
    Out out = new Out(16);
    write(out, key);
    return out.toByteArray();
  }

  /**
   * The encoding of a path: its keys' encodings, in order.
   *
   * @param path the keys from the root down; empty for the root
   * @return the encoded path (empty for the root)
   * @throws IllegalArgumentException if a string in a key holds an unpaired surrogate
   */
  public static byte[] encodePath(List<StableKey> path) {
    Out out = new Out(16 * path.size());
    for (StableKey key : path) {
      write(out, key);
    }
    return out.toByteArray();
  }

  /**
   * {@code prefix} (an encoded path) followed by {@code key}'s encoding: the encoding of the path
   * with {@code key} appended (a path is extended for every declared state). Int and string keys,
   * the common ones, are written straight into the new path, whose size they tell up front.
   *
   * @param prefix an encoded path, left unchanged
   * @param key the key to append
   * @return a new array: {@code prefix}'s bytes, then {@code key}'s encoding
   * @throws IllegalArgumentException if a string in the key holds an unpaired surrogate
   */
  public static byte[] append(byte[] prefix, StableKey key) {
    int at = prefix.length;
    if (key instanceof StableKey.Int i) {
      // Written in place: a buffer and its trimmed copy were a tenth of what a warm rerun
      // allocated.
      byte[] out = Arrays.copyOf(prefix, at + 9);
      out[at] = INT;
      BIG_ENDIAN_LONG.set(out, at + 1, ordered(i.value()));
      return out;
    }
    if (key instanceof StableKey.Str s) {
      byte[] utf8 = utf8(s.value(), "key");
      byte[] out = Arrays.copyOf(prefix, at + 1 + escapedLength(utf8));
      out[at] = STR;
      putEscaped(utf8, out, at + 1);
      return out;
    }
    Out out = new Out(prefix.length + 24);
    System.arraycopy(prefix, 0, out.buf, 0, prefix.length);
    out.size = prefix.length;
    write(out, key);
    return out.toByteArray();
  }

  /**
   * The key {@code bytes} encodes, as {@link #encode} wrote it.
   *
   * @param bytes the encoding of exactly one key
   * @return the decoded key
   * @throws CodecException if {@code bytes} is not one encoded key
   */
  public static StableKey decode(byte[] bytes) {
    Reader r = new Reader(bytes);
    StableKey key = r.read();
    if (r.pos != bytes.length) {
      throw new CodecException("trailing bytes after an encoded key");
    }
    return key;
  }

  /**
   * Where each key of the encoded path {@code bytes} ends: its ancestors' encoded lengths.
   *
   * @param bytes an encoded path
   * @return per key, in order, the offset just past it (the last is {@code bytes.length})
   * @throws CodecException if {@code bytes} is not an encoded path
   */
  public static int[] keyEnds(byte[] bytes) {
    Reader r = new Reader(bytes);
    int[] ends = new int[8];
    int n = 0;
    while (r.pos < bytes.length) {
      r.skip();
      if (n == ends.length) {
        ends = Arrays.copyOf(ends, 2 * n);
      }
      ends[n++] = r.pos;
    }
    return Arrays.copyOf(ends, n);
  }

  /**
   * How many keys the encoded path {@code bytes} has, checking it as {@link #decodePath} does
   * (the same errors for bytes that do not decode) but making no key: a deep component's path
   * has thousands, and decoding them all for a path compared by its bytes was most of what a
   * chain of components cost per component.
   *
   * @param bytes an encoded path
   * @return its number of keys; 0 for the root
   * @throws CodecException if {@code bytes} is not an encoded path
   */
  public static int keyCount(byte[] bytes) {
    Reader r = new Reader(bytes);
    int n = 0;
    while (r.pos < bytes.length) {
      r.skip();
      n++;
    }
    return n;
  }

  /**
   * The last key of the encoded path {@code bytes} (not the root's), its ancestors' keys skipped,
   * not made: the orphan sweep reconciles each candidate by its key alone, and making every key
   * of its path to read the last was a fifth of the sweep's thread. {@code from} is where the
   * last key starts when known, else -1.
   *
   * @param bytes an encoded path other than the root's
   * @param from the offset where its last key starts, or -1 to find it
   * @return the path's last key
   * @throws CodecException if {@code bytes} is not an encoded path
   */
  public static StableKey decodeLast(byte[] bytes, int from) {
    Reader r = new Reader(bytes);
    if (from >= 0) {
      r.pos = from;
    } else {
      int start = 0;
      while (r.pos < bytes.length) {
        start = r.pos;
        r.skip();
      }
      r.pos = start;
    }
    StableKey key = r.read();
    if (r.pos != bytes.length) {
      throw new CodecException("trailing bytes after the last key of an encoded path");
    }
    return key;
  }

  /**
   * The keys of the encoded path {@code bytes}, as {@link #encodePath} wrote them.
   *
   * @param bytes an encoded path
   * @return its keys from the root down; empty for the root
   * @throws CodecException if {@code bytes} is not an encoded path
   */
  public static List<StableKey> decodePath(byte[] bytes) {
    Reader r = new Reader(bytes);
    List<StableKey> keys = new ArrayList<>();
    while (r.pos < bytes.length) {
      keys.add(r.read());
    }
    return keys;
  }

  /**
   * A path rendered like {@code /@provider/"docs"/"r1"}; the root is {@code /}. The one rendering
   * of paths in messages, the inspector's report and {@code TargetPath.toString}.
   *
   * @param path the keys from the root down
   * @return each key preceded by {@code /}, or {@code /} for the root
   */
  public static String render(Iterable<StableKey> path) {
    StringBuilder sb = new StringBuilder();
    for (StableKey k : path) {
      sb.append('/').append(k);
    }
    return sb.length() == 0 ? "/" : sb.toString();
  }

  /**
   * The encoded path {@code bytes} rendered as {@link #render} does, for an error about what is
   * stored under it; bytes that do not decode are shown in hex (the error is about them).
   *
   * @param bytes an encoded path, or bytes that should have been one
   * @return the rendered path, or the bytes in hex; never throws for bad bytes
   */
  public static String describePath(byte[] bytes) {
    try {
      return render(decodePath(bytes));
    } catch (RuntimeException e) {
      return "(undecodable path " + HexFormat.of().formatHex(bytes) + ")";
    }
  }

  /**
   * The UTF-8 form of a key's string. One with an unpaired surrogate (not valid Unicode) is
   * refused: UTF-8 has no form for it, and the JDK's {@code '?'} in its place would make it the
   * same key as the string with a {@code '?'} there, one state for two keys.
   */
  private static byte[] utf8(String s, String what) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    for (byte b : utf8) {
      if (b == '?') { // the JDK's replacement, or a '?' of the string's own
        checkNoUnpairedSurrogate(s, what);
        break;
      }
    }
    return utf8;
  }

  private static void checkNoUnpairedSurrogate(String s, String what) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(String.format(
            "the %s string %s holds an unpaired surrogate (\\u%04x at index %d), which is not"
                + " valid Unicode: it has no UTF-8 form, and written as '?' it would be the same"
                + " %s as the string with a '?' there; repair the text (or key by its bytes)",
            what, StableKey.of(s.replace(c, '?')), (int) c, i, what));
      }
    }
  }

  /**
   * The smallest byte string greater than every descendant of {@code prefix}.
   *
   * @param prefix an encoded path
   * @return the exclusive end of the range of {@code prefix} and its descendants: {@code prefix}
   *     then {@code 0xFF}, above every tag byte
   */
  public static byte[] descendantsEnd(byte[] prefix) {
    byte[] end = Arrays.copyOf(prefix, prefix.length + 1);
    end[prefix.length] = (byte) 0xFF;
    return end;
  }

  /**
   * The smallest byte string after {@code prefix} that is at most every descendant of it.
   *
   * @param prefix an encoded path
   * @return the inclusive start of the range of {@code prefix}'s descendants, without {@code
   *     prefix} itself: {@code prefix} then {@code 0x00}, below every tag byte
   */
  public static byte[] descendantsStart(byte[] prefix) {
    return Arrays.copyOf(prefix, prefix.length + 1);
  }

  private static void write(Out out, StableKey key) {
    if (key instanceof StableKey.Null) {
      out.write(NULL);
    } else if (key instanceof StableKey.Bool b) {
      out.write(b.value() ? TRUE : FALSE);
    } else if (key instanceof StableKey.Int i) {
      out.write(INT);
      writeLong(out, ordered(i.value()));
    } else if (key instanceof StableKey.Str s) {
      out.write(STR);
      writeEscaped(out, utf8(s.value(), "key"));
    } else if (key instanceof StableKey.Bytes b) {
      out.write(BYTES);
      writeEscaped(out, b.value());
    } else if (key instanceof StableKey.Uuid u) {
      out.write(UUID_TAG);
      writeLong(out, ordered(u.value().getMostSignificantBits()));
      writeLong(out, ordered(u.value().getLeastSignificantBits()));
    } else if (key instanceof StableKey.Symbol s) {
      out.write(SYMBOL);
      writeEscaped(out, utf8(s.name(), "symbol"));
    } else if (key instanceof StableKey.Array a) {
      out.write(ARRAY);
      for (StableKey item : a.items()) {
        write(out, item);
      }
      out.write(0);
    } else {
      out.write(FP);
      out.writeBytes(((StableKey.Fp) key).value().bytes());
    }
  }

  /** A signed long as bits whose unsigned, big-endian order is the long's order. */
  private static long ordered(long v) {
    return v ^ Long.MIN_VALUE;
  }

  private static void writeLong(Out out, long v) {
    out.ensure(8);
    BIG_ENDIAN_LONG.set(out.buf, out.size, v);
    out.size += 8;
  }

  private static void writeEscaped(Out out, byte[] bytes) {
    out.ensure(escapedLength(bytes));
    out.size = putEscaped(bytes, out.buf, out.size);
  }

  /** The length of {@code bytes} escaped and terminated: each zero doubled, two zeros after. */
  private static int escapedLength(byte[] bytes) {
    int zeros = 0;
    for (byte b : bytes) {
      if (b == 0) {
        zeros++;
      }
    }
    return bytes.length + zeros + 2;
  }

  /**
   * Puts {@code bytes} escaped ({@code 0x00} as {@code 0x00 0xFF}) and terminated ({@code 0x00
   * 0x00}) in {@code out} from {@code at}, which has room; returns the position after them.
   */
  private static int putEscaped(byte[] bytes, byte[] out, int at) {
    for (byte b : bytes) {
      out[at++] = b;
      if (b == 0) {
        out[at++] = (byte) 0xFF;
      }
    }
    out[at++] = 0;
    out[at++] = 0;
    return at;
  }

  /**
   * A growable byte buffer without {@code ByteArrayOutputStream}'s synchronized writes: a path
   * is encoded for every declared state.
   */
  private static final class Out {
    private byte[] buf;
    private int size;

    Out(int capacity) {
      buf = new byte[Math.max(capacity, 8)];
    }

    void write(int b) {
      ensure(1);
      buf[size++] = (byte) b;
    }

    /** Makes room for {@code n} more bytes. */
    void ensure(int n) {
      if (size + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
      }
    }

    void writeBytes(byte[] b) {
      for (byte x : b) {
        write(x);
      }
    }

    byte[] toByteArray() {
      return size == buf.length ? buf : Arrays.copyOf(buf, size);
    }
  }

  private static final class Reader {
    final byte[] bytes;
    int pos;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    StableKey read() {
      int tag = next();
      switch (tag) {
        case NULL:
          return new StableKey.Null();
        case FALSE:
          return new StableKey.Bool(false);
        case TRUE:
          return new StableKey.Bool(true);
        case INT:
          return new StableKey.Int(readLong() ^ Long.MIN_VALUE);
        case STR:
          return new StableKey.Str(new String(readEscaped(), StandardCharsets.UTF_8));
        case BYTES:
          return new StableKey.Bytes(readEscaped());
        case UUID_TAG:
          return new StableKey.Uuid(
              new UUID(readLong() ^ Long.MIN_VALUE, readLong() ^ Long.MIN_VALUE));
        case SYMBOL:
          return new StableKey.Symbol(new String(readEscaped(), StandardCharsets.UTF_8));
        case ARRAY:
          {
            List<StableKey> items = new ArrayList<>();
            while (peek() != 0) {
              items.add(read());
            }
            pos++;
            return new StableKey.Array(items);
          }
        case FP:
          {
            byte[] fp = Arrays.copyOfRange(bytes, pos, pos + Fingerprint.LENGTH);
            pos += Fingerprint.LENGTH;
            return new StableKey.Fp(new Fingerprint(fp));
          }
        default:
          throw new CodecException("corrupt key encoding: unknown tag " + tag + " at " + (pos - 1));
      }
    }

    /**
     * Moves past one key as {@link #read} would, with the same errors, making nothing (a
     * string's bytes are not checked as UTF-8 by {@link #read} either: they decode with
     * replacement).
     */
    void skip() {
      int tag = next();
      switch (tag) {
        case NULL:
        case FALSE:
        case TRUE:
          return;
        case INT:
          skipFixed(8);
          return;
        case UUID_TAG:
          skipFixed(16);
          return;
        case STR:
        case BYTES:
        case SYMBOL:
          skipEscaped();
          return;
        case ARRAY:
          while (peek() != 0) {
            skip();
          }
          pos++;
          return;
        case FP:
          // As read() does: a fingerprint cut short reads padded, and ends the path.
          pos += Fingerprint.LENGTH;
          return;
        default:
          throw new CodecException("corrupt key encoding: unknown tag " + tag + " at " + (pos - 1));
      }
    }

    private void skipFixed(int n) {
      if (bytes.length - pos < n) {
        pos = bytes.length;
        throw new CodecException("truncated key encoding");
      }
      pos += n;
    }

    private void skipEscaped() {
      while (true) {
        int b = next();
        if (b == 0) {
          int n = next();
          if (n == 0) {
            return;
          }
          if (n != 0xFF) {
            throw new CodecException("corrupt key encoding: bad escape at " + (pos - 1));
          }
        }
      }
    }

    private int peek() {
      if (pos >= bytes.length) {
        throw new CodecException("truncated key encoding");
      }
      return bytes[pos] & 0xFF;
    }

    private int next() {
      int b = peek();
      pos++;
      return b;
    }

    private long readLong() {
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = (v << 8) | next();
      }
      return v;
    }

    private byte[] readEscaped() {
      Out out = new Out(16);
      while (true) {
        int b = next();
        if (b == 0) {
          int n = next();
          if (n == 0) {
            return out.toByteArray();
          }
          if (n != 0xFF) {
            throw new CodecException("corrupt key encoding: bad escape at " + (pos - 1));
          }
        }
        out.write(b);
      }
    }
  }
}
