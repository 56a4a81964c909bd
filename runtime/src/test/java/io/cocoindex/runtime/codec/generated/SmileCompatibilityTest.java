package io.cocoindex.runtime.codec.generated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.SmileGenerator;
import io.cocoindex.codec.CodecFormatException;
import io.cocoindex.codec.FieldNames;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The project's Smile writer and reader against Jackson's: random documents written through both
 * must give identical bytes, and the reader must read back what Jackson wrote, including the
 * features the writer never uses (shared string values, raw binary).
 */
class SmileCompatibilityTest {

  /** A value tree: what is written, and what reading must give back. */
  private sealed interface Node permits Obj, Arr, Str, Num, Dbl, Flt, Bool, Null, Bin {}

  private record Obj(List<String> names, List<Node> values) implements Node {}

  private record Arr(List<Node> items) implements Node {}

  private record Str(String value) implements Node {}

  private record Num(long value) implements Node {}

  private record Dbl(double value) implements Node {}

  private record Flt(float value) implements Node {}

  private record Bool(boolean value) implements Node {}

  private record Null() implements Node {}

  private record Bin(byte[] value) implements Node {}

  /**
   * Random documents, written by name and by index (as generated codecs write, through {@link
   * FieldNames}), give Jackson's bytes; read by name they give their names back, read by index
   * their indexes, whether a name is new, a reference to one seen under the same record, or one
   * first seen under another record.
   */
  @Test
  void eightSevenBitGroupsJoinAsOneWordAsTheyDoOneByOne() {
    Random random = new Random(7);
    byte[] bytes = new byte[9];
    for (int round = 0; round < 20_000; round++) {
      random.nextBytes(bytes);
      if (round == 0) {
        Arrays.fill(bytes, (byte) 0x7F);
      } else if (round == 1) {
        Arrays.fill(bytes, (byte) 0xFF); // high bits are not part of the groups
      }
      long oneByOne = 0;
      for (int k = 1; k <= 8; k++) {
        oneByOne = (oneByOne << 7) | (bytes[k] & 0x7F);
      }
      assertThat(SmileValueReader.sevenBitGroups(bytes, 1)).isEqualTo(oneByOne);
    }
  }

  @Test
  void randomDocumentsEncodeToJacksonsBytesAndReadBack() throws IOException {
    long seed = 20261201L;
    Random random = new Random(seed);
    for (int i = 0; i < 3000; i++) {
      Node doc = randomNode(random, 0, i % 50 == 0 ? 1500 : 12);
      byte[] jackson = jackson(doc, new SmileFactory());
      for (boolean byIndex : new boolean[] {false, true}) {
        SmileValueWriter w = SmileValueWriter.acquire();
        writeOurs(w, doc, byIndex);
        assertSameBytes(w.finish(), jackson,
            "document " + i + " of seed " + seed + (byIndex ? ", by index" : ""));
        SmileValueReader r = new SmileValueReader(jackson);
        check(r, doc, byIndex);
        assertThat(r.atEnd()).isTrue();
      }
    }
  }

  @Test
  void aDocumentWrittenWhileAnotherIsBeingWrittenOnTheSameThreadLeavesBothIntact()
      throws IOException {
    FieldNames names = new FieldNames("test.Pair", "name", "inner");
    SmileValueWriter outer = SmileValueWriter.acquire();
    outer.beginObject();
    outer.field(names, 0);
    outer.writeString("outer");
    // A codec encoding another value in the middle of its own (say, to fingerprint it).
    SmileValueWriter nested = SmileValueWriter.acquire();
    assertThat(nested).isNotSameAs(outer);
    nested.beginObject();
    nested.field(names, 0);
    nested.writeString("nested");
    nested.endObject();
    byte[] inner = nested.finish();
    outer.field(names, 1);
    outer.writeBytes(inner);
    outer.endObject();
    byte[] bytes = outer.finish();

    Obj nestedDoc = new Obj(List.of("name"), List.of(new Str("nested")));
    assertSameBytes(inner, jackson(nestedDoc, new SmileFactory()), "the nested document");
    SmileValueReader r = new SmileValueReader(bytes);
    r.beginObject();
    assertThat(r.nextField(names)).isEqualTo(0);
    assertThat(r.readString()).isEqualTo("outer");
    assertThat(r.nextField(names)).isEqualTo(1);
    assertThat(r.readBytes()).isEqualTo(inner);
    assertThat(r.nextField(names)).isEqualTo(FieldNames.END);
    assertThat(r.atEnd()).isTrue();
    // Both were given back: the next document gets this thread's writer again, empty.
    SmileValueWriter again = SmileValueWriter.acquire();
    assertThat(again).isSameAs(outer);
    again.writeNull();
    assertThat(again.finish()).containsExactly(':', ')', '\n', 0x01, 0x21);
  }

