package io.cocoindex.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecRegistry;
import java.lang.reflect.Array;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tag;

/**
 * The codec of erased and {@code Object} types ({@code DynamicCodec}), on random values nested
 * three deep: every value reads back equal to what was written, as the class written where its
 * documentation promises it (a rebuildable collection, an {@code EnumSet} or {@code EnumMap}, a
 * record, an array), and a record component declared as a collection class gets one of that
 * class, empty ones included. Equal maps and sets encode to the same bytes, and fingerprint
 * alike, whatever order their entries were added in. Both failed before the thirty-fifth
 * session: an empty {@code EnumMap} component came back as a plain map, and its record failed to
 * decode; a map whose keys were of several classes was written as iterated, so two equal maps of
 * different capacities encoded differently.
 */
class CodecPropertyTest {
  enum Color { RED, GREEN, BLUE }

  /** Components whose declared types leave the classes inside open. */
  record Open(Object any, List<Object> list, Map<String, Object> map, Optional<Object> maybe) {}

  /** Components declared as collection classes (read back as those classes), and primitives. */
  record Typed(EnumMap<Color, Integer> byColor, EnumSet<Color> colors, ArrayList<String> names,
      TreeMap<String, Long> sorted, HashSet<Integer> numbers, LinkedHashMap<String, Object> ordered,
      int[] ints, long count, char letter, double ratio, boolean flag) {}

  private static final Codec<Object> CODEC = CodecRegistry.standard().codecFor(Object.class);

  @Property(seed = "20261205", tries = 600, edgeCases = EdgeCasesMode.MIXIN)
  void everyValueReadsBackAsWritten(@ForAll("values") Object value) {
    checkRoundTrip(value);
  }

  @Property(seed = "20261205", tries = 300, edgeCases = EdgeCasesMode.MIXIN)
  void equalMapsAndSetsEncodeAndFingerprintAlikeInAnyOrder(
      @ForAll("maps") Map<Object, Object> entries, @ForAll long shuffleSeed) {
    checkOrderIndependence(entries, shuffleSeed);
  }

  /** More tries with a random seed: {@code -Dreliability.excludedGroups=none -Dgroups=soak}. */
  @Property(tries = 20_000, edgeCases = EdgeCasesMode.MIXIN)
  @Tag("soak")
  void soak(@ForAll("values") Object value, @ForAll("maps") Map<Object, Object> entries,
      @ForAll long shuffleSeed) {
    checkRoundTrip(value);
    checkOrderIndependence(entries, shuffleSeed);
  }

  private static void checkRoundTrip(Object value) {
    byte[] encoded = CODEC.encode(value);
    Object back = CODEC.decode(encoded);
    assertSame(value, back, "value");
    assertSame(back, CODEC.copy(value), "copy");
    // Equal values encode alike, whatever order a set's or a map's entries are iterated in.
    assertThat(CODEC.encode(back)).as("encoding what was read back").isEqualTo(encoded);
  }

  private static void checkOrderIndependence(Map<Object, Object> entries, long shuffleSeed) {
    List<Map.Entry<Object, Object>> one = new ArrayList<>(entries.entrySet());
    List<Map.Entry<Object, Object>> other = new ArrayList<>(one);
    Collections.shuffle(other, new java.util.Random(shuffleSeed));
    Map<Object, Object> a = new HashMap<>();
    Map<Object, Object> b = new LinkedHashMap<>();
    one.forEach(e -> a.put(e.getKey(), e.getValue()));
    other.forEach(e -> b.put(e.getKey(), e.getValue()));
    Map<Object, Object> c = new HashMap<>(64);
    c.putAll(b);
    assertThat(CODEC.encode(c)).as("two HashMaps of the same entries").isEqualTo(CODEC.encode(a));
    assertThat(Fingerprint.of(b)).isEqualTo(Fingerprint.of(a));
    Set<Object> keys = new HashSet<>(a.keySet());
    Set<Object> keysAgain = new HashSet<>();
    other.forEach(e -> keysAgain.add(e.getKey()));
    assertThat(CODEC.encode(keysAgain)).as("two HashSets of the same keys")
        .isEqualTo(CODEC.encode(keys));
    assertThat(Fingerprint.of(new LinkedHashSet<>(keysAgain))).isEqualTo(Fingerprint.of(keys));
  }

