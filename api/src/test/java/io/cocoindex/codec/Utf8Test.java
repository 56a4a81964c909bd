package io.cocoindex.codec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Utf8.encode writes exactly what the JDK's UTF-8 encoder writes, and rejects what it cannot. */
class Utf8Test {

  @ParameterizedTest
  @ValueSource(strings = {
      "", "a", "short", "exactly8", "an ASCII line longer than the copy threshold",
      "what? a question mark in ASCII", "?", "????????",
      "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e", "\u00ff\u00fe latin-1 only, past ASCII",
      "Zo\u0142\u0105d\u017a \u0141\u00f3d\u017a (chars above 0xFF whose low bytes are ASCII)",
      "\u4e2d\u6587\u5b57\u7b26 and ASCII", "a pair \ud83d\ude00 in a long enough string",
      "\ud83d\ude00"})
  void encodesAsTheJdkDoes(String s) {
    byte[] expected = s.getBytes(UTF_8);
    byte[] out = new byte[3 * s.length() + 5];
    Arrays.fill(out, (byte) 0x55);

    int end = Utf8.encode(s, out, 2);

    assertThat(end).isEqualTo(2 + expected.length);
    assertThat(Arrays.copyOfRange(out, 2, end)).isEqualTo(expected);
    assertThat(out[0]).isEqualTo((byte) 0x55);
    assertThat(out[1]).isEqualTo((byte) 0x55);
    assertThat(Utf8.isWellFormed(s)).isTrue();
  }

  @Test
  void stringsAroundTheAsciiLoopsLengthEncodeAsTheJdkDoes() {
    for (int len = 1; len < 140; len++) {
      for (String tail : new String[] {"", "\u00e9", "\u0141", "\ud83d\ude00"}) {
        String s = "x".repeat(len) + tail;
        byte[] out = new byte[3 * s.length()];
        int end = Utf8.encode(s, out, 0);
        assertThat(Arrays.copyOf(out, end)).as("length %d, tail %s", len, tail)
            .isEqualTo(s.getBytes(UTF_8));
      }
      assertThat(Utf8.encode("x".repeat(len) + "\ud83d", new byte[3 * len + 3], 0))
          .as("length %d", len).isEqualTo(-1);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "\ud83d", "\ude00", "an unpaired high surrogate \ud83d at length > 8",
      "an unpaired low surrogate \ude00 at length > 8", "reversed pair \ude00\ud83d here",
      "ends on a high surrogate, long \ud83d",
      "caf\u00e9 \ud800 cr\u00e8me, non-ASCII around it"})
  void rejectsUnpairedSurrogatesWhereTheJdkWouldWriteAQuestionMark(String s) {
    byte[] out = new byte[3 * s.length()];

    assertThat(Utf8.encode(s, out, 0)).isEqualTo(-1);
    assertThat(Utf8.isWellFormed(s)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", "short", "an ASCII line longer than the copy threshold", "caf\u00e9 cr\u00e8me",
      "a pair \ud83d\ude00 in a long enough string", "\ud83d", "x\ude00",
      "an unpaired high surrogate \ud83d at length > 8", "what? \ud800 and a question mark"})
  void encodeAsJdkWritesTheJdksBytesEvenForUnpairedSurrogates(String s) {
    byte[] expected = s.getBytes(UTF_8);
    byte[] out = new byte[3 * s.length() + 4];
    Arrays.fill(out, (byte) 0x55);

    int end = Utf8.encodeAsJdk(s, out, 1);

    assertThat(end).isEqualTo(1 + expected.length);
    assertThat(Arrays.copyOfRange(out, 1, end)).isEqualTo(expected);
    assertThat(out[0]).isEqualTo((byte) 0x55);
  }

  @Test
  void anAsciiStringWithAnUnpairedSurrogateIsNotTakenForAscii() {
    // One byte per char from the JDK (the surrogate becomes '?'), so only the '?' check stops it.
    String s = "abcdefgh\ud800ijklmnop";
    assertThat(s.getBytes(UTF_8)).hasSize(s.length());

    assertThat(Utf8.encode(s, new byte[3 * s.length()], 0)).isEqualTo(-1);
  }

  @Test
  void aQuestionMarkAnywhereInALongAsciiStringIsWrittenAsIs() {
    for (int at = 0; at < 21; at++) {
      String s = "a".repeat(at) + "?" + "b".repeat(20 - at);
      byte[] out = new byte[3 * s.length()];

      assertThat(Utf8.encode(s, out, 0)).isEqualTo(s.length());
      assertThat(Arrays.copyOf(out, s.length())).isEqualTo(s.getBytes(UTF_8));
    }
  }

  @Test
  void anUnpairedSurrogateAnywhereInALongStringIsRejected() {
    for (int at = 0; at < 21; at++) {
      String s = "a".repeat(at) + "\udc00" + "b".repeat(20 - at);

      assertThat(Utf8.encode(s, new byte[3 * s.length()], 0)).as("at %d", at).isEqualTo(-1);
    }
  }
}
