package io.cocoindex.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.codec.JacksonCodecFactory;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The codecs the annotation processor generates, on random records with a component of every
 * kind it supports, held to what {@code processor/README.md} ("Generated codecs") promises:
 * a value reads back as written, and its copy (made without the bytes) is what reading back
 * gives, changed by nothing done to the value afterwards; the bytes have the shape the reflective
 * (Jackson) codec writes,
 * so each reads what the other wrote, both ways (a store written before the processor was added
 * reads after, and back); equal values give equal bytes, whatever order their sets and maps were
 * filled in; and a component added later reads as its default.
 */
class GeneratedCodecPropertyTest {
  enum Shade { LIGHT, DARK }

  @TargetValue
  record Part(String name, Optional<Double> weight, List<Shade> shades) {}

  /** Every kind of component a {@code @TargetValue} record may have. */
  @TargetValue
  record Everything(
      boolean flag, byte small, short mid, int count, long big, float ratio, double weight,
      char letter, Integer boxed, Long boxedLong, Double boxedDouble, Boolean boxedFlag,
      String text, byte[] raw, UUID id, Fingerprint fingerprint, StableKey key, Shade shade,
      Part part, List<String> names, Set<Integer> numbers, Set<String> tags,
      Map<String, Part> parts, Map<String, List<Shade>> shadesByName, Optional<String> note,
      Optional<Part> extra, List<List<Long>> grid, List<Part> children) {}

  /** {@link Everything} as it was before most of its components were added. */
  @TargetValue
  record Slim(int count, String text, List<String> names) {}

  private static final CodecRegistry REGISTRY = CodecRegistry.standard();
  private static final Codec<Everything> GENERATED = REGISTRY.codecFor(Everything.class);
  @SuppressWarnings("unchecked")
  private static final Codec<Everything> REFLECTIVE =
      (Codec<Everything>) new JacksonCodecFactory().create(Everything.class, REGISTRY);

  @Test
  void theRegistryUsesTheGeneratedCodec() {
    // The generated Everything_Codec, adapted to Smile; not the reflective fallback.
    assertThat(GENERATED.getClass().getSimpleName()).isEqualTo("GeneratedCodecAdapter");
  }

  @Property(seed = "20261205", tries = 400, edgeCases = EdgeCasesMode.MIXIN)
  void everyRecordReadsBackAndEitherCodecReadsTheOthersBytes(
      @ForAll("records") Everything value, @ForAll long shuffleSeed) {
    check(value, shuffleSeed);
  }

  /** More tries with a random seed: {@code -Dreliability.excludedGroups=none -Dgroups=soak}. */
  @Property(tries = 20_000, edgeCases = EdgeCasesMode.MIXIN)
  @Tag("soak")
  void soak(@ForAll("records") Everything value, @ForAll long shuffleSeed) {
    check(value, shuffleSeed);
  }

  private static void check(Everything value, long shuffleSeed) {
    byte[] generated = GENERATED.encode(value);
    assertSameRecord(GENERATED.decode(generated), value, "generated, read back");
    assertSameRecord(REFLECTIVE.decode(generated), value, "generated, read by Jackson");
    assertSameRecord(GENERATED.decode(REFLECTIVE.encode(value)), value, "Jackson's, read back");
    // A copy past the serialization boundary, made without the bytes: what reading them back
    // gives, and nothing in it changes when the declared value does afterwards.
    Everything copy = GENERATED.copy(value);
    assertSameRecord(copy, value, "copied");
    if (value.raw() != null && value.raw().length > 0) {
      value.raw()[0]++;
      assertThat(copy.raw()[0]).as("a copied byte array").isEqualTo((byte) (value.raw()[0] - 1));
      value.raw()[0]--;
    }
    try {
      value.names().add("added after the copy");
      assertThat(copy.names()).as("a copied list").doesNotContain("added after the copy");
      value.names().remove(value.names().size() - 1);
    } catch (UnsupportedOperationException unmodifiable) {
      // nothing to change
    }
    Everything reordered = reordered(value, new java.util.Random(shuffleSeed));
    assertThat(GENERATED.encode(reordered)).as("the same value, its sets and maps reordered")
        .isEqualTo(generated);
  }

  @Test
  void componentsAddedLaterReadAsTheirDefaults() {
    Codec<Slim> slim = REGISTRY.codecFor(Slim.class);
    Everything read = GENERATED.decode(slim.encode(new Slim(7, "t", List.of("a", "b"))));
    assertSameRecord(read, new Everything(false, (byte) 0, (short) 0, 7, 0L, 0f, 0d, '\0', null,
        null, null, null, "t", null, null, null, null, null, null, List.of("a", "b"), Set.of(),
        Set.of(), Map.of(), Map.of(), Optional.empty(), Optional.empty(), List.of(), List.of()),
        "a Slim read as Everything");
  }

  /** {@code value} with its sets and maps filled in another order (and of other classes). */
  private static Everything reordered(Everything v, java.util.Random random) {
    return new Everything(v.flag(), v.small(), v.mid(), v.count(), v.big(), v.ratio(),
        v.weight(), v.letter(), v.boxed(), v.boxedLong(), v.boxedDouble(), v.boxedFlag(), v.text(),
        v.raw() == null ? null : v.raw().clone(), v.id(), v.fingerprint(), v.key(), v.shade(),
        v.part(), v.names(), shuffled(v.numbers(), random), shuffled(v.tags(), random),
        shuffled(v.parts(), random), shuffled(v.shadesByName(), random), v.note(), v.extra(),
        v.grid(), v.children());
  }

  private static <T> Set<T> shuffled(Set<T> s, java.util.Random random) {
    List<T> items = new ArrayList<>(s);
    Collections.shuffle(items, random);
    return new LinkedHashSet<>(items);
  }

