package io.cocoindex.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.KeyEncoding;
import io.cocoindex.runtime.plan.TargetPath;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;

/**
 * The encoding of target paths, on which the stores' subtree scans and the sweep's look-ups rest:
 * a path reads back as its keys; two paths encode alike only when they are the same path; one
 * path's bytes begin another's exactly when the second is below the first (so a range scan from
 * a container's bytes to {@link KeyEncoding#descendantsEnd} finds its descendants and nothing
 * else); and integer keys sort as numbers. Keys come from a small domain of near misses: empty
 * strings, strings and bytes holding {@code 0x00} and {@code 0xFF}, a string and a symbol of one
 * name, nested arrays, the extreme integers.
 */
class KeyEncodingPropertyTest {
  @Property(seed = "20261205", tries = 3000, edgeCases = EdgeCasesMode.MIXIN)
  void pathsEncodeInjectivelyAndPrefixFreeAlongTheirKeys(
      @ForAll("paths") List<StableKey> a, @ForAll("paths") List<StableKey> b) {
    check(a, b);
  }

  /** More tries with a random seed: {@code -Dreliability.excludedGroups=none -Dgroups=soak}. */
  @Property(tries = 100_000, edgeCases = EdgeCasesMode.MIXIN)
  @Tag("soak")
  void soak(@ForAll("paths") List<StableKey> a, @ForAll("paths") List<StableKey> b) {
    check(a, b);
  }

  private static void check(List<StableKey> a, List<StableKey> b) {
    byte[] ea = KeyEncoding.encodePath(a);
    byte[] eb = KeyEncoding.encodePath(b);
    assertThat(KeyEncoding.decodePath(ea)).isEqualTo(a);
    assertThat(TargetPath.of(a).encoded()).isEqualTo(ea);
    TargetPath built = TargetPath.ROOT;
    for (StableKey k : a) {
      built = built.child(k);
    }
    assertThat(built.encoded()).as("built key by key").isEqualTo(ea);

    assertThat(Arrays.equals(ea, eb)).as("%s and %s encode alike", a, b).isEqualTo(a.equals(b));
    boolean below = b.size() >= a.size() && b.subList(0, a.size()).equals(a);
    boolean bytesBelow =
        eb.length >= ea.length && Arrays.equals(eb, 0, ea.length, ea, 0, ea.length);
    assertThat(bytesBelow).as("%s's bytes begin with %s's", b, a).isEqualTo(below);
    // The descendants' range: [a, descendantsEnd(a)) holds exactly a and what is below it.
    byte[] end = KeyEncoding.descendantsEnd(ea);
    boolean inRange =
        Arrays.compareUnsigned(eb, ea) >= 0 && Arrays.compareUnsigned(eb, end) < 0;
    assertThat(inRange).as("%s in the range of %s", b, a).isEqualTo(below);
    if (a.size() == 1 && b.size() == 1 && a.get(0) instanceof StableKey.Int x
        && b.get(0) instanceof StableKey.Int y) {
      assertThat(Integer.signum(Arrays.compareUnsigned(ea, eb)))
          .as("%s and %s in order", a, b)
          .isEqualTo(Integer.signum(Long.compare(x.value(), y.value())));
    }
  }

  @Provide
  Arbitrary<List<StableKey>> paths() {
    return key(2).list().ofMaxSize(3);
  }

  private static Arbitrary<StableKey> key(int depth) {
    Arbitrary<StableKey> scalar = Arbitraries.oneOf(
        Arbitraries.just(new StableKey.Null()),
        Arbitraries.of(true, false).map(StableKey.Bool::new),
        Arbitraries.of(0L, 1L, -1L, 255L, 256L, Long.MIN_VALUE, Long.MAX_VALUE)
            .map(StableKey.Int::new),
        Arbitraries.of("", "a", "ab", "a\u0000", "\u0000", "a\u0000b", "\u00ff", "\u00e9",
            "\ud83d\ude00").map(StableKey.Str::new),
        Arbitraries.of("", "a", "a\u0000").map(StableKey.Symbol::new),
        Arbitraries.of(new byte[0], new byte[] {0}, new byte[] {0, -1}, new byte[] {-1},
            new byte[] {0, 0}, new byte[] {97}).map(b -> new StableKey.Bytes(b.clone())),
        Arbitraries.of(new UUID(0, 0), new UUID(0, 1)).map(StableKey.Uuid::new),
        Arbitraries.of("", "a").map(s -> new StableKey.Fp(Fingerprint.ofString(s))));
    if (depth == 0) {
      return scalar;
    }
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(4, scalar),
        net.jqwik.api.Tuple.of(1, key(depth - 1).list().ofMaxSize(2)
            .map(items -> (StableKey) new StableKey.Array(items))));
  }
}
