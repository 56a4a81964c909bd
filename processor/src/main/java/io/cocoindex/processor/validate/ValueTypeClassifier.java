package io.cocoindex.processor.validate;

import com.palantir.javapoet.ClassName;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.mirror.Mirrors;
import io.cocoindex.processor.model.ValueType;
import io.cocoindex.processor.model.ValueType.PrimitiveKind;
import io.cocoindex.processor.model.ValueType.ScalarKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;

/**
 * Decides how a record component or a handler's type argument is serialized, or why it cannot
 * be: the one place that defines the supported types.
 */
public final class ValueTypeClassifier {

  /**
   * A classification: the shape a generated codec writes; no shape for a type only the runtime's
   * reflective codec writes (a record without codec annotation, or a collection of one, in a
   * handler's type argument); or the reason it cannot be serialized, naming the offending type.
   *
   * @param type the shape, null when there is none
   * @param problem why it cannot be serialized, null when it can
   * @param unresolved whether the problem is a type javac has not resolved yet (wait for it)
   */
  public record Classified(
      ValueType type, String problem, boolean unresolved, boolean reportedOnItself) {
    static Classified of(ValueType type) {
      return new Classified(type, null, false, false);
    }

    static Classified reflective() {
      return new Classified(null, null, false, false);
    }

    static Classified problem(String problem) {
      return new Classified(null, problem, false, false);
    }

    static Classified unresolved(TypeMirror type) {
      return new Classified(null, type + " is not resolved yet", true, false);
    }

    /**
     * A class annotated for a generated codec that is not a record: the annotation's check
     * reports it on the class (COCO-002), so a type using it is not reported again, and one
     * mistake gives one error.
     */
    static Classified reportedOnItself(String name) {
      return reportedOnItself(name, "is not a record");
    }

    /** A type whose own error (COCO-002, COCO-015) is reported on it: {@code name is what}. */
    static Classified reportedOnItself(String name, String what) {
      return new Classified(null, name + " " + what, false, true);
    }

    public boolean ok() {
      return problem == null;
    }

    /** This problem as met inside {@code where}, keeping whether it is reported on itself. */
    Classified within(String where) {
      return new Classified(null, where + problem, unresolved, reportedOnItself);
    }

    /** This classification, or a container of it whose shape {@code wrap} gives. */
    Classified map(UnaryOperator<ValueType> wrap) {
      return !ok() || type == null ? this : of(wrap.apply(type));
    }
  }

  /**
   * A handler type argument that cannot be serialized.
   *
   * @param type the type argument
   * @param roles its roles, e.g. {@code value type V and action type A}
   * @param problem why
   */
  public record HandlerTypeProblem(TypeMirror type, String roles, String problem) {}

  /** Which codec serializes the type, which decides the records it may hold. */
  private enum Codec {
    /** A generated codec: a nested record needs a generated codec of its own. */
    GENERATED,
    /**
     * The runtime's codec of a handler's type argument: a record's generated codec when it has
     * one, otherwise the reflective (Jackson) one, which also writes records without annotation,
     * component by component.
     */
    HANDLER
  }

  private static final String[] HANDLER_ROLES = {
    "value type V", "tracking record type R", "action type A"
  };

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

  private static final String SUPPORTED_BY_HANDLERS =
      "use String, a boxed primitive, byte[], UUID, Fingerprint, StableKey, an enum, a record"
          + " (annotated @TargetValue, @ActionValue or @TrackingRecord for a generated codec), or a"
          + " List, Set, Map<String, ?> or Optional of those";

  /**
   * How to store the JDK's value types that have no codec, by qualified name: the conversion an
   * author would otherwise look up, given with the type that reads it back.
   */
  private static final Map<String, String> CONVERSIONS = conversions();

  private static Map<String, String> conversions() {
    Map<String, String> m = new HashMap<>();
    for (String time : List.of("LocalDate", "LocalDateTime", "LocalTime", "OffsetDateTime",
        "OffsetTime", "ZonedDateTime", "Duration", "Period", "Year", "YearMonth", "MonthDay")) {
      m.put("java.time." + time, "a String (toString(), read back by " + time + ".parse)");
    }
    m.put("java.time.Instant", "a String (toString(), read back by Instant.parse) or a long"
        + " (toEpochMilli(), read back by Instant.ofEpochMilli)");
    m.put("java.time.ZoneId", "a String (getId(), read back by ZoneId.of)");
    m.put("java.util.Date", "a long (getTime(), read back by new Date)");
    m.put("java.nio.file.Path", "a String (toString(), read back by Path.of)");
    m.put("java.io.File", "a String (getPath(), read back by new File)");
    m.put("java.net.URI", "a String (toString(), read back by URI.create)");
    m.put("java.net.URL", "a String (toString(), read back by URI.create(s).toURL())");
    m.put("java.math.BigDecimal", "a String (toString(), read back by new BigDecimal; a double"
        + " would round it)");
    m.put("java.math.BigInteger", "a String (toString(), read back by new BigInteger)");
    return Map.copyOf(m);
  }

