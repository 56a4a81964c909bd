package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.inspect.StatusReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Readable inspection of tracked state: counts per provider and unsettled states. */
class StatusTest extends EngineTestBase {
  @Test
  void statusListsTrackedStatesPerProviderAndWhatAFailedRunLeftUnsettled() {
    Rows rows = new Rows();
    Tables tables = new Tables(rows);
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs =
          mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      declareTargetState(ctx, docs.targetState("r1", "v1"));
      declareTargetState(ctx, docs.targetState("r2", "v1"));
    });
    app.update();
    StatusReport status = app.status();
    assertThat(status.providers()).containsOnlyKeys("tables", "tables/docs");
    assertThat(status.providers().get("tables/docs"))
        .containsExactly(new StableKey.Str("r1"), new StableKey.Str("r2"));
    assertThat(status.unsettled()).isEmpty();
    assertThat(status.total()).isEqualTo(3);

    app.dropState();
    assertThat(app.status().total()).isZero();
    assertThat(app.status().components()).isZero();
  }

  @Test
  void interruptedRunsLeaveUnsettledStatesVisible() {
    Rows rows = new Rows();
    String[] value = {"1"};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declareTargetState(ctx, p.targetState("a", value[0]));
    });
    app.update();
    value[0] = "2";
    rows.failWhen = r -> true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(app.status().unsettled())
        .containsExactly(new StatusReport.UnsettledState("rows", "/@rows/\"a\"", 2, false));
  }
}
