package io.cocoindex.runtime.blackbox;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateOptions;
import io.cocoindex.runtime.UpdateStats;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Memoized components and functions through the public API alone (an adversarial review). */
class BlackBoxMemoTest extends BlackBoxBase {
  final Kv kv = new Kv();

  /**
   * A component memoized in run 1, plain in run 2 (declaring one more state), memoized again in
   * run 3 on run 1's input, its body declaring only the first state: run 2's commit must have
   * replaced run 1's memo, so run 3 runs the body and deletes b.
   */
  @Test
  void aComponentThatWasPlainForOneRunDoesNotHitItsOlderMemo() {
    int[] mode = {0};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      if (mode[0] == 1) {
        ctx.mount("x", c -> {
          declareTargetState(c, p.targetState("a", "1"));
          declareTargetState(c, p.targetState("b", "1"));
        });
      } else {
        ctx.mountMemo("x", "input", c -> declareTargetState(c, p.targetState("a", "1")));
      }
    });
    app.update();
    mode[0] = 1;
    app.update();
    assertThat(kv.snapshot()).isEqualTo(Map.of("a", "1", "b", "1"));
    mode[0] = 2;
    app.update();
    assertThat(kv.snapshot()).isEqualTo(Map.of("a", "1"));
  }

  @Test
  void memoizedFunctionResultsSurviveARunInWhichTheComponentWasAMemoHit() {
    AtomicInteger computed = new AtomicInteger();
    String[] input = {"i1"};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      ctx.mountMemo("x", input[0], c -> {
        String r = c.memo("expensive", "doc", String.class, d -> {
          computed.incrementAndGet();
          return d.toUpperCase();
        });
        declareTargetState(c, p.targetState("a", r + input[0]));
      });
    });
    app.update();
    app.update(); // a memo hit
    input[0] = "i2";
    app.update();
    assertThat(kv.snapshot()).isEqualTo(Map.of("a", "DOCi2"));
    assertThat(computed.get()).isEqualTo(1);
  }

  record Holder(Object o) {}

  static final class Opaque {}

  @Test
  void anInputThatCannotBeFingerprintedFailsItsComponentNamingTheTypeAndKeepsItsStates() {
    Object[] input = {"ok"};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      ctx.mountMemo("x", input[0], c -> declareTargetState(c, p.targetState("a", "1")));
      ctx.mount("y", c -> declareTargetState(c, p.targetState("b", "1")));
    });
    app.update();
    input[0] = new Holder(new Opaque());
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("Opaque").hasMessageContaining("x");
    assertThat(kv.snapshot()).isEqualTo(Map.of("a", "1", "b", "1"));
  }

  @Test
  void equalButDifferentInputsHitAndDifferentOnesMiss() {
    Object[] input = {List.of(1, 2)};
    AtomicInteger runs = new AtomicInteger();
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      ctx.mountMemo("x", input[0], c -> {
        runs.incrementAndGet();
        declareTargetState(c, p.targetState("a", String.valueOf(input[0])));
      });
    });
    app.update();
    input[0] = new java.util.ArrayList<>(List.of(1, 2));
    app.update();
    assertThat(runs.get()).as("an equal list").isEqualTo(1);
    input[0] = List.of(2, 1);
    app.update();
    assertThat(runs.get()).as("order matters in a list").isEqualTo(2);
    input[0] = Map.of("k", 0.0);
    app.update();
    input[0] = Map.of("k", -0.0);
    app.update();
    assertThat(kv.snapshot()).as("-0.0 is another value than 0.0")
        .isEqualTo(Map.of("a", "{k=-0.0}"));
  }

  @Test
  void fullReprocessRewritesEveryStateOnceAndRecomputesMemoizedFunctions() {
    AtomicInteger computed = new AtomicInteger();
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", kv.handler);
      for (int i = 0; i < 5; i++) {
        int n = i;
        ctx.mountMemo("c" + i, "in" + i, c -> {
          String r = c.memo("f", n, String.class, x -> {
            computed.incrementAndGet();
            return "r" + x;
          });
          declareTargetState(c, p.targetState("k" + n, r));
        });
      }
    });
    app.update();
    kv.take();
    UpdateStats s = app.update(UpdateOptions.fullReprocess());
    assertThat(kv.take()).hasSize(5).allMatch(l -> l.startsWith("update "));
    assertThat(s.of("kv").updated()).isEqualTo(5);
    assertThat(computed.get()).isEqualTo(10);
    app.update();
    assertThat(kv.take()).isEmpty();
    assertThat(computed.get()).isEqualTo(10);
  }

}
