package io.cocoindex;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ContextKeyTest {

  @Test
  void keysWithTheSameNameAndTypeAreEqual() {
    assertThat(ContextKey.of("db", String.class))
        .isEqualTo(ContextKey.of("db", String.class))
        .hasSameHashCodeAs(ContextKey.of("db", String.class));
  }

  @Test
  void keysWithTheSameNameButAnotherTypeDiffer() {
    assertThat(ContextKey.of("db", String.class)).isNotEqualTo(ContextKey.of("db", Integer.class));
  }

  @Test
  void nameIsTheStableLogicalName() {
    assertThat(ContextKey.of("main_pg", String.class).name()).isEqualTo("main_pg");
  }
}
