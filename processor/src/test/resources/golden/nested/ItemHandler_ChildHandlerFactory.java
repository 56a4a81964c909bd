package nested;

import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.ChildTargetDef;
import io.cocoindex.TargetHandler;
import java.util.Objects;
import javax.annotation.processing.Generated;

/**
 * Builds the handler of an {@link ItemHandler} container's children from its action with {@link ItemHandler#items}; pass it to {@code TargetActionSink.withChildHandler}.
 */
@Generated("io.cocoindex.processor.CocoIndexProcessor")
@SuppressWarnings({"unchecked", "rawtypes", "deprecation", "removal"})
public final class ItemHandler_ChildHandlerFactory implements ChildHandlerFactory<ItemAction> {
  private final ItemHandler handler;

  /**
   * A factory asking {@code handler} for the children's handler.
   *
   * <p>A nested container's sink is usually shared by every handler of its kind (one batch for
   * all their containers) and made before any of them: {@code handler} is then any handler
   * over it. The engine asks the handler that returned each action
   * ({@link #childHandler(TargetHandler, ItemAction)}), so
   * {@link ItemHandler#items} runs on its container's own handler; {@code handler} answers
   * only {@link #childHandler(ItemAction)} called alone.
   *
   * @param handler the container's handler, or for a shared sink any handler over it
   */
  public ItemHandler_ChildHandlerFactory(ItemHandler handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  @Override
  public ChildTargetDef<Item> childHandler(ItemAction action) {
    return ChildTargetDef.of(handler.items(action));
  }

  @Override
  public ChildTargetDef<Item> childHandler(TargetHandler<?, ?, ?> containerHandler,
      ItemAction action) {
    if (containerHandler instanceof ItemHandler) {
      return ChildTargetDef.of(((ItemHandler) containerHandler).items(action));
    }
    return ChildTargetDef.of(handler.items(action));
  }
}
