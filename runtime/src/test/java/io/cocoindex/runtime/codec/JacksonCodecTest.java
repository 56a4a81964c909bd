package io.cocoindex.runtime.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The built-in (reflective) codecs: records by their components only. */
class JacksonCodecTest {
  private final CodecRegistry registry = CodecRegistry.with(List.of(new JacksonCodecFactory()));

  /** Helper methods named like bean getters are not state and must not be serialized. */
  record Cell(String text, long number) {
    boolean isEmpty() {
      return text == null || text.isEmpty();
    }

    public String getUpper() {
      return text == null ? null : text.toUpperCase();
    }
  }

  record Everything(String s, int i, long l, boolean b, double d, byte[] bytes, List<String> list,
      Map<String, Integer> map, Optional<String> opt, Fingerprint fp, StableKey key,
      Cell nested) {}

  @Test
  void recordsRoundTripByComponentsOnlyIgnoringGetterLikeMethods() {
    Codec<Cell> codec = registry.codecFor(Cell.class);
    assertThat(codec.decode(codec.encode(new Cell("a", 3)))).isEqualTo(new Cell("a", 3));
  }

  @Test
  void everySupportedTypeRoundTrips() {
    Everything e = new Everything("s", 1, 2L, true, 1.5, new byte[] {1, 2}, List.of("x"),
        Map.of("k", 1), Optional.of("o"), Fingerprint.ofString("f"),
        StableKey.of(List.of("a", 1L)), new Cell("c", 4));
    Codec<Everything> codec = registry.codecFor(Everything.class);
    Everything back = codec.decode(codec.encode(e));
    assertThat(back).usingRecursiveComparison().isEqualTo(e);
  }

  /** A class with state Jackson writes (its field) but no way to construct it from that. */
  static final class Unreadable {
    private final String name;

    Unreadable(String name) {
      this.name = name;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  @Test
  void aClassThatCannotBeReadBackFailsWhenWrittenNamingTheFix() {
    Codec<Unreadable> codec = registry.codecFor(Unreadable.class);
    assertThatThrownBy(() -> codec.encode(new Unreadable("n")))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("a value of " + Unreadable.class.getName() + " can be written but"
            + " not read back (Cannot construct instance of")
        .hasMessageEndingWith("declare it as a record (annotated @TrackingRecord, @TargetValue or"
            + " @ActionValue for a generated codec)");
  }

  record V1(String name) {}

  record V2(String name, int added) {}

  @Test
  void addedComponentDecodesAsDefaultAndRemovedOneIsAClearError() {
    byte[] old = registry.<V1>codecFor(V1.class).encode(new V1("n"));
    assertThat(registry.<V2>codecFor(V2.class).decode(old)).isEqualTo(new V2("n", 0));
    byte[] newer = registry.<V2>codecFor(V2.class).encode(new V2("n", 7));
    assertThatThrownBy(() -> registry.<V1>codecFor(V1.class).decode(newer))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(V1.class.getName())
        .hasMessageContaining("'added'");
  }
}
