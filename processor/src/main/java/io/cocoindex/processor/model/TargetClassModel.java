package io.cocoindex.processor.model;

import com.palantir.javapoet.ClassName;
import java.util.List;
import java.util.Optional;
import javax.lang.model.element.TypeElement;

/**
 * A generated target class: one declared container, declaring its children (and their
 * attachments, and the nested containers among them).
 *
 * @param targetClass the generated {@code <Name>Target}
 * @param containerName the container's noun
 * @param handler the handler of the container itself
 * @param api for a root container, the API class it is obtained from; empty for a nested one
 * @param child what {@code declare<Child>} declares
 * @param childAttachments the attachments of the children's handler, declared on the children's
 *     provider
 * @param nested the nested containers among the children, when their handler is one
 * @param isPublic whether the class is public
 * @param origin the element it is generated for
 */
public record TargetClassModel(
    ClassName targetClass,
    String containerName,
    ClassName handler,
    Optional<ClassName> api,
    DeclaredTarget child,
    List<AttachmentModel> childAttachments,
    Optional<NestedTarget> nested,
    boolean isPublic,
    TypeElement origin) {
  public TargetClassModel {
    childAttachments = List.copyOf(childAttachments);
  }

  /** The target class of a root container's API. */
  public static TargetClassModel ofRoot(TargetApiModel api) {
    TargetApiModel.ContainerModel c = api.container().orElseThrow();
    return new TargetClassModel(
        c.targetClass(),
        api.target().name(),
        api.handler(),
        Optional.of(api.api()),
        c.child(),
        c.childAttachments(),
        c.nested(),
        api.isPublic(),
        api.origin());
  }
}
