package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A method of a handler returning the handler of one attachment type: auxiliary target states
 * (indexes, triggers) tracked beside the handler's own. The processor generates {@code
 * <Handler>_Attachments.of(handler)}, the map to return from {@code attachments()}, and a {@code
 * declare<Name>} method on the generated API or target class whose provider uses this handler.
 * The handler must return that map from {@code attachments()} (the engine registers no other
 * attachment types); a handler with {@code @Attachment} methods that does not override it is
 * COCO-023.
 *
 * <pre>{@code
 * final class RowHandler implements TargetHandler<Row, Fingerprint, RowAction> {
 *   private final IndexHandler indexes = new IndexHandler(db);
 *
 *   @Attachment("index")
 *   IndexHandler index() { return indexes; }   // return one instance: its sink is its identity
 *
 *   @Override
 *   public Map<String, ChildTargetDef<?>> attachments() { return RowHandler_Attachments.of(this); }
 * }
 * // tableTarget.declareIndex(ctx, new IndexSpec("by_text"))
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface Attachment {
  /**
   * The attachment type name, a Java identifier unique in the handler; {@code vector_index} gives
   * {@code declareVectorIndex}.
   *
   * @return the attachment type name, the key of this handler in {@code attachments()}
   */
  String value();
}
