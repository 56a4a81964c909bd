package io.cocoindex.runtime.codec.generated;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecException;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.codec.JacksonCodecFactory;
import io.cocoindex.runtime.codec.generated.ChangedComponentTypeTest.AsText;
import io.cocoindex.runtime.codec.generated.ChangedComponentTypeTest.AsTextCodec;
import io.cocoindex.runtime.codec.generated.ChangedComponentTypeTest.Both;
import io.cocoindex.runtime.codec.generated.ChangedComponentTypeTest.BothCodec;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tracking record that lost a component since it was stored ({@code Both(content,
 * contentFingerprint)} became {@code AsText(content)}) fails naming the record and the field, and
 * advises what works: keep the component, or drop with the version that stored the records. A
 * drop with the version that lost it reads the stored records too, and failed the same way, so
 * advising "drop the app's state" sent the user round in a circle.
 */
class RemovedComponentTest {
  /** The message for the stored record read as {@code record}, as the codec names it. */
  static String message(String record) {
    return "stored " + record + " has field 'contentFingerprint' that the record no longer has"
        + " (removed or renamed?): keep a component of that name, or run dropState with the"
        + " version that stored it before upgrading (this version cannot: dropState reads the"
        + " stored records too); see docs/CONNECTORS.md, \"Changing a tracking record\"";
  }

  final Both stored = new Both("v", Fingerprint.ofString("v"));

  @Test
  void theGeneratedCodecAdvisesKeepingTheComponentOrDroppingWithTheOldVersion() {
    byte[] bytes = new GeneratedCodecAdapter<>(new BothCodec()).encode(stored);
    Codec<AsText> text = new GeneratedCodecAdapter<>(new AsTextCodec());
    assertThatThrownBy(() -> text.decode(bytes))
        .isInstanceOf(CodecException.class)
        .hasMessage(message("AsText")); // the name its FieldNames give
  }

  @Test
  void theReflectiveCodecGivesTheSameAdvice() {
    CodecRegistry reflective = CodecRegistry.with(List.of(new JacksonCodecFactory()));
    byte[] bytes = reflective.<Both>codecFor(Both.class).encode(stored);
    assertThatThrownBy(() -> reflective.<AsText>codecFor(AsText.class).decode(bytes))
        .isInstanceOf(CodecException.class)
        .hasMessage(message(AsText.class.getName()));
  }
}
