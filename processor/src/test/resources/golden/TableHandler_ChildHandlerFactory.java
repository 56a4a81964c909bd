package test;

import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.ChildTargetDef;
import io.cocoindex.TargetHandler;
import java.util.Objects;
import javax.annotation.processing.Generated;

/**
 * Builds the handler of a {@link TableHandler} container's children from its action with {@link TableHandler#rows}; pass it to {@code TargetActionSink.withChildHandler}.
 */
@Generated("io.cocoindex.processor.CocoIndexProcessor")
@SuppressWarnings({"unchecked", "rawtypes", "deprecation", "removal"})
public final class TableHandler_ChildHandlerFactory implements ChildHandlerFactory<TableAction> {
  private final TableHandler handler;

  /**
   * A factory asking {@code handler} for the children's handler.
   *
   * @param handler the container's handler
   */
  public TableHandler_ChildHandlerFactory(TableHandler handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  @Override
  public ChildTargetDef<Row> childHandler(TableAction action) {
    return ChildTargetDef.of(handler.rows(action));
  }

  @Override
  public ChildTargetDef<Row> childHandler(TargetHandler<?, ?, ?> containerHandler,
      TableAction action) {
    if (containerHandler instanceof TableHandler) {
      return ChildTargetDef.of(((TableHandler) containerHandler).rows(action));
    }
    return ChildTargetDef.of(handler.rows(action));
  }
}
