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
@SuppressWarnings("unchecked")
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
    Map<String, Integer> reversed = new HashMap<>(64);
    for (int i = 0; i < 50; i++) {
      hashed.put("k" + (49 - i), i);
    }
    for (int i = 49; i >= 0; i--) {
      reversed.put("k" + (49 - i), i);
    }
    assertThat(codec.encode(hashed)).isEqualTo(codec.encode(reversed));
    assertThat(codec.encode(Map.copyOf(hashed))).isEqualTo(codec.encode(Map.copyOf(reversed)));
    assertThat(codec.encode(new LinkedHashSet<>(List.of("b", "a"))))
        .isEqualTo(codec.encode(new LinkedHashSet<>(List.of("a", "b"))));
    assertThat(codec.encode(Set.of("b", "a"))).isEqualTo(codec.encode(Set.of("a", "b")));
  }

  public record Bag(ArrayList<String> list, HashMap<String, Integer> map,
      TreeMap<String, Integer> sorted, java.util.LinkedList<Integer> linked,
      java.util.SortedSet<String> names) {}

  /**
   * A list, set or map of a class a handler could be typed with reads back as that class: a
   * lambda typed {@code ArrayList<String>} casts its value to ArrayList (this failed with a
   * ClassCastException when every list read back unmodifiable), and so does a record component.
   */
  @Test
  void collectionsOfAConstructibleClassComeBackAsThatClass() {
    ArrayList<String> list = new ArrayList<>(List.of("b", "a"));
    assertThat(roundTrip(list)).isInstanceOf(ArrayList.class).isEqualTo(list);
    assertThat(roundTrip(new java.util.LinkedList<>(List.of(1L))))
        .isInstanceOf(java.util.LinkedList.class);
    assertThat(roundTrip(new HashMap<>(Map.of("k", 1)))).isInstanceOf(HashMap.class)
        .isEqualTo(Map.of("k", 1));
    assertThat(roundTrip(new TreeMap<>(Map.of("b", 1, "a", 2)))).isInstanceOf(TreeMap.class);
    assertThat(roundTrip(new java.util.TreeSet<>(Set.of(3, 1)))).isInstanceOf(java.util.TreeSet.class)
        .isEqualTo(Set.of(1, 3));
    assertThat(roundTrip(new java.util.HashSet<>(Set.of("x")))).isInstanceOf(java.util.HashSet.class);
    // unmodifiable ones (no class to make again) stay unmodifiable
    assertThatThrownBy(() -> ((List<Object>) roundTrip(List.of("a"))).add("b"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> ((List<Object>) roundTrip(Arrays.asList("a"))).add("b"))
        .isInstanceOf(UnsupportedOperationException.class);
    // a sorted map in an order of its own keeps that order (not its class: no comparator to make)
    TreeMap<String, Integer> byLength = new TreeMap<>(java.util.Comparator.reverseOrder());
    byLength.putAll(Map.of("a", 1, "b", 2, "c", 3));
    assertThat(List.copyOf(((Map<?, ?>) roundTrip(byLength)).keySet())).isEqualTo(List.of("c", "b", "a"));

    Bag bag = new Bag(list, new HashMap<>(Map.of("k", 1)), new TreeMap<>(Map.of("z", 1)),
        new java.util.LinkedList<>(List.of(2)), new java.util.TreeSet<>(Set.of("n")));
    Bag back = (Bag) roundTrip(bag);
    assertThat(back).isEqualTo(bag);
    assertThat(back.list()).isInstanceOf(ArrayList.class);
    assertThat(back.names()).isInstanceOf(java.util.TreeSet.class);
  }

  public record Listed(List<String> list, Map<String, Integer> map, Set<String> names) {}

  /**
   * A record component declared as a collection class reads a collection written without its
   * class (an unmodifiable one, or one stored before classes were kept) as that class.
   */
  @Test
  void aCollectionComponentReadsAsItsDeclaredClass() {
    byte[] stored = codec.encode(new Listed(List.of("a"), Map.of("k", 2), Set.of("n")));
    Bag back = (Bag) codec.decode(replace(stored, Listed.class.getName(), Bag.class.getName()));
    assertThat(back.list()).isInstanceOf(ArrayList.class).containsExactly("a");
    assertThat(back.map()).isInstanceOf(HashMap.class).isEqualTo(Map.of("k", 2));
    assertThat(back.names()).isInstanceOf(java.util.TreeSet.class).containsExactly("n");
  }

  @Test
  void stringsReadBackExactlyLongOnesQuickly() {
    String unpaired = "a\uD800b\uDC00";
    assertThat(roundTrip(unpaired)).isEqualTo(unpaired);
    assertThat(roundTrip("h\u00e9llo \u2603 \uD834\uDD1E")).isEqualTo("h\u00e9llo \u2603 \uD834\uDD1E");
    String big = "x".repeat(10_000_000);
    byte[] encoded = codec.encode(big);
    assertThat(encoded.length).isLessThan(10_000_100); // UTF-8, not two bytes a char
    assertThat(codec.decode(encoded)).isEqualTo(big);
    // the UTF-16 form (how every string was written first) still reads
    byte[] utf16 = {(byte) 0xD1, 1, 10, 0, 0, 0, 2, 0, 'o', 0, 'k'};
    assertThat(codec.decode(utf16)).isEqualTo("ok");
  }

  /** A value whose class could not be made again is refused when written, naming the class. */
  @Test
  void anAnonymousClassIsRefusedWhenWrittenNotWhenRead() {
    Object anonymous = new Object() {
      public String getX() {
        return "x";
      }
    };
    assertThatThrownBy(() -> codec.encode(List.of(anonymous)))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(anonymous.getClass().getName())
        .hasMessageContaining("anonymous class")
        .hasMessageContaining("record");
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
        .hasMessage("stored " + Before.class.getName() + " has field 'added' that the record no"
            + " longer has (removed or renamed?): keep a component of that name, or run dropState"
            + " with the version that stored it before upgrading (this version cannot: dropState"
            + " reads the stored records too); see docs/CONNECTORS.md, \"Changing a tracking"
            + " record\"");
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

  record WithOpenComponent(String id, Map<String, Object> fields) {}

  record Closed(String id, Map<String, List<Long>> counts, Optional<Color> color) {}

  @Test
  void typesThatLeaveClassesOpenGetADynamicCodecAndClosedOnesJacksons() throws Exception {
    java.lang.reflect.Type openMap = WithOpenComponent.class.getRecordComponents()[1]
        .getGenericType();
    assertThat(registry.<Object>codecFor(openMap)).isInstanceOf(DynamicCodec.class);
    assertThat(registry.<Object>codecFor(WithOpenComponent.class)).isInstanceOf(DynamicCodec.class);
    assertThat(registry.<Object>codecFor(CharSequence.class)).isInstanceOf(DynamicCodec.class);
    assertThat(registry.<Object>codecFor(List.class)).isInstanceOf(DynamicCodec.class);
    assertThat(registry.<Object>codecFor(Closed.class)).isNotInstanceOf(DynamicCodec.class);
    assertThat(registry.<Object>codecFor(Closed.class.getRecordComponents()[1].getGenericType()))
        .isNotInstanceOf(DynamicCodec.class);

    // What Jackson could not keep: a Long that fits an int, a record inside an Object.
    Codec<Object> c = registry.codecFor(openMap);
    Map<String, Object> fields = Map.of("n", 5L, "inner", new Inner("i", Optional.empty()));
    assertThat(c.decode(c.encode(fields))).isEqualTo(fields);
    Codec<Object> r = registry.codecFor(WithOpenComponent.class);
    WithOpenComponent v = new WithOpenComponent("x", fields);
    assertThat(r.decode(r.encode(v))).isEqualTo(v);
  }

  @Test
  void aTypeThatLeftClassesOpenStillReadsWhatJacksonWroteForIt() {
    WithOpenComponent v = new WithOpenComponent("x", Map.of("n", 5, "s", "t"));
    byte[] before = registry.factoryCodecFor(WithOpenComponent.class).encode(v);
    assertThat(registry.codecFor(WithOpenComponent.class).decode(before)).isEqualTo(v);
  }

  enum Empty {}

  @Test
  void enumSetsAndEnumMapsComeBackAsThemselves() {
    java.util.EnumSet<Color> some = java.util.EnumSet.of(Color.GREEN);
    java.util.EnumSet<Color> none = java.util.EnumSet.noneOf(Color.class);
    java.util.EnumMap<Color, Long> map = new java.util.EnumMap<>(Color.class);
    map.put(Color.RED, 7L);
    for (Object v : List.of(some, none, map)) {
      Object back = roundTrip(v);
      assertThat(back).isEqualTo(v).hasSameClassAs(v);
    }
    java.util.EnumSet<Color> emptyBack = (java.util.EnumSet<Color>) roundTrip(none);
    emptyBack.add(Color.RED); // an EnumSet of Color, not a view: it takes the enum's constants
    assertThat(emptyBack).containsExactly(Color.RED);
    // No constant to name the enum by: read back as an empty set.
    assertThat(roundTrip(java.util.EnumSet.noneOf(Empty.class))).isEqualTo(Set.of());
  }

  /**
   * Equal maps and sets encode alike, keys of several classes too (sorted by their encodings):
   * written as iterated, two equal {@code HashMap}s of different capacities encoded differently,
   * and a container's record, compared as bytes, read as changed.
   */
  @Test
  void equalMapsAndSetsOfKeysOfSeveralClassesEncodeAlike() {
    Map<Object, Object> small = new HashMap<>();
    Map<Object, Object> large = new HashMap<>(1024);
    List<Object> keys = List.of((byte) -85, '\u0861', 7L, "seven", Color.GREEN, List.of(1, 2));
    for (Object k : keys) {
      small.put(k, k.toString());
    }
    for (int i = keys.size() - 1; i >= 0; i--) {
      large.put(keys.get(i), keys.get(i).toString());
    }
    assertThat(codec.encode(large)).isEqualTo(codec.encode(small));
    assertThat(codec.encode(new java.util.HashSet<>(large.keySet())))
        .isEqualTo(codec.encode(new java.util.HashSet<>(small.keySet())));
    assertThat(roundTrip(large)).isEqualTo(small);
  }

  record Tallies(java.util.EnumMap<Color, Long> byColor, java.util.EnumSet<Color> seen) {}

  /**
   * A record component declared as an {@code EnumMap} or {@code EnumSet} reads back as one of its
   * enum, empty too: an empty one names no constant, so the component's declared type does.
   */
  @Test
  void emptyEnumMapAndEnumSetComponentsComeBackOfTheirDeclaredEnum() {
    Tallies empty = new Tallies(
        new java.util.EnumMap<>(Color.class), java.util.EnumSet.noneOf(Color.class));
    Tallies back = (Tallies) roundTrip(empty);
    assertThat(back).isEqualTo(empty);
    back.byColor().put(Color.GREEN, 2L);
    back.seen().add(Color.RED);
    assertThat(back.byColor()).containsEntry(Color.GREEN, 2L);
  }

  /** A record component holding constants reads back as its declared {@code EnumSet} too. */
  @Test
  void aFilledEnumSetComponentComesBackAsAnEnumSet() {
    Tallies filled = new Tallies(new java.util.EnumMap<>(java.util.Map.of(Color.RED, 1L)),
        java.util.EnumSet.of(Color.GREEN, Color.RED));
    Tallies back = (Tallies) roundTrip(filled);
    assertThat(back).isEqualTo(filled);
    assertThat(back.seen()).isInstanceOf(java.util.EnumSet.class);
    back.seen().remove(Color.RED);
    assertThat(back.seen()).containsExactly(Color.GREEN);
  }

  record Counted(String id, int n) {}

  record Counting(String id, long n) {}

  record Measured(String id, double n) {}

  record Named(String id, String n) {}

  /**
   * A stored record whose numeric component changed type reads the number converted (int to long,
   * long to int, int to double); one that changed to a text is an error naming the component,
   * with the advice of the generated codecs.
   */
  @Test
  void aNumericComponentWhoseTypeChangedReadsConverted() {
    byte[] asInt = codec.encode(new Counted("x", 7));
    assertThat(codec.decode(replace(asInt, Counted.class.getName(), Counting.class.getName())))
        .isEqualTo(new Counting("x", 7L));
    assertThat(codec.decode(replace(asInt, Counted.class.getName(), Measured.class.getName())))
        .isEqualTo(new Measured("x", 7.0));
    byte[] asLong = codec.encode(new Counting("y", 42L));
    assertThat(codec.decode(replace(asLong, Counting.class.getName(), Counted.class.getName())))
        .isEqualTo(new Counted("y", 42));
    assertThatThrownBy(() ->
        codec.decode(replace(asInt, Counted.class.getName(), Named.class.getName())))
        .isInstanceOf(CodecException.class)
        .hasMessage("cannot deserialize " + Named.class.getName() + ": stored a"
            + " java.lang.Integer for its component 'n' of type java.lang.String. If a component"
            + " of " + Named.class.getName() + " changed type since this was stored, keep that"
            + " component as it was and give the new type a component of its own (stored values"
            + " then decode with it empty), or run dropState with the version that stored them"
            + " before upgrading; see docs/CONNECTORS.md, \"Changing a tracking record\"");
  }

  enum Shade { DARK, GREEN }

  /**
   * A stored constant the enum no longer has, and a stored enum or record whose class changed
   * kind, are errors naming them.
   */
  @Test
  void aStoredConstantOrKindTheClassNoLongerHasIsAnErrorNamingIt() {
    byte[] red = codec.encode(Color.RED);
    assertThatThrownBy(() ->
        codec.decode(replace(red, Color.class.getName(), Shade.class.getName())))
        .isInstanceOf(CodecException.class)
        .hasMessage("stored " + Shade.class.getName() + " constant 'RED' that the enum no longer"
            + " has (removed or renamed?)");
    assertThat(codec.decode(replace(codec.encode(Color.GREEN), Color.class.getName(),
        Shade.class.getName()))).isEqualTo(Shade.GREEN);
    assertThatThrownBy(() -> codec.decode(replace(red, Color.class.getName(),
        Before.class.getName())))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("stored enum " + Before.class.getName() + " is no longer an enum");
    assertThatThrownBy(() -> codec.decode(replace(codec.encode(new Before("x")),
        Before.class.getName(), Shade.class.getName())))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("stored record " + Shade.class.getName() + " is no longer a record");
  }
}
