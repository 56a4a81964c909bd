package io.cocoindex.samples.annotated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.samples.annotated.CodecFixtures.Color;
import io.cocoindex.samples.annotated.CodecFixtures.ColorRecord;
import io.cocoindex.samples.annotated.CodecFixtures.Everything;
import io.cocoindex.samples.annotated.CodecFixtures.Inner;
import io.cocoindex.samples.annotated.CodecFixtures.Optionals;
import io.cocoindex.samples.annotated.CodecFixtures.ColorAsText;
import io.cocoindex.samples.annotated.CodecFixtures.VersionAsText;
import io.cocoindex.samples.annotated.CodecFixtures.TableRecordV1;
import io.cocoindex.samples.annotated.CodecFixtures.TableRecordV2;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecException;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.codec.JacksonCodecFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The generated codecs, as the engine gets them from the standard codec registry. */
class GeneratedCodecTest {
  private final CodecRegistry registry = CodecRegistry.standard();
  private final JacksonCodecFactory reflective = new JacksonCodecFactory();

  static Everything everything() {
    return new Everything(
        true,
        (byte) -7,
        (short) 300,
        42,
        1L << 40,
        1.5f,
        Math.PI,
        'λ',
        false,
        -1,
        Long.MIN_VALUE,
        2.25,
        'x',
        "héllo",
        new byte[] {0, 1, (byte) 0xFF},
        UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
        Fingerprint.ofString("content"),
        StableKey.of(List.of("table", 7L)),
        Color.GREEN,
        new Inner("a", 10),
        List.of("x", "y"),
        List.of(new Inner("b", 1), new Inner("c", 2)),
        Set.of("t2", "t1"),
        Set.of(Color.RED, Color.GREEN),
        Map.of("one", 1, "two", 2),
        Optional.of("note"),
        Optional.empty(),
        List.of(List.of(1L, 2L), List.of()));
  }

  static Everything allAbsent() {
    return new Everything(
        false, (byte) 0, (short) 0, 0, 0, 0, 0, 'a', null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, null, Optional.empty(),
        Optional.empty(), null);
  }

  private <T> Codec<T> codec(Class<T> type) {
    return registry.codecFor(type);
  }

  @SuppressWarnings("unchecked")
  private <T> Codec<T> reflectiveCodec(Class<T> type) {
    return (Codec<T>) reflective.create(type, registry);
  }

  @Test
  void registryUsesTheGeneratedCodecForAnnotatedRecords() {
    assertThat(codec(Everything.class).getClass().getName())
        .isEqualTo("io.cocoindex.runtime.codec.generated.GeneratedCodecAdapter");
    assertThat(codec(String.class).getClass().getName()).doesNotContain("generated");
  }

  @Test
  void roundTripsEverySupportedType() {
    Everything value = everything();
    Everything copy = codec(Everything.class).decode(codec(Everything.class).encode(value));
    assertThat(copy).usingRecursiveComparison().isEqualTo(value);
    assertThat(copy.blob()).containsExactly(0, 1, 0xFF);
  }

  @Test
  void roundTripsNullsAndEmptyOptionals() {
    Everything value = allAbsent();
    Everything copy = codec(Everything.class).decode(codec(Everything.class).encode(value));
    assertThat(copy).usingRecursiveComparison().isEqualTo(value);
  }

  @Test
  void equalValuesEncodeToEqualBytesWhateverTheirSetAndMapOrder() {
    Everything a = everything();
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put("two", 2);
    counts.put("one", 1);
    Everything b =
        new Everything(
            a.flag(), a.tiny(), a.small(), a.count(), a.big(), a.ratio(), a.precise(), a.letter(),
            a.maybeFlag(), a.maybeCount(), a.maybeBig(), a.maybePrecise(), a.maybeLetter(),
            a.text(), a.blob().clone(), a.id(), a.fingerprint(), a.key(), a.color(), a.inner(),
            a.words(), a.inners(), new HashSet<>(List.of("t1", "t2")),
            new LinkedHashSet<>(List.of(Color.GREEN, Color.RED)), counts, a.note(), a.maybeInner(),
            a.matrix());
    assertThat(codec(Everything.class).encode(b)).isEqualTo(codec(Everything.class).encode(a));
  }

  @Test
  void bytesAreStableAcrossRuns() {
    byte[] bytes =
        codec(TableRecordV2.class)
            .encode(
                new TableRecordV2(
                    "s", 3, true, List.of("a"), Map.of("k", "v"), Optional.empty(),
                    new Inner("o", 1)));
    // Fixed bytes: a change here breaks every store written before it.
    assertThat(HexFormat.of().formatHex(bytes))
        .isEqualTo(
            "3a290a01fa85736368656d6140738676657273696f6ec686696e64657865642386636f6c756d6e73f84061"
                + "f9866f7074696f6e73fa806b4076fb86636f6d6d656e7421846f776e6572fa836e616d65406f8373"
                + "697a65c2fbfb");
  }

