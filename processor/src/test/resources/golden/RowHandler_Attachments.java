package test;

import io.cocoindex.ChildTargetDef;
import java.util.Map;
import javax.annotation.processing.Generated;

/**
 * The attachment handlers of {@link RowHandler}: return {@link #of} from its {@code attachments()}.
 */
@Generated("io.cocoindex.processor.CocoIndexProcessor")
@SuppressWarnings({"unchecked", "rawtypes", "deprecation", "removal"})
public final class RowHandler_Attachments {
  /**
   * The attachment type of {@link RowHandler#index}.
   */
  public static final String INDEX = "index";

  private RowHandler_Attachments() {
  }

  /**
   * Every attachment type of {@code handler} with its handler.
   *
   * @param handler the handler whose methods give them
   * @return the attachment handlers by attachment type
   */
  public static Map<String, ChildTargetDef<?>> of(RowHandler handler) {
    return Map.ofEntries(
          Map.entry(INDEX, ChildTargetDef.of(handler.index())));
  }
}