  private final Types types;

  public ValueTypeClassifier(Types types) {
    this.types = types;
  }

  /** How a record component of a record with a generated codec is serialized. */
  public Classified classify(TypeMirror type) {
    return classify(type, Codec.GENERATED, new HashSet<>());
  }

  /**
   * How a handler's type argument is serialized: as a record component would be, except that a
   * record without codec annotation is serialized reflectively, so its components must be
   * serializable instead; an annotated record is checked where it is declared.
   */
  public Classified classifyHandlerType(TypeMirror type) {
    return classify(type, Codec.HANDLER, new HashSet<>());
  }

  /**
   * The handler type arguments {@code vra} (V, R, A) that cannot be serialized, each type once
   * with all its roles; an unresolved type is left out (the caller waits for it).
   */
  public List<HandlerTypeProblem> handlerTypeProblems(List<? extends TypeMirror> vra) {
    List<HandlerTypeProblem> problems = new ArrayList<>();
    boolean[] done = new boolean[vra.size()];
    for (int i = 0; i < vra.size(); i++) {
      if (done[i]) {
        continue;
      }
      Classified c = classifyHandlerType(vra.get(i));
      if (c.ok() || c.unresolved() || c.reportedOnItself()) {
        continue;
      }
      List<String> roles = new ArrayList<>(List.of(HANDLER_ROLES[i]));
      for (int j = i + 1; j < vra.size(); j++) {
        if (types.isSameType(vra.get(i), vra.get(j))) {
          done[j] = true;
          roles.add(HANDLER_ROLES[j]);
        }
      }
      String joined =
          roles.size() == 1
              ? roles.get(0)
              : String.join(", ", roles.subList(0, roles.size() - 1))
                  + " and "
                  + roles.get(roles.size() - 1);
      problems.add(new HandlerTypeProblem(vra.get(i), joined, c.problem()));
    }
    return problems;
  }

  /** Whether a handler type argument mentions a type javac has not resolved yet. */
  public boolean isUnresolvedHandlerType(TypeMirror type) {
    return classifyHandlerType(type).unresolved();
  }

