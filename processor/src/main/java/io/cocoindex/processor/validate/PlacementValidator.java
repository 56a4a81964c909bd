package io.cocoindex.processor.validate;

import io.cocoindex.processor.diag.Message;
import io.cocoindex.processor.diag.Reporter;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.mirror.Mirrors;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;

/**
 * Checks that the annotations of a type's members apply where they sit: {@code @Key} on
 * components of {@code @TargetValue} records, {@code @ChildHandler} on methods of
 * {@code @ContainerTarget} or {@code @NestedContainer} handlers (or of an abstract class they
 * extend).
 */
public final class PlacementValidator {
  private PlacementValidator() {}

  /** Reports each misplaced {@code @Key} or {@code @ChildHandler} of a member of {@code type}. */
  public static void validate(TypeElement type, Reporter reporter) {
    for (Element member : type.getEnclosedElements()) {
      if (member.getKind() == ElementKind.RECORD_COMPONENT
          && Mirrors.has(member, AnnotationNames.KEY)
          && !Mirrors.has(type, AnnotationNames.TARGET_VALUE)) {
        // An action's or a tracking record's: annotating it @TargetValue would be wrong.
        String other = Mirrors.has(type, AnnotationNames.ACTION_VALUE) ? "an @ActionValue"
            : Mirrors.has(type, AnnotationNames.TRACKING_RECORD) ? "a @TrackingRecord" : null;
        reporter.error(
            TypeInspector.positionOf(member),
            Message.WRONG_ELEMENT_KIND,
            "@Key",
            "components of @TargetValue records",
            type,
            other == null
                ? "is not annotated @TargetValue"
                : "is " + other + " record, which has no key (reconcile gets the target state's)",
            other == null ? "annotate it, or remove @Key" : "remove @Key");
      }
      // An abstract class may hold the @ChildHandler method its container subclasses share.
      if (member.getKind() == ElementKind.METHOD
          && Mirrors.has(member, AnnotationNames.CHILD_HANDLER)
          && !Mirrors.has(type, AnnotationNames.CONTAINER_TARGET)
          && !Mirrors.has(type, AnnotationNames.NESTED_CONTAINER)
          && !type.getModifiers().contains(Modifier.ABSTRACT)) {
        // A @RootTarget given a @ChildHandler is a container its author did not declare one.
        boolean root = Mirrors.has(type, AnnotationNames.ROOT_TARGET);
        reporter.error(
            member,
            Mirrors.find(member, AnnotationNames.CHILD_HANDLER).orElseThrow(),
            Message.WRONG_ELEMENT_KIND,
            "@ChildHandler",
            "methods of @ContainerTarget handlers",
            type,
            root
                ? "is a @RootTarget, whose target states hold no children"
                : "is not annotated @ContainerTarget",
            root
                ? "make it a @ContainerTarget(provider, name, child, childValue) if they hold"
                    + " some, or remove @ChildHandler"
                : "annotate it, or remove @ChildHandler (a child handler whose target states hold"
                    + " children of their own is annotated @NestedContainer instead)");
      }
    }
  }
}
