package io.cocoindex;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FingerprintTest {

  // The goldens below hash these names: renaming Doc or Kind changes them.
  enum Kind { TEXT, PDF }

  record Doc(String title, long size, List<String> tags, Kind kind) {}

  record Holder(String name, Object payload) {}

  record Outer(Holder inner) {}

  private static Doc doc() {
    return new Doc("Intro", 42L, List.of("a", "b"), Kind.PDF);
  }

  // Golden values: a change here means every stored fingerprint (memo keys, tracking records)
  // changes, so every user's next run reprocesses everything. Change them only on purpose.

  @Test
  void stringGolden() {
    assertThat(Fingerprint.ofString("hello")).hasToString("#bbd4985dd3f962ed11d6c8c5241af2da");
  }

  @Test
  void bytesGolden() {
    assertThat(Fingerprint.ofBytes("hello".getBytes(UTF_8)))
        .hasToString("#9cb324e587dba8122bcd1f3fba8b9316");
  }

  @Test
  void recordGolden() {
    assertThat(Fingerprint.of(doc())).hasToString("#240f6683460811cc752edf2452c61e7d");
  }

  @Test
  void mapGolden() {
    assertThat(Fingerprint.of(Map.of("x", 1, "y", 2)))
        .hasToString("#2aab8613191c23122cb7fbede874bc26");
  }

  @Test
  void theEncodingIsTheDocumentedOneHashedBySha256() {
    // Tags: INT 3, STRING 7, LIST 11, RECORD 14, ENUM 15. Numbers, lengths and counts are
    // eight bytes, big-endian.
    assertThat(Fingerprint.ofString("hello")).isEqualTo(sha256(bytes(7), count(5), utf8("hello")));
    assertThat(Fingerprint.of(List.of(-1))).isEqualTo(sha256(bytes(11), count(1), bytes(3),
        count(-1)));
    // A record: its layout id (the first 16 bytes of the SHA-256 of its simple name, its
    // component count and its components' names), then its components' values.
    byte[] layout = sha256(count(3), utf8("Doc"), count(4), count(5), utf8("title"), count(4),
        utf8("size"), count(4), utf8("tags"), count(4), utf8("kind")).bytes();
    assertThat(Fingerprint.of(doc())).isEqualTo(sha256(bytes(14), layout,
        bytes(7), count(5), utf8("Intro"), bytes(3), count(42), bytes(11), count(2), bytes(7),
        count(1), utf8("a"), bytes(7), count(1), utf8("b"), bytes(15), count(4), utf8("Kind"),
        count(3), utf8("PDF")));
  }

  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  private static byte[] count(long n) {
    return java.nio.ByteBuffer.allocate(8).putLong(n).array();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }

  private static Fingerprint sha256(byte[]... parts) {
    try {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      for (byte[] part : parts) {
        sha.update(part);
      }
      return new Fingerprint(java.util.Arrays.copyOf(sha.digest(), Fingerprint.LENGTH));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void equalRecordsBuiltSeparatelyHaveEqualFingerprints() {
    assertThat(Fingerprint.of(doc())).isEqualTo(Fingerprint.of(doc()));
  }

  @Test
  void recordsDifferingInOneComponentDiffer() {
    assertThat(Fingerprint.of(doc()))
        .isNotEqualTo(Fingerprint.of(new Doc("Intro", 43L, List.of("a", "b"), Kind.PDF)));
  }

  @Test
  void mapInsertionOrderDoesNotMatter() {
    Map<String, Integer> ab = new LinkedHashMap<>();
    ab.put("a", 1);
    ab.put("b", 2);
    Map<String, Integer> ba = new LinkedHashMap<>();
    ba.put("b", 2);
    ba.put("a", 1);

    assertThat(Fingerprint.of(ab)).isEqualTo(Fingerprint.of(ba));
  }

  @Test
  void setInsertionOrderDoesNotMatter() {
    Set<String> ab = new LinkedHashSet<>(List.of("a", "b"));
    Set<String> ba = new LinkedHashSet<>(List.of("b", "a"));

    assertThat(Fingerprint.of(ab)).isEqualTo(Fingerprint.of(ba));
  }

  @Test
  void listOrderMatters() {
    assertThat(Fingerprint.of(List.of("a", "b"))).isNotEqualTo(Fingerprint.of(List.of("b", "a")));
  }

  @Test
  void stringAndBytesOfTheSameContentDiffer() {
    assertThat(Fingerprint.ofString("ab")).isNotEqualTo(Fingerprint.ofBytes("ab".getBytes(UTF_8)));
  }

  @Test
  void integerAndLongOfTheSameValueAreEqual() {
    assertThat(Fingerprint.of(1)).isEqualTo(Fingerprint.of(1L));
  }

  @Test
  void numberAndItsTextDiffer() {
    assertThat(Fingerprint.of(1)).isNotEqualTo(Fingerprint.of("1"));
  }

  @Test
  void toStringIsAHashFollowedBy32LowerHexDigits() {
    assertThat(Fingerprint.of(doc()).toString()).matches("#[0-9a-f]{32}");
  }

  @Test
  void parseRoundTripsToString() {
    Fingerprint fp = Fingerprint.of(doc());

    assertThat(Fingerprint.parse(fp.toString())).isEqualTo(fp);
  }

  @Test
  void bytesAreDefensivelyCopied() {
    Fingerprint fp = Fingerprint.ofString("hello");
    fp.bytes()[0] ^= 1;

    assertThat(fp).hasToString("#bbd4985dd3f962ed11d6c8c5241af2da");
  }

  @Test
  void unsupportedTypeIsRejectedNamingTheClass() {
    assertThatThrownBy(() -> Fingerprint.of(new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Object");
  }

  @Test
  void threadIsRejectedNamingTheClass() {
    assertThatThrownBy(() -> Fingerprint.of(Thread.currentThread()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Thread.currentThread().getClass().getName());
  }

  /** A record whose accessors throw: fingerprinting it says which component failed. */
  private record Failing(String name, long count) {
    @Override
    public String name() {
      throw new IllegalStateException("no name today");
    }

    @Override
    public long count() {
      throw new UnsupportedOperationException("no count today");
    }
  }

  /** Private to this test, read with every primitive kind. */
  private record Primitives(int i, char c, float f, boolean b, byte by, short s, double d) {}

  @Test
  void anAccessorThatThrowsIsReportedNamingTheComponent() {
    assertThatThrownBy(() -> Fingerprint.of(new Failing("x", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot read " + Failing.class.getName() + ".name")
        .hasRootCauseMessage("no name today");
  }

  @Test
  void aPrivateRecordsPrimitiveComponentsFingerprintAsTheirBoxes() {
    Primitives p = new Primitives(1, 'c', 1.5f, true, (byte) 2, (short) 3, 2.5);

    assertThat(Fingerprint.of(p)).isEqualTo(Fingerprint.of(p))
        .isNotEqualTo(Fingerprint.of(new Primitives(1, 'c', 1.5f, false, (byte) 2, (short) 3, 2.5)));
    assertThat(Fingerprint.of(List.of(p.i(), p.c(), p.f(), p.b(), p.by(), p.s(), p.d())))
        .isEqualTo(Fingerprint.of(List.of(1L, 'c', 1.5, true, 2L, 3L, 2.5)));
  }

  @Test
  void unsupportedValueInARecordIsRejectedNamingTheComponent() {
    assertThatThrownBy(() -> Fingerprint.of(new Holder("h", new Object())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Object")
        .hasMessageContaining(Holder.class.getName() + ".payload");
  }

  @Test
  void unsupportedValueDeepInNestedRecordsNamesEveryComponentOnThePath() {
    assertThatThrownBy(() -> Fingerprint.of(new Outer(new Holder("h", List.of(new Object())))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Object")
        .hasMessageContaining(Holder.class.getName() + ".payload")
        .hasMessageContaining(Outer.class.getName() + ".inner");
  }

  enum Color { RED, GREEN }

  record Prims(boolean b, byte by, short sh, char ch, int i, long l, float f, double d, Color c,
      String s) {}

  @Test
  void primitiveComponentsAndEnumsKeepTheirGoldenValues() {
    // Golden values: primitives are read unboxed and written as their boxes would be.
    assertThat(Fingerprint.of(new Prims(true, (byte) -3, (short) 300, 'λ', -7, 1L << 40, 1.5f,
        -0.25, Color.GREEN, "x"))).hasToString("#a7ce8f81f8ab65c02c182bd797a94c47");
    assertThat(Fingerprint.of(new Prims(false, (byte) 0, (short) 0, 'a', 0, 0, Float.NaN,
        Double.NaN, Color.RED, ""))).hasToString("#dbad510563df0ccb3c72d0b7110b04ba");
  }

  @Test
  void stringsKeepTheirGoldenValuesAndAnUnpairedSurrogateIsWhatGetBytesMakesOfIt() {
    // Golden values from the getBytes(UTF_8) encoding: strings are now encoded in place.
    assertThat(Fingerprint.ofString("h\u00e9llo \u4e16\u754c \uD83D\uDE00"))
        .hasToString("#7d6ec92e8bd3f4b8c1058b5ae03a847d");
    assertThat(Fingerprint.ofString("a\uD800b")).hasToString("#4a59b3cb14964f887b1ce4032b4af2ae")
        .isEqualTo(Fingerprint.ofString("a?b"));
  }

  @Test
  void aBuilderFingerprintsAsOfFingerprintsTheSameValuesTogether() {
    Fingerprint inner = Fingerprint.ofString("columns");
    Object[] row = {7L, 2.5, "text", new byte[] {1, 2}, null, "x".repeat(40)};

    Fingerprint built = Fingerprint.builder()
        .beginList(2)
        .add(inner)
        .beginList(row.length)
        .add(7L)
        .add(2.5)
        .add("text")
        .add(new byte[] {1, 2})
        .addNull()
        .add((Object) "x".repeat(40))
        .build();

    assertThat(built).isEqualTo(Fingerprint.of(List.of(inner, row)));
    assertThat(Fingerprint.builder().add(3L).build()).isEqualTo(Fingerprint.of(3));
    assertThat(Fingerprint.builder().add('c').build()).isEqualTo(Fingerprint.of('c'))
        .isNotEqualTo(Fingerprint.of((long) 'c'));
    assertThat(Fingerprint.builder().add((String) null).build())
        .isEqualTo(Fingerprint.builder().add((byte[]) null).build())
        .isEqualTo(Fingerprint.of(null));
    assertThat(Fingerprint.builder().beginList(0).build()).isEqualTo(Fingerprint.of(List.of()));
    assertThatThrownBy(() -> Fingerprint.builder().beginList(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }

  @Test
  void buildersLiveAtOnceStayApartAndABuiltBuilderRefusesMore() {
    Fingerprint.Builder abandoned = Fingerprint.builder().add("never built");
    Fingerprint.Builder outer = Fingerprint.builder().beginList(2).add("a");
    Fingerprint inner = Fingerprint.builder().add("b").build();
    Fingerprint.Builder after = Fingerprint.builder().add("c");
    assertThat(outer.add(inner).build()).isEqualTo(Fingerprint.of(List.of("a", inner)));
    assertThat(after.build()).isEqualTo(Fingerprint.of("c"));

    Fingerprint.Builder built = Fingerprint.builder().add(1L);
    built.build();
    assertThatThrownBy(() -> built.add(2L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("built already");
    assertThatThrownBy(built::build).isInstanceOf(IllegalStateException.class);
    // The encoder it gave back serves the next builder from a clean start.
    assertThat(Fingerprint.builder().add(3L).build()).isEqualTo(Fingerprint.of(3L));
  }
}
