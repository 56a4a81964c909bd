package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.MemoStamp;
import io.cocoindex.runtime.state.StateStore;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A memo that a killed run left stamped is taken up by the next run, which writes it again
 * without the stamp (on the embedded store, the one that records settled runs). A takeover of
 * one of its states earlier in that run forgot it: the take-up must not bring it back.
 */
class KilledRunMemoTakeoverTest extends EngineTestBase {
  final Rows rows = new Rows();

  /**
   * Plays dead instead of recording a run as settled (the embedded store's end of a run), and
   * counts down {@link #scanned} once the run's scan of every component record has been read.
   */
  static final class Store extends ForwardingStateStore {
    volatile boolean dieBeforeRecordingTheRun;
    volatile CountDownLatch scanned = new CountDownLatch(1);

    Store(StateStore delegate) {
      super(delegate);
    }

    @Override
    public void runSettled(String app, long version) {
      if (!dieBeforeRecordingTheRun) {
        super.runSettled(app, version);
      }
    }

    @Override
    public void componentsInOrder(String app, Consumer<ComponentRecord> each) {
      super.componentsInOrder(app, each);
      scanned.countDown();
    }
  }

  /**
   * Memoized m declares x=1 in a run killed after m's commit: its memo stays stamped. The next
   * run's t takes x over (m's input unchanged: x is declared by two components), in a foreground
   * mount before m, which forgets m's memo; m's memo check then finds the record as the run read
   * it at its start, stamped. m fails (x is t's), and its memo must stay forgotten: taken up, it
   * hit in the run after, in which t no longer declares x, and x was deleted though m declares
   * it, for good.
   */
  @Test
  void aMemoTakenUpAfterATakeoverForgotItStaysForgotten() {
    Store store = new Store(store());
    boolean[] tDeclaresX = {false};
    App app = App.create("takeover", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      if (tDeclaresX[0]) {
        ctx.useMount("t", t -> {
          awaitTheScan(store);
          declareTargetState(t, p.targetState("x", "1"));
          return null;
        });
      }
      ctx.mountMemo("m", "i1", m -> declareTargetState(m, p.targetState("x", "1")));
    });
    try (app) {
      store.dieBeforeRecordingTheRun = true;
      app.update();
      store.dieBeforeRecordingTheRun = false;
      assertThat(rows.takeLog()).containsExactly("create x=1");
      byte[] m = TargetPath.ROOT.child(StableKey.of("m")).encoded();
      assertThat(MemoStamp.isStamped(store.component("takeover", m).orElseThrow()
          .memoFingerprint())).as("stamped on the store that records settled runs")
          .isEqualTo(store.recordsSettledRuns());

      tDeclaresX[0] = true;
      store.scanned = new CountDownLatch(1);
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("is declared by two components in one run: /\"t\" and /\"m\"");
      // Possibly applied by the killed run on the embedded store, settled on PostgreSQL.
      assertThat(rows.takeLog()).as("x moved to t").containsExactlyElementsOf(
          store.recordsSettledRuns() ? List.of("update x=1") : List.of());
      assertThat(store.component("takeover", m).orElseThrow().memoFingerprint())
          .as("m's memo, forgotten by the takeover").satisfiesAnyOf(
              fp -> assertThat(fp).isNull(),
              fp -> assertThat(fp).hasSize(9)); // the mark of a forgotten memo, on PostgreSQL

      tDeclaresX[0] = false;
      UpdateStats stats = app.update();
      assertThat(stats.componentsMemoized()).as("m runs, and takes x back").isZero();
      assertThat(rows.takeLog()).as("a move as it was").isEmpty();
      assertThat(app.status().providers()).containsEntry("rows", List.of(StableKey.of("x")));
      assertThat(app.update().componentsMemoized()).isEqualTo(1);
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  /**
   * On the store whose runs read every component record in one scan, t's takeover waits until
   * that scan has read m's record, stamped: the order the bug needs, which the scan's pace left to
   * chance. Elsewhere each component reads its own record as it comes.
   */
  private static void awaitTheScan(Store store) {
    if (!store.exclusiveWhileLocked()) {
      return;
    }
    try {
      assertThat(store.scanned.await(30, TimeUnit.SECONDS)).as("the run's scan").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
