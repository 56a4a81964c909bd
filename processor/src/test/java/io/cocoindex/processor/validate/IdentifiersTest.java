package io.cocoindex.processor.validate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IdentifiersTest {
  @ParameterizedTest
  @CsvSource({
    "Document, Documents",
    "Row, Rows",
    "Box, Boxes",
    "Index, Indexes",
    "Branch, Branches",
    "Hash, Hashes",
    "Status, Statuses",
    "Directory, Directories",
    "Key, Keys",
    "Day, Days",
    "Y, Ys",
  })
  void defaultApiClassIsTheRegularEnglishPlural(String name, String plural) {
    assertThat(Identifiers.plural(name)).isEqualTo(plural);
  }
}
