package io.cocoindex.processor.mirror;

import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.util.Elements;

/**
 * An {@code @Attachment} as typed values.
 *
 * @param mirror the annotation
 * @param name the attachment type name
 * @param nameValue the written value, for diagnostics
 */
public record AttachmentAnnotation(AnnotationMirror mirror, String name, AnnotationValue nameValue) {

  /** Whether the name is a constant javac has not resolved yet (wait for a later round). */
  public boolean isUnresolved() {
    return Mirrors.isUnresolved(nameValue);
  }

  public static Optional<AttachmentAnnotation> read(Elements elements, Element method) {
    return Mirrors.find(method, AnnotationNames.ATTACHMENT)
        .map(
            m -> {
              AnnotationValue v = Mirrors.value(elements, m, "value");
              return new AttachmentAnnotation(m, String.valueOf(v.getValue()), v);
            });
  }
}
