package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.testing.compile.Compilation;
import io.cocoindex.codec.GeneratedCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A generated codec's {@code copy()} gives what writing and reading back gives: equal values,
 * fresh records, collections and byte arrays wherever something could change, sets and maps in
 * stored (sorted) order, an empty optional for a null one; a value nothing of which can change
 * is its own copy; and it fails where writing fails.
 */
class GeneratedCopyTest {
  private static final JavaFileObject KINDS = Fixtures.source("Kinds",
      "package test;",
      "import java.util.*;",
      "@io.cocoindex.annotation.TargetValue",
      "public record Kinds(String text, byte[] blob, long n, char c, Character boxedChar,",
      "    Integer boxed, Level level, UUID uuid, io.cocoindex.Fingerprint fp,",
      "    io.cocoindex.StableKey key, Inner inner, List<Inner> inners, List<byte[]> blobs,",
      "    Set<String> names, Map<String, Inner> byName, Optional<Inner> maybe,",
      "    Optional<String> none, List<String> withNull) {",
      "  public enum Level { LOW, HIGH }",
      "  @io.cocoindex.annotation.TargetValue",
      "  public record Inner(String name, byte[] data) {}",
      "  public static Kinds sample(Optional<String> none, String text) {",
      "    List<String> withNull = new ArrayList<>();",
      "    withNull.add(\"a\");",
      "    withNull.add(null);",
      "    Map<String, Inner> byName = new HashMap<>();",
      "    byName.put(\"zeta\", new Inner(\"z\", new byte[] {9}));",
      "    byName.put(\"alpha\", new Inner(\"a\", null));",
      "    return new Kinds(text, new byte[] {1, 2}, 7L, 'x', 'y', 42, Level.HIGH,",
      "        new UUID(1, 2), io.cocoindex.Fingerprint.ofString(\"f\"),",
      "        io.cocoindex.StableKey.of(\"k\"), new Inner(\"in\", new byte[] {3}),",
      "        new ArrayList<>(List.of(new Inner(\"l\", new byte[] {4}))),",
      "        new ArrayList<>(List.of(new byte[] {5})),",
      "        new HashSet<>(List.of(\"pear\", \"apple\", \"fig\")), byName,",
      "        Optional.of(new Inner(\"m\", new byte[] {6})), none, withNull);",
      "  }",
      "}");

  /** A record nothing of which can change once built, unless a list or map given to it can. */
  private static final JavaFileObject SETTLED = Fixtures.source("Settled",
      "package test;",
      "import java.util.*;",
      "@io.cocoindex.annotation.TargetValue",
      "public record Settled(String name, long n, char c, Character boxedChar,",
      "    Kinds.Level level, Leaf leaf, List<Leaf> leaves, Map<String, Leaf> byName,",
      "    Optional<Leaf> maybe) {",
      "  @io.cocoindex.annotation.TargetValue",
      "  public record Leaf(String name, int order, byte[] data) {}",
      "  public static Settled of(List<Leaf> leaves, byte[] data) {",
      "    Leaf leaf = new Leaf(\"leaf\", 1, data);",
      "    return new Settled(\"s\", 2L, 'c', '\u00e9', Kinds.Level.LOW, leaf, leaves,",
      "        Map.of(\"k\", leaf), Optional.of(leaf));",
      "  }",
      "}");

  private static ClassLoader loader;

  @BeforeAll
  static void compile() {
    Compilation c = Fixtures.compile(KINDS, SETTLED);
    assertThat(c).succeededWithoutWarnings();
    loader = new GeneratedClassLoader(c.generatedFiles());
  }

  @Test
  void aCopyEqualsTheOriginalComponentByComponent() throws Exception {
    Record original = sample(Optional.empty(), "text");

    Record copy = codec("test.Kinds_Codec").copy(original);

    assertThat(copy).isNotSameAs(original);
    assertDeepEquals(copy, original);
  }

