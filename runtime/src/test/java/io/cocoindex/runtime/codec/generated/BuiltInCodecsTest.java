package io.cocoindex.runtime.codec.generated;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.codec.JacksonCodecFactory;
import java.lang.reflect.Type;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fingerprints and keys skip databind, and keep the bytes the reflective codec wrote. */
class BuiltInCodecsTest {
  private final CodecRegistry registry = CodecRegistry.standard();
  private final JacksonCodecFactory reflective = new JacksonCodecFactory();

  @SuppressWarnings("unchecked")
  private <T> Codec<T> reflective(Type type) {
    return (Codec<T>) reflective.create(type, registry);
  }

  @Test
  void fingerprintCodecIsBuiltInAndWritesTheReflectiveBytes() {
    Codec<Fingerprint> codec = registry.codecFor(Fingerprint.class);
    assertThat(codec).isInstanceOf(GeneratedCodecAdapter.class);
    Fingerprint fp = Fingerprint.ofString("row 7");
    byte[] bytes = codec.encode(fp);
    assertThat(bytes).isEqualTo(this.<Fingerprint>reflective(Fingerprint.class).encode(fp));
    assertThat(codec.decode(bytes)).isEqualTo(fp);
    assertThat(this.<Fingerprint>reflective(Fingerprint.class).decode(bytes)).isEqualTo(fp);
  }

  @Test
  void stableKeyCodecIsBuiltInAndWritesTheReflectiveBytes() {
    Codec<StableKey> codec = registry.codecFor(StableKey.class);
    assertThat(codec).isInstanceOf(GeneratedCodecAdapter.class);
    StableKey key = StableKey.of(List.of("docs", 42L));
    byte[] bytes = codec.encode(key);
    assertThat(bytes).isEqualTo(this.<StableKey>reflective(StableKey.class).encode(key));
    assertThat(codec.decode(bytes)).isEqualTo(key);
  }
}