  /**
   * {@code actual} equals {@code expected} (arrays and records by content), and is of its class
   * wherever the codec keeps the class written.
   */
  private static void assertSame(Object expected, Object actual, String where) {
    if (expected == null) {
      assertThat(actual).as(where).isNull();
      return;
    }
    assertThat(actual).as(where).isNotNull();
    if (keepsClass(expected)) {
      assertThat(actual.getClass()).as(where).isEqualTo(expected.getClass());
    }
    if (expected.getClass().isArray()) {
      assertThat(actual.getClass().isArray()).as(where).isTrue();
      assertThat(Array.getLength(actual)).as(where).isEqualTo(Array.getLength(expected));
      for (int i = 0; i < Array.getLength(expected); i++) {
        assertSame(Array.get(expected, i), Array.get(actual, i), where + "[" + i + "]");
      }
    } else if (expected instanceof Record) {
      for (RecordComponent c : expected.getClass().getRecordComponents()) {
        Object component = RecordComponents.read(c, actual);
        if (component != null && !c.getType().isPrimitive()) {
          // A component declared as a collection class gets one, even an empty one.
          assertThat(component).as(where + "." + c.getName()).isInstanceOf(c.getType());
        }
        assertSame(RecordComponents.read(c, expected), component, where + "." + c.getName());
      }
    } else if (expected instanceof Set<?> set) {
      assertThat(actual).as(where).isInstanceOf(Set.class);
      Set<?> r = (Set<?>) actual;
      assertThat(r).as(where).hasSameSizeAs(set);
      for (Object e : set) {
        assertThat(r.stream().anyMatch(a -> deepEquals(e, a))).as(where + " holds " + e).isTrue();
      }
    } else if (expected instanceof List<?> l) {
      assertThat(actual).as(where).isInstanceOf(List.class);
      List<?> r = (List<?>) actual;
      assertThat(r).as(where).hasSameSizeAs(l);
      for (int i = 0; i < l.size(); i++) {
        assertSame(l.get(i), r.get(i), where + "[" + i + "]");
      }
    } else if (expected instanceof Map<?, ?> m) {
      assertThat(actual).as(where).isInstanceOf(Map.class);
      Map<?, ?> r = (Map<?, ?>) actual;
      assertThat(r.keySet()).as(where + " keys").isEqualTo(m.keySet());
      for (Map.Entry<?, ?> e : m.entrySet()) {
        assertSame(e.getValue(), r.get(e.getKey()), where + "[" + e.getKey() + "]");
      }
      // A sorted map keeps its order; others are written sorted by key, when comparable.
      if (expected instanceof TreeMap<?, ?>) {
        assertThat(List.copyOf(r.keySet())).as(where + " order").isEqualTo(List.copyOf(m.keySet()));
      }
    } else if (expected instanceof Optional<?> o) {
      assertThat(actual).as(where).isInstanceOf(Optional.class);
      assertSame(o.orElse(null), ((Optional<?>) actual).orElse(null), where + ".get");
    } else {
      assertThat(actual).as(where).isEqualTo(expected);
    }
  }

  /** Equality with arrays and records (whose components may be arrays) by content. */
  private static boolean deepEquals(Object a, Object b) {
    try {
      assertSame(a, b, "");
      return true;
    } catch (AssertionError e) {
      return false;
    }
  }

