package io.cocoindex.runtime.codec.generated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Fingerprint;
import io.cocoindex.codec.FieldNames;
import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.codec.ValueWriter;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecException;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.codec.JacksonCodecFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tracking record whose component changed type since it was stored ({@code String content}
 * became {@code Fingerprint content}, or back) fails naming the type and the field, and says what
 * to do: keep the old component and give the new type a new one, or drop with the old version.
 */
class ChangedComponentTypeTest {
  static final String ADVICE = "changed type since this was stored, keep that component as it was"
      + " and give the new type a component of its own (stored values then decode with it"
      + " empty), or run dropState with the version that stored them before upgrading; see"
      + " docs/CONNECTORS.md, \"Changing a tracking record\"";

  record AsText(String content) {}

  record AsFingerprint(Fingerprint content) {}

  /** The migration the advice describes: the old component kept, the new type beside it. */
  record Both(String content, Fingerprint contentFingerprint) {}

  static final class AsTextCodec implements GeneratedCodec<AsText> {
    static final FieldNames FIELDS = new FieldNames("AsText", "content");

    @Override
    public Class<AsText> type() {
      return AsText.class;
    }

    @Override
    public void write(ValueWriter out, AsText v) {
      out.beginObject();
      out.field(FIELDS, 0);
      out.writeString(v.content());
      out.endObject();
    }

    @Override
    public AsText read(ValueReader in) {
      String content = null;
      in.beginObject();
      for (int f = in.nextField(FIELDS); f != FieldNames.END; f = in.nextField(FIELDS)) {
        content = in.readString();
      }
      return new AsText(content);
    }
  }

  static final class AsFingerprintCodec implements GeneratedCodec<AsFingerprint> {
    static final FieldNames FIELDS = new FieldNames("AsFingerprint", "content");

    @Override
    public Class<AsFingerprint> type() {
      return AsFingerprint.class;
    }

    @Override
    public void write(ValueWriter out, AsFingerprint v) {
      out.beginObject();
      out.field(FIELDS, 0);
      out.writeFingerprint(v.content());
      out.endObject();
    }

    @Override
    public AsFingerprint read(ValueReader in) {
      Fingerprint content = null;
      in.beginObject();
      for (int f = in.nextField(FIELDS); f != FieldNames.END; f = in.nextField(FIELDS)) {
        content = in.readFingerprint();
      }
      return new AsFingerprint(content);
    }
  }

  static final class BothCodec implements GeneratedCodec<Both> {
    static final FieldNames FIELDS = new FieldNames("Both", "content", "contentFingerprint");

    @Override
    public Class<Both> type() {
      return Both.class;
    }

    @Override
    public void write(ValueWriter out, Both v) {
      out.beginObject();
      out.field(FIELDS, 0);
      out.writeString(v.content());
      out.field(FIELDS, 1);
      out.writeFingerprint(v.contentFingerprint());
      out.endObject();
    }

    @Override
    public Both read(ValueReader in) {
      String content = null;
      Fingerprint fingerprint = null;
      in.beginObject();
      for (int f = in.nextField(FIELDS); f != FieldNames.END; f = in.nextField(FIELDS)) {
        if (f == 0) {
          content = in.readString();
        } else {
          fingerprint = in.readFingerprint();
        }
      }
      return new Both(content, fingerprint);
    }
  }

  final Codec<AsText> text = new GeneratedCodecAdapter<>(new AsTextCodec());
  final Codec<AsFingerprint> fingerprint = new GeneratedCodecAdapter<>(new AsFingerprintCodec());

  @Test
  void aFingerprintReadAsAStringSaysWhereAndWhatToDo() {
    byte[] stored = fingerprint.encode(new AsFingerprint(Fingerprint.ofString("v")));
    assertThatThrownBy(() -> text.decode(stored))
        .isInstanceOf(CodecException.class)
        .hasMessage("cannot deserialize " + AsText.class.getName() + ": expected a string at"
            + " /content, found binary data. If a component of " + AsText.class.getName() + " "
            + ADVICE);
  }

  @Test
  void aStringReadAsAFingerprintSaysSoNotBase64sWords() {
    byte[] stored = text.encode(new AsText("v"));
    assertThatThrownBy(() -> fingerprint.decode(stored))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("cannot deserialize " + AsFingerprint.class.getName()
            + ": expected a fingerprint at /content, found a string that is not one.")
        .hasMessageEndingWith(ADVICE);
  }

  @Test
  void bytesOfAnotherLengthReadAsAFingerprintSaySo() {
    record AsBytes(byte[] content) {}
    Codec<AsBytes> bytes = CodecRegistry.with(List.of(new JacksonCodecFactory()))
        .codecFor(AsBytes.class);
    byte[] stored = bytes.encode(new AsBytes(new byte[] {1, 2, 3}));
    assertThatThrownBy(() -> fingerprint.decode(stored))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("expected a fingerprint (16 bytes) at /content, found 3 bytes of"
            + " binary data.")
        .hasMessageEndingWith(ADVICE);
  }

  @Test
  void theReflectiveCodecGivesTheSameAdvice() {
    CodecRegistry reflective = CodecRegistry.with(List.of(new JacksonCodecFactory()));
    byte[] stored = reflective.<AsText>codecFor(AsText.class).encode(new AsText("v"));
    assertThatThrownBy(() -> reflective.<AsFingerprint>codecFor(AsFingerprint.class).decode(stored))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("cannot deserialize " + AsFingerprint.class.getName() + ": ")
        .hasMessageEndingWith(ADVICE);
  }

  @Test
  void theAdvisedMigrationReadsTheOldRecordsWithTheNewComponentEmpty() {
    byte[] stored = text.encode(new AsText("v"));
    Codec<Both> both = new GeneratedCodecAdapter<>(new BothCodec());
    assertThat(both.decode(stored)).isEqualTo(new Both("v", null));
  }
}
