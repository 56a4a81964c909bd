package io.cocoindex.runtime.component;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A component keeps what it declared only until it has finished: a context that outlives its
 * component (promoted by the collector while the component waited for a slot) must not keep its
 * declared values reachable.
 */
class FinishedComponentTest {
  @TempDir Path dir;

  /** Creates each row, then leaves it alone; the sink only counts. */
  static final class Handler implements TargetHandler<String, String, String> {
    final Map<String, String> applied = new ConcurrentHashMap<>();
    final TargetActionSink<String> sink = TargetActionSink.of(actions ->
        actions.forEach(a -> applied.put(a.value(), a.verb().toString())));

    @Override
    public TargetReconcileOutput<String, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean prevMayBeMissing) {
      if (desired == null || (!prevMayBeMissing && prev.contains(desired))) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.create(desired), sink, desired);
    }
  }

  @Test
  void aFinishedComponentHoldsNoneOfItsDeclarations() {
    Handler handler = new Handler();
    Map<String, Ctx> contexts = new ConcurrentHashMap<>();
    try (App app = App.create("finished", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> rows = registerRootTargetStatesProvider(ctx, "rows", handler);
      for (int c = 0; c < 3; c++) {
        String name = "c" + c;
        ctx.mount(name, component -> {
          contexts.put(name, component);
          for (int i = 0; i < 50; i++) {
            declareTargetState(component, rows.targetState(name + "-" + i, name + "-v" + i));
          }
        });
      }
    })) {
      app.update();
      assertThat(handler.applied).hasSize(150);
      assertThat(contexts).hasSize(3);
      for (Ctx c : contexts.values()) {
        ComponentContext context = (ComponentContext) c;
        assertThat(context.declarations()).as("declarations kept by %s", context).isEmpty();
        assertThat(context.stored()).as("record kept by %s", context).isEmpty();
      }

      // The next run declares the same states again: nothing was lost by letting go of them.
      contexts.clear();
      app.update();
      assertThat(handler.applied).hasSize(150);
      assertThat(contexts).hasSize(3);
    }
  }
}
