package io.cocoindex.processor.mirror;

import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;

/**
 * A {@code @RootTarget}, {@code @ContainerTarget} or {@code @NestedContainer} as typed values, with the mirrors needed to
 * point diagnostics at each attribute.
 *
 * @param annotationName the annotation's qualified name
 * @param mirror the annotation
 * @param provider the provider name (empty for a nested container)
 * @param name the target's noun
 * @param api the API class name, empty for the default
 * @param child the children's noun (containers only)
 * @param childValue the children's value type (containers only)
 * @param unresolved whether a value names what javac has not resolved yet (a class or constant
 *     another processor generates in a later round): javac gives no type or string for it
 */
public record TargetAnnotation(
    String annotationName,
    AnnotationMirror mirror,
    String provider,
    String name,
    String api,
    Optional<String> child,
    Optional<TypeMirror> childValue,
    boolean unresolved) {

  public boolean isContainer() {
    return child.isPresent();
  }

  /** Whether this is a {@code @NestedContainer}: no provider, no API class, no registration. */
  public boolean isNested() {
    return annotationName.equals(AnnotationNames.NESTED_CONTAINER);
  }

  /** Reads the {@code @NestedContainer} of {@code element}; empty when it has none. */
  public static Optional<TargetAnnotation> readNested(Elements elements, Element element) {
    return Mirrors.find(element, AnnotationNames.NESTED_CONTAINER)
        .map(
            m -> {
              Object childValue = Mirrors.value(elements, m, "childValue").getValue();
              return new TargetAnnotation(
                  AnnotationNames.NESTED_CONTAINER,
                  m,
                  "",
                  string(elements, m, "name"),
                  "",
                  Optional.of(string(elements, m, "child")),
                  childValue instanceof TypeMirror t ? Optional.of(t) : Optional.empty(),
                  anyUnresolved(elements, m, "name", "child", "childValue"));
            });
  }

  /** The simple name, e.g. {@code RootTarget}. */
  public String simpleName() {
    return AnnotationNames.simple(annotationName);
  }

  /** Reads the root or container annotation of {@code element}; empty when it has neither. */
  public static Optional<TargetAnnotation> read(Elements elements, Element element) {
    Optional<AnnotationMirror> container =
        Mirrors.find(element, AnnotationNames.CONTAINER_TARGET);
    if (container.isPresent()) {
      AnnotationMirror m = container.get();
      Object childValue = Mirrors.value(elements, m, "childValue").getValue();
      return Optional.of(
          new TargetAnnotation(
              AnnotationNames.CONTAINER_TARGET,
              m,
              string(elements, m, "provider"),
              string(elements, m, "name"),
              string(elements, m, "api"),
              Optional.of(string(elements, m, "child")),
              childValue instanceof TypeMirror t ? Optional.of(t) : Optional.empty(),
              anyUnresolved(elements, m, "provider", "name", "api", "child", "childValue")));
    }
    return Mirrors.find(element, AnnotationNames.ROOT_TARGET)
        .map(
            m ->
                new TargetAnnotation(
                    AnnotationNames.ROOT_TARGET,
                    m,
                    string(elements, m, "provider"),
                    string(elements, m, "name"),
                    string(elements, m, "api"),
                    Optional.empty(),
                    Optional.empty(),
                    anyUnresolved(elements, m, "provider", "name", "api")));
  }

  private static boolean anyUnresolved(Elements elements, AnnotationMirror m, String... names) {
    for (String name : names) {
      if (Mirrors.isUnresolved(Mirrors.value(elements, m, name))) {
        return true;
      }
    }
    return false;
  }

  /** The written value of an attribute, for diagnostics. */
  public Optional<AnnotationValue> valueOf(String attribute) {
    return Mirrors.explicitValue(mirror, attribute);
  }

  private static String string(Elements elements, AnnotationMirror m, String name) {
    return String.valueOf(Mirrors.value(elements, m, name).getValue());
  }
}
