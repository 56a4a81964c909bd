package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.MemoStamp;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateStoreException;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Rule 3 on a store that records settled runs: a run that completes settles what it applied with
 * one write, a run that dies first leaves it all "possibly applied", and a run with a failed
 * component still settles the components that succeeded.
 */
class SettledRunTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Map<String, String> declared = new TreeMap<>();

  /** Counts settles written state by state; can play dead instead of recording a run. */
  static final class Observed extends ForwardingStateStore {
    final List<StateWrite> settles = new ArrayList<>();
    final List<Long> settledRuns = new ArrayList<>();
    volatile boolean dieBeforeRecordingTheRun;
    /** The write recording a run as settled fails, as on a full disk. */
    volatile boolean failRecordingTheRun;
    /** Writes failed as a lost commit would be. */
    volatile Predicate<List<StateWrite>> failWrite = w -> false;
    /** Reads of one component's states. */
    final AtomicInteger ownedByReads = new AtomicInteger();

    Observed(StateStore delegate) {
      super(delegate);
    }

    /**
     * Each write that settled states, as {@code settles=N}, then {@code +component} when it also
     * recorded a component.
     */
    final List<String> settlingWrites = new ArrayList<>();

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      if (failWrite.test(writes)) {
        return CompletableFuture.failedFuture(new StateStoreException("injected write failure"));
      }
      synchronized (settles) {
        long n = writes.stream().filter(w -> w instanceof StateWrite.Settle).count();
        writes.stream().filter(w -> w instanceof StateWrite.Settle).forEach(settles::add);
        if (n > 0) {
          settlingWrites.add("settles=" + n + (writes.stream()
              .anyMatch(w -> w instanceof StateWrite.PutComponent) ? "+component" : ""));
        }
      }
      return super.write(app, writes);
    }

    @Override
    public List<TrackedState> ownedBy(String app, byte[] componentPath) {
      ownedByReads.incrementAndGet();
      return super.ownedBy(app, componentPath);
    }

    @Override
    public void runSettled(String app, long version) {
      if (failRecordingTheRun) {
        throw new StateStoreException("injected failure recording run " + version);
      }
      if (!dieBeforeRecordingTheRun) {
        settledRuns.add(version);
        super.runSettled(app, version);
      }
    }
  }

  /** Whether each component is memoized on its value. */
  boolean memoized;

  Consumer<Ctx> main() {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declared.forEach((k, v) -> {
        Consumer<Ctx> body = c -> declareTargetState(c, p.targetState(k, v));
        if (memoized) {
          ctx.mountMemo(k, v, body);
        } else {
          ctx.mount(k, body);
        }
      });
    };
  }

  private Observed store;

  @BeforeEach
  void onAStoreThatRecordsSettledRuns() {
    assumeTrue(!ON_POSTGRES, "the PostgreSQL store settles state by state");
    store = new Observed(store());
    assertThat(store.recordsSettledRuns()).isTrue();
  }

  private App open() {
    return App.create("settled", Environment.builder().stateStore(store).build(), main());
  }

  /** Every tracked state, as the store reads it, in path order. */
  private List<TrackedState> states() {
    List<TrackedState> out = new ArrayList<>();
    store.scan("settled", new byte[0], out::add);
    return out;
  }

  /** How many possible records each state has. */
  private List<Integer> recordCounts() {
    return states().stream().map(s -> s.records().size()).toList();
  }

  @Test
  void aCompletedRunSettlesWhatItAppliedWithOneWrite() {
    try (App app = open()) {
      declared.put("a", "1");
      declared.put("b", "1");
      app.update();

      assertThat(rows.takeLog()).containsExactly("create a=1", "create b=1");
      assertThat(store.settles).isEmpty();
      assertThat(store.settledRuns).hasSize(1);
      assertThat(recordCounts()).containsExactly(1, 1);

      declared.put("b", "2");
      rows.takeCalls();
      app.update();
      assertThat(rows.takeCalls()).containsExactly(
          new Rows.Call("a", "1", List.of("1"), false),
          new Rows.Call("b", "2", List.of("1"), false));
      assertThat(rows.takeLog()).containsExactly("update b=2");
      assertThat(recordCounts()).containsExactly(1, 1);
    }
  }

  @Test
  void aRunThatDiesBeforeItIsRecordedLeavesItsStatesPossiblyApplied() {
    try (App app = open()) {
      declared.put("a", "1");
      store.dieBeforeRecordingTheRun = true;
      app.update();
      assertThat(rows.takeLog()).containsExactly("create a=1");
      TrackedState a = states().get(0);
      assertThat(a.records()).extracting(PossibleRecord::isNone).containsExactly(true, false);

      store.dieBeforeRecordingTheRun = false;
      rows.takeCalls();
      app.update();
      // As after a crash between the sink and the commit: the record may or may not be live.
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "1", List.of("1"), true));
      assertThat(recordCounts()).containsExactly(1);
    }
  }

  @Test
  void aRunWithAFailedComponentStillSettlesTheComponentsThatSucceeded() {
    try (App app = open()) {
      declared.put("a", "1");
      declared.put("b", "1");
      rows.failWhen = r -> r.key().equals("b");
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("scripted sink failure on b");
      assertThat(store.settledRuns).isEmpty();
      assertThat(store.settles).hasSize(1);

      rows.failWhen = r -> false;
      rows.takeCalls();
      rows.takeLog();
      app.update();
      // a was settled state by state; b's failed apply left its possible record.
      assertThat(rows.takeCalls()).containsExactly(
          new Rows.Call("a", "1", List.of("1"), false),
          new Rows.Call("b", "1", List.of("1"), true));
      assertThat(rows.takeLog()).containsExactly("update b=1");
      assertThat(recordCounts()).containsExactly(1, 1);
    }
  }
  /**
   * A completed run that cannot be recorded as settled (its one write fails) settles its states
   * one by one instead, and writes its memos without its stamp: the run succeeds, and the next
   * one finds every state settled and every memo holding, with nothing to take up.
   */
  @Test
  void aRunThatCannotBeRecordedAsSettledSettlesItsStatesOneByOne() {
    memoized = true;
    try (App app = open()) {
      declared.put("a", "1");
      declared.put("b", "1");
      store.failRecordingTheRun = true;
      app.update();
      assertThat(rows.takeLog()).containsExactly("create a=1", "create b=1");
      assertThat(store.settledRuns).isEmpty();
      assertThat(store.settles).as("each state, settled alone").hasSize(2);
      assertThat(recordCounts()).containsExactly(1, 1);
      for (String component : List.of("a", "b")) {
        byte[] path = TargetPath.ROOT.child(StableKey.of(component)).encoded();
        assertThat(MemoStamp.isStamped(
            store.component("settled", path).orElseThrow().memoFingerprint()))
            .as("the memo of %s, written again unstamped", component).isFalse();
      }

      store.failRecordingTheRun = false;
      store.settles.clear();
      rows.takeCalls();
      assertThat(app.update().componentsMemoized()).isEqualTo(2);
      assertThat(store.settles).as("nothing left to take up").isEmpty();
      assertThat(rows.takeCalls()).isEmpty();
      assertThat(store.settledRuns).hasSize(1);
    }
  }

  /**
   * A memoized component's commit comes after every action below it was applied, so the memo it
   * wrote holds even if the run then dies: the next run takes it up (settling the states that run
   * wrote) rather than running the component again, which after a kill at 99% had meant running
   * every finished component again, paid work and all.
   */
  @Test
  void memosOfARunThatDiedAreTakenUpAndTheirStatesSettled() {
    memoized = true;
    try (App app = open()) {
      declared.put("a", "1");
      declared.put("b", "1");
      store.dieBeforeRecordingTheRun = true;
      app.update();
      assertThat(rows.takeLog()).containsExactly("create a=1", "create b=1");
      assertThat(recordCounts()).as("both possibly applied").containsExactly(2, 2);
      store.dieBeforeRecordingTheRun = false;

      declared.put("b", "2");
      assertThat(app.preview().changes()).extracting(c -> c.key().toString())
          .containsExactly("\"b\"");
      assertThat(store.settles).as("a preview writes nothing").isEmpty();
      rows.takeCalls();
      UpdateStats stats = app.update();
      assertThat(stats.componentsMemoized()).as("a's memo taken up").isEqualTo(1);
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("b", "2", List.of("1"), true));
      assertThat(rows.takeLog()).containsExactly("update b=2");
      assertThat(store.settles).as("a's state, settled as its memo was taken up").hasSize(1);
      assertThat(recordCounts()).containsExactly(1, 1);
      assertThat(states().get(0).mayBeMissing()).isFalse();

      assertThat(app.update().componentsMemoized()).isEqualTo(2);
      assertThat(rows.takeCalls()).isEmpty();

      // a's state reads settled to what the dead run applied: going back is a write.
      declared.put("a", "0");
      app.update();
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "0", List.of("1"), false));
      assertThat(rows.takeLog()).containsExactly("update a=0");
    }
  }

  /** A memo from a run that died is for its input then: another input runs the component. */
  @Test
  void aMemoOfARunThatDiedIsNotTakenUpForAnotherInput() {
    memoized = true;
    try (App app = open()) {
      declared.put("a", "1");
      store.dieBeforeRecordingTheRun = true;
      app.update();
      store.dieBeforeRecordingTheRun = false;
      rows.takeLog();
      rows.takeCalls();

      declared.put("a", "2");
      assertThat(app.update().componentsMemoized()).isZero();
      assertThat(rows.takeCalls()).containsExactly(new Rows.Call("a", "2", List.of("1"), true));
      assertThat(rows.takeLog()).containsExactly("update a=2");
      assertThat(app.update().componentsMemoized()).isEqualTo(1);
      assertThat(recordCounts()).containsExactly(1);
    }
  }
  /**
   * A memo taken up stands for its whole subtree: every state the dead run wrote below it is
   * settled, read a window of owners at a time rather than a component at a time (a take-up of
   * 10,000 components had made 10,000 reads).
   */
  @Test
  void aMemoTakenUpSettlesItsWholeSubtreeWithoutAReadPerComponent() {
    int children = 300;
    Consumer<Ctx> tree = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mountMemo("tree", children, t -> {
        declareTargetState(t, p.targetState("tree", "top"));
        for (int i = 0; i < children; i++) {
          String key = String.format("k-%03d", i);
          t.mount(key, c -> {
            declareTargetState(c, p.targetState(key, "1"));
            c.mount("leaf", l -> declareTargetState(l, p.targetState(key + "/leaf", "1")));
          });
        }
      });
    };
    try (App app =
        App.create("settled", Environment.builder().stateStore(store).build(), tree)) {
      store.dieBeforeRecordingTheRun = true;
      app.update();
      store.dieBeforeRecordingTheRun = false;
      assertThat(recordCounts()).as("all possibly applied").hasSize(1 + 2 * children)
          .containsOnly(2);
      rows.takeCalls();
      store.ownedByReads.set(0);

      UpdateStats stats = app.update();

      assertThat(stats.componentsMemoized()).isEqualTo(1);
      assertThat(rows.takeCalls()).isEmpty();
      assertThat(store.settles).hasSize(1 + 2 * children);
      assertThat(recordCounts()).containsOnly(1);
      assertThat(store.ownedByReads.get()).as("no read per component of the subtree")
          .isLessThan(10);
      assertThat(app.update().componentsMemoized()).isEqualTo(1);
      assertThat(store.settles).as("settled once").hasSize(1 + 2 * children);
    }
  }

  /**
   * A take-up of more settles than one write holds writes them in parts of {@code
   * KilledRunMemos.SETTLES_PER_WRITE} (4,096), an owner's states split across parts when it
   * fills one, and records the memo with the last part: a run killed between two parts leaves the
   * memo stamped, and the next settles the rest.
   */
  @Test
  void aMemoTakenUpWithMoreSettlesThanOneWriteHoldsWritesThemInPartsTheMemoLast() {
    Consumer<Ctx> tree = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mountMemo("tree", "v1", t -> {
        declareTargetState(t, p.targetState("tree", "top"));
        for (int i = 0; i < 2; i++) {
          String child = "child-" + i;
          t.mount(child, c -> {
            for (int r = 0; r < 2500; r++) {
              declareTargetState(c, p.targetState(child + "/" + r, "1"));
            }
          });
        }
      });
    };
    try (App app =
        App.create("settled", Environment.builder().stateStore(store).build(), tree)) {
      store.dieBeforeRecordingTheRun = true;
      app.update();
      store.dieBeforeRecordingTheRun = false;
      rows.takeCalls();
      store.settlingWrites.clear();

      assertThat(app.update().componentsMemoized()).isEqualTo(1);

      assertThat(rows.takeCalls()).isEmpty();
      assertThat(store.settlingWrites)
          .containsExactly("settles=4096", "settles=905+component");
      assertThat(recordCounts()).containsOnly(1);
      assertThat(app.update().componentsMemoized()).isEqualTo(1);
      assertThat(store.settlingWrites).as("settled once").hasSize(2);
    }
  }

  /**
   * A memoized component whose commit is lost records no memo, though its run, failed, settles
   * the components that succeeded one by one and writes their memos again without the run's
   * stamp: its states, applied but never settled, would otherwise stay so under a memo that every
   * later run hits.
   */
  @Test
  void aMemoWhoseCommitWasLostIsNotRecordedByTheFailedRunsSettlement() {
    memoized = true;
    try (App app = open()) {
      declared.put("a", "1");
      declared.put("b", "1");
      app.update();
      rows.takeLog();

      declared.put("a", "2");
      declared.put("b", "2");
      byte[] a = TargetPath.ROOT.child(StableKey.of("a")).encoded();
      // The commit after a's sink call: the record with its new memo (its precommit had the
      // old one cleared).
      AtomicBoolean lost = new AtomicBoolean();
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.PutComponent pc
          && Arrays.equals(pc.component().path(), a) && pc.component().memoFingerprint() != null)
          && lost.compareAndSet(false, true);
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("injected write failure");
      assertThat(rows.takeLog()).containsExactly("update a=2", "update b=2");
      assertThat(store.settledRuns).hasSize(1);
      assertThat(store.settles).as("b's state, settled with b's memo").hasSize(1);
      store.failWrite = w -> false;
      rows.takeCalls();

      UpdateStats stats = app.update();
      assertThat(stats.componentsMemoized()).as("b's memo only").isEqualTo(1);
      // Applied, never settled: either record may be the live one.
      assertThat(rows.takeCalls()).containsExactly(
          new Rows.Call("a", "2", List.of("1", "2"), false));
      assertThat(rows.takeLog()).containsExactly("update a=2");
      assertThat(recordCounts()).containsExactly(1, 1);
      assertThat(app.update().componentsMemoized()).isEqualTo(2);
      assertThat(rows.takeCalls()).isEmpty();
    }
  }

  /**
   * A failed run settles one by one the states of the components that succeeded, and writes
   * again without its stamp the memo of a memoized parent that declares nothing itself, whose
   * memo was stamped for its children's states: the next run hits it.
   */
  @Test
  void aFailedRunWritesAgainTheMemoOfAParentStampedForItsChildrensStates() {
    Map<String, String> children = new TreeMap<>(Map.of("c1", "1", "c2", "1"));
    Consumer<Ctx> tree = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mountMemo("parent", Map.copyOf(children), t -> children.forEach((k, v) ->
          t.mount(k, c -> declareTargetState(c, p.targetState(k, v)))));
      ctx.mount("other", c -> declareTargetState(c, p.targetState("other", "1")));
    };
    try (App app =
        App.create("settled", Environment.builder().stateStore(store).build(), tree)) {
      rows.failWhen = r -> r.key().equals("other");
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("scripted sink failure on other");
      assertThat(rows.takeLog()).containsExactly("create c1=1", "create c2=1");
      assertThat(store.settledRuns).isEmpty();
      assertThat(store.settles).as("c1's and c2's states").hasSize(2);
      byte[] parent = TargetPath.ROOT.child(StableKey.of("parent")).encoded();
      assertThat(store.component("settled", parent).orElseThrow().memoFingerprint())
          .as("its memo as a settled run's").hasSize(Fingerprint.LENGTH);

      rows.failWhen = r -> false;
      rows.takeCalls();
      assertThat(app.update().componentsMemoized()).as("the parent's memo").isEqualTo(1);
      assertThat(rows.takeCalls()).containsExactly(
          new Rows.Call("other", "1", List.of("1"), true));
      assertThat(rows.takeLog()).containsExactly("update other=1");
      assertThat(recordCounts()).containsExactly(1, 1, 1);
    }
  }

  /**
   * A failed run's settlement writes a memoized component's memo without the run's stamp only
   * once every state of its subtree is settled: with a child's settle lost, the memo stays
   * stamped and the next run takes it up, settling the child's state; unstamped beside it, the
   * memo hit in every later run and the child's state stayed applied and never settled.
   */
  @Test
  void aFailedRunLeavesStampedTheMemoOfAComponentWhoseChildsSettleWasLost() {
    Consumer<Ctx> tree = ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mountMemo("parent", "v1", t -> {
        declareTargetState(t, p.targetState("parent", "1"));
        t.mount("child", c -> declareTargetState(c, p.targetState("child", "1")));
      });
      ctx.mount("other", c -> declareTargetState(c, p.targetState("other", "1")));
    };
    try (App app =
        App.create("settled", Environment.builder().stateStore(store).build(), tree)) {
      byte[] child = TargetPath.ROOT.child(StableKey.of("parent")).child(StableKey.of("child"))
          .encoded();
      store.failWrite = w -> w.stream().anyMatch(x -> x instanceof StateWrite.Settle s
          && Arrays.equals(s.state().owner(), child));
      rows.failWhen = r -> r.key().equals("other");
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("scripted sink failure on other");
      assertThat(rows.takeLog()).containsExactly("create child=1", "create parent=1");
      assertThat(store.settles).as("the parent's state").hasSize(1);
      byte[] parent = TargetPath.ROOT.child(StableKey.of("parent")).encoded();
      assertThat(MemoStamp.isStamped(
          store.component("settled", parent).orElseThrow().memoFingerprint()))
          .as("the parent's memo, stamped while the child's state is unsettled").isTrue();

      store.failWrite = w -> false;
      rows.failWhen = r -> false;
      rows.takeCalls();
      store.settles.clear();
      assertThat(app.update().componentsMemoized()).as("the parent's memo, taken up")
          .isEqualTo(1);
      assertThat(store.settles).as("the child's state and the parent's").hasSize(2);
      assertThat(rows.takeCalls()).containsExactly(
          new Rows.Call("other", "1", List.of("1"), true));
      assertThat(rows.takeLog()).containsExactly("update other=1");
      assertThat(recordCounts()).containsExactly(1, 1, 1);
    }
  }
}
