package nested;

import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.ChildTargetDef;
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
   * @param handler the container's handler
   */
  public ItemHandler_ChildHandlerFactory(ItemHandler handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  @Override
  public ChildTargetDef<Item> childHandler(ItemAction action) {
    return ChildTargetDef.of(handler.items(action));
  }
}
