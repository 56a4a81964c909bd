package io.cocoindex.runtime.component;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A parent keeps nothing per child that has finished: a component mounting a million children
 * kept each one's future, in a list, until it finished itself (about 30 MB at a million).
 */
class FinishedChildrenTest {
  @TempDir Path dir;

  @Test
  void aBodyThatMountedThousandsOfChildrenCountsOnlyThoseNotFinished() {
    int children = 10_000;
    // Creates each row once; its sink notes what it was given.
    FinishedComponentTest.Handler handler = new FinishedComponentTest.Handler();
    AtomicInteger runningAtTheEndOfTheBody = new AtomicInteger(-1);
    try (App app = App.create("children", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> rows = registerRootTargetStatesProvider(ctx, "rows", handler);
      ctx.mount("parent", parent -> {
        for (int i = 0; i < children; i++) {
          String key = "k" + i;
          parent.mount(i, c -> declareTargetState(c, rows.targetState(key, key)));
        }
        runningAtTheEndOfTheBody.set(((ComponentContext) parent).childrenRunning());
      });
    })) {
      app.update();
    }
    assertThat(handler.applied).hasSize(children);
    // The body has mounted all of them, but only those awaiting a slot (at most 1,024 once
    // mount returns), those holding one of the level's (at most 256), and those that gave theirs
    // back and are reporting to the parent (one per thread finishing a commit, a few) can still
    // be running. Before, it held all 10,000 children's futures until it finished.
    assertThat(runningAtTheEndOfTheBody.get())
        .isBetween(0, ComponentContext.CHILDREN_AWAITING_SLOT + 256 + 64);
  }
}
