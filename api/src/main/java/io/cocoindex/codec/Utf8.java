package io.cocoindex.codec;

/**
 * UTF-8 encoding into a caller's buffer, for the runtime's encoders (fingerprints, the Smile
 * writer of generated codecs): {@code String.getBytes} allocates an array per string, and these
 * encode a string for every declared value. Not for connector code.
 */
public final class Utf8 {
  private Utf8() {}

  /**
   * Writes the UTF-8 form of {@code s} into {@code out} from {@code pos}, which must have room
   * for {@code 3 * s.length()} bytes.
   *
   * @return the position after the last byte written, or -1 when {@code s} holds an unpaired
   *     surrogate (not valid Unicode; what was written is then garbage)
   */
  public static int encode(String s, byte[] out, int pos) {
    int len = s.length();
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

  /** Whether {@code s} is valid Unicode (no unpaired surrogate): whether it has a UTF-8 form. */
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
