package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.cocoindex.TargetStateProvider;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a failed update says when a sink throws: the component, which provider's sink, and what
 * it was applying for that component (how many actions, the keys of the first few by verb),
 * then the sink's own message. With three targets, the sink's message alone ("disk full") does
 * not say which of them failed. The sink's exception stays the failure's error and the update
 * exception's cause, the object itself, as callers compare it.
 */
class SinkFailureContextTest extends EngineTestBase {
  private final Rows rows = new Rows();
  private final Rows docs = new Rows();
  private final Rows tags = new Rows();

  @Test
  void theFailingSinkIsNamedByItsProviderWithTheActionsItWasApplying() {
    docs.failWhen = r -> true;
    App app = app(ctx -> {
      TargetStateProvider<String> r = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      TargetStateProvider<String> d = registerRootTargetStatesProvider(ctx, "docs", docs.handler);
      TargetStateProvider<String> t = registerRootTargetStatesProvider(ctx, "tags", tags.handler);
      ctx.mount("a.md", c -> {
        declareTargetState(c, r.targetState("k1", "1"));
        declareTargetState(c, d.targetState("k2", "2"));
        declareTargetState(c, d.targetState("k3", "3"));
        declareTargetState(c, t.targetState("k4", "4"));
      });
    });

    UpdateFailedException e = catchThrowableOfType(app::update, UpdateFailedException.class);

    assertThat(e).hasMessage("update of app 'test': 1 component failed\n"
        + "  /\"a.md\": the sink of provider 'docs' failed applying 2 actions (create \"k2\","
        + " \"k3\"): scripted sink failure on k2");
    Throwable sinkError = docs.thrown.get(0);
    assertThat(e.getCause()).isSameAs(sinkError);
    ComponentFailure f = e.failures().get(0);
    assertThat(f.error()).isSameAs(sinkError);
    assertThat(f.context()).isEqualTo(
        "the sink of provider 'docs' failed applying 2 actions (create \"k2\", \"k3\")");
    assertThat(f.message()).isEqualTo(f.context() + ": scripted sink failure on k2");
    assertThat(rows.takeLog()).containsExactly("create k1=1");
    assertThat(tags.takeLog()).containsExactly("create k4=4");
  }

  @Test
  void theActionsAreListedByVerbAndAFewKeysStandForMany() {
    Map<String, String> declared = new TreeMap<>(Map.of("k01", "1"));
    App app = app(ctx -> {
      TargetStateProvider<String> r = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("a.md", c -> declared.forEach((k, v) -> declareTargetState(c, r.targetState(k, v))));
    });
    app.update();

    declared.put("k01", "2"); // an update, then eleven creates
    for (int i = 2; i <= 12; i++) {
      declared.put(String.format("k%02d", i), "1");
    }
    rows.failWhen = r -> true;
    assertThatThrownBy(app::update).hasMessage("update of app 'test': 1 component failed\n"
        + "  /\"a.md\": the sink of provider 'rows' failed applying 12 actions (update \"k01\";"
        + " create \"k02\", \"k03\", \"k04\", \"k05\" and 7 more): scripted sink failure on k01");

    // Past the first five keys, a verb is only counted. The twelve may have been applied: now
    // updates.
    declared.put("k13", "1");
    declared.put("k14", "1");
    assertThatThrownBy(app::update).hasMessage("update of app 'test': 1 component failed\n"
        + "  /\"a.md\": the sink of provider 'rows' failed applying 14 actions (update \"k01\","
        + " \"k02\", \"k03\", \"k04\", \"k05\" and 7 more; 2 creates): scripted sink failure on"
        + " k01");
  }

