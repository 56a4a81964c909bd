package io.cocoindex.processor.model;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
import java.util.List;
import javax.lang.model.element.TypeElement;

/**
 * A handler with {@code @Attachment} methods, whose {@code <Handler>_Attachments} is generated.
 *
 * @param handler the handler class
 * @param handlerType the handler as the generated {@code of} takes it (with wildcards if generic)
 * @param generated the generated class
 * @param attachments the attachment methods in declaration order
 * @param origin the handler's element
 */
public record AttachmentsModel(
    ClassName handler,
    TypeName handlerType,
    ClassName generated, List<AttachmentModel> attachments, TypeElement origin) {
  public AttachmentsModel {
    attachments = List.copyOf(attachments);
  }
}