  @Test
  void aCopySharesNoMutablePartAndItsCollectionsAreUnmodifiable() throws Exception {
    Record original = sample(Optional.empty(), "text");

    Record copy = codec("test.Kinds_Codec").copy(original);

    assertThat((byte[]) get(copy, "blob")).isNotSameAs(get(original, "blob"));
    assertThat(part(copy, "inner")).isNotSameAs(get(original, "inner"));
    assertThat((byte[]) get(get(copy, "inner"), "data"))
        .isNotSameAs(get(get(original, "inner"), "data"));
    List<byte[]> blobs = get(copy, "blobs");
    List<byte[]> originalBlobs = get(original, "blobs");
    assertThat(blobs.get(0)).isNotSameAs(originalBlobs.get(0));
    Optional<Record> maybe = get(copy, "maybe");
    Optional<Record> originalMaybe = get(original, "maybe");
    assertThat(maybe.orElseThrow()).isNotSameAs(originalMaybe.orElseThrow());
    assertThatThrownBy(() -> blobs.add(new byte[0]))
        .isInstanceOf(UnsupportedOperationException.class);
    Map<String, Object> byName = get(copy, "byName");
    assertThatThrownBy(byName::clear).isInstanceOf(UnsupportedOperationException.class);
    // Immutable leaves are shared, not copied.
    assertThat(part(copy, "text")).isSameAs(get(original, "text"));
    assertThat(part(copy, "fp")).isSameAs(get(original, "fp"));
  }

  @Test
  void aValueNothingOfWhichCanChangeIsItsOwnCopy() throws Exception {
    GeneratedCodec<Record> codec = codec("test.Settled_Codec");
    Record leaf = leaf(null);
    Record settled = settled(List.of(leaf, leaf(null)), null);
    // The map given to it is the JDK's, not in stored order: copied once, then settled.
    Record copy = codec.copy(settled);

    assertThat(copy).isNotSameAs(settled);
    assertThat(part(copy, "leaf")).isSameAs(get(settled, "leaf"));
    assertThat(part(copy, "leaves")).isSameAs(get(settled, "leaves"));
    assertThat(part(copy, "maybe")).isSameAs(get(settled, "maybe"));
    assertThat(codec.copy(copy)).isSameAs(copy);
    assertThat(codec("test.Settled_Leaf_Codec").copy(leaf)).isSameAs(leaf);
  }

  @Test
  void aValueWithAPartThatCanChangeIsCopiedAndSharesOnlyWhatCannot() throws Exception {
    GeneratedCodec<Record> codec = codec("test.Settled_Codec");
    Record kept = leaf(null);
    Record withData = leaf(new byte[] {1});
    List<Record> leaves = new ArrayList<>(List.of(kept, withData));
    Record original = settled(leaves, null);

    Record copy = codec.copy(original);
    leaves.clear();

    assertThat(copy).isNotSameAs(original);
    List<Record> copied = get(copy, "leaves");
    assertThat(copied).hasSize(2);
    assertThat(copied.get(0)).isSameAs(kept);
    assertThat(copied.get(1)).isNotSameAs(withData);
    assertThat((byte[]) get(copied.get(1), "data")).containsExactly(1);
    // A byte array anywhere below makes every record above it a fresh copy, every time.
    Record withBytes = codec.copy(settled(List.of(kept), new byte[] {2}));
    Record again = codec.copy(withBytes);
    assertThat(again).isNotSameAs(withBytes);
    assertThat((byte[]) get(get(again, "leaf"), "data"))
        .isNotSameAs(get(get(withBytes, "leaf"), "data")).containsExactly(2);
    assertThat(part(again, "leaves")).isSameAs(get(withBytes, "leaves"));
  }

  @Test
  void setsAndMapsCopyInTheSortedOrderReadingBackGives() throws Exception {
    Record copy = codec("test.Kinds_Codec").copy(sample(Optional.empty(), "text"));

    Set<String> names = get(copy, "names");
    Map<String, ?> byName = get(copy, "byName");
    List<String> withNull = get(copy, "withNull");
    assertThat(new ArrayList<>(names)).containsExactly("apple", "fig", "pear");
    assertThat(new ArrayList<>(byName.keySet())).containsExactly("alpha", "zeta");
    assertThat(withNull).containsExactly("a", null);
  }

  @Test
  void aNullOptionalCopiesAsEmptyAsItReadsBack() throws Exception {
    Record copy = codec("test.Kinds_Codec").copy(sample(null, "text"));

    assertThat((Optional<?>) get(copy, "none")).isEmpty();
  }