  /** Whether the codec promises the class written back (see {@code DynamicCodec}). */
  private static boolean keepsClass(Object v) {
    return !(v instanceof Collection<?> || v instanceof Map<?, ?>)
        || v instanceof EnumSet<?> || v instanceof EnumMap<?, ?> && !((EnumMap<?, ?>) v).isEmpty()
        || v instanceof ArrayList<?> || v instanceof LinkedList<?> || v instanceof HashSet<?>
        || v instanceof TreeSet<?> || v instanceof HashMap<?, ?> || v instanceof TreeMap<?, ?>;
  }

  // --- random values -----------------------------------------------------------------------

  @Provide
  Arbitrary<Object> values() {
    return value(3, true);
  }

  /** Maps of keys of several classes, of values a fingerprint takes too (no {@code int[]}). */
  @Provide
  Arbitrary<Map<Object, Object>> maps() {
    return Arbitraries.maps(key(), value(1, false)).ofMaxSize(8);
  }

  /** Scalars that are keys by value (a {@code byte[]} is one by identity). */
  private static Arbitrary<Object> key() {
    return scalar().filter(k -> !(k instanceof byte[]) && k != null);
  }

  /** Values nested {@code depth} deep; with {@code typed}, {@link Typed} records among them. */
  private static Arbitrary<Object> value(int depth, boolean typed) {
    if (depth == 0) {
      return scalar();
    }
    Arbitrary<Object> inner = Arbitraries.lazy(() -> value(depth - 1, typed));
    return Arbitraries.frequencyOf(
        Tuple.of(4, scalar()),
        Tuple.of(2, collection(inner)),
        Tuple.of(2, map(inner)),
        Tuple.of(1, inner.list().ofMaxSize(3).map(l -> (Object) l.toArray())),
        Tuple.of(1, inner.optional().map(o -> (Object) o)),
        Tuple.of(1, open(inner)),
        Tuple.of(typed ? 1 : 0, typed(inner)));
  }

  private static Arbitrary<Object> scalar() {
    return Arbitraries.oneOf(
        Arbitraries.just(null),
        Arbitraries.of(true, false).map(b -> (Object) b),
        Arbitraries.integers().map(i -> (Object) i),
        Arbitraries.longs().map(l -> (Object) l),
        Arbitraries.shorts().map(s -> (Object) s),
        Arbitraries.bytes().map(b -> (Object) b),
        Arbitraries.chars().map(c -> (Object) c),
        Arbitraries.floats().map(f -> (Object) f),
        Arbitraries.doubles().map(d -> (Object) d),
        text().map(s -> (Object) s),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(6).map(b -> (Object) b),
        Arbitraries.bigIntegers().between(BigInteger.valueOf(-1_000_000_000_000L).pow(2),
            BigInteger.valueOf(1_000_000_000_000L).pow(2)).map(b -> (Object) b),
        Arbitraries.bigDecimals().ofScale(3).map(b -> (Object) b),
        Arbitraries.longs().map(l -> (Object) new UUID(l, ~l)),
        text().map(s -> (Object) Fingerprint.ofString(s)),
        // A key's string is valid Unicode (one with an unpaired surrogate is refused).
        Arbitraries.oneOf(text().filter(CodecPropertyTest::validUnicode)
                .map(s -> (Object) StableKey.of(s)),
            Arbitraries.longs().map(l -> (Object) StableKey.of(l))),
        Arbitraries.of(Color.class).map(c -> (Object) c));
  }

  private static boolean validUnicode(String s) {
    return java.nio.charset.StandardCharsets.UTF_8.newEncoder().canEncode(s);
  }

