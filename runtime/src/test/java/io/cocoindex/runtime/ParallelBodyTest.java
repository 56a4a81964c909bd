package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A component body may use a parallel stream. Inside a component it forks into the pool the body
 * runs on, the app's own: declaring, mounting and mounting in the foreground from it must work,
 * as they do from the root (which runs on the caller's thread, its streams on the common pool).
 */
class ParallelBodyTest extends EngineTestBase {
  final Rows rows = new Rows();

  /** One update of a root mounting "c", which runs {@code body}; fails if it does not end. */
  void update(BiConsumer<Ctx, TargetStateProvider<String>> body) throws Exception {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> body.accept(c, p));
    });
    CompletableFuture<UpdateStats> run = CompletableFuture.supplyAsync(app::update,
        ThreadPerTask.INSTANCE);
    try {
      run.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException hung) {
      fail("the update did not end in 60 s");
    }
  }

  @Test
  void declaringFromAParallelStream() throws Exception {
    update((c, p) -> IntStream.range(0, 3000).parallel()
        .forEach(i -> declareTargetState(c, p.targetState("d" + i, "v"))));
    assertThat(rows.takeLog()).hasSize(3000);
  }

  @Test
  void mountingFromAParallelStream() throws Exception {
    update((c, p) -> IntStream.range(0, 40).parallel()
        .forEach(i -> c.mount(i, cc -> declareTargetState(cc, p.targetState("m" + i, "v")))));
    assertThat(rows.takeLog()).hasSize(40);
  }

  /** Forty foreground mounts, each waiting for its commit on a worker the stream also uses. */
  @Test
  void foregroundMountsFromAParallelStream() throws Exception {
    update((c, p) -> IntStream.range(0, 40).parallel().forEach(i -> c.useMount("u" + i, cc -> {
      declareTargetState(cc, p.targetState("u" + i, "v"));
      return null;
    })));
    assertThat(rows.takeLog()).hasSize(40);
  }
}
