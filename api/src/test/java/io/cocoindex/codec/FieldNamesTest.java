package io.cocoindex.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FieldNamesTest {

  @Test
  void matchesAStoredNameByItsBytesWithinTheInput() {
    FieldNames names = new FieldNames("test.Doc", "id", "title", "größe", "a".repeat(40));
    byte[] in = "xxtitleidgröße".getBytes(StandardCharsets.UTF_8);
    assertThat(names.match(in, 2, 5, 1)).isEqualTo(1); // the expected field
    assertThat(names.match(in, 7, 2, 3)).isEqualTo(0); // another than expected
    assertThat(names.match(in, 9, "größe".getBytes(StandardCharsets.UTF_8).length, 4))
        .isEqualTo(2); // expected past the last field
    assertThat(names.match(in, 2, 4, 1)).isEqualTo(-1); // "titl": a prefix is not a name
    byte[] longName = ("-" + "a".repeat(40)).getBytes(StandardCharsets.UTF_8);
    assertThat(names.match(longName, 1, 40, -1)).isEqualTo(3);
    longName[40] = 'b';
    assertThat(names.match(longName, 1, 40, 3)).isEqualTo(-1);
  }

  @Test
  void matchesShortNamesWordByWordAndNearTheEndOfTheInputByteByByte() {
    FieldNames names = new FieldNames("test.Doc", "", "a", "ab", "heading", "sections", "abc");
    byte[] in = "sectionsheadingabcab".getBytes(StandardCharsets.UTF_8);
    assertThat(names.match(in, 0, 8, 4)).isEqualTo(4); // a whole word
    assertThat(names.match(in, 8, 7, 0)).isEqualTo(3); // "heading", the bytes after it ignored
    assertThat(names.match(in, 15, 3, -1)).isEqualTo(5); // "abc", near the end: byte by byte
    assertThat(names.match(in, 15, 2, 2)).isEqualTo(2); // "ab" of "abcab"
    assertThat(names.match(in, 18, 2, 2)).isEqualTo(2); // the last two bytes
    assertThat(names.match(in, 0, 1, 1)).isEqualTo(-1); // "s" is no name
    assertThat(names.match(in, 0, 0, 1)).isEqualTo(0); // the empty name
    assertThat(names.match(in, 0, 7, 3)).isEqualTo(-1); // "section": same length as "heading"
  }

  @Test
  void findsANameByValueWithFewOrManyFields() {
    FieldNames few = new FieldNames("test.Few", "id", "title");
    assertThat(few.indexOf(new String("title".toCharArray()))).isEqualTo(1);
    assertThat(few.indexOf("missing")).isEqualTo(-1);
    String[] many = IntStream.range(0, 30).mapToObj(i -> "f" + i).toArray(String[]::new);
    FieldNames lots = new FieldNames("test.Many", many);
    assertThat(lots.indexOf("f17")).isEqualTo(17);
    assertThat(lots.indexOf("f30")).isEqualTo(-1);
    assertThat(lots.size()).isEqualTo(30);
  }

  @Test
  void copiesANamesUtf8Bytes() {
    FieldNames names = new FieldNames("test.Doc", "größe");
    byte[] out = new byte[10];
    int end = names.copyUtf8(0, out, 1);
    assertThat(end).isEqualTo(1 + names.utf8Length(0)).isEqualTo(8);
    assertThat(new String(out, 1, 7, StandardCharsets.UTF_8)).isEqualTo("größe");
  }

  @Test
  void refusesARepeatedOrInvalidName() {
    assertThatThrownBy(() -> new FieldNames("test.Doc", "id", "id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("test.Doc: field name 'id' is repeated");
    assertThatThrownBy(() -> new FieldNames("test.Doc", "id", "\uD800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("test.Doc: field name 1 is not valid Unicode");
  }

  @Test
  void aReaderWithoutItsOwnMatchingFindsTheIndexByNameAndRefusesAnUnknownField() {
    FieldNames names = new FieldNames("test.Doc", "id", "title");
    ValueReader byName = new NamesOnly("title", "id", "extra");
    assertThat(byName.nextField(names)).isEqualTo(1);
    assertThat(byName.nextField(names)).isEqualTo(0);
    assertThatThrownBy(() -> byName.nextField(names))
        .isInstanceOf(CodecFormatException.class)
        .hasMessageStartingWith("stored test.Doc has field 'extra' that the record no longer has");
    assertThat(new NamesOnly().nextField(names)).isEqualTo(FieldNames.END);
  }

  /** A reader of one object's field names, through the interface's default matching. */
  private static final class NamesOnly implements ValueReader {
    private final String[] fields;
    private int next;

    NamesOnly(String... fields) {
      this.fields = fields;
    }

    @Override
    public String nextField() {
      return next < fields.length ? fields[next++] : null;
    }

    @Override
    public boolean readNull() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void beginObject() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void beginArray() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean nextElement() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void skipValue() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean readBoolean() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int readInt() {
      throw new UnsupportedOperationException();
    }

    @Override
    public long readLong() {
      throw new UnsupportedOperationException();
    }

    @Override
    public float readFloat() {
      throw new UnsupportedOperationException();
    }

    @Override
    public double readDouble() {
      throw new UnsupportedOperationException();
    }

    @Override
    public String readString() {
      throw new UnsupportedOperationException();
    }

    @Override
    public byte[] readBytes() {
      throw new UnsupportedOperationException();
    }

    @Override
    public java.util.UUID readUuid() {
      throw new UnsupportedOperationException();
    }

    @Override
    public io.cocoindex.Fingerprint readFingerprint() {
      throw new UnsupportedOperationException();
    }

    @Override
    public io.cocoindex.StableKey readStableKey() {
      throw new UnsupportedOperationException();
    }
  }
}