  @Test
  void aNameOfTwoRecordsReadsAsEachOnesIndex() throws IOException {
    FieldNames outer = new FieldNames("test.Outer", "name", "inner", "é", "");
    FieldNames inner = new FieldNames("test.Inner", "size", "name");
    // {name, inner: [{size, name}, {size, name}], é, ""}: "name" is first seen under Outer.
    SmileValueWriter w = SmileValueWriter.acquire();
    w.beginObject();
    w.field(outer, 0);
    w.writeString("a");
    w.field(outer, 1);
    w.beginArray();
    for (int k = 0; k < 2; k++) {
      w.beginObject();
      w.field(inner, 0);
      w.writeLong(k);
      w.field(inner, 1);
      w.writeString("b" + k);
      w.endObject();
    }
    w.endArray();
    w.field(outer, 2);
    w.writeNull();
    w.field(outer, 3);
    w.writeNull();
    w.endObject();
    byte[] bytes = w.finish();
    assertThat(bytes).isEqualTo(jackson(new Obj(List.of("name", "inner", "é", ""), List.of(
        new Str("a"),
        new Arr(List.of(new Obj(List.of("size", "name"), List.of(new Num(0), new Str("b0"))),
            new Obj(List.of("size", "name"), List.of(new Num(1), new Str("b1"))))),
        new Null(), new Null())), new SmileFactory()));

    SmileValueReader r = new SmileValueReader(bytes);
    r.beginObject();
    assertThat(r.nextField(outer)).isEqualTo(0);
    assertThat(r.readString()).isEqualTo("a");
    assertThat(r.nextField(outer)).isEqualTo(1);
    r.beginArray();
    for (int k = 0; k < 2; k++) {
      assertThat(r.nextElement()).isTrue();
      r.beginObject();
      assertThat(r.nextField(inner)).isEqualTo(0);
      assertThat(r.readLong()).isEqualTo(k);
      assertThat(r.nextField(inner)).isEqualTo(1);
      assertThat(r.readString()).isEqualTo("b" + k);
      assertThat(r.nextField(inner)).isEqualTo(FieldNames.END);
    }
    assertThat(r.nextElement()).isFalse();
    assertThat(r.nextField(outer)).isEqualTo(2);
    assertThat(r.readNull()).isTrue();
    assertThat(r.nextField(outer)).isEqualTo(3);
    assertThat(r.readNull()).isTrue();
    assertThat(r.nextField(outer)).isEqualTo(FieldNames.END);
    assertThat(r.atEnd()).isTrue();
  }

  @Test
  void aStoredFieldTheRecordDoesNotHaveFailsNamingRecordAndField() throws IOException {
    byte[] bytes = jackson(new Obj(List.of("id", "gone"), List.of(new Num(1), new Num(2))),
        new SmileFactory());
    FieldNames names = new FieldNames("test.Row", "id", "kept");
    SmileValueReader r = new SmileValueReader(bytes);
    r.beginObject();
    assertThat(r.nextField(names)).isEqualTo(0);
    r.readLong();
    assertThatThrownBy(() -> r.nextField(names))
        .isInstanceOf(CodecFormatException.class)
        .hasMessageStartingWith("stored test.Row has field 'gone' that the record no longer has");
  }

  @Test
  void boundaryValuesEncodeToJacksonsBytes() throws IOException {
    List<Node> items = new ArrayList<>();
    for (long v : new long[] {0, 15, -16, 16, -17, 31, 32, 63, 64, -64, -65, 8191, 8192,
        Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L,
        Long.MAX_VALUE, Long.MIN_VALUE, 1L << 40, -(1L << 50)}) {
      items.add(new Num(v));
    }
    for (double d : new double[] {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Math.PI,
        Double.MIN_VALUE, -Double.MAX_VALUE}) {
      items.add(new Dbl(d));
    }
    for (float f : new float[] {0f, -0f, Float.NaN, -1.5f, Float.MAX_VALUE, -Float.MIN_VALUE}) {
      items.add(new Flt(f));
    }
    for (int len : new int[] {1, 32, 33, 64, 65, 66, 2666, 2667, 4000}) {
      items.add(new Str("a".repeat(len)));
      items.add(new Str("é".repeat(Math.max(1, len / 2))));
    }
    items.add(new Str("\uD83D\uDE00 emoji"));
    for (int len = 0; len <= 22; len++) {
      byte[] b = new byte[len];
      for (int k = 0; k < len; k++) {
        b[k] = (byte) (0xF3 * (k + 1));
      }
      items.add(new Bin(b));
    }
    List<String> names = new ArrayList<>();
    List<Node> values = new ArrayList<>();
    for (String name : new String[] {"", "a", "x".repeat(64), "x".repeat(65), "é".repeat(28),
        "é".repeat(29), "é".repeat(64), "é".repeat(65), "a"}) {
      names.add(name);
      values.add(new Arr(items));
    }
    Node doc = new Obj(names, values);
    assertSameBytes(ours(doc), jackson(doc, new SmileFactory()), "boundary values");
    readBack(doc, jackson(doc, new SmileFactory()));
  }

