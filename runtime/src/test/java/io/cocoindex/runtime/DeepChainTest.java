package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A chain of nested components, each mounting the next: created, rerun unchanged, and removed
 * whole, its components and rows tracked as in a shallow tree. A chain of foreground mounts
 * (each parent waits for its child inside its body) goes on past what one thread's stack holds.
 */
class DeepChainTest extends EngineTestBase {
  final Rows rows = new Rows();
  boolean mountChain = true;
  final AtomicInteger bodies = new AtomicInteger();

  void main(Ctx ctx, int depth, boolean foreground) {
    TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
    if (mountChain) {
      link(ctx, p, 0, depth, foreground);
    }
  }

  void link(Ctx ctx, TargetStateProvider<String> p, int d, int depth, boolean foreground) {
    if (d == depth) {
      return;
    }
    if (foreground) {
      int below = ctx.useMount("c" + d, c -> {
        bodies.incrementAndGet();
        declareTargetState(c, p.targetState("r" + d, "v1"));
        link(c, p, d + 1, depth, true);
        return d;
      });
      assertThat(below).isEqualTo(d);
    } else {
      ctx.mount("c" + d, c -> {
        bodies.incrementAndGet();
        declareTargetState(c, p.targetState("r" + d, "v1"));
        link(c, p, d + 1, depth, false);
      });
    }
  }

  static List<String> created(int depth) {
    List<String> out = new ArrayList<>();
    for (int d = 0; d < depth; d++) {
      out.add("create r" + d + "=v1");
    }
    out.sort(null);
    return out;
  }

  static List<String> deleted(int depth) {
    List<String> out = new ArrayList<>();
    for (int d = 0; d < depth; d++) {
      out.add("delete r" + d);
    }
    out.sort(null);
    return out;
  }

  void createRerunAndRemove(int depth, boolean foreground) {
    App app = app(ctx -> main(ctx, depth, foreground));
    UpdateStats cold = onSmallStack(app::update);
    assertThat(rows.takeLog()).isEqualTo(created(depth));
    assertThat(bodies.getAndSet(0)).isEqualTo(depth);
    assertThat(app.status().total()).isEqualTo(depth);
    assertThat(cold.total().changed()).isEqualTo(depth);

    onSmallStack(app::update);
    assertThat(rows.takeLog()).isEmpty();
    assertThat(bodies.getAndSet(0)).isEqualTo(depth);

    mountChain = false;
    onSmallStack(app::update);
    assertThat(rows.takeLog()).isEqualTo(deleted(depth));
    assertThat(app.status().total()).isZero();
  }

  /**
   * Runs {@code update} on a thread with a small stack (512 KiB), as the root's thread: a chain
   * of foreground mounts runs on the stack of the thread that mounted its first component.
   */
  static UpdateStats onSmallStack(Supplier<UpdateStats> update) {
    CompletableFuture<UpdateStats> done = new CompletableFuture<>();
    Thread t = new Thread(null, () -> {
      try {
        done.complete(update.get());
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    }, "small-stack", 512 * 1024);
    t.start();
    return done.join();
  }

  @Test
  void aChainOfMountedComponentsIsCreatedRerunAndRemoved() {
    createRerunAndRemove(300, false);
  }

  /**
   * Each foreground component runs on its parent's stack, a few frames of the engine's around the
   * app's: 600 of them overflowed a 512 KiB stack (each failing with a StackOverflowError). Past
   * {@code cocoindex.foreground.nestingPerThread} (64) nested on one thread, the next goes to a
   * thread of its own.
   */
  @Test
  void aChainOfForegroundComponentsDeeperThanAThreadsStackIsCreatedRerunAndRemoved() {
    createRerunAndRemove(600, true);
  }
}
