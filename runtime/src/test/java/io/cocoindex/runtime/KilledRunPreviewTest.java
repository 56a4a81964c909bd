package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.inspect.StatusReport;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateStoreException;
import io.cocoindex.runtime.state.StateWrite;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A preview taken after a killed run, against the update after it (the recovery), on a store
 * that records settled runs: the preview plans exactly what the recovery applies, the killed
 * run's in-doubt actions included, and reads a memo the killed run recorded as a hit, as the
 * recovery takes it up. The one difference the design allows: when taking the memo up fails
 * (its store write), the component runs instead, and applies again what the killed run may
 * have applied, which the preview did not plan; each such action is on a state the status
 * listed as unsettled. A state the status lists may be settled with no handler call at all (its
 * memo taken up).
 */
class KilledRunPreviewTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Map<String, String> declared = new TreeMap<>();

  /** Plays dead instead of recording a run as settled; fails writes that settle, if told to. */
  static final class Dying extends ForwardingStateStore {
    volatile boolean dieBeforeRecordingTheRun;
    volatile boolean failSettles;

    Dying(StateStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      if (failSettles && writes.stream().anyMatch(w -> w instanceof StateWrite.Settle)) {
        return CompletableFuture.failedFuture(new StateStoreException("scripted: disk full"));
      }
      return super.write(app, writes);
    }

    @Override
    public void runSettled(String app, long version) {
      if (!dieBeforeRecordingTheRun) {
        super.runSettled(app, version);
      }
    }
  }

  private Dying store;

  @BeforeEach
  void onAStoreThatRecordsSettledRuns() {
    assumeTrue(!ON_POSTGRES, "the PostgreSQL store settles state by state: nothing is stamped");
    store = new Dying(store());
  }

  private App open() {
    return App.create("killed", Environment.builder().stateStore(store).build(), main());
  }

  /** One memoized component per declared key, declaring that key. */
  private Consumer<Ctx> main() {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declared.forEach(
          (k, v) -> ctx.mountMemo(k, v, c -> declareTargetState(c, p.targetState(k, v))));
    };
  }

  /** The run that dies: a=1 and b=1 applied, their memos recorded, the run never settled. */
  private void aKilledRun(App app) {
    declared.put("a", "1");
    declared.put("b", "1");
    store.dieBeforeRecordingTheRun = true;
    app.update();
    store.dieBeforeRecordingTheRun = false;
    rows.takeLog();
    rows.takeCalls();
  }

  @Test
  void thePreviewAfterAKilledRunPlansExactlyWhatTheRecoveryApplies() {
    try (App app = open()) {
      aKilledRun(app);
      declared.put("b", "2");
      declared.put("c", "1");
      assertThat(app.status().unsettled()).extracting(StatusReport.UnsettledState::path)
          .containsExactlyInAnyOrder("/@rows/\"a\"", "/@rows/\"b\"");
      Preview preview = app.preview();
      assertThat(preview.actions()).extracting(PlannedAction::toString)
          .containsExactlyInAnyOrder("rows update \"b\" RowAction[key=b, value=2]",
              "rows create \"c\" RowAction[key=c, value=1]");
      rows.takeCalls();

      UpdateStats stats = app.update();
      assertThat(rows.takeLog()).containsExactlyInAnyOrder("update b=2", "create c=1");
      assertThat(stats.componentsMemoized()).as("a's memo, taken up").isEqualTo(1);
      // a, listed as unsettled, is settled with no handler call: the status's converse is weaker.
      assertThat(rows.takeCalls()).containsExactlyInAnyOrder(
          new Rows.Call("b", "2", List.of("1"), true), new Rows.Call("c", "1", List.of(), true));
      assertThat(app.preview().hasChanges()).isFalse();
      assertThat(app.status().unsettled()).isEmpty();
    }
  }

  @Test
  void aMemoThatCannotBeTakenUpRunsItsComponentWhichAppliesWhatThePreviewDidNotPlan() {
    try (App app = open()) {
      aKilledRun(app);
      declared.put("b", "2");
      StatusReport status = app.status();
      assertThat(status.unsettled()).extracting(StatusReport.UnsettledState::path)
          .containsExactlyInAnyOrder("/@rows/\"a\"", "/@rows/\"b\"");
      Preview preview = app.preview();
      assertThat(preview.actions()).extracting(PlannedAction::toString)
          .containsExactly("rows update \"b\" RowAction[key=b, value=2]");

      store.failSettles = true;
      UpdateStats stats = app.update();
      store.failSettles = false;
      // a ran: its state, possibly applied by the killed run, written again as it may be missing.
      assertThat(stats.componentsMemoized()).isZero();
      assertThat(rows.takeCalls()).contains(new Rows.Call("a", "1", List.of("1"), true));
      assertThat(rows.takeLog()).containsExactlyInAnyOrder("update a=1", "update b=2");
      assertThat(app.status().unsettled()).isEmpty();
      assertThat(app.preview().hasChanges()).isFalse();
    }
  }
}
