package io.cocoindex.testkit;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Crash points, {@code restart} and {@code pending}, on a key-value connector. */
class CrashPointTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();

  record Put(String key, String value) {}

  /** The external system: what the sink applied survives the crash, like a real service. */
  final Map<String, String> service = new ConcurrentHashMap<>();
  final RecordingSink<Put> puts = RecordingSink.create(p -> p.key() + "=" + p.value(),
      actions -> actions.forEach(a -> {
        if (a.value().value() == null) {
          service.remove(a.value().key());
        } else {
          service.put(a.value().key(), a.value().value());
        }
      }));

  /** Every reconcile the handler saw: "key prev mbm". */
  final List<String> reconciles = java.util.Collections.synchronizedList(new ArrayList<>());

  final class KvHandler implements TargetHandler<String, String, Put> {
    final TargetActionSink<Put> sink = puts.sink();

    @Override
    public TargetReconcileOutput<Put, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      String k = ((StableKey.Str) key).value();
      reconciles.add(k + " " + prev + " " + mbm);
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(new Put(k, null)), sink, null);
      }
      if (!mbm && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.update(new Put(k, desired)), sink, desired);
    }
  }

  final Map<String, String> source = new TreeMap<>(Map.of("a", "1", "b", "1", "c", "1"));

  App app() {
    return coco.app("kv", ctx -> {
      var p = registerRootTargetStatesProvider(ctx, "kv", new KvHandler());
      source.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, p.targetState(k, v))));
    });
  }

  @Test
  void aCrashAfterAPrecommitLeavesTheNewRecordPossibleAndTheSinkUntouched() {
    source.keySet().retainAll(List.of("a"));
    App app = app();
    coco.update(app);
    source.put("a", "2");
    puts.take();
    reconciles.clear();

    assertThat(coco.updateCrashing(app, CrashPoint.afterPrecommit(1))).isTrue();
    assertThat(puts.take()).as("nothing applied: the process died before the sink").isEmpty();
    assertThat(service).containsExactly(Map.entry("a", "1"));
    assertThatThrownBy(app::update).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");

    App next = coco.restart(app);
    assertThat(coco.pending(next)).containsExactly("kv update \"a\"");
    reconciles.clear();
    assertThat(coco.update(next)).containsExactly("kv update \"a\"");
    assertThat(reconciles).containsExactly("a [1, 2] false");
    assertThat(service).containsExactly(Map.entry("a", "2"));
    assertThat(coco.pending(next)).isEmpty();
  }

  @Test
  void aCrashBeforeTheFirstCommitConverges() {
    App app = app();
    coco.update(app);
    source.remove("b");
    source.put("c", "2");
    source.put("d", "1");
    puts.take();

    assertThat(coco.updateCrashing(app, CrashPoint.beforeCommit(1))).isTrue();
    assertThat(coco.takeApplied()).as("the dead run reports nothing").isEmpty();

    App next = coco.restart(app);
    coco.update(next);
    assertThat(service).isEqualTo(Map.of("a", "1", "c", "2", "d", "1"));
    assertThat(coco.pending(next)).isEmpty();
    assertThat(coco.update(next)).isEmpty();
  }

  @Test
  void aCrashAfterTheCommitLeavesNothingToRedo() {
    App app = app();
    coco.update(app);
    source.put("a", "2");
    assertThat(coco.updateCrashing(app, CrashPoint.afterCommit(1))).isTrue();
    App next = coco.restart(app);
    assertThat(coco.pending(next)).isEmpty();
    assertThat(coco.update(next)).isEmpty();
    assertThat(service).containsEntry("a", "2");
  }

  @Test
  void aSourceChangeBetweenTheCrashAndTheRerunIsApplied() {
    App app = app();
    coco.update(app);
    source.put("d", "1");
    assertThat(coco.updateCrashing(app, CrashPoint.afterPrecommit(1))).isTrue();
    source.remove("d"); // precommitted, maybe applied, and no longer declared
    source.remove("a");
    App next = coco.restart(app);
    coco.update(next);
    assertThat(service).isEqualTo(Map.of("b", "1", "c", "1"));
    assertThat(coco.pending(next)).isEmpty();
  }

  @Test
  void everyPrecommitOfARunIsACrashPointAndEachConverges() {
    App app = app();
    coco.update(app);
    int crashes = 0;
    for (int n = 1; ; n++) {
      source.replaceAll((k, v) -> v + "+");
      if (!coco.updateCrashing(app, CrashPoint.afterPrecommit(n))) {
        break; // the run had fewer than n precommits: it completed
      }
      crashes++;
      app = coco.restart(app);
      coco.update(app);
      assertThat(service).as("after " + CrashPoint.afterPrecommit(n)).isEqualTo(source);
      assertThat(coco.pending(app)).isEmpty();
    }
    assertThat(crashes).as("a run of three components precommits at least once").isPositive();
    assertThat(service).isEqualTo(source);
  }

  @Test
  void everyCommitOfARunIsACrashPointAndEachConverges() {
    App app = app();
    coco.update(app);
    int crashes = 0;
    for (int n = 1; ; n++) {
      source.replaceAll((k, v) -> v + "+");
      source.remove(n % 2 == 0 ? "a" : "b");
      source.put(n % 2 == 0 ? "b" : "a", "new");
      CrashPoint point = n % 2 == 0 ? CrashPoint.afterCommit(n) : CrashPoint.beforeCommit(n);
      if (!coco.updateCrashing(app, point)) {
        break;
      }
      crashes++;
      app = coco.restart(app);
      coco.update(app);
      assertThat(service).as("after " + point).isEqualTo(source);
      assertThat(coco.pending(app)).isEmpty();
    }
    assertThat(crashes).as("a component commit each, and the run's").isGreaterThanOrEqualTo(3);
  }

  @Test
  void aPointTheRunNeverReachesLeavesAnOrdinaryUpdate() {
    App app = app();
    assertThat(coco.updateCrashing(app, CrashPoint.beforeCommit(1000))).isFalse();
    assertThat(coco.takeApplied()).containsExactly(
        "kv update \"a\"", "kv update \"b\"", "kv update \"c\"");
    assertThat(coco.update(app)).as("the app is still open, the store alive").isEmpty();
  }

  @Test
  void aFailureBeforeThePointIsThrownAsItIs() {
    App app = app();
    puts.failWhen(p -> p.key().equals("b"));
    assertThatThrownBy(() -> coco.updateCrashing(app, CrashPoint.afterCommit(1000)))
        .isInstanceOf(UpdateFailedException.class).hasMessageContaining("scripted failure on b=1");
    puts.heal();
    assertThat(coco.update(app)).containsExactly("kv update \"b\"");
  }

  @Test
  void pendingNamesWhatIsLeft() {
    App app = app();
    assertThat(coco.pending(app)).containsExactly(
        "kv update \"a\"", "kv update \"b\"", "kv update \"c\"");
    assertThat(puts.calls()).isZero();
  }

  @Test
  void crashPointsRejectAnAppFromElsewhereAndABadOccurrence() {
    assertThatThrownBy(() -> CrashPoint.afterCommit(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("occurrence must be at least 1, not 0");
    assertThat(CrashPoint.afterPrecommit(2)).hasToString("after precommit #2");
    try (App other = App.create("other", coco.environment(), ctx -> {})) {
      assertThatThrownBy(() -> coco.restart(other)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("other was not");
    }
  }
}
