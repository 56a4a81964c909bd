package io.cocoindex.processor.mirror;

import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;

/** Reading annotation mirrors without loading annotation classes (no MirroredTypeException). */
public final class Mirrors {
  private Mirrors() {}

  /** The annotation of the given qualified name on {@code element}, if present. */
  public static Optional<AnnotationMirror> find(Element element, String qualifiedName) {
    for (AnnotationMirror m : element.getAnnotationMirrors()) {
      TypeElement type = (TypeElement) m.getAnnotationType().asElement();
      if (type.getQualifiedName().contentEquals(qualifiedName)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  public static boolean has(Element element, String qualifiedName) {
    return find(element, qualifiedName).isPresent();
  }

  /** The value of attribute {@code name}, its default when not written. */
  public static AnnotationValue value(Elements elements, AnnotationMirror mirror, String name) {
    Map<? extends ExecutableElement, ? extends AnnotationValue> values =
        elements.getElementValuesWithDefaults(mirror);
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e : values.entrySet()) {
      if (e.getKey().getSimpleName().contentEquals(name)) {
        return e.getValue();
      }
    }
    throw new IllegalArgumentException(
        "no attribute " + name + " on " + mirror.getAnnotationType());
  }

  /**
   * Whether {@code value} is an expression javac could not resolve (a constant or class literal
   * of a type another processor generates in a later round): javac's model gives such a value,
   * of either kind, as the string {@code "<error>"}, with no other way to tell.
   */
  public static boolean isUnresolved(AnnotationValue value) {
    return "<error>".equals(value.getValue());
  }

  /**
   * The value of attribute {@code name} as written, for pointing a diagnostic at it; the
   * annotation itself is the best position for a defaulted value, hence empty.
   */
  public static Optional<AnnotationValue> explicitValue(AnnotationMirror mirror, String name) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e :
        mirror.getElementValues().entrySet()) {
      if (e.getKey().getSimpleName().contentEquals(name)) {
        return Optional.of(e.getValue());
      }
    }
    return Optional.empty();
  }
}
