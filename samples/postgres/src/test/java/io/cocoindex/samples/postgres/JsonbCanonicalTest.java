package io.cocoindex.samples.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The canonical text of a jsonb value (its agreement with the server: CanonicalKeysTest). */
class JsonbCanonicalTest {
  @Test
  void membersSortedRepeatedOnesLastSpacesGoneNumbersByValue() {
    assertThat(JsonbCanonical.of(" { \"b\" : [1.50, -0, 2e1], \"a\": \"x\\u0041\", \"a\": true } "))
        .isEqualTo("{\"a\":true,\"b\":[1.5,0,2E+1]}");
  }

  @Test
  void aHugeExponentIsWrittenShortNotAsItsDigits() {
    assertThat(JsonbCanonical.of("[1e999999999]")).isEqualTo("[1E+999999999]");
  }

  @Test
  void textThatIsNotOneJsonValueIsRefusedNamingWhere() {
    assertThatThrownBy(() -> JsonbCanonical.of("{\"a\": 1} x"))
        .hasMessage("text after the JSON value at offset 9 of {\"a\": 1} x");
    assertThatThrownBy(() -> JsonbCanonical.of("{\"a\" 1}"))
        .hasMessageStartingWith("':' expected at offset 5");
  }
}
