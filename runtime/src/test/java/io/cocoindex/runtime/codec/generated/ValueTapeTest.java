package io.cocoindex.runtime.codec.generated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.codec.CodecFormatException;
import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.codec.GeneratedCodecs;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.codec.ValueWriter;
import io.cocoindex.runtime.codec.CodecException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A copy through the in-memory tape is what encoding then decoding gives: equal values, fresh
 * mutable parts, the same errors; a codec that reads other than it writes still gets the bytes'
 * answer.
 */
class ValueTapeTest {

  /** Every kind of leaf a generated codec writes, nested. */
  record Doc(String title, long id, int n, double score, float ratio, boolean flag, byte[] blob,
      List<String> tags, Map<String, Doc> children, UUID uuid, Fingerprint fp, StableKey key,
      String absent) {

    @Override
    public boolean equals(Object o) {
      return o instanceof Doc d && title.equals(d.title) && id == d.id && n == d.n
          && Double.compare(score, d.score) == 0 && Float.compare(ratio, d.ratio) == 0
          && flag == d.flag && Arrays.equals(blob, d.blob) && tags.equals(d.tags)
          && children.equals(d.children) && uuid.equals(d.uuid) && fp.equals(d.fp)
          && key.equals(d.key) && java.util.Objects.equals(absent, d.absent);
    }

    @Override
    public int hashCode() {
      return title.hashCode();
    }
  }

  /** Written the way the processor writes a record: an object of named fields. */
  static final class DocCodec implements GeneratedCodec<Doc> {
    @Override
    public Class<Doc> type() {
      return Doc.class;
    }

    @Override
    public void write(ValueWriter out, Doc d) {
      if (d == null) {
        out.writeNull();
        return;
      }
      out.beginObject();
      out.field("title");
      out.writeString(d.title);
      out.field("id");
      out.writeLong(d.id);
      out.field("n");
      out.writeInt(d.n);
      out.field("score");
      out.writeDouble(d.score);
      out.field("ratio");
      out.writeFloat(d.ratio);
      out.field("flag");
      out.writeBoolean(d.flag);
      out.field("blob");
      out.writeBytes(d.blob);
      out.field("tags");
      GeneratedCodecs.writeList(out, d.tags, ValueWriter::writeString);
      out.field("children");
      GeneratedCodecs.writeMap(out, d.children, this::write);
      out.field("uuid");
      out.writeUuid(d.uuid);
      out.field("fp");
      out.writeFingerprint(d.fp);
      out.field("key");
      out.writeStableKey(d.key);
      out.field("absent");
      out.writeString(d.absent);
      out.endObject();
    }

    @Override
    public Doc read(ValueReader in) {
      if (in.readNull()) {
        return null;
      }
      String title = null;
      long id = 0;
      int n = 0;
      double score = 0;
      float ratio = 0;
      boolean flag = false;
      byte[] blob = null;
      List<String> tags = List.of();
      Map<String, Doc> children = Map.of();
      UUID uuid = null;
      Fingerprint fp = null;
      StableKey key = null;
      String absent = null;
      in.beginObject();
      for (String f = in.nextField(); f != null; f = in.nextField()) {
        switch (f) {
          case "title" -> title = in.readString();
          case "id" -> id = in.readLong();
          case "n" -> n = in.readInt();
          case "score" -> score = in.readDouble();
          case "ratio" -> ratio = in.readFloat();
          case "flag" -> flag = in.readBoolean();
          case "blob" -> blob = in.readBytes();
          case "tags" -> tags = GeneratedCodecs.readList(in, ValueReader::readString);
          case "children" -> children = GeneratedCodecs.readMap(in, this::read);
          case "uuid" -> uuid = in.readUuid();
          case "fp" -> fp = in.readFingerprint();
          case "key" -> key = in.readStableKey();
          case "absent" -> absent = in.readString();
          default -> in.skipValue();
        }
      }
      return new Doc(title, id, n, score, ratio, flag, blob, tags, children, uuid, fp, key,
          absent);
    }
  }

  private final GeneratedCodecAdapter<Doc> codec = new GeneratedCodecAdapter<>(new DocCodec());

  @Test
  void aCopyEqualsWhatEncodingThenDecodingGives() {
    Random r = new Random(20261201L);
    for (int i = 0; i < 500; i++) {
      Doc doc = randomDoc(r, 0);
      Doc copy = codec.copy(doc);
      assertThat(copy).isEqualTo(codec.decode(codec.encode(doc))).isEqualTo(doc);
      assertThat(copy).isNotSameAs(doc);
    }
    assertThat(codec.copy(null)).isNull();
  }

