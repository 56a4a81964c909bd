package io.cocoindex.samples.annotated;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ActionValue;
import io.cocoindex.annotation.Attachment;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.NestedContainer;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.samples.annotated.LoggedConnectors.Log;
import java.util.List;
import java.util.Map;

/**
 * A connector of containers nested in containers, written with the annotations: drives (root
 * containers) of items, an item being a file or a folder whose own items are its children, at
 * any depth; an item may carry tags (an attachment). Every sink logs what it applies into one
 * {@link Log}: {@code "<verb> drive <name>"}, {@code "<verb> file <path>=<text>"}, {@code "<verb>
 * folder <path>"}, {@code "<verb> tag <path>#<tag>"}.
 */
final class NestedFolders {
  private NestedFolders() {}

  @TargetValue
  record DriveSpec(@Key String name) {}

  @ActionValue
  record DriveAction(String name, boolean drop) {}

  /** A file with its text, or a folder (text null). */
  @TargetValue
  record Item(@Key String name, boolean folder, String text) {
    static Item file(String name, String text) {
      return new Item(name, false, text);
    }

    static Item folder(String name) {
      return new Item(name, true, null);
    }
  }

  /** What the items' sink writes: the item's full path; its name, for a folder's own items. */
  @ActionValue
  record ItemAction(String path, String name, boolean folder, String text) {}

  @TargetValue
  record Tag(@Key String name) {}

  @ActionValue
  record TagAction(String path, String name) {}

  @ContainerTarget(provider = "test/drives", name = "Drive", child = "Item", childValue = Item.class)
  static final class DriveHandler implements TargetHandler<DriveSpec, DriveSpec, DriveAction> {
    private final Log log;
    private final TargetActionSink<DriveAction> sink;
    /**
     * The one sink of every item at every depth, so items of all folders are applied in shared
     * batches. Its factory is built from a handler of the drive's top, but the engine asks each
     * folder's own handler for its items' handler ({@link ItemHandler#items} reads its path).
     */
    final TargetActionSink<ItemAction> items;
    /** The one sink of every item's tags. */
    final TargetActionSink<TagAction> tags;

    DriveHandler(Log log) {
      this.log = log;
      this.sink =
          TargetActionSink.withChildHandler(
              actions ->
                  actions.forEach(
                      a -> log.add(a.verb() + " drive " + a.value().name())),
              new NestedFolders_DriveHandler_ChildHandlerFactory(this));
      this.items =
          TargetActionSink.withChildHandler(
              actions -> actions.forEach(a -> log.add(describe(a))),
              new NestedFolders_ItemHandler_ChildHandlerFactory(new ItemHandler("", this)));
      this.tags =
          TargetActionSink.of(
              actions ->
                  actions.forEach(
                      a -> log.add(a.verb() + " tag " + a.value().path() + "#" + a.value().name())));
    }

    private static String describe(TargetAction<ItemAction> a) {
      ItemAction i = a.value();
      return a.verb() + (i.folder() ? " folder " + i.path()
          : " file " + i.path() + (i.text() == null ? "" : "=" + i.text()));
    }

    @ChildHandler
    ItemHandler items(DriveAction drive) {
      return new ItemHandler(drive.name(), this);
    }

    @Override
    public TargetReconcileOutput<DriveAction, DriveSpec> reconcile(
        StableKey key, DriveSpec desired, List<DriveSpec> prev, boolean prevMayBeMissing) {
      String name = key.asString();
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(new DriveAction(name, true)), sink, null);
      }
      DriveAction ensure = new DriveAction(name, false);
      // A container's action on every run: it is what resolves its children's handler.
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(ensure) : TargetAction.update(ensure), sink, desired);
    }
  }

  /** The items of one folder (or of a drive's top): files, and folders holding items again. */
  @NestedContainer(name = "Folder", child = "Item", childValue = Item.class)
  static final class ItemHandler implements TargetHandler<Item, Item, ItemAction> {
    private final String path;
    private final DriveHandler drive;
    private final TagHandler tags;

    ItemHandler(String path, DriveHandler drive) {
      this.path = path;
      this.drive = drive;
      this.tags = new TagHandler(path, drive);
    }

    @ChildHandler
    ItemHandler items(ItemAction folder) {
      return new ItemHandler(path + "/" + folder.name(), drive);
    }

    @Attachment("tag")
    TagHandler tag() {
      return tags;
    }

    @Override
    public Map<String, ChildTargetDef<?>> attachments() {
      return NestedFolders_ItemHandler_Attachments.of(this);
    }

    @Override
    public TargetReconcileOutput<ItemAction, Item> reconcile(
        StableKey key, Item desired, List<Item> prev, boolean prevMayBeMissing) {
      String itemPath = path + "/" + key.asString();
      if (desired == null) {
        boolean wasFolder = prev.stream().anyMatch(Item::folder);
        return prev.isEmpty() && !prevMayBeMissing
            ? null
            : TargetReconcileOutput.of(
                TargetAction.delete(new ItemAction(itemPath, key.asString(), wasFolder, null)),
                drive.items,
                null);
      }
      ItemAction write =
          new ItemAction(itemPath, key.asString(), desired.folder(), desired.text());
      if (!desired.folder()
          && !prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      // A folder is refreshed on every run, as every container is.
      return TargetReconcileOutput.of(
          prev.isEmpty() ? TargetAction.create(write) : TargetAction.update(write),
          drive.items,
          desired);
    }
  }

  /** The tags of the items of one folder. */
  static final class TagHandler implements TargetHandler<Tag, Tag, TagAction> {
    private final String path;
    private final DriveHandler drive;

    TagHandler(String path, DriveHandler drive) {
      this.path = path;
      this.drive = drive;
    }

    @Override
    public TargetReconcileOutput<TagAction, Tag> reconcile(
        StableKey key, Tag desired, List<Tag> prev, boolean prevMayBeMissing) {
      TagAction action = new TagAction(path, key.asString());
      if (desired == null) {
        return prev.isEmpty() && !prevMayBeMissing
            ? null
            : TargetReconcileOutput.of(TargetAction.delete(action), drive.tags, null);
      }
      if (!prevMayBeMissing && !prev.isEmpty()) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.create(action), drive.tags, desired);
    }
  }
}
