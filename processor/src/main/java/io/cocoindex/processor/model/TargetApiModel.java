package io.cocoindex.processor.model;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
import java.util.List;
import java.util.Optional;
import javax.lang.model.element.TypeElement;

/**
 * The user-facing API of a root handler: {@code <Name>s.register(ctx, handler)} and its declare
 * methods.
 *
 * @param handler the handler class
 * @param handlerType the handler as {@code register} takes it (with wildcards if generic)
 * @param api the generated API class
 * @param provider the provider name it registers
 * @param target what the root declare method declares
 * @param attachments the handler's own attachments, declared on the root provider
 * @param container for a container handler, its target class and children
 * @param isPublic whether the generated classes are public (the handler is)
 * @param origin the handler's element
 */
public record TargetApiModel(
    ClassName handler,
    TypeName handlerType,
    ClassName api,
    String provider,
    DeclaredTarget target,
    List<AttachmentModel> attachments,
    Optional<ContainerModel> container,
    boolean isPublic,
    TypeElement origin) {
  public TargetApiModel {
    attachments = List.copyOf(attachments);
  }

  /**
   * The container part of a root container's API.
   *
   * @param targetClass the generated {@code <Name>Target} class
   * @param child what {@code declare<Child>} declares
   * @param childAttachments the attachments of the child handler, declared on the child provider
   * @param nested the nested containers among the children, when the child handler is a
   *     {@code @NestedContainer}
   */
  public record ContainerModel(
      ClassName targetClass,
      DeclaredTarget child,
      List<AttachmentModel> childAttachments,
      Optional<NestedTarget> nested) {
    public ContainerModel {
      childAttachments = List.copyOf(childAttachments);
    }
  }
}
