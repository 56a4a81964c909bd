package io.cocoindex.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * UTF-8 encoding into a caller's buffer, for the runtime's encoders (fingerprints, the Smile
 * writer of generated codecs), which encode strings for every declared value: a short string, or
 * an ASCII one under 128 chars, is encoded in place without an intermediate array, a longer one
 * through the JDK's vectorized {@code getBytes}, and an unpaired surrogate is rejected rather than
 * replaced by {@code '?'}.
 * Not for connector code.
 */
public final class Utf8 {
  /** Below this length the loop beats allocating the JDK's encoding (measured on JDK 17). */
  private static final int JDK_MIN_LENGTH = 8;
  /** Under this length an ASCII string is copied char by char (measured on JDK 17). */
  private static final int ASCII_LOOP_MAX_LENGTH = 128;

  private Utf8() {}

  /**
   * Writes the UTF-8 form of {@code s} into {@code out} from {@code pos}, which must have room
   * for {@code 3 * s.length()} bytes.
   *
   * @param s the string to encode
   * @param out the buffer
   * @param pos where the first byte goes
   * @return the position after the last byte written, or -1 when {@code s} holds an unpaired
   *     surrogate (not valid Unicode; what was written is then garbage)
   */
  public static int encode(String s, byte[] out, int pos) {
    int len = s.length();
    if (len < ASCII_LOOP_MAX_LENGTH) {
      // Most strings are short ASCII: copied char by char, they need no intermediate array.
      int i = 0;
      for (; i < len; i++) {
        char c = s.charAt(i);
        if (c >= 0x80) {
          break;
        }
        out[pos + i] = (byte) c;
      }
      if (i == len) {
        return pos + len;
      }
    }
    if (len >= JDK_MIN_LENGTH) {
      // The JDK encodes with vectorized ASCII runs, several times faster than the loop below. It
      // replaces an unpaired surrogate by '?': bytes without a '?' are exactly the UTF-8 form;
      // with one, the loop decides (and rejects the surrogate).
      byte[] jdk = s.getBytes(StandardCharsets.UTF_8);
      if (!containsQuestionMark(jdk)) {
        System.arraycopy(jdk, 0, out, pos, jdk.length);
        return pos + jdk.length;
      }
    }
    int p = pos;
    int i = 0;
    while (i < len) {
      char c = s.charAt(i++);
      if (c < 0x80) {
        out[p++] = (byte) c;
      } else if (c < 0x800) {
        out[p++] = (byte) (0xC0 | (c >> 6));
        out[p++] = (byte) (0x80 | (c & 0x3F));
      } else if (!Character.isSurrogate(c)) {
        out[p++] = (byte) (0xE0 | (c >> 12));
        out[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        out[p++] = (byte) (0x80 | (c & 0x3F));
      } else {
        if (!Character.isHighSurrogate(c) || i == len || !Character.isLowSurrogate(s.charAt(i))) {
          return -1;
        }
        int cp = Character.toCodePoint(c, s.charAt(i++));
        out[p++] = (byte) (0xF0 | (cp >> 18));
        out[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        out[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        out[p++] = (byte) (0x80 | (cp & 0x3F));
      }
    }
    return p;
  }

  /**
   * Writes exactly what {@code s.getBytes(UTF_8)} gives (an unpaired surrogate becomes {@code
   * '?'}) into {@code out} from {@code pos}, which must have room for {@code 3 * s.length()}
   * bytes. For encoders that have always written the JDK's form (fingerprints): no scan for
   * surrogates, which costs as much as the encoding itself.
   *
   * @param s the string to encode
   * @param out the buffer
   * @param pos where the first byte goes
   * @return the position after the last byte written
   */
  public static int encodeAsJdk(String s, byte[] out, int pos) {
    if (s.length() >= JDK_MIN_LENGTH) {
      byte[] jdk = s.getBytes(StandardCharsets.UTF_8);
      System.arraycopy(jdk, 0, out, pos, jdk.length);
      return pos + jdk.length;
    }
    int end = encode(s, out, pos);
    if (end >= 0) {
      return end;
    }
    byte[] jdk = s.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(jdk, 0, out, pos, jdk.length);
    return pos + jdk.length;
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long QUESTION_MARKS = 0x3F3F3F3F3F3F3F3FL;
  private static final long LOW_BITS = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  /** Whether a '?' is among {@code bytes}: eight at a time (a zero byte of {@code word ^ '?'}). */
  private static boolean containsQuestionMark(byte[] bytes) {
    int i = 0;
    for (; i + 8 <= bytes.length; i += 8) {
      long x = (long) LONGS.get(bytes, i) ^ QUESTION_MARKS;
      if (((x - LOW_BITS) & ~x & HIGH_BITS) != 0) {
        return true;
      }
    }
    for (; i < bytes.length; i++) {
      if (bytes[i] == '?') {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code s} is valid Unicode (no unpaired surrogate): whether it has a UTF-8 form.
   *
   * @param s the string to check
   * @return true when every surrogate in {@code s} is paired
   */
  public static boolean isWellFormed(String s) {
    int len = s.length();
    for (int i = 0; i < len; i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c)) {
        if (!Character.isHighSurrogate(c) || ++i == len || !Character.isLowSurrogate(s.charAt(i))) {
          return false;
        }
      }
    }
    return true;
  }
}
