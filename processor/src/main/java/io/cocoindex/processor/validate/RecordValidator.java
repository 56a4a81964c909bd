package io.cocoindex.processor.validate;

import io.cocoindex.processor.diag.Message;
import io.cocoindex.processor.diag.Reporter;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.mirror.Mirrors;
import io.cocoindex.processor.model.CodecModel;
import io.cocoindex.processor.model.ComponentModel;
import com.palantir.javapoet.ClassName;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.ElementFilter;

/**
 * Validates a record annotated {@code @TargetValue}, {@code @ActionValue} or {@code
 * @TrackingRecord} into the model of its codec.
 */
public final class RecordValidator {
  private final TypeInspector inspector;
  private final ValueTypeClassifier classifier;
  private final NameClaims claims;

  /** @param claims the generated names of the compilation, a codec's among them */
  public RecordValidator(
      TypeInspector inspector, ValueTypeClassifier classifier, NameClaims claims) {
    this.inspector = inspector;
    this.classifier = classifier;
    this.claims = claims;
  }

  /** Whether some component type is not resolved yet (defer to a later round). */
  public boolean isUnresolved(TypeElement type) {
    if (type.getKind() != ElementKind.RECORD) {
      return false;
    }
    return type.getRecordComponents().stream().anyMatch(c -> inspector.containsError(c.asType()));
  }

  public Optional<CodecModel> validate(TypeElement type, Reporter reporter) {
    String annotation =
        AnnotationNames.CODEC_ANNOTATIONS.stream()
            .filter(a -> Mirrors.has(type, a))
            .findFirst()
            .orElseThrow();
    AnnotationMirror mirror = Mirrors.find(type, annotation).orElseThrow();
    String simple = AnnotationNames.simple(annotation);
    if (type.getKind() != ElementKind.RECORD) {
      if (annotation.equals(AnnotationNames.TRACKING_RECORD) && type.getKind() == ElementKind.CLASS) {
        reporter.error(
            type,
            mirror,
            Message.MUTABLE_TRACKING_RECORD,
            type.getQualifiedName(),
            classShape(type),
            type.getSimpleName());
      } else {
        reporter.error(
            type,
            mirror,
            Message.WRONG_ELEMENT_KIND,
            "@" + simple,
            "records",
            type.getQualifiedName(),
            "is " + article(type.getKind()),
            type.getKind() == ElementKind.ENUM
                ? "remove @" + simple + ", as an enum is stored by its constant's name without one"
                : "declare it as a record");
      }
      return Optional.empty();
    }
    if (!TypeInspector.isReachable(type)) {
      reporter.error(type, mirror, Message.INACCESSIBLE_ELEMENT, type.getQualifiedName());
    }
    if (!type.getTypeParameters().isEmpty()) {
      reporter.error(type, mirror, Message.GENERIC_RECORD, simple, type.getQualifiedName());
    }
    List<ComponentModel> components = new ArrayList<>();
    boolean unusable = false;
    Set<TypeElement> offenders = new HashSet<>();
    for (RecordComponentElement c : type.getRecordComponents()) {
      Optional<AnnotationMirror> key = Mirrors.find(c, AnnotationNames.KEY);
      if (key.isPresent() && !KeyModels.isKeyType(c.asType())) {
        // Every key type is serializable, so COCO-009's fix also fixes a COCO-003: report one.
        reporter.error(
            TypeInspector.positionOf(c),
            Message.UNSUPPORTED_KEY_TYPE,
            c.getSimpleName(),
            type.getQualifiedName(),
            c.asType(),
            ValueTypeClassifier.storeAs(c.asType()));
        continue;
      }
      if (!type.getTypeParameters().isEmpty() && inspector.mentionsTypeVariable(c.asType())) {
        continue; // the record's COCO-015 says what to do: one mistake, one error
      }
      ValueTypeClassifier.Classified classified = classifier.classify(c.asType());
      if (classified.reportedOnItself()) {
        unusable = true; // the class's own error (COCO-002) says what to fix
      } else if (!classified.ok()) {
        reporter.error(
            TypeInspector.positionOf(c),
            Message.UNSERIALIZABLE_COMPONENT,
            c.getSimpleName(),
            type.getQualifiedName(),
            c.asType(),
            classified.problem());
      } else if (unreachable(type, c, offenders, reporter)) {
        unusable = true;
      } else {
        components.add(new ComponentModel(c.getSimpleName().toString(), classified.type()));
      }
    }
    if (reporter.hasErrors() || unusable) {
      return Optional.empty();
    }
    // Outer.Inner and a top-level Outer_Inner both have the codec Outer_Inner_Codec.
    ClassName codec = TypeInspector.sibling(type, "Codec");
    Optional<String> other =
        claims.claim("class " + codec.canonicalName(), type.getQualifiedName().toString());
    if (other.isPresent()) {
      reporter.error(
          type,
          mirror,
          Message.GENERATED_NAME_CLASH,
          "@" + simple + " record " + type.getQualifiedName(),
          "the record " + other.get(),
          "the codec " + codec.canonicalName(),
          "rename one of the records");
      return Optional.empty();
    }
    List<String> jackson = jacksonAnnotations(type);
    if (!jackson.isEmpty()) {
      reporter.warning(
          type,
          mirror,
          Message.JACKSON_ANNOTATIONS_IGNORED,
          "@" + simple,
          type.getQualifiedName(),
          String.join(", ", jackson));
    }
    return Optional.of(new CodecModel(ClassName.get(type), codec, components, type));
  }