  @Test
  void readsWhatJacksonWritesWithSharedStringValuesAndRawBinary() throws IOException {
    SmileFactory other = SmileFactory.builder()
        .enable(SmileGenerator.Feature.CHECK_SHARED_STRING_VALUES)
        .disable(SmileGenerator.Feature.ENCODE_BINARY_AS_7BIT)
        .enable(SmileGenerator.Feature.WRITE_END_MARKER)
        .build();
    Random random = new Random(7);
    for (int i = 0; i < 500; i++) {
      Node doc = randomNode(random, 0, i % 25 == 0 ? 1500 : 12);
      readBack(doc, jackson(doc, other));
    }
  }

  @Test
  void corruptInputFailsWithAFormatError() throws IOException {
    byte[] good = ours(new Obj(List.of("name"), List.of(new Str("value"))));
    assertThatThrownBy(() -> read(new Obj(List.of("name"), List.of(new Str("value"))),
        java.util.Arrays.copyOf(good, good.length - 3)))
        .isInstanceOf(CodecFormatException.class)
        .hasMessageContaining("truncated");
    assertThatThrownBy(() -> new SmileValueReader(new byte[] {1, 2, 3, 4, 5}))
        .isInstanceOf(CodecFormatException.class)
        .hasMessageContaining("Smile header");
    SmileValueReader r = new SmileValueReader(good);
    r.beginObject();
    r.nextField();
    assertThatThrownBy(r::readLong)
        .isInstanceOf(CodecFormatException.class)
        .hasMessage("expected a number at /name, found a string");
  }

  /** Equal bytes, or a failure showing where they first differ (documents can be long). */
  /**
   * A record's field names and a map's keys share one name table, as in Jackson's output: a map
   * key equal to a field name written before is a reference to it, and so is a field name equal
   * to a map key written before, even one written before any record had that field (its codec
   * loaded in the middle of the document).
   */
  @Test
  void fieldNamesAndMapKeysShareReferencesWhicheverCameFirst() throws IOException {
    FieldNames early = new FieldNames("test.Early", "title", "count");
    String late = "lateFieldOfSmileCompatibilityTest";
    assertThat(FieldNames.nameId(late)).isEqualTo(-1);
    SmileValueWriter w = SmileValueWriter.acquire();
    w.beginObject();
    w.field(early, 0); // a record's field
    w.writeString("t");
    w.field("meta"); // a map: one key is the field name above, one is a name no record has yet
    w.beginObject();
    w.field("title");
    w.writeLong(1);
    w.field(late);
    w.writeLong(2);
    w.endObject();
    FieldNames loaded = new FieldNames("test.Late", late, "title");
    assertThat(FieldNames.nameId(late)).isEqualTo(loaded.nameId(0));
    w.field("child"); // a record whose codec came after the key
    w.beginObject();
    w.field(loaded, 0);
    w.writeLong(3);
    w.field(loaded, 1);
    w.writeLong(4);
    w.endObject();
    w.field(early, 1);
    w.writeLong(5);
    w.endObject();
    Node doc = new Obj(List.of("title", "meta", "child", "count"), List.of(new Str("t"),
        new Obj(List.of("title", late), List.of(new Num(1), new Num(2))),
        new Obj(List.of(late, "title"), List.of(new Num(3), new Num(4))), new Num(5)));
    byte[] jackson = jackson(doc, new SmileFactory());
    assertSameBytes(w.finish(), jackson, "the document");
    // The later references really are references: two names written in full, once each.
    assertThat(countOf(jackson, late.getBytes(StandardCharsets.UTF_8))).isEqualTo(1);
    assertThat(countOf(jackson, "title".getBytes(StandardCharsets.UTF_8))).isEqualTo(1);
    readBack(doc, jackson);
  }

