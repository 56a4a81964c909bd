package io.cocoindex.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.Tuple;

/**
 * {@link Fingerprint#of} is a change detector: two values fingerprint alike exactly when they
 * are the same value as its documentation defines sameness, which {@link #canonical} restates
 * (integral numbers by value whatever their box, floating ones by their double's bits, an
 * optional as what it holds, lists, arrays and other collections in order, sets and maps whatever
 * their order, records by simple name, component names and values, enums by simple name and
 * constant, strings as their UTF-8 bytes). Pairs of values are drawn from a small domain, so that
 * equal pairs and near misses (a list and a set of one element, 1 and "1", a record and its twin
 * of another name) come up often. A pair that fingerprints alike without being the same value is
 * a change no connector would see.
 */
class FingerprintPropertyTest {
  enum Shade { LIGHT, DARK }

  enum Tone { LIGHT, DARK }

  record Pair(Object left, Object right) {}

  record Twin(Object left, Object right) {}

  record Swapped(Object right, Object left) {}

  record Single(Object left) {}

  record Numbers(int i, long l, double d, float f, boolean b, char c) {}

  @Property(seed = "20261205", tries = 3000, edgeCases = EdgeCasesMode.MIXIN)
  void valuesFingerprintAlikeExactlyWhenTheyAreTheSame(
      @ForAll("values") Object a, @ForAll("values") Object b) {
    check(a, b);
  }

  /** More tries with a random seed: {@code -Dreliability.excludedGroups=none -Dgroups=soak}. */
  @Property(tries = 100_000, edgeCases = EdgeCasesMode.MIXIN)
  @Tag("soak")
  void soak(@ForAll("values") Object a, @ForAll("values") Object b) {
    check(a, b);
  }

  private static void check(Object a, Object b) {
    boolean same = canonical(a).equals(canonical(b));
    net.jqwik.api.statistics.Statistics.collect(same ? "same" : "different",
        a == b || a != null && a.equals(b) ? "equal" : "unequal");
    assertThat(Fingerprint.of(a).equals(Fingerprint.of(b)))
        .as("%s and %s are %s", a, b, same ? "the same value" : "different values")
        .isEqualTo(same);
    // The builder writes what of() writes.
    assertThat(Fingerprint.builder().add(a).build()).isEqualTo(Fingerprint.of(a));
  }