  @Test
  void aCopySharesNoMutablePartWithTheOriginal() {
    Doc doc = randomDoc(new Random(7), 0);
    Doc copy = codec.copy(doc);
    assertThat(copy.blob()).isNotSameAs(doc.blob()).isEqualTo(doc.blob());
    doc.blob()[0] ^= 1;
    assertThat(copy.blob()[0]).isNotEqualTo(doc.blob()[0]);
  }

  @Test
  void aStringThatCannotBeEncodedFailsTheCopyAsItFailsEncoding() {
    Doc doc = new Doc("broken \uD800 text", 1, 1, 1, 1, true, new byte[0], List.of(), Map.of(),
        UUID.randomUUID(), Fingerprint.ofString("x"), StableKey.of("k"), null);
    assertThatThrownBy(() -> codec.encode(doc)).isInstanceOf(CodecException.class);
    assertThatThrownBy(() -> codec.copy(doc))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(Doc.class.getName())
        .hasMessageContaining("unpaired surrogate");
  }

  @Test
  void aCodecThatReadsOtherThanItWritesIsCopiedThroughTheLenientBytes() {
    // Writes a UUID as text, reads it as a UUID: the tape refuses, the Smile reader accepts.
    GeneratedCodec<UUID> asText = new GeneratedCodec<>() {
      @Override
      public Class<UUID> type() {
        return UUID.class;
      }

      @Override
      public void write(ValueWriter out, UUID value) {
        out.writeString(value.toString());
      }

      @Override
      public UUID read(ValueReader in) {
        return in.readUuid();
      }
    };
    GeneratedCodecAdapter<UUID> adapter = new GeneratedCodecAdapter<>(asText);
    UUID id = UUID.randomUUID();
    assertThat(adapter.copy(id)).isEqualTo(adapter.decode(adapter.encode(id))).isEqualTo(id);
  }

  @Test
  void aLargeValueCopiesWholeAndTheNextCopyStillWorks() {
    List<String> tags = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      tags.add("tag " + i);
    }
    Doc big = new Doc("big", 1, 2, 3, 4, true, new byte[1 << 20], tags, Map.of(),
        UUID.randomUUID(), Fingerprint.ofString("big"), StableKey.of("k"), null);
    assertThat(codec.copy(big)).isEqualTo(big);
    Doc small = randomDoc(new Random(1), 0);
    assertThat(codec.copy(small)).isEqualTo(small);
  }

  @Test
  void numbersReadAsAnotherKindConvertAndANullReadsAsZero() {
    ValueTape tape = ValueTape.acquire();
    try {
      tape.writeLong(7);
      tape.writeInt(3);
      tape.writeDouble(2.5);
      tape.writeFloat(1.5f);
      tape.writeNull();
      ValueReader reader = tape.reader();
      assertThat(reader.readInt()).isEqualTo(7);
      assertThat(reader.readDouble()).isEqualTo(3.0);
      assertThat(reader.readLong()).isEqualTo(2);
      assertThat(reader.readDouble()).isEqualTo(1.5);
      assertThat(reader.readLong()).isZero();
      assertThat(ValueTape.atEnd(reader)).isTrue();
    } finally {
      tape.release();
    }
  }

  @Test
  void aTapeReaderRefusesAValueOfAnotherShape() {
    ValueTape tape = ValueTape.acquire();
    try {
      tape.writeString("text");
      ValueReader reader = tape.reader();
      assertThatThrownBy(reader::readLong)
          .isInstanceOf(CodecFormatException.class)
          .hasMessageContaining("expected a number");
      assertThat(reader.readString()).isEqualTo("text");
      assertThat(ValueTape.atEnd(reader)).isTrue();
    } finally {
      tape.release();
    }
  }

  private static Doc randomDoc(Random r, int depth) {
    byte[] blob = new byte[r.nextInt(40)];
    r.nextBytes(blob);
    List<String> tags = new ArrayList<>();
    for (int i = r.nextInt(5); i > 0; i--) {
      tags.add("tag-" + r.nextInt(1000) + (r.nextBoolean() ? " é \uD83D\uDE00" : ""));
    }
    Map<String, Doc> children = new java.util.TreeMap<>();
    if (depth < 2) {
      for (int i = r.nextInt(3); i > 0; i--) {
        children.put("c" + i, randomDoc(r, depth + 1));
      }
    }
    return new Doc("doc " + r.nextLong(), r.nextLong(), r.nextInt(), r.nextDouble() * 1e6,
        r.nextFloat(), r.nextBoolean(), blob, tags, children, new UUID(r.nextLong(), r.nextLong()),
        Fingerprint.ofString("fp" + r.nextInt()), StableKey.of(List.of("k", (long) r.nextInt())),
        r.nextBoolean() ? null : "present");
  }
}