  @Test
  void reflectiveCodecReadsGeneratedBytesAndBack() {
    Everything value = everything();
    byte[] generated = codec(Everything.class).encode(value);
    byte[] reflectiveBytes = reflectiveCodec(Everything.class).encode(value);
    assertThat(reflectiveCodec(Everything.class).decode(generated))
        .usingRecursiveComparison()
        .isEqualTo(value);
    assertThat(codec(Everything.class).decode(reflectiveBytes))
        .usingRecursiveComparison()
        .isEqualTo(value);
  }

  @Test
  void recordStoredBeforeComponentsWereAddedDecodesWithDefaults() {
    TableRecordV2 expected =
        new TableRecordV2("public", 0, false, List.of(), Map.of(), Optional.empty(), null);
    byte[] generatedV1 = codec(TableRecordV1.class).encode(new TableRecordV1("public"));
    byte[] reflectiveV1 = reflectiveCodec(TableRecordV1.class).encode(new TableRecordV1("public"));
    assertThat(codec(TableRecordV2.class).decode(generatedV1)).isEqualTo(expected);
    assertThat(codec(TableRecordV2.class).decode(reflectiveV1)).isEqualTo(expected);
  }

  @Test
  void storedFieldTheRecordNoLongerHasIsAnErrorNamingRecordAndField() {
    byte[] v2 =
        codec(TableRecordV2.class)
            .encode(new TableRecordV2("s", 1, false, List.of(), Map.of(), Optional.empty(), null));
    assertThatThrownBy(() -> codec(TableRecordV1.class).decode(v2))
        .isInstanceOf(CodecException.class)
        .hasMessage(
            "stored io.cocoindex.samples.annotated.CodecFixtures.TableRecordV1 has field 'version'"
                + " that the record no longer has (removed or renamed?): keep a component of that"
                + " name, or run dropState with the version that stored it before upgrading (this"
                + " version cannot: dropState reads the stored records too); see"
                + " docs/CONNECTORS.md, \"Changing a tracking record\"");
  }

  @Test
  void storedValueOfTheWrongShapeIsAnErrorNamingRecordAndField() {
    byte[] stored = codec(VersionAsText.class).encode(new VersionAsText("s", "three"));
    assertThatThrownBy(() -> codec(TableRecordV2.class).decode(stored))
        .isInstanceOf(CodecException.class)
        .hasMessage(
            "cannot deserialize io.cocoindex.samples.annotated.CodecFixtures$TableRecordV2:"
                + " expected a number at /version, found a string. If a component of"
                + " io.cocoindex.samples.annotated.CodecFixtures$TableRecordV2 changed type since"
                + " this was stored, keep that component as it was and give the new type a"
                + " component of its own (stored values then decode with it empty), or run"
                + " dropState with the version that stored them before upgrading; see"
                + " docs/CONNECTORS.md, \"Changing a tracking record\"");
  }

  @Test
  void storedEnumConstantThatNoLongerExistsIsAnErrorNamingTheEnum() {
    byte[] stored = codec(ColorAsText.class).encode(new ColorAsText("BLUE"));
    assertThatThrownBy(() -> codec(ColorRecord.class).decode(stored))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(
            "stored io.cocoindex.samples.annotated.CodecFixtures.Color constant 'BLUE' no longer"
                + " exists (removed or renamed?)");
  }

  @Test
  void emptyOptionalsInListsAndMapsReadBackEmptyAsJacksonReadsThem() {
    List<Optional<String>> notes = new ArrayList<>(List.of(Optional.empty(), Optional.of("n")));
    notes.add(null);
    Map<String, Optional<Integer>> counts = new HashMap<>(Map.of("e", Optional.empty(), "v",
        Optional.of(1)));
    counts.put("n", null);
    Optionals value = new Optionals(notes, counts,
        Optional.of(List.of(Optional.empty(), Optional.of(new Inner("i", 2)))));
    // A null optional, like a null Optional component, reads as an empty one.
    Optionals expected = new Optionals(
        List.of(Optional.empty(), Optional.of("n"), Optional.empty()),
        Map.of("e", Optional.empty(), "v", Optional.of(1), "n", Optional.empty()),
        value.nested());
    Codec<Optionals> generated = codec(Optionals.class);
    byte[] bytes = generated.encode(value);

    assertThat(generated.decode(bytes)).isEqualTo(expected);
    assertThat(generated.copy(value)).isEqualTo(expected);
    assertThat(reflectiveCodec(Optionals.class).decode(bytes)).isEqualTo(expected);
    assertThat(generated.decode(reflectiveCodec(Optionals.class).encode(value)))
        .isEqualTo(expected);
  }
}
