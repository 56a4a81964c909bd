package io.cocoindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A context written for a test implements the pinned contract ({@code get}, {@code mount},
 * {@code useMount}) and nothing more; the rest refuses, naming the context's class.
 */
class CtxDefaultsTest {
  static final class TestCtx implements Ctx {
    @Override
    public <T> T get(ContextKey<T> key) {
      throw new IllegalStateException("no " + key.name());
    }

    @Override
    public void mount(Object subpath, Consumer<Ctx> component) {
      component.accept(this);
    }

    @Override
    public <T> T useMount(Object subpath, Function<Ctx, T> component) {
      return component.apply(this);
    }
  }

  @Test
  void aTestContextNeedsOnlyThePinnedMethods() {
    Ctx ctx = new TestCtx();
    String ran = ctx.useMount("child", c -> "ran");
    assertThat(ran).isEqualTo("ran");
    assertThatThrownBy(() -> ctx.mountMemo("child", "input", c -> { }))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(TestCtx.class.getName());
    assertThatThrownBy(() -> ctx.memo("f", 1, Integer.class, x -> x))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(ctx::path).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("has no component path");
    assertThatThrownBy(ctx::appName).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(TestCtx.class.getName() + " belongs to no app");
  }
}
