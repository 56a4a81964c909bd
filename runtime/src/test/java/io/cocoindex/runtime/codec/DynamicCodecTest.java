package io.cocoindex.runtime.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The codec of erased and {@code Object} types: values come back as the classes written. */
class DynamicCodecTest {
  enum Color { RED, GREEN }

  record Inner(String name, Optional<Color> color) {}

  record Outer(int n, long big, List<Inner> inners, Map<String, Object> extras, byte[] raw) {}

  /** A class that is neither a record nor a collection: written by its own (Jackson) codec. */
  static final class Box {
    public String label;

    @Override
    public boolean equals(Object o) {
      return o instanceof Box b && b.label.equals(label);
    }

    @Override
    public int hashCode() {
      return label.hashCode();
    }
  }

  private final CodecRegistry registry = CodecRegistry.standard();
  private final Codec<Object> codec = registry.codecFor(Object.class);

  private Object roundTrip(Object value) {
    return codec.decode(codec.encode(value));
  }

  @Test
  void objectTypeVariablesAndWildcardsGetTheDynamicCodec() throws Exception {
    assertThat(codec).isInstanceOf(DynamicCodec.class);
    var typeVariable = List.class.getTypeParameters()[0];
    assertThat(registry.<Object>codecFor(typeVariable)).isSameAs(codec);
    var wildcard = ((java.lang.reflect.ParameterizedType) getClass()
        .getDeclaredField("wildcards").getGenericType()).getActualTypeArguments()[0];
    assertThat(registry.<Object>codecFor(wildcard)).isSameAs(codec);
    assertThat(registry.<Object>codecFor(String.class)).isNotInstanceOf(DynamicCodec.class);
  }

  @SuppressWarnings("unused")
  private List<?> wildcards;

  @Test
  void scalarsKeepTheirExactClasses() {
    List<Object> scalars = Arrays.asList(null, true, false, 1, 1L, (short) 2, (byte) 3, 'c', 1.5f,
        2.5d, "text \ud83d\ude00 and a lone \ud800", new BigInteger("123456789012345678901234567890"),
        new BigDecimal("-1.250"), UUID.fromString("00000000-0000-0000-0000-00000000002a"),
        Fingerprint.ofString("f"), new StableKey.Array(List.of(new StableKey.Str("a"),
            new StableKey.Symbol("s"))), Color.GREEN);
    for (Object v : scalars) {
      Object back = roundTrip(v);
      assertThat(back).isEqualTo(v);
      if (v != null) {
        assertThat(back).hasSameClassAs(v);
      }
    }
    assertThat((byte[]) roundTrip(new byte[] {1, 2, 3})).containsExactly(1, 2, 3);
  }

