package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The pattern for containers whose identity the external system assigns at creation (a Notion
 * database, a Drive folder): the container sink records key -> id in a connector-level map when
 * it creates or finds the container, and the children's sink reads the id by the container key
 * when it applies. Containers apply before their children on every run, so the id is there; a
 * preview never applies children, so it never needs the id.
 */
class ExternalIdContainerTest extends EngineTestBase {
  /** The "remote system": folders get server-assigned ids. */
  final Map<String, String> remoteFolders = new ConcurrentHashMap<>();
  final AtomicInteger nextId = new AtomicInteger(100);
  /** The connector-level map: container key -> external id. */
  final Map<String, String> folderIds = new ConcurrentHashMap<>();
  final List<String> writes = new ArrayList<>();

  record FolderAction(String name) {}

  record FileAction(String folder, String name, String content) {}

  final class FileHandler implements TargetHandler<String, String, FileAction> {
    final String folder;
    final TargetActionSink<FileAction> sink = TargetActionSink.of(actions -> {
      for (TargetAction<FileAction> a : actions) {
        String id = folderIds.get(a.value().folder());
        synchronized (writes) {
          writes.add(a.verb() + " " + id + "/" + a.value().name());
        }
      }
    });

    FileHandler(String folder) {
      this.folder = folder;
    }

    @Override
    public TargetReconcileOutput<FileAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      String name = Rows.keyText(key);
      if (desired == null) {
        return TargetReconcileOutput.of(
            TargetAction.delete(new FileAction(folder, name, null)), sink, null);
      }
      if (!mbm && prev.stream().allMatch(desired::equals) && !prev.isEmpty()) {
        return null;
      }
      return TargetReconcileOutput.of(
          TargetAction.create(new FileAction(folder, name, desired)), sink, desired);
    }
  }

  final class FolderHandler implements TargetHandler<String, String, FolderAction> {
    final TargetActionSink<FolderAction> sink = TargetActionSink.withChildHandler(actions -> {
      for (TargetAction<FolderAction> a : actions) {
        String name = a.value().name();
        // Create or find the folder; either way remember its server-assigned id.
        String id = remoteFolders.computeIfAbsent(name, n -> "id-" + nextId.getAndIncrement());
        folderIds.put(name, id);
      }
    }, action -> ChildTargetDef.of(new FileHandler(action.name())));

    @Override
    public TargetReconcileOutput<FolderAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      FolderAction action = new FolderAction(Rows.keyText(key));
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink,
          desired);
    }
  }

  @Test
  void childrenFindTheServerAssignedIdOfTheirContainer() {
    remoteFolders.put("reports", "id-7"); // created by an earlier process
    App app = app(ctx -> {
      TargetStateProvider<String> folders =
          registerRootTargetStatesProvider(ctx, "folders", new FolderHandler());
      for (String folder : List.of("reports", "notes")) {
        TargetStateProvider<String> files = mountTarget(ctx, folders.targetState(folder, "spec"));
        declareTargetState(ctx, files.targetState("a.txt", "hello"));
      }
    });
    assertThat(app.preview().actions()).hasSize(4);
    assertThat(writes).isEmpty();

    app.update();
    assertThat(writes).containsExactlyInAnyOrder("create id-7/a.txt", "create id-100/a.txt");
  }
}
