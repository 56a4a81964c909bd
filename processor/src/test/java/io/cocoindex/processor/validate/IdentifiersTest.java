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

  @ParameterizedTest
  @CsvSource({
    "Row, a Row",
    "Entry, an Entry",
    "index, an index",
    "Item, an Item",
    "Object, an Object",
    "Update, an Update",
    "Upload, an Upload",
    "User, a User",
    "Unit, a Unit",
    "Uuid, a Uuid",
    "UUID, a UUID",
    "URL, a URL",
    "SQLTable, an SQLTable",
    "HTTPRoute, an HTTPRoute",
    "Document, a Document",
  })
  void generatedJavadocPutsTheIndefiniteArticleTheNameTakes(String name, String phrase) {
    assertThat(Identifiers.withArticle(name)).isEqualTo(phrase);
  }
}