  /**
   * The value as {@link Fingerprint}'s documentation says it is seen: a tree of lists whose
   * first element names the kind, and whose sets and maps are sorted.
   */
  static Object canonical(Object v) {
    if (v == null) {
      return List.of("null");
    }
    if (v instanceof Optional<?> o) {
      return canonical(o.orElse(null));
    }
    if (v instanceof Fingerprint f) {
      return List.of("fingerprint", Arrays.toString(f.bytes()));
    }
    if (v instanceof StableKey k) {
      return List.of("key", k.toString(), k.getClass().getSimpleName());
    }
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return List.of("int", ((Number) v).longValue());
    }
    if (v instanceof Double || v instanceof Float) {
      return List.of("float", Double.doubleToLongBits(((Number) v).doubleValue()));
    }
    if (v instanceof Boolean b) {
      return List.of("bool", b);
    }
    if (v instanceof Character c) {
      return List.of("char", (long) c);
    }
    if (v instanceof String s) {
      return List.of("string", Arrays.toString(s.getBytes(StandardCharsets.UTF_8)));
    }
    if (v instanceof byte[] b) {
      return List.of("bytes", Arrays.toString(b));
    }
    if (v instanceof UUID u) {
      return List.of("uuid", u.toString());
    }
    if (v instanceof BigInteger b) {
      return List.of("bigint", b);
    }
    if (v instanceof BigDecimal d) {
      return List.of("decimal", d.toString());
    }
    if (v instanceof Enum<?> e) {
      return List.of("enum", e.getDeclaringClass().getSimpleName(), e.name());
    }
    if (v instanceof Record r) {
      List<Object> out = new ArrayList<>(List.of("record", r.getClass().getSimpleName()));
      for (var c : r.getClass().getRecordComponents()) {
        out.add(List.of(c.getName(), canonical(RecordComponents.read(c, r))));
      }
      return out;
    }
    if (v instanceof Set<?> s) {
      return List.of("set", sorted(s.stream().map(FingerprintPropertyTest::canonical).toList()));
    }
    if (v instanceof Map<?, ?> m) {
      List<Object> entries = new ArrayList<>();
      m.forEach((k, x) -> entries.add(List.of(canonical(k), canonical(x))));
      return List.of("map", sorted(entries));
    }
    if (v instanceof Object[] a) {
      return List.of("list", Arrays.stream(a).map(FingerprintPropertyTest::canonical).toList());
    }
    if (v instanceof Collection<?> c) {
      return List.of("list", c.stream().map(FingerprintPropertyTest::canonical).toList());
    }
    throw new IllegalArgumentException("no canonical form for " + v.getClass());
  }

  private static List<Object> sorted(List<Object> items) {
    List<Object> out = new ArrayList<>(items);
    out.sort(Comparator.comparing(Object::toString));
    return out;
  }

  // --- a small domain, so that equal pairs and near misses are frequent ---------------------

  @Provide
  Arbitrary<Object> values() {
    return value(2);
  }

  private static Arbitrary<Object> value(int depth) {
    if (depth == 0) {
      return scalar();
    }
    Arbitrary<Object> inner = Arbitraries.lazy(() -> value(depth - 1));
    Arbitrary<List<Object>> items = inner.list().ofMaxSize(2);
    return Arbitraries.frequencyOf(
        Tuple.of(4, scalar()),
        Tuple.of(1, items.map(l -> (Object) new ArrayList<>(l))),
        Tuple.of(1, items.map(l -> (Object) new LinkedList<>(l))),
        Tuple.of(1, items.map(l -> (Object) l.toArray())),
        Tuple.of(1, items.map(l -> (Object) new HashSet<>(l))),
        Tuple.of(1, Arbitraries.maps(scalar(), inner).ofMaxSize(2)
            .map(m -> (Object) new HashMap<>(m))),
        Tuple.of(1, Arbitraries.maps(Arbitraries.of("a", "b", "?"), inner).ofMaxSize(2)
            .map(m -> (Object) new TreeMap<>(m))),
        Tuple.of(1, Arbitraries.maps(scalar(), inner).ofMaxSize(2)
            .map(m -> (Object) new LinkedHashMap<>(m))),
        Tuple.of(1, inner.optional().map(o -> (Object) o)),
        Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 3), inner, inner)
            .as((kind, l, r) -> (Object) switch (kind) {
              case 0 -> new Pair(l, r);
              case 1 -> new Twin(l, r);
              case 2 -> new Swapped(r, l);
              default -> new Single(l);
            })));
  }

  private static Arbitrary<Object> scalar() {
    return Arbitraries.oneOf(
        Arbitraries.just(null),
        Arbitraries.of(true, false).map(b -> (Object) b),
        Arbitraries.of(0, 1, -1).map(i -> (Object) i),
        Arbitraries.of(0L, 1L, 256L).map(l -> (Object) l),
        Arbitraries.of((short) 1, (short) 0).map(s -> (Object) s),
        Arbitraries.of((byte) 1, (byte) -1).map(b -> (Object) b),
        Arbitraries.of('1', 'a', '?', '\u00e9').map(c -> (Object) c),
        Arbitraries.of(0.0, -0.0, 1.0, 0.1, Double.NaN).map(d -> (Object) d),
        Arbitraries.of(1.0f, 0.1f, 0.0f).map(f -> (Object) f),
        Arbitraries.of("", "1", "a", "?", "a?", "\u00e9", "a\uD800", "\uD83D\uDE00", "ab")
            .map(s -> (Object) s),
        Arbitraries.of(new byte[0], new byte[] {1}, "a".getBytes(StandardCharsets.UTF_8))
            .map(b -> (Object) b.clone()),
        Arbitraries.of(BigInteger.ONE, BigInteger.ZERO).map(b -> (Object) b),
        Arbitraries.of(new BigDecimal("1"), new BigDecimal("1.0"), new BigDecimal("0.1"))
            .map(d -> (Object) d),
        Arbitraries.of(new UUID(0, 1), new UUID(1, 0)).map(u -> (Object) u),
        Arbitraries.of("", "a").map(s -> (Object) Fingerprint.ofString(s)),
        Arbitraries.of(StableKey.of("a"), StableKey.of(1L), StableKey.symbol("a"))
            .map(k -> (Object) k),
        Arbitraries.of(Shade.LIGHT, Shade.DARK, Tone.LIGHT).map(e -> (Object) e),
        Combinators.combine(Arbitraries.of(0, 1), Arbitraries.of(0L, 1L),
                Arbitraries.of(0.0, 1.0), Arbitraries.of(0.0f, 1.0f), Arbitraries.of(true, false),
                Arbitraries.of('a', '1'))
            .as((i, l, d, f, b, c) -> (Object) new Numbers(i, l, d, f, b, c)));
  }
}