  private static int countOf(byte[] haystack, byte[] needle) {
    int count = 0;
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
        count++;
      }
    }
    return count;
  }

  private static void assertSameBytes(byte[] ours, byte[] jackson, String what) {
    int n = Math.min(ours.length, jackson.length);
    int at = 0;
    while (at < n && ours[at] == jackson[at]) {
      at++;
    }
    if (at == n && ours.length == jackson.length) {
      return;
    }
    int from = Math.max(0, at - 8);
    throw new AssertionError(what + ": first difference at byte " + at + " of " + ours.length
        + " (Jackson: " + jackson.length + "); ours from " + from + ": "
        + HexFormat.of().formatHex(ours, from, Math.min(ours.length, at + 8)) + ", Jackson's: "
        + HexFormat.of().formatHex(jackson, from, Math.min(jackson.length, at + 8)));
  }

  @Test
  void aStringWithAnUnpairedSurrogateIsRefusedNotWrittenWrong() {
    SmileValueWriter w = SmileValueWriter.acquire();
    assertThatThrownBy(() -> w.writeString("a\uD800b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate");
    w.release();
  }

  // ---- documents ----

  private static Node randomNode(Random r, int depth, int namePool) {
    int kind = depth >= 4 ? 2 + r.nextInt(8) : r.nextInt(10);
    switch (kind) {
      case 0: {
        int n = r.nextInt(namePool > 100 ? namePool : 6);
        List<String> names = new ArrayList<>();
        List<Node> values = new ArrayList<>();
        java.util.Set<String> used = new java.util.HashSet<>();
        for (int i = 0; i < n; i++) {
          String name = randomName(r, namePool);
          if (used.add(name)) {
            names.add(name);
            values.add(randomNode(r, depth + 1, namePool > 100 ? 12 : namePool));
          }
        }
        return new Obj(names, values);
      }
      case 1: {
        int n = r.nextInt(5);
        List<Node> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          items.add(randomNode(r, depth + 1, namePool));
        }
        return new Arr(items);
      }
      case 2:
      case 3:
        return new Str(randomString(r, r.nextInt(5) == 0 ? r.nextInt(200) : r.nextInt(70)));
      case 4: {
        int bits = r.nextInt(64);
        return new Num(r.nextLong() >> bits);
      }
      case 5:
        return new Dbl(r.nextBoolean() ? r.nextDouble() * 1e6 : Double.longBitsToDouble(r.nextLong()));
      case 6:
        return new Flt(Float.intBitsToFloat(r.nextInt()));
      case 7:
        return new Bool(r.nextBoolean());
      case 8:
        return new Null();
      default: {
        byte[] b = new byte[r.nextInt(40)];
        r.nextBytes(b);
        return new Bin(b);
      }
    }
  }

  private static String randomName(Random r, int pool) {
    if (pool > 100) {
      return "field" + r.nextInt(pool);
    }
    int pick = r.nextInt(pool);
    if (pick < 8) {
      return List.of("id", "name", "value", "items", "x", "é", "long_" + "n".repeat(70), "k")
          .get(pick);
    }
    return randomString(r, 1 + r.nextInt(70));
  }

  private static String randomString(Random r, int len) {
    StringBuilder sb = new StringBuilder();
    int alphabet = r.nextInt(4);
    while (sb.length() < len) {
      switch (alphabet == 0 ? r.nextInt(4) : alphabet == 1 ? 0 : r.nextInt(2)) {
        case 0:
          sb.append((char) (' ' + r.nextInt(95)));
          break;
        case 1:
          sb.append((char) (0xA0 + r.nextInt(0x700)));
          break;
        case 2:
          sb.append((char) (0x4E00 + r.nextInt(0x5000)));
          break;
        default:
          sb.appendCodePoint(0x1F600 + r.nextInt(60));
      }
    }
    return sb.toString();
  }

  // ---- writing ----

  private static byte[] jackson(Node doc, SmileFactory factory) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = factory.createGenerator(out)) {
      writeJackson(g, doc);
    }
    return out.toByteArray();
  }

  private static void writeJackson(JsonGenerator g, Node n) throws IOException {
    if (n instanceof Obj o) {
      g.writeStartObject();
      for (int i = 0; i < o.names().size(); i++) {
        g.writeFieldName(o.names().get(i));
        writeJackson(g, o.values().get(i));
      }
      g.writeEndObject();
    } else if (n instanceof Arr a) {
      g.writeStartArray();
      for (Node item : a.items()) {
        writeJackson(g, item);
      }
      g.writeEndArray();
    } else if (n instanceof Str s) {
      g.writeString(s.value());
    } else if (n instanceof Num v) {
      g.writeNumber(v.value());
    } else if (n instanceof Dbl d) {
      g.writeNumber(d.value());
    } else if (n instanceof Flt f) {
      g.writeNumber(f.value());
    } else if (n instanceof Bool b) {
      g.writeBoolean(b.value());
    } else if (n instanceof Null) {
      g.writeNull();
    } else {
      g.writeBinary(((Bin) n).value());
    }
  }

  private static byte[] ours(Node doc) {
    SmileValueWriter w = SmileValueWriter.acquire();
    writeOurs(w, doc, false);
    return w.finish();
  }

  /** One FieldNames per list of names, as one per generated record type. */
  private static final java.util.Map<List<String>, FieldNames> FIELD_NAMES =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static FieldNames fieldNames(Obj o) {
    return FIELD_NAMES.computeIfAbsent(o.names(),
        names -> new FieldNames("test.Record", names.toArray(new String[0])));
  }

  private static void writeOurs(SmileValueWriter w, Node n, boolean byIndex) {
    if (n instanceof Obj o) {
      w.beginObject();
      for (int i = 0; i < o.names().size(); i++) {
        if (byIndex) {
          w.field(fieldNames(o), i);
        } else {
          w.field(o.names().get(i));
        }
        writeOurs(w, o.values().get(i), byIndex);
      }
      w.endObject();
    } else if (n instanceof Arr a) {
      w.beginArray();
      for (Node item : a.items()) {
        writeOurs(w, item, byIndex);
      }
      w.endArray();
    } else if (n instanceof Str s) {
      w.writeString(s.value());
    } else if (n instanceof Num v) {
      w.writeLong(v.value());
    } else if (n instanceof Dbl d) {
      w.writeDouble(d.value());
    } else if (n instanceof Flt f) {
      w.writeFloat(f.value());
    } else if (n instanceof Bool b) {
      w.writeBoolean(b.value());
    } else if (n instanceof Null) {
      w.writeNull();
    } else {
      w.writeBytes(((Bin) n).value());
    }
  }

  // ---- reading ----

  private static void readBack(Node doc, byte[] bytes) {
    SmileValueReader r = read(doc, bytes);
    assertThat(r.atEnd()).isTrue();
  }

  private static SmileValueReader read(Node doc, byte[] bytes) {
    SmileValueReader r = new SmileValueReader(bytes);
    check(r, doc, false);
    return r;
  }

  private static void check(SmileValueReader r, Node n, boolean byIndex) {
    if (n instanceof Obj o) {
      r.beginObject();
      for (int i = 0; i < o.names().size(); i++) {
        if (byIndex) {
          assertThat(r.nextField(fieldNames(o))).isEqualTo(i);
        } else {
          assertThat(r.nextField()).isEqualTo(o.names().get(i));
        }
        if (i % 3 == 2) {
          r.skipValue();
        } else {
          check(r, o.values().get(i), byIndex);
        }
      }
      if (byIndex) {
        assertThat(r.nextField(fieldNames(o))).isEqualTo(FieldNames.END);
      } else {
        assertThat(r.nextField()).isNull();
      }
    } else if (n instanceof Arr a) {
      r.beginArray();
      for (Node item : a.items()) {
        assertThat(r.nextElement()).isTrue();
        check(r, item, byIndex);
      }
      assertThat(r.nextElement()).isFalse();
    } else if (n instanceof Str s) {
      assertThat(r.readString()).isEqualTo(s.value());
    } else if (n instanceof Num v) {
      assertThat(r.readLong()).isEqualTo(v.value());
    } else if (n instanceof Dbl d) {
      assertThat(Double.doubleToRawLongBits(r.readDouble()))
          .isEqualTo(Double.doubleToRawLongBits(d.value()));
    } else if (n instanceof Flt f) {
      assertThat(Float.floatToRawIntBits(r.readFloat()))
          .isEqualTo(Float.floatToRawIntBits(f.value()));
    } else if (n instanceof Bool b) {
      assertThat(r.readBoolean()).isEqualTo(b.value());
    } else if (n instanceof Null) {
      assertThat(r.readNull()).isTrue();
    } else {
      assertThat(r.readBytes()).isEqualTo(((Bin) n).value());
    }
  }
}
