package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.TargetStateProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * One component mounting thousands of children, more than may await a slot before its body waits
 * in {@code mount}. A parent counts its running children rather than keeping their futures, and
 * a key mounted twice is found in the run's set of mounted components rather than in a set of
 * keys per parent; what a parent learns from its children is unchanged: a key mounted twice is
 * rejected by name wherever it comes, a child's failure keeps its memoized parent's memo from
 * being recorded, and foreground children return their values.
 */
class ManyChildrenTest extends EngineTestBase {
  final Rows rows = new Rows();
  /** Children of one parent: past the 1,024 that may await a slot. */
  static final int CHILDREN = ON_POSTGRES ? 1_500 : 3_000;

  static String key(int i) {
    return String.format("k%04d", i);
  }

  /** The sorted log of creating rows {@code k0000} ... with value v, but {@code except}. */
  static List<String> created(int children, int... except) {
    List<String> out = new ArrayList<>();
    outer:
    for (int i = 0; i < children; i++) {
      for (int e : except) {
        if (e == i) {
          continue outer;
        }
      }
      out.add("create " + key(i) + "=v");
    }
    Collections.sort(out);
    return out;
  }

  /** The message that rejects mounting {@code child} twice by {@code parent}. */
  static String mountedTwice(String child, String parent) {
    return "component " + child + " is mounted twice by " + parent
        + ": every child component needs its own subpath";
  }

