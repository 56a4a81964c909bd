package io.cocoindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class StableKeyTest {

  @Test
  void stringBecomesStr() {
    assertThat(StableKey.of("docs")).isEqualTo(new StableKey.Str("docs"));
  }

  @Test
  void everyIntegralBoxBecomesTheSameInt() {
    assertThat(List.of(
            StableKey.of(7), StableKey.of(7L), StableKey.of((short) 7), StableKey.of((byte) 7)))
        .containsOnly(new StableKey.Int(7));
  }

  @Test
  void booleanBecomesBool() {
    assertThat(StableKey.of(true)).isEqualTo(new StableKey.Bool(true));
  }

  @Test
  void uuidBecomesUuid() {
    UUID id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

    assertThat(StableKey.of(id)).isEqualTo(new StableKey.Uuid(id));
  }

  @Test
  void bytesKeysAreEqualByContent() {
    StableKey a = StableKey.of(new byte[] {1, 2, 3});
    StableKey b = StableKey.of(new byte[] {1, 2, 3});

    assertThat(a).isInstanceOf(StableKey.Bytes.class).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(StableKey.of(new byte[] {1, 2, 4}));
  }

  @Test
  void bytesKeyIsNotChangedByMutatingTheSourceArray() {
    byte[] source = {1, 2};
    StableKey key = StableKey.of(source);
    source[0] = 9;

    assertThat(key).isEqualTo(StableKey.of(new byte[] {1, 2}));
  }

  @Test
  void nestedListBecomesNestedArray() {
    assertThat(StableKey.of(List.of("my_pg", List.of(1, "public"))))
        .isEqualTo(
            new StableKey.Array(
                List.of(
                    new StableKey.Str("my_pg"),
                    new StableKey.Array(List.of(new StableKey.Int(1), new StableKey.Str("public"))))));
  }

  @Test
  void aStringKeyPrintsQuotedOnOneLineWithItsControlCharactersEscaped() {
    assertThat(new StableKey.Str("a \"b\" c:\\d").toString()).isEqualTo("\"a \\\"b\\\" c:\\\\d\"");
    assertThat(new StableKey.Str("line 1\nline 2\r\tend\u0000\u001b\u007f").toString())
        .isEqualTo("\"line 1\\nline 2\\r\\tend\\u0000\\u001B\\u007F\"");
    assertThat(new StableKey.Str("é/ü 日本").toString()).isEqualTo("\"é/ü 日本\"");
  }

  @Test
  void typedAccessorsReadAKeyBackWithoutACast() {
    assertThat(StableKey.of("docs").asString()).isEqualTo("docs");
    assertThat(StableKey.of(42).asLong()).isEqualTo(42L);
    StableKey table = StableKey.of(List.of("my_pg", List.of(1, "public")));
    assertThat(table.part(0).asString()).isEqualTo("my_pg");
    assertThat(table.part(1).part(0).asLong()).isEqualTo(1L);
  }

  @Test
  void typedAccessorsOfTheWrongKindNameTheKeyAndWhatItIs() {
    assertThatThrownBy(() -> StableKey.of(7).asString())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("key 7 is an integer key, not a string key");
    assertThatThrownBy(() -> StableKey.of("7").asLong())
        .hasMessage("key \"7\" is a string key, not an integer key");
    assertThatThrownBy(() -> StableKey.of("docs").part(0))
        .hasMessage("key \"docs\" is a string key, not a composite key");
    assertThatThrownBy(() -> StableKey.of(List.of("a")).part(1))
        .hasMessage("key [\"a\"] has 1 part, not a part 1");
    assertThatThrownBy(() -> StableKey.symbol("index").asString())
        .hasMessage("key @index is a symbol, not a string key");
  }

  @Test
  void fingerprintBecomesFp() {
    Fingerprint fp = Fingerprint.ofString("x");

    assertThat(StableKey.of(fp)).isEqualTo(new StableKey.Fp(fp));
  }

  @Test
  void stableKeyIsReturnedAsIs() {
    StableKey symbol = StableKey.symbol("index");

    assertThat(StableKey.of(symbol)).isSameAs(symbol);
  }

  @Test
  void nullBecomesNull() {
    assertThat(StableKey.of(null)).isEqualTo(new StableKey.Null());
  }

  @Test
  void doubleIsRejectedNamingTheType() {
    assertThatThrownBy(() -> StableKey.of(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Double");
  }

  @Test
  void plainObjectIsRejectedNamingTheType() {
    assertThatThrownBy(() -> StableKey.of(new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Object");
  }

  @Test
  void arrayIsRejectedNamingItsTypeAsJavaWritesIt() {
    assertThatThrownBy(() -> StableKey.of(new int[] {1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unsupported key type int[] (value ");
  }

  @Test
  void valueWhoseToStringThrowsIsStillRejectedAsAnUnsupportedKey() {
    Object broken = new Object() {
      @Override
      public String toString() {
        throw new UnsupportedOperationException("no text");
      }
    };
    assertThatThrownBy(() -> StableKey.of(broken))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("whose toString() threw UnsupportedOperationException");
  }

  @Test
  void unsupportedItemInAListIsRejectedNamingItsType() {
    assertThatThrownBy(() -> StableKey.of(List.of("a", 2.5f)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Float");
  }

  @Test
  void symbolRendersWithAnAt() {
    assertThat(StableKey.symbol("vector_index")).hasToString("@vector_index");
  }

  @Test
  void strAndSymbolOfTheSameTextDiffer() {
    assertThat(StableKey.of("index")).isNotEqualTo(StableKey.symbol("index"));
  }
}