  private static <K, V> Map<K, V> shuffled(Map<K, V> m, java.util.Random random) {
    List<K> keys = new ArrayList<>(m.keySet());
    Collections.shuffle(keys, random);
    Map<K, V> out = new LinkedHashMap<>();
    keys.forEach(k -> out.put(k, m.get(k)));
    return out;
  }

  /** Equal component by component, a {@code byte[]} by its content. */
  private static void assertSameRecord(Record actual, Record expected, String what) {
    for (RecordComponent c : expected.getClass().getRecordComponents()) {
      Object e = RecordComponents.read(c, expected);
      Object a = RecordComponents.read(c, actual);
      if (e instanceof byte[] bytes) {
        assertThat((byte[]) a).as(what + ": " + c.getName()).isEqualTo(bytes);
      } else {
        assertThat(a).as(what + ": " + c.getName()).isEqualTo(e);
      }
    }
  }

  // --- random records ------------------------------------------------------------------------

  /**
   * Strings with ASCII, wider characters, surrogate pairs, and long ones; valid Unicode (one with
   * an unpaired surrogate is refused by the writer, naming it).
   */
  private static Arbitrary<String> text() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ascii().ofMaxLength(10),
        Arbitraries.of("a", "\u00e9", "\u4e2d", "\ud83d\ude00", " ").list().ofMaxSize(6)
            .map(parts -> String.join("", parts)),
        Arbitraries.strings().alpha().ofMinLength(60).ofMaxLength(80));
  }

  private static <T> Arbitrary<T> orNull(Arbitrary<T> a) {
    return a.injectNull(0.15);
  }

  @Provide
  Arbitrary<Everything> records() {
    Arbitrary<Part> part = Builders.withBuilder(() -> new Object[3])
        .use(text()).in((p, s) -> {
          p[0] = s;
          return p;
        })
        .use(Arbitraries.doubles().optional()).in((p, d) -> {
          p[1] = d;
          return p;
        })
        .use(Arbitraries.of(Shade.class).list().ofMaxSize(3)).in((p, l) -> {
          p[2] = l;
          return p;
        })
        .build(p -> newPart(p));
    Arbitrary<String> keyText = text();
    return Builders.withBuilder(() -> new Object[28])
        .use(Arbitraries.of(true, false)).in(set(0))
        .use(Arbitraries.bytes()).in(set(1))
        .use(Arbitraries.shorts()).in(set(2))
        .use(Arbitraries.integers()).in(set(3))
        .use(Arbitraries.longs()).in(set(4))
        .use(Arbitraries.floats()).in(set(5))
        .use(Arbitraries.doubles()).in(set(6))
        .use(Arbitraries.chars().filter(c -> !Character.isSurrogate(c))).in(set(7))
        .use(orNull(Arbitraries.integers())).in(set(8))
        .use(orNull(Arbitraries.longs())).in(set(9))
        .use(orNull(Arbitraries.doubles())).in(set(10))
        .use(orNull(Arbitraries.of(true, false))).in(set(11))
        .use(orNull(text())).in(set(12))
        .use(orNull(Arbitraries.bytes().array(byte[].class).ofMaxSize(8))).in(set(13))
        .use(orNull(Arbitraries.longs().map(l -> new UUID(l, ~l)))).in(set(14))
        .use(orNull(text().map(Fingerprint::ofString))).in(set(15))
        .use(orNull(Arbitraries.oneOf(text().map(StableKey::of),
            Arbitraries.longs().map(StableKey::of)))).in(set(16))
        .use(orNull(Arbitraries.of(Shade.class))).in(set(17))
        .use(orNull(part)).in(set(18))
        .use(text().list().ofMaxSize(4)).in(set(19))
        .use(Arbitraries.integers().set().ofMaxSize(5).map(HashSet::new)).in(set(20))
        .use(text().set().ofMaxSize(5).map(HashSet::new)).in(set(21))
        .use(Arbitraries.maps(keyText, part).ofMaxSize(3).map(HashMap::new)).in(set(22))
        .use(Arbitraries.maps(keyText, Arbitraries.of(Shade.class).list().ofMaxSize(2))
            .ofMaxSize(3).map(HashMap::new)).in(set(23))
        .use(text().optional()).in(set(24))
        .use(part.optional()).in(set(25))
        .use(Arbitraries.longs().list().ofMaxSize(3).list().ofMaxSize(3)).in(set(26))
        .use(part.list().ofMaxSize(2)).in(set(27))
        .build(GeneratedCodecPropertyTest::newEverything);
  }

  private static java.util.function.BiFunction<Object[], Object, Object[]> set(int i) {
    return (fields, value) -> {
      fields[i] = value;
      return fields;
    };
  }

  @SuppressWarnings("unchecked")
  private static Part newPart(Object[] p) {
    return new Part((String) p[0], (Optional<Double>) p[1], (List<Shade>) p[2]);
  }

  @SuppressWarnings("unchecked")
  private static Everything newEverything(Object[] f) {
    return new Everything((Boolean) f[0], (Byte) f[1], (Short) f[2], (Integer) f[3],
        (Long) f[4], (Float) f[5], (Double) f[6], (Character) f[7], (Integer) f[8], (Long) f[9],
        (Double) f[10], (Boolean) f[11], (String) f[12], (byte[]) f[13], (UUID) f[14],
        (Fingerprint) f[15], (StableKey) f[16], (Shade) f[17], (Part) f[18],
        (List<String>) f[19], (Set<Integer>) f[20], (Set<String>) f[21],
        (Map<String, Part>) f[22], (Map<String, List<Shade>>) f[23], (Optional<String>) f[24],
        (Optional<Part>) f[25], (List<List<Long>>) f[26], (List<Part>) f[27]);
  }
}
