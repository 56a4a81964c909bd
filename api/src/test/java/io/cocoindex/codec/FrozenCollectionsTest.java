package io.cocoindex.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The lists and maps generated codecs read and copy behave as unmodifiable JDK collections. */
class FrozenCollectionsTest {

  @Test
  void aListKeepsItsElementsAndNullsAndEqualsAJdkList() {
    FrozenList.Builder<String> b = new FrozenList.Builder<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 11; i++) {
      String e = i == 3 ? null : "e" + i;
      b.add(e);
      expected.add(e);
    }
    List<String> list = b.build();
    assertThat(list).containsExactlyElementsOf(expected);
    assertThat(list).isEqualTo(expected).hasSameHashCodeAs(expected);
    assertThat(list.subList(2, 5)).containsExactly("e2", null, "e4");
    assertThat(new FrozenList.Builder<String>().build()).isEmpty();
    assertThatThrownBy(() -> list.add("x")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> list.set(0, "x")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> list.get(11)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void aListsArrayIsNotSharedWithItsCallers() {
    List<String> list = FrozenList.wrap(new Object[] {"a", "b"});
    Object[] out = list.toArray();
    out[0] = "changed";
    assertThat(list).containsExactly("a", "b");
  }

  @Test
  void aCopiedListTakesElementsOfAnotherClassThanItsSourcesArray() {
    List<CharSequence> source = new java.util.AbstractList<>() {
      @Override
      public CharSequence get(int index) {
        return "s" + index;
      }

      @Override
      public int size() {
        return 3;
      }

      @Override
      public Object[] toArray() {
        return new String[] {"s0", "s1", "s2"}; // the array of its element type
      }
    };
    List<CharSequence> copy = GeneratedCodecs.copyList(source, StringBuilder::new);
    assertThat(copy).extracting(CharSequence::toString).containsExactly("s0", "s1", "s2");
    assertThat(copy.get(0)).isInstanceOf(StringBuilder.class);
  }

  @Test
  void smallAndLargeMapsKeepInsertionOrderAndFindEveryKey() {
    Random random = new Random(7);
    for (int size : new int[] {0, 1, 8, 9, 17, 100, 1000}) {
      FrozenMap.Builder<Integer> b = new FrozenMap.Builder<>(4);
      Map<String, Integer> expected = new LinkedHashMap<>();
      for (int i = 0; i < size; i++) {
        String key = "k" + random.nextInt(1 << 20);
        Integer value = i % 5 == 0 ? null : i;
        b.put(key, value);
        expected.put(key, value);
      }
      Map<String, Integer> map = b.build();
      assertThat(map.keySet()).containsExactlyElementsOf(expected.keySet());
      assertThat(map).isEqualTo(expected).hasSameHashCodeAs(expected);
      assertThat(new HashMap<>(expected)).isEqualTo(map);
      for (Map.Entry<String, Integer> e : expected.entrySet()) {
        assertThat(map.containsKey(new String(e.getKey().toCharArray()))).isTrue();
        assertThat(map.get(e.getKey())).isEqualTo(e.getValue());
      }
      assertThat(map.containsKey("missing")).isFalse();
      assertThat(map.get("missing")).isNull();
      assertThat(map.containsKey(null)).isFalse();
      assertThat(map.get(42)).isNull();
    }
  }

  @Test
  void aKeyAddedTwiceKeepsItsFirstPlaceAndItsLastValueLikeALinkedHashMap() {
    for (int size : new int[] {3, 12}) {
      FrozenMap.Builder<String> b = new FrozenMap.Builder<>(4);
      Map<String, String> expected = new LinkedHashMap<>();
      for (int i = 0; i < size; i++) {
        b.put("k" + i, "v" + i);
        expected.put("k" + i, "v" + i);
      }
      b.put("k1", "again");
      expected.put("k1", "again");
      Map<String, String> map = b.build();
      assertThat(map.entrySet()).containsExactlyElementsOf(expected.entrySet());
      assertThat(map).hasSize(size);
    }
  }

  @Test
  void aMapIsUnmodifiable() {
    FrozenMap.Builder<String> b = new FrozenMap.Builder<>(1);
    b.put("a", "1");
    Map<String, String> map = b.build();
    assertThatThrownBy(() -> map.put("b", "2")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> map.remove("a")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(map::clear).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> map.entrySet().iterator().next().setValue("x"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(map).containsExactly(Map.entry("a", "1"));
  }

  @Test
  void aCopiedMapIsInKeyOrderAndSharesNothingWithItsSourceButKeys() {
    Map<String, List<String>> source = new HashMap<>();
    for (int i = 0; i < 20; i++) {
      source.put("k" + (char) ('a' + (i * 7) % 26), new ArrayList<>(List.of("v" + i)));
    }
    Map<String, List<String>> copy = GeneratedCodecs.copyMap(source, v -> List.copyOf(v));
    assertThat(copy.keySet()).containsExactlyElementsOf(new TreeMap<>(source).keySet());
    assertThat(copy).isEqualTo(source);
    Map<String, List<String>> again = GeneratedCodecs.copyMap(copy, v -> new ArrayList<>(v));
    assertThat(again).isEqualTo(source);
    assertThat(again.get("ka")).isNotSameAs(copy.get("ka"));
    source.get("ka").add("changed");
    assertThat(copy.get("ka")).containsExactly(source.get("ka").get(0));
  }

  @Test
  void aMapOfDistinctKeysFindsEachKey() {
    String[] keys = new String[40];
    Object[] values = new Object[40];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = "key-" + i;
      values[i] = i;
    }
    FrozenMap<Object> map = FrozenMap.ofDistinctKeys(keys, values);
    for (int i = 0; i < keys.length; i++) {
      assertThat(map.get("key-" + i)).isEqualTo(i);
    }
    assertThat(map.keysAscending()).isFalse(); // "key-10" sorts before "key-2"
    String[] sorted = keys.clone();
    Arrays.sort(sorted);
    assertThat(FrozenMap.ofDistinctKeys(sorted, values).keysAscending()).isTrue();
  }

  @Test
  void aListReadKeepsItsBuildersSpareRoomOutOfSight() {
    FrozenList.Builder<String> b = new FrozenList.Builder<>();
    b.add("a");
    b.add(null);
    b.add("c"); // the builder's array holds four
    List<String> list = b.build();
    assertThat(list).hasSize(3).containsExactly("a", null, "c");
    assertThat(list).isEqualTo(Arrays.asList("a", null, "c"))
        .hasSameHashCodeAs(Arrays.asList("a", null, "c"));
    assertThat(list.toArray()).hasSize(3);
    assertThat(list.toArray(new String[0])).containsExactly("a", null, "c");
    assertThatThrownBy(() -> list.get(3)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> list.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void aMapReadInKeyOrderKnowsItUntilAKeyComesOutOfOrder() {
    FrozenMap.Builder<Integer> b = new FrozenMap.Builder<>(4);
    b.put("a", 1);
    b.put("b", 2);
    b.put("b", 3); // the last key again: found, not added
    b.put("a", 4); // an earlier key again: found, the order stays ascending
    FrozenMap<Integer> ascending = b.build();
    assertThat(ascending.keysAscending()).isTrue();
    assertThat(ascending).containsExactly(Map.entry("a", 4), Map.entry("b", 3));

    b = new FrozenMap.Builder<>(4);
    b.put("b", 1);
    b.put("a", 2); // new, before the last key
    b.put("b", 3);
    FrozenMap<Integer> unordered = b.build();
    assertThat(unordered.keysAscending()).isFalse();
    assertThat(unordered).containsExactly(Map.entry("b", 3), Map.entry("a", 2));
  }

  @Test
  void aSmallCopiedMapIsInKeyOrderWhateverItsSourcesOrder() {
    Map<String, Integer> source = Map.of("delta", 4, "alpha", 1, "echo", 5, "charlie", 3,
        "bravo", 2);
    Map<String, Integer> copy = GeneratedCodecs.copyMap(source, v -> v);
    assertThat(copy).containsExactly(Map.entry("alpha", 1), Map.entry("bravo", 2),
        Map.entry("charlie", 3), Map.entry("delta", 4), Map.entry("echo", 5));
    assertThat(((FrozenMap<Integer>) copy).keysAscending()).isTrue();
    Map<String, Integer> fromSorted = GeneratedCodecs.copyMap(new TreeMap<>(source), v -> v);
    assertThat(fromSorted).isEqualTo(copy);
    assertThat(fromSorted.keySet()).containsExactlyElementsOf(copy.keySet());
  }

  @Test
  void anImmutableListWhoseElementsCopyAsThemselvesIsItsOwnCopy() {
    List<String> three = List.of("a", "b", "c");
    List<String> one = List.of("a");
    List<String> read = FrozenList.wrap(new Object[] {"a", null});

    assertThat(GeneratedCodecs.copyList(three, v -> v)).isSameAs(three);
    assertThat(GeneratedCodecs.copyList(one, v -> v)).isSameAs(one);
    assertThat(GeneratedCodecs.copyList(read, v -> v)).isSameAs(read);
    assertThat(GeneratedCodecs.copyList(List.<String>of(), v -> v)).isEmpty();
  }

  @Test
  void anImmutableListWithAnElementThatCopiesAfreshIsCopiedWhole() {
    List<StringBuilder> source = List.of(new StringBuilder("a"), new StringBuilder("b"),
        new StringBuilder("c"));
    // Only the middle element is copied afresh; the others are kept.
    List<StringBuilder> copy = GeneratedCodecs.copyList(source,
        v -> v.toString().equals("b") ? new StringBuilder(v) : v);

    assertThat(copy).isNotSameAs(source).hasSize(3);
    assertThat(copy.get(0)).isSameAs(source.get(0));
    assertThat(copy.get(1)).isNotSameAs(source.get(1)).hasToString("b");
    assertThat(copy.get(2)).isSameAs(source.get(2));
    assertThatThrownBy(() -> copy.set(0, null)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aListSomeoneCanChangeIsAlwaysCopied() {
    List<String> mutable = new ArrayList<>(List.of("a", "b"));
    List<String> view = java.util.Collections.unmodifiableList(mutable);
    List<String> fixedSize = Arrays.asList("a", "b");

    for (List<String> source : List.of(mutable, view, fixedSize)) {
      List<String> copy = GeneratedCodecs.copyList(source, v -> v);
      assertThat(copy).isNotSameAs(source).containsExactly("a", "b");
    }
    List<String> copyOfView = GeneratedCodecs.copyList(view, v -> v);
    mutable.set(0, "changed");
    assertThat(copyOfView).containsExactly("a", "b");
  }

  @Test
  void aCopiedMapWhoseValuesCopyAsThemselvesIsItsOwnCopyOnceInKeyOrder() {
    Map<String, String> copy = GeneratedCodecs.copyMap(Map.of("b", "2", "a", "1"), v -> v);

    assertThat(GeneratedCodecs.copyMap(copy, v -> v)).isSameAs(copy);
    Map<String, String> changed = GeneratedCodecs.copyMap(copy,
        v -> v.equals("2") ? new String(v) : v);
    assertThat(changed).isNotSameAs(copy).isEqualTo(copy);
    assertThat(changed.get("a")).isSameAs(copy.get("a"));
    assertThat(changed.get("b")).isNotSameAs(copy.get("b"));
  }

  @Test
  void anOptionalIsItsOwnCopyWhenItsValueIs() {
    java.util.Optional<String> some = java.util.Optional.of("x");
    java.util.Optional<StringBuilder> builder = java.util.Optional.of(new StringBuilder("y"));

    assertThat(GeneratedCodecs.copyOptional(some, v -> v)).isSameAs(some);
    assertThat(GeneratedCodecs.copyOptional(builder, StringBuilder::new).orElseThrow())
        .isNotSameAs(builder.orElseThrow()).hasToString("y");
    assertThat(GeneratedCodecs.copyOptional(null, v -> v)).isEmpty();
  }
}
