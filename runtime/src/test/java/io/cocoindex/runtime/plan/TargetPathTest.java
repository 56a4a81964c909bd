package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.KeyEncoding;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A path built key by key is the path of all its keys at once, in keys and in bytes. */
class TargetPathTest {
  /** One key of every kind, some long enough to outgrow a buffer sized for a short key. */
  static final List<StableKey> EVERY_KIND = List.of(
      StableKey.symbol("rows"),
      new StableKey.Null(),
      new StableKey.Bool(true),
      new StableKey.Int(-42),
      new StableKey.Int(Long.MIN_VALUE),
      new StableKey.Int(Long.MAX_VALUE),
      new StableKey.Str("a\u0000b"),
      new StableKey.Str(""),
      new StableKey.Str("caf\u00e9 \u6f22\u0000"),
      new StableKey.Str("a string much longer than the twenty-four bytes spared for a key"),
      new StableKey.Bytes(new byte[] {0, 1, 0, (byte) 0xFF}),
      new StableKey.Uuid(new UUID(1, -1)),
      new StableKey.Array(List.of(new StableKey.Int(1), new StableKey.Str("x"))),
      new StableKey.Fp(Fingerprint.ofString("content")));

  @Test
  void aPathBuiltKeyByKeyEqualsThePathOfAllItsKeys() {
    TargetPath built = TargetPath.ROOT;
    List<StableKey> so = new ArrayList<>();
    for (StableKey key : EVERY_KIND) {
      built = built.child(key);
      so.add(key);
      TargetPath whole = TargetPath.of(so);

      assertThat(built).isEqualTo(whole).hasSameHashCodeAs(whole);
      assertThat(built.encoded()).isEqualTo(KeyEncoding.encodePath(so));
      assertThat(built.keys()).isEqualTo(so);
      assertThat(built.depth()).isEqualTo(so.size());
      assertThat(built.last()).isEqualTo(key);
      assertThat(TargetPath.decode(built.encoded()).keys()).isEqualTo(so);
    }
  }

  /**
   * A string key with an unpaired surrogate has no UTF-8 form: written as the JDK writes it, with
   * a {@code '?'} in its place, it was the same path as the key with a {@code '?'} there (two
   * states in one, and the key read back from the store was the other one). It is refused,
   * naming the key; a '?' of the string's own, or a surrogate pair, is a key like any other.
   */
  @Test
  void aStringKeyWithAnUnpairedSurrogateIsRefusedNamingIt() {
    for (StableKey key : List.of(new StableKey.Str("a\uD800"), new StableKey.Str("\uDC00b"),
        new StableKey.Array(List.of(new StableKey.Str("x\uD83D"))))) {
      assertThatThrownBy(() -> TargetPath.ROOT.child(key))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("unpaired surrogate");
      assertThatThrownBy(() -> KeyEncoding.encode(key))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> TargetPath.ROOT.child(new StableKey.Str("ab\uD800")))
        .hasMessage("the key string \"ab?\" holds an unpaired surrogate (\\ud800 at index 2),"
            + " which is not valid Unicode: it has no UTF-8 form, and written as '?' it would be"
            + " the same key as the string with a '?' there; repair the text (or key by its"
            + " bytes)");
    for (String fine : List.of("a?", "?", "pair \uD83D\uDE00?")) {
      TargetPath p = TargetPath.ROOT.child(new StableKey.Str(fine));
      assertThat(TargetPath.decode(p.encoded()).last()).isEqualTo(new StableKey.Str(fine));
    }
  }

  @Test
  void appendingAKeyToAnEncodedPathEncodesTheLongerPath() {
    for (StableKey key : EVERY_KIND) {
      byte[] prefix = KeyEncoding.encodePath(List.of(StableKey.of("p"), StableKey.of(7L)));

      assertThat(KeyEncoding.append(prefix, key)).isEqualTo(
          KeyEncoding.encodePath(List.of(StableKey.of("p"), StableKey.of(7L), key)));
      assertThat(KeyEncoding.append(new byte[0], key)).isEqualTo(KeyEncoding.encode(key));
    }
  }

  @Test
  void aChildLeavesItsParentAsItWas() {
    TargetPath parent = TargetPath.of(List.of(StableKey.of("a")));
    TargetPath first = parent.child(StableKey.of(1L));
    TargetPath second = parent.child(StableKey.of(2L));

    assertThat(parent.keys()).containsExactly(StableKey.of("a"));
    assertThat(first.keys()).containsExactly(StableKey.of("a"), StableKey.of(1L));
    assertThat(second.keys()).containsExactly(StableKey.of("a"), StableKey.of(2L));
    assertThat(first.parent()).isEqualTo(parent);
  }

  @Test
  void keysCannotBeChangedThroughTheList() {
    TargetPath path = TargetPath.of(List.of(StableKey.of("a"), StableKey.of("b")));

    assertThatThrownBy(() -> path.keys().set(0, StableKey.of("z")))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(path.keys()).containsExactly(StableKey.of("a"), StableKey.of("b"));
  }

