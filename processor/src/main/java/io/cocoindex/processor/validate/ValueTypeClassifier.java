package io.cocoindex.processor.validate;

import com.palantir.javapoet.ClassName;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.mirror.Mirrors;
import io.cocoindex.processor.model.ValueType;
import io.cocoindex.processor.model.ValueType.PrimitiveKind;
import io.cocoindex.processor.model.ValueType.ScalarKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * Decides how a component type is serialized, or why it cannot be: the one place that defines
 * the supported types.
 */
public final class ValueTypeClassifier {

  /** A classification: a shape, or the reason there is none (naming the offending type). */
  public record Classified(ValueType type, String problem) {
    static Classified of(ValueType type) {
      return new Classified(type, null);
    }

    static Classified problem(String problem) {
      return new Classified(null, problem);
    }

    public boolean ok() {
      return problem == null;
    }
  }

  private static final Map<String, PrimitiveKind> BOXES =
      Map.of(
          Boolean.class.getName(), PrimitiveKind.BOOLEAN,
          Byte.class.getName(), PrimitiveKind.BYTE,
          Short.class.getName(), PrimitiveKind.SHORT,
          Integer.class.getName(), PrimitiveKind.INT,
          Long.class.getName(), PrimitiveKind.LONG,
          Float.class.getName(), PrimitiveKind.FLOAT,
          Double.class.getName(), PrimitiveKind.DOUBLE,
          Character.class.getName(), PrimitiveKind.CHAR);

  private static final Map<String, ScalarKind> SCALARS =
      Map.of(
          String.class.getName(), ScalarKind.STRING,
          UUID.class.getName(), ScalarKind.UUID,
          Fingerprint.class.getName(), ScalarKind.FINGERPRINT,
          StableKey.class.getName(), ScalarKind.STABLE_KEY);

  private static final String SUPPORTED =
      "use a primitive or its box, String, byte[], UUID, Fingerprint, StableKey, an enum, a record"
          + " annotated @TargetValue (or @ActionValue, @TrackingRecord), or a List, Set, Map<String,"
          + " ?> or Optional of those";

  public Classified classify(TypeMirror type) {
    TypeKind kind = type.getKind();
    if (kind.isPrimitive()) {
      return Classified.of(new ValueType.Primitive(PrimitiveKind.valueOf(kind.name())));
    }
    if (type instanceof ArrayType a) {
      if (a.getComponentType().getKind() == TypeKind.BYTE) {
        return Classified.of(new ValueType.Scalar(ScalarKind.BYTES));
      }
      return Classified.problem(
          "arrays other than byte[] are not supported; use List<"
              + boxedName(a.getComponentType())
              + ">");
    }
    if (kind == TypeKind.TYPEVAR) {
      return Classified.problem(
          "the type variable " + type + " has no codec; use a concrete type");
    }
    if (kind == TypeKind.WILDCARD) {
      return Classified.problem("the wildcard " + type + " has no codec; use a concrete type");
    }
    if (!(type instanceof DeclaredType declared)) {
      return Classified.problem(type + " is not a supported type; " + SUPPORTED);
    }
    TypeElement element = (TypeElement) declared.asElement();
    String name = element.getQualifiedName().toString();
    if (BOXES.containsKey(name)) {
      return Classified.of(new ValueType.Boxed(BOXES.get(name)));
    }
    if (SCALARS.containsKey(name)) {
      return Classified.of(new ValueType.Scalar(SCALARS.get(name)));
    }
    if (element.getKind() == ElementKind.ENUM) {
      return Classified.of(new ValueType.EnumRef(ClassName.get(element)));
    }
    List<? extends TypeMirror> args = declared.getTypeArguments();
    if (name.equals(List.class.getName()) || name.equals(Set.class.getName())
        || name.equals(Optional.class.getName())) {
      if (args.isEmpty()) {
        return Classified.problem("the raw " + name + " has no element type; write its type argument");
      }
      Classified element0 = classify(args.get(0));
      if (!element0.ok()) {
        return element0;
      }
      if (name.equals(List.class.getName())) {
        return Classified.of(new ValueType.ListOf(element0.type()));
      }
      if (name.equals(Optional.class.getName())) {
        return Classified.of(new ValueType.OptionalOf(element0.type()));
      }
      if (!isNaturallyOrdered(element0.type())) {
        return Classified.problem(
            "the elements of a Set are stored sorted so equal sets store equal bytes, and "
                + args.get(0)
                + " has no natural order; use a Set of String, a boxed number, Boolean, an enum"
                + " or UUID, or a List");
      }
      return Classified.of(new ValueType.SetOf(element0.type()));
    }
    if (name.equals(Map.class.getName())) {
      if (args.isEmpty()) {
        return Classified.problem("the raw java.util.Map has no key and value types; write them");
      }
      if (!args.get(0).toString().equals(String.class.getName())) {
        return Classified.problem(
            "Map keys are stored as field names, so they must be String, not " + args.get(0));
      }
      Classified value = classify(args.get(1));
      return value.ok() ? Classified.of(new ValueType.MapOf(value.type())) : value;
    }
    if (element.getKind() == ElementKind.RECORD) {
      if (AnnotationNames.CODEC_ANNOTATIONS.stream().noneMatch(a -> Mirrors.has(element, a))) {
        return Classified.problem(
            "the record "
                + name
                + " has no generated codec; annotate it with @TargetValue (or @ActionValue,"
                + " @TrackingRecord)");
      }
      if (!element.getTypeParameters().isEmpty()) {
        return Classified.problem(
            "the generic record " + name + " has no codec; use a record without type parameters");
      }
      return Classified.of(
          new ValueType.RecordRef(
              ClassName.get(element), TypeInspector.sibling(element, "Codec")));
    }
    return Classified.problem(name + " is not a supported type; " + SUPPORTED);
  }

  private static boolean isNaturallyOrdered(ValueType t) {
    if (t instanceof ValueType.Boxed || t instanceof ValueType.EnumRef) {
      return true;
    }
    return t instanceof ValueType.Scalar s
        && (s.kind() == ScalarKind.STRING || s.kind() == ScalarKind.UUID);
  }

  private static String boxedName(TypeMirror t) {
    if (!t.getKind().isPrimitive()) {
      return t.toString();
    }
    String n = t.getKind().name().toLowerCase(java.util.Locale.ROOT);
    return switch (n) {
      case "int" -> "Integer";
      case "char" -> "Character";
      default -> Character.toUpperCase(n.charAt(0)) + n.substring(1);
    };
  }
}