  @Test
  void aStringWithAnUnpairedSurrogateFailsTheCopyAsItFailsWriting() throws Exception {
    Record bad = sample(Optional.empty(), "broken \ud800 text");

    assertThatThrownBy(() -> codec("test.Kinds_Codec").copy(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate");
  }

  @Test
  void aNullRecordCopiesAsNull() throws Exception {
    assertThat(codec("test.Kinds_Codec").copy(null)).isNull();
    assertThat(codec("test.Kinds_Codec").copiesDirectly()).isTrue();
  }

  // ---- helpers ----

  private static Record settled(List<Record> leaves, byte[] data) throws Exception {
    return (Record) loader.loadClass("test.Settled")
        .getMethod("of", List.class, byte[].class)
        .invoke(null, leaves, data);
  }

  private static Record leaf(byte[] data) throws Exception {
    return (Record) loader.loadClass("test.Settled$Leaf")
        .getConstructor(String.class, int.class, byte[].class)
        .newInstance("leaf", 3, data);
  }

  private static Record sample(Optional<String> none, String text) throws Exception {
    return (Record) loader.loadClass("test.Kinds")
        .getMethod("sample", Optional.class, String.class)
        .invoke(null, none, text);
  }

  @SuppressWarnings("unchecked")
  private static GeneratedCodec<Record> codec(String name) throws Exception {
    return (GeneratedCodec<Record>) loader.loadClass(name).getField("INSTANCE").get(null);
  }

  /** A record component's value, where only its identity is asserted. */
  private static Object part(Object record, String component) throws Exception {
    return get(record, component);
  }

  @SuppressWarnings("unchecked")
  private static <T> T get(Object record, String component) throws Exception {
    for (RecordComponent c : record.getClass().getRecordComponents()) {
      if (c.getName().equals(component)) {
        return (T) c.getAccessor().invoke(record);
      }
    }
    throw new IllegalArgumentException(component);
  }

  /** Records compared component by component, byte arrays by content, collections in order. */
  private static void assertDeepEquals(Object actual, Object expected) throws Exception {
    if (expected instanceof Record r) {
      assertThat(actual).isInstanceOf(r.getClass());
      for (RecordComponent c : r.getClass().getRecordComponents()) {
        assertDeepEquals(c.getAccessor().invoke(actual), c.getAccessor().invoke(r));
      }
    } else if (expected instanceof byte[] b) {
      assertThat((byte[]) actual).isEqualTo(b);
    } else if (expected instanceof List<?> l) {
      List<?> a = (List<?>) actual;
      assertThat(a).hasSameSizeAs(l);
      for (int i = 0; i < l.size(); i++) {
        assertDeepEquals(a.get(i), l.get(i));
      }
    } else if (expected instanceof Map<?, ?> m) {
      Map<?, ?> a = (Map<?, ?>) actual;
      assertThat(a.keySet()).isEqualTo(m.keySet());
      for (Object key : m.keySet()) {
        assertDeepEquals(a.get(key), m.get(key));
      }
    } else if (expected instanceof Optional<?> o) {
      Optional<?> a = (Optional<?>) actual;
      assertThat(a.isPresent()).isEqualTo(o.isPresent());
      if (o.isPresent()) {
        assertDeepEquals(a.get(), o.get());
      }
    } else {
      assertThat(actual).isEqualTo(expected);
    }
  }

  /** Loads the classes a compile-testing compilation wrote. */
  private static final class GeneratedClassLoader extends ClassLoader {
    private final List<JavaFileObject> files;

    GeneratedClassLoader(List<JavaFileObject> files) {
      super(GeneratedCopyTest.class.getClassLoader());
      this.files = files;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      String path = "/CLASS_OUTPUT/" + name.replace('.', '/') + ".class";
      for (JavaFileObject f : files) {
        if (f.getKind() == JavaFileObject.Kind.CLASS && f.toUri().getPath().equals(path)) {
          try (InputStream in = f.openInputStream()) {
            byte[] bytes = in.readAllBytes();
            return defineClass(name, bytes, 0, bytes.length);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
      throw new ClassNotFoundException(name);
    }
  }
}