  @Test
  void aKeyMountedTwiceAmongThousandsOfChildrenIsRejectedByItsPathInEveryRunAndDrop() {
    List<String> rejected = Collections.synchronizedList(new ArrayList<>());
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("parent", parent -> {
        for (int i = 0; i < CHILDREN; i++) {
          String key = key(i);
          parent.mount(i, c -> declareTargetState(c, p.targetState(key, "v")));
        }
        // Again, by each way of mounting: the first mount stands, each later one is refused.
        try {
          parent.mount(1_234, c -> declareTargetState(c, p.targetState("again", "v")));
        } catch (IllegalStateException e) {
          rejected.add(e.getMessage());
        }
        try {
          parent.mountMemo(0, "input", c -> declareTargetState(c, p.targetState("memo", "v")));
        } catch (IllegalStateException e) {
          rejected.add(e.getMessage());
        }
        try {
          parent.useMount(CHILDREN - 1, c -> "never runs");
        } catch (IllegalStateException e) {
          rejected.add(e.getMessage());
        }
      });
      // The same keys below another parent are other components.
      ctx.mount("other", other -> {
        for (int i = 0; i < 3; i++) {
          String key = "o" + i;
          other.mount(i, c -> declareTargetState(c, p.targetState(key, "v")));
        }
      });
      try {
        ctx.mount("parent", c -> declareTargetState(c, p.targetState("again", "v")));
      } catch (IllegalStateException e) {
        rejected.add(e.getMessage());
      }
    });
    List<String> expected = List.of(
        mountedTwice("/\"parent\"/1234", "/\"parent\""),
        mountedTwice("/\"parent\"/0", "/\"parent\""),
        mountedTwice("/\"parent\"/" + (CHILDREN - 1), "/\"parent\""),
        mountedTwice("/\"parent\"", "/"));
    List<String> log = new ArrayList<>(created(CHILDREN));
    log.addAll(List.of("create o0=v", "create o1=v", "create o2=v"));
    Collections.sort(log);

    app.update();
    assertThat(rejected).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(rows.takeLog()).isEqualTo(log);

    // The next run mounts each of them once again: the same ones are refused, nothing changes.
    rejected.clear();
    app.update();
    assertThat(rejected).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(rows.takeLog()).isEmpty();

    // A drop runs every body too, and keeps no set of mounted paths: the same ones are refused.
    rejected.clear();
    app.dropState();
    assertThat(rejected).containsExactlyInAnyOrderElementsOf(expected);
    List<String> deleted = new ArrayList<>();
    log.forEach(created -> deleted.add(created.replace("create ", "delete ").replace("=v", "")));
    Collections.sort(deleted);
    assertThat(rows.takeLog()).isEqualTo(deleted);
  }

  @Test
  void aKeyMountedTwiceAfterThousandsOfChildrenFailsTheBodyAndTheChildrenCommit() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("parent", parent -> {
        for (int i = 0; i < CHILDREN; i++) {
          String key = key(i);
          parent.mount(i, c -> declareTargetState(c, p.targetState(key, "v")));
        }
        parent.mount(7, c -> declareTargetState(c, p.targetState("again", "v")));
      });
    });
    assertThatThrownBy(app::update).isInstanceOfSatisfying(UpdateFailedException.class, e -> {
      assertThat(e.failures()).hasSize(1);
      assertThat(e.failures().get(0).component()).isEqualTo("/\"parent\"");
      assertThat(e.failures().get(0).error()).isInstanceOf(IllegalStateException.class)
          .hasMessage(mountedTwice("/\"parent\"/7", "/\"parent\""));
    });
    assertThat(rows.takeLog()).isEqualTo(created(CHILDREN));
  }

  @Test
  void aChildFailingAmongThousandsFailsTheRunAndKeepsItsMemoizedParentFromHitting() {
    AtomicBoolean failing = new AtomicBoolean(true);
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mountMemo("parent", "input", parent -> {
        for (int i = 0; i < CHILDREN; i++) {
          String key = key(i);
          boolean fails = i == 1_234;
          parent.mount(i, c -> {
            if (fails && failing.get()) {
              throw new IllegalStateException("child " + key + " fails");
            }
            declareTargetState(c, p.targetState(key, "v"));
          });
        }
      });
    });
    assertThatThrownBy(app::update).isInstanceOfSatisfying(UpdateFailedException.class, e -> {
      assertThat(e.failures()).hasSize(1);
      assertThat(e.failures().get(0).component()).isEqualTo("/\"parent\"/1234");
      assertThat(e.failures().get(0).error()).hasMessage("child k1234 fails");
      assertThat(e.stats().componentsMemoized()).isZero();
    });
    assertThat(rows.takeLog()).isEqualTo(created(CHILDREN, 1_234));

    // Its input unchanged, the parent runs again: a child failed, so its memo was not recorded.
    failing.set(false);
    UpdateStats again = app.update();
    assertThat(rows.takeLog()).containsExactly("create k1234=v");
    assertThat(again.componentsMemoized()).isZero();
    assertThat(again.componentsRun()).isEqualTo(1 + 1 + CHILDREN);

    // Every child healthy, the memo was recorded and now holds.
    UpdateStats hit = app.update();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(hit.componentsMemoized()).isEqualTo(1);
    assertThat(hit.componentsRun()).isEqualTo(1);
  }

  @Test
  void foregroundChildrenAmongThousandsOfMountedOnesReturnTheirValues() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("parent", parent -> {
        for (int i = 0; i < CHILDREN; i++) {
          String key = key(i);
          parent.mount(i, c -> declareTargetState(c, p.targetState(key, "v")));
          if (i % 1_000 == 999) {
            int n = i;
            String returned = parent.useMount("f" + n, f -> {
              declareTargetState(f, p.targetState("f" + n, "v"));
              return "returned by f" + n;
            });
            declareTargetState(parent, p.targetState("r" + n, returned));
          }
        }
      });
    });
    List<String> log = new ArrayList<>(created(CHILDREN));
    for (int n = 999; n < CHILDREN; n += 1_000) {
      log.add("create f" + n + "=v");
      log.add("create r" + n + "=returned by f" + n);
    }
    Collections.sort(log);

    app.update();
    assertThat(rows.takeLog()).isEqualTo(log);
    app.update();
    assertThat(rows.takeLog()).isEmpty();
  }
}