  /** Strings with ASCII, wider characters, pairs of surrogates and unpaired ones. */
  private static Arbitrary<String> text() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ascii().ofMaxLength(12),
        Arbitraries.strings().all().ofMaxLength(12),
        Arbitraries.strings().withChars("a\u00e9\u4e2d\ud83d\ude00\ud800\udc00").ofMaxLength(8),
        Arbitraries.strings().ascii().ofMinLength(120).ofMaxLength(140));
  }

  private static Arbitrary<Object> collection(Arbitrary<Object> inner) {
    Arbitrary<List<Object>> items = inner.list().ofMaxSize(4);
    Arbitrary<List<String>> words = text().list().ofMaxSize(4);
    return Arbitraries.oneOf(
        items.map(l -> (Object) new ArrayList<>(l)),
        items.map(l -> (Object) new LinkedList<>(l)),
        items.map(l -> (Object) Collections.unmodifiableList(new ArrayList<>(l))),
        items.map(l -> (Object) new HashSet<>(l)),
        items.map(l -> (Object) new LinkedHashSet<>(l)),
        words.map(l -> (Object) new TreeSet<>(l)),
        words.map(l -> (Object) List.copyOf(l)),
        Arbitraries.of(Color.class).set().ofMaxSize(3).map(s -> (Object) enumSet(s)));
  }

  private static Arbitrary<Object> map(Arbitrary<Object> inner) {
    Arbitrary<Map<String, Object>> byText = Arbitraries.maps(text(), inner).ofMaxSize(4);
    return Arbitraries.oneOf(
        byText.map(m -> (Object) new HashMap<>(m)),
        byText.map(m -> (Object) new LinkedHashMap<>(m)),
        byText.map(m -> (Object) new TreeMap<>(m)),
        Arbitraries.maps(key(), inner).ofMaxSize(4).map(m -> (Object) new HashMap<>(m)),
        Arbitraries.maps(Arbitraries.of(Color.class), inner).ofMaxSize(3)
            .map(m -> (Object) enumMap(m)));
  }

  private static Arbitrary<Object> open(Arbitrary<Object> inner) {
    return Combinators.combine(inner, inner.list().ofMaxSize(3),
            Arbitraries.maps(text(), inner).ofMaxSize(3), inner.optional())
        .as((any, list, map, maybe) -> (Object) new Open(any, new ArrayList<>(list),
            new HashMap<>(map), maybe));
  }

  private static Arbitrary<Object> typed(Arbitrary<Object> inner) {
    Arbitrary<EnumMap<Color, Integer>> byColor =
        Arbitraries.maps(Arbitraries.of(Color.class), Arbitraries.integers()).ofMaxSize(3)
            .map(CodecPropertyTest::enumMap);
    Arbitrary<EnumSet<Color>> colors =
        Arbitraries.of(Color.class).set().ofMaxSize(3).map(CodecPropertyTest::enumSet);
    Arbitrary<ArrayList<String>> names = text().list().ofMaxSize(3).map(ArrayList::new);
    Arbitrary<TreeMap<String, Long>> sorted =
        Arbitraries.maps(text(), Arbitraries.longs()).ofMaxSize(3).map(TreeMap::new);
    Arbitrary<HashSet<Integer>> numbers =
        Arbitraries.integers().set().ofMaxSize(3).map(HashSet::new);
    Arbitrary<LinkedHashMap<String, Object>> ordered =
        Arbitraries.maps(text(), inner).ofMaxSize(3).map(LinkedHashMap::new);
    Arbitrary<int[]> ints = Arbitraries.integers().array(int[].class).ofMaxSize(4);
    return Combinators.combine(byColor, colors, names, sorted, numbers, ordered, ints,
            Combinators.combine(Arbitraries.longs(), Arbitraries.chars(), Arbitraries.doubles(),
                Arbitraries.of(true, false)).as(List::<Object>of))
        .as((a, b, c, d, e, f, g, h) -> (Object) new Typed(a, b, c, d, e, f, g, (Long) h.get(0),
            (Character) h.get(1), (Double) h.get(2), (Boolean) h.get(3)));
  }

  private static <V> EnumMap<Color, V> enumMap(Map<Color, V> m) {
    EnumMap<Color, V> out = new EnumMap<>(Color.class);
    out.putAll(m);
    return out;
  }

  private static EnumSet<Color> enumSet(Set<Color> s) {
    EnumSet<Color> out = EnumSet.noneOf(Color.class);
    out.addAll(s);
    return out;
  }
}
