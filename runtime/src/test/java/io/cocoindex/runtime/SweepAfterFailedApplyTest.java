package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.Test;

/**
 * A component whose body completed but whose apply failed still has what it no longer declares
 * (its states, the children it no longer mounts) deleted by the sweep: the failed action may
 * wait for exactly that deletion, as a row does for the duplicate a new UNIQUE index forbids.
 * Kept (as they were, found by an adversarial review), no rerun ever converged.
 */
class SweepAfterFailedApplyTest extends EngineTestBase {
  record Put(String key, String value) {}

  /** A key-value store whose values are unique, like a column under a UNIQUE index. */
  final Map<String, String> external = new ConcurrentSkipListMap<>();
  final TargetActionSink<Put> sink = TargetActionSink.of(actions -> {
    for (TargetAction<Put> a : actions) {
      Put p = a.value();
      if (p.value() != null) {
        external.forEach((k, v) -> {
          if (!k.equals(p.key()) && v.equals(p.value())) {
            throw new IllegalStateException("unique: " + p.value() + " is held by " + k);
          }
        });
      }
    }
    for (TargetAction<Put> a : actions) {
      if (a.value().value() == null) {
        external.remove(a.value().key());
      } else {
        external.put(a.value().key(), a.value().value());
      }
    }
  });
  /** A key whose reconcile throws (before anything of its component is precommitted). */
  volatile String failReconcileOf;
  final TargetHandler<String, String, Put> handler = (key, desired, prev, mayBeMissing) -> {
    String k = key.asString();
    if (k.equals(failReconcileOf) && desired != null) {
      throw new IllegalStateException("scripted failure reconciling " + k);
    }
    if (desired == null) {
      return TargetReconcileOutput.of(TargetAction.delete(new Put(k, null)), sink, null);
    }
    if (!mayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    return TargetReconcileOutput.of(TargetAction.update(new Put(k, desired)), sink, desired);
  };

  @Test
  void aStateTheComponentNoLongerDeclaresIsDeletedThoughItsOtherActionFailed() {
    Map<String, String> declared = new TreeMap<>(Map.of("a", "1", "b", "2"));
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", handler);
      declared.forEach((k, v) -> declareTargetState(ctx, p.targetState(k, v)));
    });
    app.update();

    declared.remove("b");
    declared.put("a", "2"); // b holds 2 until the sweep deletes it
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("unique: 2 is held by b");
    assertThat(external).isEqualTo(Map.of("a", "1"));
    app.update();
    assertThat(external).isEqualTo(Map.of("a", "2"));
    assertThat(app.preview().hasChanges()).isFalse();
  }

  @Test
  void aChildNoLongerMountedIsSweptThoughItsParentsApplyFailed() {
    Map<String, String> children = new TreeMap<>(Map.of("b", "2"));
    String[] rootValue = {"1"};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", handler);
      declareTargetState(ctx, p.targetState("a", rootValue[0]));
      children.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, p.targetState(k, v))));
    });
    app.update();

    children.clear();
    rootValue[0] = "2";
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(external).isEqualTo(Map.of("a", "1"));
    app.update();
    assertThat(external).isEqualTo(Map.of("a", "2"));
    assertThat(app.status().total()).isEqualTo(1);
  }

  /** A body that threw is another matter: what it did not get to declare is kept. */
  @Test
  void whatABodyThatThrewDidNotDeclareIsKept() {
    boolean[] fails = {false};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", handler);
      ctx.mount("c", c -> {
        declareTargetState(c, p.targetState("a", "1"));
        if (fails[0]) {
          throw new IllegalStateException("the body fails half-way");
        }
        declareTargetState(c, p.targetState("b", "2"));
      });
    });
    app.update();
    fails[0] = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(external).isEqualTo(Map.of("a", "1", "b", "2"));
  }

  /**
   * A memoized component that failed before its first precommit keeps its record, memo included:
   * a child it no longer mounts is swept all the same (its body completed), so that memo must go
   * with it, or the input coming back hit it and the child's state stayed deleted for good.
   */
  @Test
  void aFailedMemoizedComponentWhoseStaleChildIsSweptLosesItsMemo() {
    String[] input = {"x"};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", handler);
      ctx.mountMemo("m", input[0], m -> {
        declareTargetState(m, p.targetState("a", input[0]));
        if (input[0].equals("x")) {
          m.mount("child", c -> declareTargetState(c, p.targetState("c", "1")));
        }
      });
    });
    app.update();
    assertThat(external).isEqualTo(Map.of("a", "x", "c", "1"));

    input[0] = "y";
    failReconcileOf = "a";
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure reconciling a");
    assertThat(external).as("the child no longer mounted is swept").isEqualTo(Map.of("a", "x"));

    failReconcileOf = null;
    input[0] = "x";
    assertThat(app.update().componentsMemoized()).as("the old memo does not hit").isZero();
    assertThat(external).isEqualTo(Map.of("a", "x", "c", "1"));
  }
}