  @Test
  void startsWithItselfAndItsAncestorsOnly() {
    TargetPath a = TargetPath.of(List.of(StableKey.of("a")));
    TargetPath ab = a.child(StableKey.of("b"));
    TargetPath ac = a.child(StableKey.of("c"));

    assertThat(ab.startsWith(ab)).isTrue();
    assertThat(ab.startsWith(a)).isTrue();
    assertThat(ab.startsWith(TargetPath.ROOT)).isTrue();
    assertThat(ab.startsWith(ac)).isFalse();
    assertThat(a.startsWith(ab)).isFalse();
  }

  @Test
  void rendersItsKeysAndTheRootAsASlash() {
    assertThat(TargetPath.ROOT).hasToString("/");
    assertThat(TargetPath.ROOT.depth()).isZero();
    assertThatThrownBy(TargetPath.ROOT::parent).isInstanceOf(IllegalStateException.class)
        .hasMessage("the root path has no parent");
    assertThat(TargetPath.ROOT.child(StableKey.symbol("docs")).child(StableKey.of("r1")))
        .hasToString("/" + StableKey.symbol("docs") + "/" + StableKey.of("r1"));
  }

  /**
   * A decoded path makes its keys only when asked for (the sweep compares stored components'
   * paths by their bytes): it has its depth, its parent and its keys as the path it was encoded
   * from, whichever is asked first.
   */
  @Test
  void aDecodedPathHasTheDepthParentAndKeysOfThePathItWasEncodedFrom() {
    List<StableKey> so = new ArrayList<>();
    for (StableKey key : EVERY_KIND) {
      so.add(key);
      TargetPath whole = TargetPath.of(so);
      TargetPath parentFirst = TargetPath.decode(whole.encoded());
      TargetPath parentOf = parentFirst.parent();
      assertThat(parentOf).isEqualTo(whole.parent()).hasSameHashCodeAs(whole.parent());
      assertThat(parentOf.depth()).isEqualTo(so.size() - 1);
      assertThat(parentOf.keys()).isEqualTo(so.subList(0, so.size() - 1));
      assertThat(parentFirst.keys()).isEqualTo(so);

      TargetPath decoded = TargetPath.decode(whole.encoded());
      assertThat(decoded).isEqualTo(whole).hasSameHashCodeAs(whole);
      assertThat(decoded.depth()).isEqualTo(so.size());
      assertThat(decoded.last()).isEqualTo(key);
      assertThat(decoded).hasToString(whole.toString());
      assertThat(decoded.child(StableKey.of("x")))
          .isEqualTo(whole.child(StableKey.of("x")));
    }
    // Walking up a decoded path, step by step, to the root.
    TargetPath up = TargetPath.decode(TargetPath.of(EVERY_KIND).encoded());
    for (int n = EVERY_KIND.size(); n > 0; n--) {
      assertThat(up.keys()).isEqualTo(EVERY_KIND.subList(0, n));
      assertThat(up.depth()).isEqualTo(n);
      up = up.parent();
    }
    assertThat(up).isEqualTo(TargetPath.ROOT);
    assertThat(TargetPath.decode(new byte[0])).isEqualTo(TargetPath.ROOT);
    assertThat(TargetPath.decode(new byte[0]).depth()).isZero();
  }

  /**
   * A decoded path's last key is read alone (the sweep reconciles each candidate by it), before
   * or after its parent was asked for (where the key starts is known then), and its parent's
   * too.
   */
  @Test
  void aDecodedPathsLastKeyIsTheEncodedPathsWhicheverIsAskedFirst() {
    List<StableKey> so = new ArrayList<>();
    for (StableKey key : EVERY_KIND) {
      so.add(key);
      byte[] encoded = TargetPath.of(so).encoded();
      assertThat(TargetPath.decode(encoded).last()).isEqualTo(key);
      TargetPath parentAsked = TargetPath.decode(encoded);
      TargetPath parent = so.size() > 1 ? parentAsked.parent() : null;
      assertThat(parentAsked.last()).isEqualTo(key);
      if (parent != null) {
        assertThat(parent.last()).isEqualTo(so.get(so.size() - 2));
        assertThat(parent.last()).isEqualTo(parent.keys().get(so.size() - 2));
      }
    }
    assertThatThrownBy(() -> TargetPath.decode(new byte[0]).last())
        .isInstanceOf(RuntimeException.class);
  }

  /** Bytes that are no path fail to decode at once, as when the keys were made there. */
  @Test
  void bytesThatAreNoPathFailToDecodeWithTheKeysError() {
    byte[] good = TargetPath.of(EVERY_KIND).encoded();
    List<byte[]> bad = List.of(
        new byte[] {0x42}, // no such tag
        new byte[] {0x05, 'a'}, // a string cut short
        new byte[] {0x05, 'a', 0x00, 0x07}, // a bad escape
        new byte[] {0x04, 0, 0, 0}, // an int cut short
        new byte[] {0x07, 1, 2}, // a UUID cut short
        new byte[] {0x09, 0x04}, // an array cut short
        java.util.Arrays.copyOf(good, good.length - 20));
    for (byte[] b : bad) {
      Throwable expected = null;
      try {
        KeyEncoding.decodePath(b);
      } catch (RuntimeException e) {
        expected = e;
      }
      assertThat(expected).as("decodePath of %s", java.util.Arrays.toString(b)).isNotNull();
      assertThatThrownBy(() -> TargetPath.decode(b))
          .isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
      assertThatThrownBy(() -> KeyEncoding.keyCount(b))
          .isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
    }
  }
}
