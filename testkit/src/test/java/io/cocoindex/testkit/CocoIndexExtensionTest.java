package io.cocoindex.testkit;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The test kit, used the way a connector author would. */
class CocoIndexExtensionTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();

  record Put(String key, String value) {}

  static final class KvHandler implements TargetHandler<String, String, Put> {
    final TargetActionSink<Put> sink;

    KvHandler(TargetActionSink<Put> sink) {
      this.sink = sink;
    }

    @Override
    public TargetReconcileOutput<Put, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      String k = key.asString();
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(new Put(k, null)), sink, null);
      }
      if (!mbm && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.update(new Put(k, desired)), sink, desired);
    }
  }

  final RecordingSink<Put> puts = RecordingSink.create(p -> p.key() + "=" + p.value());
  final Map<String, String> data = new TreeMap<>(Map.of("a", "1", "b", "1"));

  /** One component per key, so a failure of one key leaves the others committed. */
  App kvApp() {
    return coco.app(ctx -> {
      var p = registerRootTargetStatesProvider(ctx, "kv", new KvHandler(puts.sink()));
      data.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, p.targetState(k, v))));
    });
  }

  /** Every key in the root component: one submission, so one sink call per run. */
  App singleComponentKvApp() {
    return coco.app(ctx -> {
      var p = registerRootTargetStatesProvider(ctx, "kv", new KvHandler(puts.sink()));
      data.forEach((k, v) -> declareTargetState(ctx, p.targetState(k, v)));
    });
  }

  /**
   * A handler that writes to its target in {@code reconcile} (here, a key it marks as seen) is
   * caught by a preview: the check names what the target held before and after, and the I/O to
   * move. A handler that does none passes, and the pending changes come back.
   */
  @Test
  void aPreviewThatChangesTheTargetIsCaught() {
    Map<String, String> target = new TreeMap<>();
    TargetActionSink<Put> sink = TargetActionSink.of(actions -> actions.forEach(
        a -> target.put(a.value().key(), a.value().value())));
    boolean[] writesInReconcile = {false};
    KvHandler kv = new KvHandler(sink);
    TargetHandler<String, String, Put> handler = (key, desired, prev, mbm) -> {
      if (writesInReconcile[0]) {
        target.put(key.asString() + ".seen", "yes"); // I/O where none belongs
      }
      return kv.reconcile(key, desired, prev, mbm);
    };
    App app = coco.app(ctx -> {
      var p = registerRootTargetStatesProvider(ctx, "kv", handler);
      data.forEach((k, v) -> declareTargetState(ctx, p.targetState(k, v)));
    });
    assertThat(coco.pendingLeavingTheTargetAsItWas(app, () -> new TreeMap<>(target)))
        .containsExactly("kv update \"a\"", "kv update \"b\"");

    writesInReconcile[0] = true;
    assertThatThrownBy(() -> coco.pendingLeavingTheTargetAsItWas(app, () -> new TreeMap<>(target)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("a preview of app")
        .hasMessageContaining("changed the target: {} before, {a.seen=yes, b.seen=yes} after")
        .hasMessageContaining("must do no I/O");
  }

  @Test
  void updateTwiceReturnsTheSecondRunsActions() {
    App app = kvApp();
    assertThat(coco.updateTwice(app, () -> data.put("a", "2")))
        .containsExactly("kv update \"a\"");
    assertThat(puts.take()).containsExactly("update a=1", "update a=2", "update b=1");
    assertThat(coco.update(app)).isEmpty();
  }

  @Test
  void scriptedFailureOnAKeyFailsThenHeals() {
    App app = kvApp();
    puts.failWhen(p -> p.key().equals("b"));
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure on b=1");
    puts.heal();
    assertThat(coco.update(app)).containsExactly("kv update \"b\"");
  }

  @Test
  void scriptedFailureOfTheNthCallHappensOnce() {
    App app = singleComponentKvApp();
    coco.update(app);
    data.replaceAll((k, v) -> "2");
    puts.failOnCall(1); // the sink's second call, but the first since asked: named so
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure of failOnCall(1): the 1st call after it was set");
    assertThat(coco.update(app)).containsExactly("kv update \"a\"", "kv update \"b\"");
  }

  @Test
  void failOnCallFailsItsComponentsEvenWhenTheEngineRetriesTheirBatchSplit() {
    // Twenty components finishing together: the first call may hold one or several of them,
    // and a merged call is retried split. Either way the run fails, and for those alone.
    for (int i = 0; i < 20; i++) {
      data.put("k" + i, "1");
    }
    App app = kvApp();
    for (int round = 2; round <= 6; round++) {
      String value = Integer.toString(round);
      data.replaceAll((k, v) -> value);
      puts.take();
      puts.failOnCall(1);
      UpdateFailedException failed =
          catchThrowableOfType(UpdateFailedException.class, () -> coco.update(app));
      assertThat(failed).as("round " + round).isNotNull();
      int applied = puts.take().size();
      assertThat(failed.failures()).as("round " + round).isNotEmpty()
          .allSatisfy(f -> assertThat(f.error()).hasMessageContaining("failOnCall(1)"));
      assertThat(applied + failed.failures().size()).as("round " + round).isEqualTo(data.size());
      // The next run finishes the failed ones, and nothing fails again.
      assertThat(coco.update(app)).hasSize(failed.failures().size());
    }
  }

  @Test
  void aForwardingSinkRecordsWhatItsTargetAppliedAndNotWhatItRefused() {
    Map<String, String> service = new TreeMap<>();
    RecordingSink<Put> forwarding = RecordingSink.create(p -> p.key() + "=" + p.value(), acts -> {
      for (TargetAction<Put> a : acts) {
        if (a.value().value().equals("bad")) {
          throw new IllegalStateException("service refused " + a.value().key());
        }
        service.put(a.value().key(), a.value().value());
      }
    });
    App app = coco.app(ctx -> {
      var p = registerRootTargetStatesProvider(ctx, "kv", new KvHandler(forwarding.sink()));
      data.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, p.targetState(k, v))));
    });
    data.put("c", "bad");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("service refused c");
    assertThat(forwarding.take()).containsExactly("update a=1", "update b=1");
    assertThat(service).isEqualTo(Map.of("a", "1", "b", "1"));

    forwarding.failWhen(p -> p.key().equals("c")); // scripted: the service never sees it
    data.put("c", "2");
    assertThatThrownBy(app::update).hasMessageContaining("scripted failure on c=2");
    assertThat(service).doesNotContainKey("c");
    forwarding.heal();
    assertThat(coco.update(app)).containsExactly("kv update \"c\"");
    assertThat(service).containsEntry("c", "2");
  }

  /** A folder: a container whose children are the {@link KvHandler}'s entries. */
  record Folder(String name, boolean drop) {}

  /** Folders: an action on every run a folder is declared, as a container's handler must. */
  static final class FolderHandler implements TargetHandler<String, String, Folder> {
    final TargetActionSink<Folder> sink;

    FolderHandler(TargetActionSink<Folder> sink) {
      this.sink = sink;
    }

    @Override
    public TargetReconcileOutput<Folder, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      String name = key.asString();
      return desired == null
          ? TargetReconcileOutput.of(TargetAction.delete(new Folder(name, true)), sink, null)
          : TargetReconcileOutput.of(prev.isEmpty() ? TargetAction.create(new Folder(name, false))
              : TargetAction.update(new Folder(name, false)), sink, desired);
    }
  }

  @Test
  void aContainerSinkRecordsItsActionsAndHandsItsChildrenTheHandlerOfItsFactory() {
    RecordingSink<Folder> folders = RecordingSink.container(Folder::name,
        folder -> io.cocoindex.ChildTargetDef.of(new KvHandler(puts.sink())));
    boolean[] declared = {true};
    App app = coco.app(ctx -> {
      var p = registerRootTargetStatesProvider(ctx, "folders", new FolderHandler(folders.sink()));
      if (declared[0]) {
        var entries = io.cocoindex.TargetStates.<String, String>mountTarget(
            ctx, p.targetState("docs", "v1"));
        data.forEach((k, v) -> declareTargetState(ctx, entries.targetState(k, v)));
      }
    });
    coco.update(app);
    assertThat(folders.take()).containsExactly("create docs");
    assertThat(puts.take()).containsExactly("update a=1", "update b=1");

    folders.failOnCall(1);
    data.put("a", "2");
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure of failOnCall(1): the 1st call after it was set");
    assertThat(puts.take()).as("nothing below a container whose action failed").isEmpty();
    folders.heal();
    coco.update(app);
    assertThat(folders.take()).containsExactly("update docs");
    assertThat(puts.take()).containsExactly("update a=2");

    declared[0] = false;
    coco.update(app);
    assertThat(folders.take()).as("its entries go with it").containsExactly("delete docs");
    assertThat(puts.take()).isEmpty();

    assertThatThrownBy(() -> folders.failOnCall(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("n must be at least 1 (the next call), not 0");
  }
}