  /**
   * Rule 5: a merged batch that fails is retried split along component boundaries; the failing
   * component's message lists its own actions, not the merged batch's, and its error is the one
   * its own actions met.
   */
  @Test
  void aComponentInAFailedMergedBatchIsToldItsOwnActions() {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch firstCall = new CountDownLatch(1);
    rows.onSinkCall = () -> {
      if (calls.incrementAndGet() == 1) {
        // k0's alone, held while a and b submit theirs: they go out merged, in the next call.
        firstCall.countDown();
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    rows.failWhen = r -> r.key().equals("k4");
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("first", c -> declareTargetState(c, p.targetState("k0", "1")));
      await(firstCall);
      ctx.mount("a", c -> {
        declareTargetState(c, p.targetState("k2", "1"));
        declareTargetState(c, p.targetState("k3", "1"));
      });
      ctx.mount("b", c -> declareTargetState(c, p.targetState("k4", "1")));
    });

    UpdateFailedException e = catchThrowableOfType(app::update, UpdateFailedException.class);

    assertThat(rows.largestBatch.get()).isEqualTo(3); // a's and b's, merged
    assertThat(e).hasMessage("update of app 'test': 1 component failed\n"
        + "  /\"b\": the sink of provider 'rows' failed applying 1 action (create \"k4\"):"
        + " scripted sink failure on k4");
    // Thrown twice: on the merged call, then on b's actions alone, which is b's error.
    assertThat(rows.thrown).hasSize(2);
    assertThat(e.getCause()).isSameAs(rows.thrown.get(1));
    assertThat(rows.takeLog()).containsExactly("create k0=1", "create k2=1", "create k3=1");
  }

  /** A foreground child's sink failure tells its parent, through useMount, the same. */
  @Test
  void aForegroundChildsSinkFailureIsToldToItsParentAsWell() {
    rows.failWhen = r -> true;
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.useMount("docs", c -> {
        declareTargetState(c, p.targetState("k1", "1"));
        return null;
      });
    });

    String context = "the sink of provider 'rows' failed applying 1 action (create \"k1\")";
    assertThatThrownBy(app::update).hasMessage("update of app 'test': 2 components failed\n"
        + "  /\"docs\": " + context + ": scripted sink failure on k1\n"
        + "  /: foreground component /\"docs\" failed: " + context
        + ": scripted sink failure on k1");
  }

  /**
   * The orphan sweep's deletions: the component's error wraps the sink's exception, as it always
   * has, and says which provider's sink was deleting what.
   */
  @Test
  void theSweepsDeletionsFailingNameTheProviderAndTheKeys() {
    Set<String> declared = new java.util.TreeSet<>(List.of("k1", "k2", "k3"));
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("a", c -> declared.forEach(k -> declareTargetState(c, p.targetState(k, "1"))));
    });
    app.update();
    rows.takeLog();

    declared.retainAll(Set.of("k3"));
    rows.failWhen = r -> r.value() == null;
    UpdateFailedException e = catchThrowableOfType(app::update, UpdateFailedException.class);

    assertThat(e).hasMessage("update of app 'test': 1 component failed\n"
        + "  /\"a\": the sink of provider 'rows' failed applying 2 actions for target states no"
        + " longer declared (delete \"k1\", \"k2\"): scripted sink failure on k1");
    assertThat(e.getCause()).isInstanceOf(IllegalStateException.class)
        .hasMessage("the sink of provider 'rows' failed applying 2 actions for target states no"
            + " longer declared (delete \"k1\", \"k2\"): scripted sink failure on k1");
    assertThat(e.getCause().getCause()).isSameAs(rows.thrown.get(0));

    rows.failWhen = r -> false;
    app.update();
    assertThat(rows.takeLog()).containsExactly("delete k1", "delete k2");
  }

  /** dropState's deletions go through the sweep: a sink failing there says it was a drop. */
  @Test
  void aDropsSinkFailureNamesTheProviderAndTheKeys() {
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      TargetStateProvider<String> d = registerRootTargetStatesProvider(ctx, "docs", docs.handler);
      ctx.mount("a", c -> {
        declareTargetState(c, p.targetState("k1", "1"));
        declareTargetState(c, d.targetState("k2", "1"));
      });
    });
    app.update();
    rows.takeLog();

    rows.failWhen = r -> true;
    UpdateFailedException e = catchThrowableOfType(app::dropState, UpdateFailedException.class);

    assertThat(e).hasMessage("drop of app 'test': 1 component failed\n"
        + "  /\"a\": the sink of provider 'rows' failed applying 1 action for the drop"
        + " (delete \"k1\"): scripted sink failure on k1");
    assertThat(e.getCause().getCause()).isSameAs(rows.thrown.get(0));
    assertThat(docs.takeLog()).containsExactly("create k2=1", "delete k2");

    rows.failWhen = r -> false;
    app.dropState();
    assertThat(rows.takeLog()).containsExactly("delete k1");
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the first sink call did not come");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