  /**
   * The Jackson annotations on {@code record}, its components and what javac makes of them (field,
   * accessor), as {@code @Name on 'component'}: each changes what the reflective codec writes,
   * and the generated one reads none.
   */
  private static List<String> jacksonAnnotations(TypeElement record) {
    Set<String> found = new LinkedHashSet<>();
    jacksonIn(record).forEach(a -> found.add(a + " on the record"));
    for (RecordComponentElement c : record.getRecordComponents()) {
      String where = " on '" + c.getSimpleName() + "'";
      jacksonIn(c).forEach(a -> found.add(a + where));
      if (c.getAccessor() != null) {
        jacksonIn(c.getAccessor()).forEach(a -> found.add(a + where));
      }
    }
    for (VariableElement field : ElementFilter.fieldsIn(record.getEnclosedElements())) {
      if (!field.getModifiers().contains(Modifier.STATIC)) {
        String where = " on '" + field.getSimpleName() + "'";
        jacksonIn(field).forEach(a -> found.add(a + where));
      }
    }
    return List.copyOf(found);
  }

  private static List<String> jacksonIn(Element element) {
    List<String> names = new ArrayList<>();
    for (AnnotationMirror a : element.getAnnotationMirrors()) {
      TypeElement annotation = (TypeElement) a.getAnnotationType().asElement();
      if (annotation.getQualifiedName().toString().startsWith("com.fasterxml.jackson.")) {
        names.add("@" + annotation.getSimpleName());
      }
    }
    return names;
  }

  /**
   * Whether the codec could not name a type of component {@code c}: reported (COCO-024) once per
   * type out of reach ({@code offenders} so far), unless it is a private record with a codec
   * annotation, whose own COCO-014 says it already.
   */
  private static boolean unreachable(
      TypeElement type, RecordComponentElement c, Set<TypeElement> offenders, Reporter reporter) {
    Optional<TypeInspector.Unreachable> u =
        TypeInspector.unreachableFrom(c.asType(), TypeInspector.packageOf(type));
    if (u.isEmpty()) {
      return false;
    }
    if (!u.get().reportedOnItself() && offenders.add(u.get().offender())) {
      reporter.error(
          TypeInspector.positionOf(c),
          Message.INACCESSIBLE_TYPE,
          "component '" + c.getSimpleName() + "' of " + type.getQualifiedName() + " has type "
              + c.asType(),
          TypeInspector.Unreachable.describe(u.get().from()),
          u.get().offender().getQualifiedName(),
          u.get().why(),
          u.get().fix());
    }
    return true;
  }

  private static String classShape(TypeElement type) {
    for (VariableElement field : ElementFilter.fieldsIn(type.getEnclosedElements())) {
      if (!field.getModifiers().contains(Modifier.STATIC)
          && !field.getModifiers().contains(Modifier.FINAL)) {
        return "a class with the non-final field '" + field.getSimpleName() + "'";
      }
    }
    return "a class, not a record";
  }

  static String article(ElementKind kind) {
    String name = kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    return ("aeiou".indexOf(name.charAt(0)) >= 0 ? "an " : "a ") + name;
  }

}
