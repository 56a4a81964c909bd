package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.cocoindex.StableKey;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An {@link Error} that is not fatal to the JVM (an assertion, a stack overflow in one
 * component's work) thrown by an app's code or a connector's fails the component it was thrown
 * for, as an exception does: the update reports it, the healthy components commit, and the next
 * run without the fault converges.
 */
@Timeout(60)
class ThrownErrorTest extends EngineTestBase {
  final Rows rows = new Rows();
  volatile boolean faulty = true;

  /** The rows' handler, throwing an {@link AssertionError} for key "bad" while {@link #faulty}. */
  final TargetHandler<String, String, Rows.RowAction> assertingHandler =
      new TargetHandler<>() {
        @Override
        public TargetReconcileOutput<Rows.RowAction, String> reconcile(
            StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
          if (faulty && Rows.keyText(key).equals("bad")) {
            throw new AssertionError("handler's assertion on bad");
          }
          return rows.handler.reconcile(key, desired, prev, mayBeMissing);
        }
      };

  @Test
  void anAssertionErrorFromAHandlerFailsItsComponentOnly() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows",
          assertingHandler);
      ctx.mount("c1", c -> declareTargetState(c, p.targetState("bad", "1")));
      ctx.mount("c2", c -> declareTargetState(c, p.targetState("good", "1")));
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("1 component failed")
        .hasMessageContaining("/\"c1\": handler io.cocoindex.runtime.ThrownErrorTest$1 of"
            + " provider 'rows' failed to reconcile key \"bad\": java.lang.AssertionError:"
            + " handler's assertion on bad");
    assertThat(rows.takeLog()).containsExactly("create good=1");

    faulty = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("create bad=1");
  }

  @Test
  void anAssertionErrorFromAHandlerDeletingAnOrphanFailsItsOwnerOnly() {
    boolean[] declared = {true};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows",
          assertingHandler);
      ctx.mount("c1", c -> {
        if (declared[0]) {
          declareTargetState(c, p.targetState("bad", "1"));
        }
      });
      ctx.mount("c2", c -> {
        if (declared[0]) {
          declareTargetState(c, p.targetState("good", "1"));
        }
      });
    });
    faulty = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("create bad=1", "create good=1");

    // Neither is declared now: the orphan sweep reconciles both for their deletion.
    faulty = true;
    declared[0] = false;
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("1 component failed")
        .hasMessageContaining("/\"c1\"")
        .hasMessageContaining("handler's assertion on bad");
    assertThat(rows.takeLog()).containsExactly("delete good");

    faulty = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete bad");
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }

  @Test
  void anErrorReadingTheComponentRecordsFailsTheRunInsteadOfReadingAsNoRecord() {
    assumeFalse(ON_POSTGRES, "the shared store reads each record alone, with no scan");
    StateStore store = new ForwardingStateStore(store()) {
      @Override
      public void componentsInOrder(String app, Consumer<ComponentRecord> visitor) {
        if (faulty) {
          throw new AssertionError("test: cannot read the records");
        }
        super.componentsInOrder(app, visitor);
      }
    };
    App app = App.create("test", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mountMemo("m", "v1", c -> declareTargetState(c, p.targetState("m", "1")));
    });
    try (app) {
      faulty = false;
      app.update();
      assertThat(rows.takeLog()).containsExactly("create m=1");
      rows.takeCalls();

      // Left to fly, the error ended the scan as if it had read every record: the memo was
      // taken for absent and the component ran again, and the update reported success.
      faulty = true;
      assertThatThrownBy(app::update) // from the component that asked, or from the sweep
          .hasMessageContaining("reading the component records failed:"
              + " java.lang.AssertionError: test: cannot read the records");
      assertThat(rows.takeCalls()).isEmpty();

      faulty = false;
      app.update();
      assertThat(rows.takeCalls()).isEmpty(); // a memo hit
    }
  }

  @Test
  void aStackOverflowFingerprintingAMemoInputFailsThatComponentOnly() {
    List<Object> deep = new ArrayList<>();
    List<Object> inner = deep;
    for (int i = 0; i < 200_000; i++) { // deeper than any stack fingerprints
      List<Object> next = new ArrayList<>();
      inner.add(next);
      inner = next;
    }
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mountMemo("deep", faulty ? deep : List.of(), c ->
          declareTargetState(c, p.targetState("d", "1")));
      ctx.mount("c2", c -> declareTargetState(c, p.targetState("good", "1")));
    });
    assertThatThrownBy(app::update)
        .isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("1 component failed")
        .hasMessageContaining("/\"deep\"")
        .cause().isInstanceOf(StackOverflowError.class);
    assertThat(rows.takeLog()).containsExactly("create good=1");

    faulty = false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("create d=1");
  }
}
