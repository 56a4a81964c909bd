package io.cocoindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a handler's reconcile returns: an action, its sink, the record, the children's fate. */
class TargetReconcileOutputTest {
  final TargetActionSink<String> sink = TargetActionSink.of(actions -> {});

  @Test
  void ofHasNoChildInvalidationAndWithChildInvalidationChangesOnlyThat() {
    TargetReconcileOutput<String, Integer> plain =
        TargetReconcileOutput.of(TargetAction.update("alter"), sink, 7);
    TargetReconcileOutput<String, Integer> lossy =
        plain.withChildInvalidation(TargetChildInvalidation.LOSSY);

    assertThat(plain.childInvalidation()).isNull();
    assertThat(lossy).isEqualTo(new TargetReconcileOutput<>(
        TargetAction.update("alter"), sink, 7, TargetChildInvalidation.LOSSY));
  }

  /** Each missing part is named with its usual cause: reconcile's answer for "nothing to do". */
  @Test
  void anActionAndASinkAreRequired() {
    assertThatThrownBy(() -> TargetReconcileOutput.of(null, sink, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("a TargetReconcileOutput needs an action: when there is nothing to do,"
            + " reconcile returns null instead of an output");
    assertThatThrownBy(() -> TargetReconcileOutput.of(TargetAction.create("x"), null, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("a TargetReconcileOutput needs the sink that applies its action (was the"
            + " handler's sink field read before it was initialized?)");
    assertThat(List.of(TargetReconcileOutput.of(TargetAction.delete("x"), sink, null)))
        .singleElement().extracting(TargetReconcileOutput::trackingRecord).isNull();
  }
}
