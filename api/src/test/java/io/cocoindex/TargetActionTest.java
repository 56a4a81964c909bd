package io.cocoindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TargetActionTest {

  @Test
  void factoriesBuildTheMatchingKindCarryingTheValue() {
    assertThat(TargetAction.create("a")).isEqualTo(new TargetAction.Create<>("a"));
    assertThat(TargetAction.update("a")).isEqualTo(new TargetAction.Update<>("a"));
    assertThat(TargetAction.delete("a")).isEqualTo(new TargetAction.Delete<>("a"));
  }

  @Test
  void actionsOfDifferentKindsWithTheSameValueDiffer() {
    assertThat(TargetAction.create("a")).isNotEqualTo(TargetAction.update("a"));
  }

  @Test
  void verbNamesTheKindInLowerCase() {
    assertThat(TargetAction.create(1).verb()).isEqualTo("create");
    assertThat(TargetAction.update(1).verb()).isEqualTo("update");
    assertThat(TargetAction.delete(1).verb()).isEqualTo("delete");
  }

  @Test
  void nullValueIsRejected() {
    assertThatThrownBy(() -> TargetAction.create(null)).isInstanceOf(NullPointerException.class);
  }
}