  /**
   * @param visiting the records without annotation being checked, so that a record reaching
   *     itself through its components ends
   */
  private Classified classify(TypeMirror type, Codec codec, Set<String> visiting) {
    TypeKind kind = type.getKind();
    if (kind == TypeKind.ERROR) {
      return Classified.unresolved(type);
    }
    if (kind.isPrimitive()) {
      return Classified.of(new ValueType.Primitive(PrimitiveKind.valueOf(kind.name())));
    }
    if (type instanceof ArrayType a) {
      if (a.getComponentType().getKind() == TypeKind.BYTE) {
        return Classified.of(new ValueType.Scalar(ScalarKind.BYTES));
      }
      return arrayProblem(a, codec, visiting);
    }
    if (kind == TypeKind.TYPEVAR) {
      return Classified.problem(
          "the type variable " + type + " has no codec; use a concrete type");
    }
    if (kind == TypeKind.WILDCARD) {
      return Classified.problem("the wildcard " + type + " has no codec; use a concrete type");
    }
    String supported = codec == Codec.GENERATED ? SUPPORTED : SUPPORTED_BY_HANDLERS;
    if (!(type instanceof DeclaredType declared)) {
      return Classified.problem(type + " is not a supported type; " + supported);
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
      if (name.equals(Optional.class.getName()) && isOptional(args.get(0))) {
        return Classified.problem(
            "an Optional of an Optional is stored as null when either is empty, so"
                + " Optional.of(Optional.empty()) would read back as Optional.empty(); use one"
                + " Optional");
      }
      Classified element0 = classify(args.get(0), codec, visiting);
      if (name.equals(List.class.getName())) {
        return element0.map(ValueType.ListOf::new);
      }
      if (name.equals(Optional.class.getName())) {
        return element0.map(ValueType.OptionalOf::new);
      }
      if (!element0.ok()) {
        return element0;
      }
      if (element0.type() == null || !isNaturallyOrdered(element0.type())) {
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
      // By the element, not toString(): a type annotation (Map<@NonNull String, V>) is printed.
      if (!(args.get(0) instanceof DeclaredType key
          && ((TypeElement) key.asElement()).getQualifiedName().contentEquals("java.lang.String"))) {
        return Classified.problem(
            "Map keys are stored as field names, so they must be String, not " + args.get(0));
      }
      return classify(args.get(1), codec, visiting).map(ValueType.MapOf::new);
    }
    if (element.getKind() == ElementKind.RECORD) {
      boolean annotated =
          AnnotationNames.CODEC_ANNOTATIONS.stream().anyMatch(a -> Mirrors.has(element, a));
      if (!annotated && codec == Codec.HANDLER) {
        return reflectiveRecord(declared, element, visiting);
      }
      if (!annotated) {
        return Classified.problem(
            "the record "
                + name
                + " has no generated codec; annotate it with @TargetValue (or @ActionValue,"
                + " @TrackingRecord)");
      }
      // An annotated record's own components and type parameters are reported on the record
      // (a generic one is COCO-015), not again on each record using it.
      if (!element.getTypeParameters().isEmpty() && codec == Codec.GENERATED) {
        return Classified.reportedOnItself(name, "is generic");
      }
      return Classified.of(
          new ValueType.RecordRef(
              ClassName.get(element), TypeInspector.sibling(element, "Codec")));
    }
    if (AnnotationNames.CODEC_ANNOTATIONS.stream().anyMatch(a -> Mirrors.has(element, a))) {
      return Classified.reportedOnItself(name);
    }
    return Classified.problem(name + " is not a supported type; " + storeAs(declared) + supported);
  }

  /**
   * How to store {@code type} when it is one of the JDK's value types without a codec, as the
   * start of an advice ({@code "store it as a String (...), or "}); empty for any other type.
   * Each conversion gives a String or a long, so it serves a key component as well.
   *
   * @param type a type that cannot be serialized, or be part of a key
   * @return the advice's start, or {@code ""}
   */
  public static String storeAs(TypeMirror type) {
    String conversion = type instanceof DeclaredType declared
        ? CONVERSIONS.get(((TypeElement) declared.asElement()).getQualifiedName().toString())
        : null;
    return conversion == null ? "" : "store it as " + conversion + ", or ";
  }

  /**
   * A record without codec annotation in a handler's type argument: the runtime writes it
   * reflectively, component by component (the component types as seen from {@code declared}, so
   * a generic record's type arguments count).
   */
  private Classified reflectiveRecord(
      DeclaredType declared, TypeElement element, Set<String> visiting) {
    if (!visiting.add(declared.toString())) {
      return Classified.reflective(); // reached through its own components: checked once
    }
    for (RecordComponentElement c : element.getRecordComponents()) {
      TypeMirror component =
          ((ExecutableType) types.asMemberOf(declared, c.getAccessor())).getReturnType();
      Classified classified = classify(component, Codec.HANDLER, visiting);
      if (classified.unresolved()) {
        return classified;
      }
      if (!classified.ok()) {
        return classified.within(
            "the record "
                + element.getQualifiedName()
                + ", without @TargetValue, @ActionValue or @TrackingRecord, is serialized"
                + " reflectively, and its component '"
                + c.getSimpleName()
                + "' has type "
                + component
                + ": ");
      }
    }
    return Classified.reflective();
  }

  /**
   * Why an array other than {@code byte[]} cannot be serialized, with the List to write instead
   * when its elements can be; otherwise what is wrong with them (a List of them would not do).
   */
  private Classified arrayProblem(ArrayType a, Codec codec, Set<String> visiting) {
    String list = listReplacing(a, codec, visiting);
    if (list != null) {
      return Classified.problem("arrays other than byte[] are not supported; use " + list);
    }
    TypeMirror element = a.getComponentType();
    while (isArrayOtherThanBytes(element)) {
      element = ((ArrayType) element).getComponentType();
    }
    Classified elements = classify(element, codec, visiting);
    return elements.unresolved()
        ? elements
        : Classified.problem(
            "arrays other than byte[] are not supported, and neither are their elements: "
                + elements.problem());
  }

  /** {@code List<Float>} for {@code float[]}, {@code List<List<Integer>>} for {@code int[][]}. */
  private String listReplacing(ArrayType a, Codec codec, Set<String> visiting) {
    TypeMirror element = a.getComponentType();
    String name;
    if (element.getKind().isPrimitive()) {
      name = boxedName(element);
    } else if (isArrayOtherThanBytes(element)) {
      name = listReplacing((ArrayType) element, codec, visiting);
    } else {
      name = classify(element, codec, visiting).ok() ? element.toString() : null;
    }
    return name == null ? null : "List<" + name + ">";
  }

  private static boolean isOptional(TypeMirror t) {
    return t instanceof DeclaredType d
        && ((TypeElement) d.asElement()).getQualifiedName().contentEquals(Optional.class.getName());
  }

  private static boolean isArrayOtherThanBytes(TypeMirror t) {
    return t instanceof ArrayType a && a.getComponentType().getKind() != TypeKind.BYTE;
  }

  private static boolean isNaturallyOrdered(ValueType t) {
    if (t instanceof ValueType.Boxed || t instanceof ValueType.EnumRef) {
      return true;
    }
    return t instanceof ValueType.Scalar s
        && (s.kind() == ScalarKind.STRING || s.kind() == ScalarKind.UUID);
  }

  /** The simple name of a primitive's box ({@code Integer} for {@code int}); other types as is. */
  static String boxedName(TypeMirror t) {
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