  @Test
  void recordsCollectionsAndOtherClassesComeBackAsWritten() {
    Box box = new Box();
    box.label = "b";
    Map<String, Object> extras = new HashMap<>();
    extras.put("list", new ArrayList<>(List.of(1, "two", List.of(3L))));
    extras.put("set", new LinkedHashSet<>(List.of("z", "a")));
    extras.put("none", null);
    extras.put("box", box);
    extras.put("ints", new int[] {4, 5});
    Outer v = new Outer(7, 1L << 40,
        List.of(new Inner("i", Optional.of(Color.RED)), new Inner("j", Optional.empty())),
        extras, new byte[] {9});

    Outer back = (Outer) roundTrip(v);

    assertThat(back.n()).isEqualTo(7);
    assertThat(back.big()).isEqualTo(1L << 40);
    assertThat(back.inners()).isEqualTo(v.inners());
    assertThat(back.raw()).containsExactly(9);
    assertThat(back.extras()).containsOnlyKeys("list", "set", "none", "box", "ints");
    assertThat(back.extras().get("list")).isEqualTo(List.of(1, "two", List.of(3L)));
    assertThat(back.extras().get("set")).isEqualTo(Set.of("a", "z"));
    assertThat(back.extras().get("none")).isNull();
    assertThat(back.extras().get("box")).isEqualTo(box);
    assertThat((int[]) back.extras().get("ints")).containsExactly(4, 5);
    assertThatThrownBy(() -> back.inners().add(null))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void equalMapsAndSetsEncodeAlikeWhateverTheirOrder() {
    Map<String, Integer> hashed = new HashMap<>();
    Map<String, Integer> sorted = new TreeMap<>();
    for (int i = 0; i < 50; i++) {
      hashed.put("k" + (49 - i), i);
      sorted.put("k" + (49 - i), i);
    }
    assertThat(codec.encode(hashed)).isEqualTo(codec.encode(sorted));
    assertThat(codec.encode(new LinkedHashSet<>(List.of("b", "a"))))
        .isEqualTo(codec.encode(Set.of("a", "b")));
  }

  record Before(String id) {}

  record After(String id, int added, String other) {}

  @Test
  void aRecordReadsByComponentNameAddedComponentsAsDefaultsRemovedOnesAnError() {
    byte[] stored = codec.encode(new Before("x"));
    // The same bytes read as if the class had gained components: rename the class in the bytes.
    byte[] evolved = replace(stored, Before.class.getName(), After.class.getName());
    assertThat(codec.decode(evolved)).isEqualTo(new After("x", 0, null));

    byte[] shrunk = replace(codec.encode(new After("y", 3, "o")), After.class.getName(),
        Before.class.getName());
    assertThatThrownBy(() -> codec.decode(shrunk))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(Before.class.getName())
        .hasMessageContaining("'added'");
  }

  @Test
  void aStoredClassThatIsGoneIsAnErrorNamingIt() {
    byte[] stored = replace(codec.encode(new Before("x")), Before.class.getName(),
        Before.class.getName().replace("Before", "Befor_"));
    assertThatThrownBy(() -> codec.decode(stored))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("Befor_")
        .hasMessageContaining("no such class");
  }

  @Test
  void aValueThatContainsItselfIsAnErrorNotAStackOverflow() {
    List<Object> cyclic = new ArrayList<>();
    cyclic.add(cyclic);
    assertThatThrownBy(() -> codec.encode(cyclic))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("does it contain itself");
  }

  @Test
  void corruptBytesAreAnErrorNotAHugeAllocation() {
    byte[] stored = codec.encode(List.of("a"));
    stored[3] = 0x7F; // the list's count, now about two billion
    assertThatThrownBy(() -> codec.decode(stored))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("corrupt");
    assertThatThrownBy(() -> codec.decode(Arrays.copyOf(stored, 4)))
        .isInstanceOf(CodecException.class);
  }

  @Test
  void bytesWrittenForAnObjectTypeBeforeStillReadAsJacksonReadThem() {
    Codec<Object> jackson = castJackson();
    byte[] legacy = jackson.encode(Map.of("a", List.of(1, "b")));
    assertThat(codec.decode(legacy)).isEqualTo(Map.of("a", List.of(1, "b")));
  }

  @SuppressWarnings("unchecked")
  private Codec<Object> castJackson() {
    return (Codec<Object>) new JacksonCodecFactory().create(Object.class, registry);
  }

  /** {@code bytes} with the UTF-16 text {@code from} replaced by {@code to} (length prefix too). */
  private static byte[] replace(byte[] bytes, String from, String to) {
    byte[] f = utf16(from);
    byte[] t = utf16(to);
    for (int i = 4; i + f.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + f.length, f, 0, f.length)) {
        byte[] out = new byte[bytes.length - f.length + t.length];
        System.arraycopy(bytes, 0, out, 0, i - 4);
        int n = to.length();
        out[i - 4] = (byte) (n >>> 24);
        out[i - 3] = (byte) (n >>> 16);
        out[i - 2] = (byte) (n >>> 8);
        out[i - 1] = (byte) n;
        System.arraycopy(t, 0, out, i, t.length);
        System.arraycopy(bytes, i + f.length, out, i + t.length, bytes.length - i - f.length);
        return out;
      }
    }
    throw new AssertionError(from + " not in the bytes");
  }

  private static byte[] utf16(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_16BE);
  }
}
