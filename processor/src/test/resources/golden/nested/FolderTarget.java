package nested;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.TargetStates;
import javax.annotation.processing.Generated;

/**
 * A declared Folder, a container nested in a container, handled by {@link ItemHandler}: declares its Item children. Obtained from {@code declareFolder} or {@code mountFolder} of a container whose children {@link ItemHandler} handles.
 */
@Generated("io.cocoindex.processor.CocoIndexProcessor")
@SuppressWarnings({"unchecked", "rawtypes", "deprecation", "removal"})
public final class FolderTarget {
  private final TargetStateProvider<Item> children;

  FolderTarget(TargetStateProvider<Item> children) {
    this.children = children;
  }

  /**
   * Declares {@code item} as an Item of this container, from the calling component.
   *
   * @param ctx the calling component's context
   * @param item the Item to declare
   */
  public void declareItem(Ctx ctx, Item item) {
    TargetStates.declareTargetState(ctx, children.targetState(item.name(), item));
  }

  /**
   * Declares {@code folder} as a Folder of this container, itself a container, in the calling component; its children resolve when that component commits, so declare them from the same component.
   *
   * @param ctx the calling component's context
   * @param folder the Folder to declare
   * @return the declared Folder, to declare its children through
   */
  public FolderTarget declareFolder(Ctx ctx, Item folder) {
    return new FolderTarget(TargetStates.<Item, Item>declareTargetStateWithChild(ctx, children.targetState(folder.name(), folder)));
  }

  /**
   * Declares {@code folder} as a Folder of this container, itself a container, and commits it in a foreground child component: its children may be declared from any component at once.
   *
   * @param ctx the calling component's context
   * @param folder the Folder to declare
   * @return the declared Folder, to declare its children through
   */
  public FolderTarget mountFolder(Ctx ctx, Item folder) {
    return new FolderTarget(TargetStates.<Item, Item>mountTarget(ctx, children.targetState(folder.name(), folder)));
  }

  /**
   * Declares {@code share} as a {@code share} attachment of this container, from the calling component.
   *
   * @param ctx the calling component's context
   * @param share the Share to declare
   */
  public void declareShare(Ctx ctx, ShareSpec share) {
    TargetStates.declareTargetState(ctx, children.<ShareSpec>attachment(ctx, "share").targetState(share.user(), share));
  }

  /**
   * The provider of this container's children, for what this class does not cover.
   *
   * @return the children's provider
   */
  public TargetStateProvider<Item> children() {
    return children;
  }
}
