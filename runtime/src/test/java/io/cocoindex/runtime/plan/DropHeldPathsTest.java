package io.cocoindex.runtime.plan;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a drop holds while it reads every state: it runs every component's body for its
 * registrations, and a million components' paths kept as mounted (which a drop, removing every
 * component, never asks about) were a fifth of what ran a drop of a million components out of
 * memory at {@code -Xmx512m}.
 */
class DropHeldPathsTest {
  @TempDir Path dir;

  @Test
  void aDropKeepsNoPathOfTheComponentsItRuns() throws Exception {
    int components = 300;
    AtomicInteger deleted = new AtomicInteger();
    TargetActionSink<String> sink = TargetActionSink.of(actions -> deleted.addAndGet(
        (int) actions.stream().filter(a -> a instanceof TargetAction.Delete).count()));
    TargetHandler<String, String, String> handler = (key, desired, prev, mayBeMissing) ->
        desired == null ? TargetReconcileOutput.of(TargetAction.delete(key.toString()), sink, null)
            : prev.equals(List.of(desired)) ? null
            : TargetReconcileOutput.of(TargetAction.create(desired), sink, desired);
    AtomicReference<App> app = new AtomicReference<>();
    AtomicInteger mountedPathsAtScan = new AtomicInteger(-1);
    StateStore store = new ForwardingStateStore(SqliteStateStore.open(dir)) {
      @Override
      public void scan(String a, byte[] path, Consumer<TrackedState> visitor) {
        if (path.length == 0) { // the drop's scan of every state, once its bodies have run
          mountedPathsAtScan.set(runOf(app.get()).visited.size());
        }
        super.scan(a, path, visitor);
      }
    };
    try (store) {
      app.set(App.create("drop", Environment.builder().stateStore(store).build(), ctx -> {
        TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", handler);
        ctx.mount("parent", parent -> {
          for (int i = 0; i < components; i++) {
            int c = i;
            parent.mount(c, cc -> declareTargetState(cc, p.targetState("k" + c, "v")));
          }
        });
      }));
      app.get().update();
      app.get().dropState();
      app.get().close();
    }
    assertThat(deleted.get()).isEqualTo(components);
    assertThat(mountedPathsAtScan.get()).isZero();
  }

  /** The run under way of {@code app} (a private field: the engine hands it to no caller). */
  private static Run runOf(App app) {
    try {
      Field current = App.class.getDeclaredField("current");
      current.setAccessible(true);
      return (Run) current.get(app);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
